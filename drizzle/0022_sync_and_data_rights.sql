CREATE TABLE "sync_changes" (
	"row_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"user_id" uuid NOT NULL,
	"xid" "xid8" NOT NULL,
	"deleted" boolean DEFAULT false NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sync_changes_row_id_kind_pk" PRIMARY KEY("row_id","kind"),
	CONSTRAINT "sync_changes_kind_check" CHECK (kind IN ('diary_entries', 'user_products', 'saved_recipes', 'menu_items', 'shopping_items', 'profile'))
);
--> statement-breakpoint
ALTER TABLE "dishes" DROP CONSTRAINT "dishes_created_by_users_id_fk";
--> statement-breakpoint
ALTER TABLE "recipes" DROP CONSTRAINT "recipes_created_by_users_id_fk";
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "meal_diary" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "meal_diary" ADD COLUMN "client_hash" text;--> statement-breakpoint
ALTER TABLE "menu_items" ADD COLUMN "user_id" uuid;--> statement-breakpoint
UPDATE "menu_items" i SET user_id = p.user_id FROM "menu_plans" p WHERE p.id = i.menu_plan_id;--> statement-breakpoint
ALTER TABLE "menu_items" ALTER COLUMN "user_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "menu_items" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "shopping_list_items" ADD COLUMN "user_id" uuid;--> statement-breakpoint
UPDATE "shopping_list_items" i SET user_id = p.user_id FROM "shopping_lists" p WHERE p.id = i.shopping_list_id;--> statement-breakpoint
ALTER TABLE "shopping_list_items" ALTER COLUMN "user_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "shopping_list_items" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "shopping_list_items" ADD COLUMN "client_hash" text;--> statement-breakpoint
ALTER TABLE "user_products" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "user_products" ADD COLUMN "client_hash" text;--> statement-breakpoint
ALTER TABLE "user_saved_recipes" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "user_saved_recipes" ADD COLUMN "client_hash" text;--> statement-breakpoint
ALTER TABLE "sync_changes" ADD CONSTRAINT "sync_changes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sync_changes_feed_idx" ON "sync_changes" USING btree ("user_id","xid","kind","row_id");--> statement-breakpoint
CREATE INDEX "sync_changes_tombstones_idx" ON "sync_changes" USING btree ("changed_at") WHERE "sync_changes"."deleted";--> statement-breakpoint
ALTER TABLE "dishes" ADD CONSTRAINT "dishes_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recipes" ADD CONSTRAINT "recipes_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "menu_items" ADD CONSTRAINT "menu_items_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shopping_list_items" ADD CONSTRAINT "shopping_list_items_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "menu_items_user_idx" ON "menu_items" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "shopping_list_items_user_idx" ON "shopping_list_items" USING btree ("user_id");--> statement-breakpoint
-- Hand-written from here. Items carry their list's or plan's owner, copied on insert, so the change feed and account
-- deletion find them without the parent (which a cascade may already have removed).
CREATE FUNCTION copy_parent_owner() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'menu_items' THEN
    NEW.user_id := (SELECT user_id FROM menu_plans WHERE id = NEW.menu_plan_id);
  ELSE
    NEW.user_id := (SELECT user_id FROM shopping_lists WHERE id = NEW.shopping_list_id);
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER menu_items_owner BEFORE INSERT ON menu_items FOR EACH ROW EXECUTE FUNCTION copy_parent_owner();
--> statement-breakpoint
CREATE TRIGGER shopping_list_items_owner BEFORE INSERT ON shopping_list_items
  FOR EACH ROW EXECUTE FUNCTION copy_parent_owner();
--> statement-breakpoint
-- A row's version goes up with every update that changes it (If-Match compares it).
CREATE FUNCTION bump_row_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.version := OLD.version + 1;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER meal_diary_row_version BEFORE UPDATE ON meal_diary
  FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION bump_row_version();
--> statement-breakpoint
CREATE TRIGGER user_products_row_version BEFORE UPDATE ON user_products
  FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION bump_row_version();
--> statement-breakpoint
CREATE TRIGGER user_saved_recipes_row_version BEFORE UPDATE ON user_saved_recipes
  FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION bump_row_version();
--> statement-breakpoint
CREATE TRIGGER menu_items_row_version BEFORE UPDATE ON menu_items
  FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION bump_row_version();
--> statement-breakpoint
CREATE TRIGGER shopping_list_items_row_version BEFORE UPDATE ON shopping_list_items
  FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION bump_row_version();
--> statement-breakpoint
-- The profile's fields only: the diary version and sign-in bookkeeping on the same row are not profile changes.
CREATE TRIGGER users_profile_version BEFORE UPDATE ON users FOR EACH ROW
  WHEN ((OLD.email, OLD.name, OLD.date_of_birth, OLD.sex, OLD.height_cm, OLD.weight_kg, OLD.activity_level, OLD.goal,
         OLD.plan, OLD.preferences, OLD.timezone)
        IS DISTINCT FROM (NEW.email, NEW.name, NEW.date_of_birth, NEW.sex, NEW.height_cm, NEW.weight_kg,
         NEW.activity_level, NEW.goal, NEW.plan, NEW.preferences, NEW.timezone))
  EXECUTE FUNCTION bump_row_version();
--> statement-breakpoint
-- The change feed: each change rewrites the row's entry with the id of the transaction that made it, and wakes the
-- owner's sync streams on commit. Rows removed together with their user (account deletion) leave nothing behind.
CREATE FUNCTION record_sync_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  owner uuid;
  changed uuid;
BEGIN
  -- Separate statements: a field is looked up when its statement first runs, and users have no user_id.
  IF TG_TABLE_NAME = 'users' THEN
    changed := NEW.id;
    owner := NEW.id;
  ELSIF TG_OP = 'DELETE' THEN
    changed := OLD.id;
    owner := OLD.user_id;
  ELSE
    changed := NEW.id;
    owner := NEW.user_id;
  END IF;
  INSERT INTO sync_changes AS c (row_id, kind, user_id, xid, deleted, changed_at)
  SELECT changed, TG_ARGV[0], owner, pg_current_xact_id(), TG_OP = 'DELETE', now()
  WHERE EXISTS (SELECT 1 FROM users WHERE id = owner)
  ON CONFLICT (row_id, kind) DO UPDATE
    SET user_id = excluded.user_id, xid = excluded.xid, deleted = excluded.deleted, changed_at = excluded.changed_at;
  PERFORM pg_notify('sync_changed', owner::text);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER meal_diary_sync AFTER INSERT OR DELETE ON meal_diary
  FOR EACH ROW EXECUTE FUNCTION record_sync_change('diary_entries');
--> statement-breakpoint
CREATE TRIGGER meal_diary_sync_update AFTER UPDATE ON meal_diary
  FOR EACH ROW WHEN (OLD.version <> NEW.version) EXECUTE FUNCTION record_sync_change('diary_entries');
--> statement-breakpoint
CREATE TRIGGER user_products_sync AFTER INSERT OR DELETE ON user_products
  FOR EACH ROW EXECUTE FUNCTION record_sync_change('user_products');
--> statement-breakpoint
CREATE TRIGGER user_products_sync_update AFTER UPDATE ON user_products
  FOR EACH ROW WHEN (OLD.version <> NEW.version) EXECUTE FUNCTION record_sync_change('user_products');
--> statement-breakpoint
CREATE TRIGGER user_saved_recipes_sync AFTER INSERT OR DELETE ON user_saved_recipes
  FOR EACH ROW EXECUTE FUNCTION record_sync_change('saved_recipes');
--> statement-breakpoint
CREATE TRIGGER user_saved_recipes_sync_update AFTER UPDATE ON user_saved_recipes
  FOR EACH ROW WHEN (OLD.version <> NEW.version) EXECUTE FUNCTION record_sync_change('saved_recipes');
--> statement-breakpoint
CREATE TRIGGER menu_items_sync AFTER INSERT OR DELETE ON menu_items
  FOR EACH ROW EXECUTE FUNCTION record_sync_change('menu_items');
--> statement-breakpoint
CREATE TRIGGER menu_items_sync_update AFTER UPDATE ON menu_items
  FOR EACH ROW WHEN (OLD.version <> NEW.version) EXECUTE FUNCTION record_sync_change('menu_items');
--> statement-breakpoint
CREATE TRIGGER shopping_list_items_sync AFTER INSERT OR DELETE ON shopping_list_items
  FOR EACH ROW EXECUTE FUNCTION record_sync_change('shopping_items');
--> statement-breakpoint
CREATE TRIGGER shopping_list_items_sync_update AFTER UPDATE ON shopping_list_items
  FOR EACH ROW WHEN (OLD.version <> NEW.version) EXECUTE FUNCTION record_sync_change('shopping_items');
--> statement-breakpoint
CREATE TRIGGER users_profile_sync AFTER INSERT ON users
  FOR EACH ROW EXECUTE FUNCTION record_sync_change('profile');
--> statement-breakpoint
CREATE TRIGGER users_profile_sync_update AFTER UPDATE ON users
  FOR EACH ROW WHEN (OLD.version <> NEW.version) EXECUTE FUNCTION record_sync_change('profile');
--> statement-breakpoint
-- Rows that exist now enter the feed with this migration's transaction.
INSERT INTO sync_changes (row_id, kind, user_id, xid)
  SELECT id, 'diary_entries', user_id, pg_current_xact_id() FROM meal_diary
  UNION ALL SELECT id, 'user_products', user_id, pg_current_xact_id() FROM user_products
  UNION ALL SELECT id, 'saved_recipes', user_id, pg_current_xact_id() FROM user_saved_recipes
  UNION ALL SELECT id, 'menu_items', user_id, pg_current_xact_id() FROM menu_items
  UNION ALL SELECT id, 'shopping_items', user_id, pg_current_xact_id() FROM shopping_list_items
  UNION ALL SELECT id, 'profile', id, pg_current_xact_id() FROM users;
