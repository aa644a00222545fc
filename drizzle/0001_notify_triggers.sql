-- Hand-written: extensions, and the NOTIFY triggers that let every API process react to changes at once.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
-- Logout and refresh-token theft revoke a session; every API process LISTENs here and drops its access tokens.
CREATE FUNCTION notify_session_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('session_revoked', NEW.id::text);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER sessions_revoked_notify AFTER UPDATE OF revoked_at ON sessions
  FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
  EXECUTE FUNCTION notify_session_revoked();
--> statement-breakpoint
-- Recognition jobs: one channel per kind, only on status changes (a trigger on every update halves commit rate).
CREATE FUNCTION notify_job_status() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify(TG_ARGV[0], json_build_object('id', NEW.id, 'user_id', NEW.user_id, 'status', NEW.status)::text);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER dish_jobs_status_notify AFTER UPDATE OF status ON dish_recognition_jobs
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION notify_job_status('dish_job_status');
--> statement-breakpoint
CREATE TRIGGER product_jobs_status_notify AFTER UPDATE OF status ON product_recognition_jobs
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION notify_job_status('product_job_status');
