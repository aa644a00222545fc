CREATE TABLE "diary_days" (
	"user_id" uuid NOT NULL,
	"date" date NOT NULL,
	"version" "xid8" NOT NULL,
	CONSTRAINT "diary_days_user_id_date_pk" PRIMARY KEY("user_id","date")
);
--> statement-breakpoint
ALTER TABLE "diary_days" ADD CONSTRAINT "diary_days_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Hand-written from here. A day's version is the id of the last transaction that changed it (never reused, so a
-- kept day cannot match a later state by chance); a day without a row was never written. Moving an entry changes
-- both days. Rows removed together with their user (account deletion) leave nothing behind. users.diary_version is
-- still bumped until a later migration drops it: API processes of the previous release check their kept days by it
-- while a rollout replaces them (migrations only add).
CREATE OR REPLACE FUNCTION bump_diary_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH changed(user_id, date) AS (
    SELECT OLD.user_id, OLD.date WHERE TG_OP <> 'INSERT'
    UNION SELECT NEW.user_id, NEW.date WHERE TG_OP <> 'DELETE'),
  days AS (
    INSERT INTO diary_days (user_id, date, version)
    SELECT c.user_id, c.date, pg_current_xact_id() FROM changed c WHERE EXISTS (SELECT 1 FROM users WHERE id = c.user_id)
    ON CONFLICT (user_id, date) DO UPDATE SET version = excluded.version)
  UPDATE users SET diary_version = diary_version + 1 WHERE id IN (SELECT user_id FROM changed);
  RETURN NULL;
END $$;
