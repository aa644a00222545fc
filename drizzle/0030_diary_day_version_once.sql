-- Hand-written. A day's version changes once per transaction: the trigger's upsert leaves a row its own transaction
-- already set. A diary insert now sets its day's version itself, in the same statement, to learn the version it
-- replaced (an API process then adds the entry to a day it keeps at that version instead of building the day again;
-- see diaryRepository.insert); the trigger that follows would otherwise write a second row version of the same day.
-- Transactions that change many entries of a day (sync pushes) write its row once too.
CREATE OR REPLACE FUNCTION bump_diary_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    INSERT INTO diary_days (user_id, date, version)
    SELECT OLD.user_id, OLD.date, pg_current_xact_id() WHERE EXISTS (SELECT 1 FROM users WHERE id = OLD.user_id)
    ON CONFLICT (user_id, date) DO UPDATE SET version = excluded.version
    WHERE diary_days.version <> excluded.version;
  END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND (NEW.user_id, NEW.date) IS DISTINCT FROM (OLD.user_id, OLD.date)) THEN
    INSERT INTO diary_days (user_id, date, version) VALUES (NEW.user_id, NEW.date, pg_current_xact_id())
    ON CONFLICT (user_id, date) DO UPDATE SET version = excluded.version
    WHERE diary_days.version <> excluded.version;
  END IF;
  RETURN NULL;
END $$;
