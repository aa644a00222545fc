ALTER TABLE "users" ADD COLUMN "diary_version" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Hand-written from here. An API process may keep a day of the diary as JSON; it stays valid while the user's
-- diary_version (read in the same round trip as the profile) and the catalog behind the entries' names and
-- nutrition are unchanged.
CREATE FUNCTION bump_diary_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE users SET diary_version = diary_version + 1 WHERE id = OLD.user_id;
  END IF;
  IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW.user_id IS DISTINCT FROM OLD.user_id) THEN
    UPDATE users SET diary_version = diary_version + 1 WHERE id = NEW.user_id;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER meal_diary_version AFTER INSERT OR UPDATE OR DELETE ON meal_diary
  FOR EACH ROW EXECUTE FUNCTION bump_diary_version();
--> statement-breakpoint
-- Catalog rows that entries read their names and nutrition from. NOTIFY is sent on commit, once per transaction,
-- so an import batch costs one notification.
CREATE FUNCTION notify_catalog_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('catalog_changed', '');
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER products_changed_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON products
  FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_changed();
--> statement-breakpoint
CREATE TRIGGER product_aliases_changed_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON product_aliases
  FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_changed();
--> statement-breakpoint
CREATE TRIGGER dish_translations_changed_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON dish_translations
  FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_changed();
--> statement-breakpoint
CREATE TRIGGER recipes_changed_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON recipes
  FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_changed();
