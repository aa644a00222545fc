CREATE TABLE "diary_days" (
	"user_id" uuid NOT NULL,
	"date" date NOT NULL,
	"version" "xid8" NOT NULL,
	CONSTRAINT "diary_days_user_id_date_pk" PRIMARY KEY("user_id","date")
);
--> statement-breakpoint
ALTER TABLE "diary_days" ADD CONSTRAINT "diary_days_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" DROP COLUMN "diary_version";--> statement-breakpoint
-- Hand-written from here. A day's version is the id of the last transaction that changed it (never reused, so a
-- kept day cannot match a later state by chance); a day without a row was never written. Moving an entry changes
-- both days. Rows removed together with their user (account deletion) leave nothing behind.
CREATE OR REPLACE FUNCTION bump_diary_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO diary_days (user_id, date, version)
  SELECT k.user_id, k.date, pg_current_xact_id()
  FROM (SELECT OLD.user_id, OLD.date WHERE TG_OP <> 'INSERT'
        UNION SELECT NEW.user_id, NEW.date WHERE TG_OP <> 'DELETE') k(user_id, date)
  WHERE EXISTS (SELECT 1 FROM users WHERE id = k.user_id)
  ON CONFLICT (user_id, date) DO UPDATE SET version = excluded.version;
  RETURN NULL;
END $$;
