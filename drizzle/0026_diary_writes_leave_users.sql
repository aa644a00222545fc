-- A diary write no longer rewrites its user's row. users.diary_version, the per-user counter of the releases before
-- 0023, has no reader left (API processes read diary_days), and bumping it made every diary write update the users
-- row: a new row version of the table every request reads (profiles, foreign keys), so under steady writes it held
-- thousands of dead versions, and the trigger's plan, made when users was small, scanned the whole table twice per
-- write (0.46 ms at 200 users). The column stays until a later migration drops it (migrations only add). Each day is
-- now one upsert of its own: the new day needs no check that its user exists (the entry's foreign key makes sure),
-- the old one does (an account deletion removes entries after their user).
CREATE OR REPLACE FUNCTION bump_diary_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    INSERT INTO diary_days (user_id, date, version)
    SELECT OLD.user_id, OLD.date, pg_current_xact_id() WHERE EXISTS (SELECT 1 FROM users WHERE id = OLD.user_id)
    ON CONFLICT (user_id, date) DO UPDATE SET version = excluded.version;
  END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND (NEW.user_id, NEW.date) IS DISTINCT FROM (OLD.user_id, OLD.date)) THEN
    INSERT INTO diary_days (user_id, date, version) VALUES (NEW.user_id, NEW.date, pg_current_xact_id())
    ON CONFLICT (user_id, date) DO UPDATE SET version = excluded.version;
  END IF;
  RETURN NULL;
END $$;
