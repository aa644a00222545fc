-- Hand-written. A job's status notification carries the job as its streams send it, as text the API forwards
-- without parsing: '<id> <status> <updated_at in epoch milliseconds> <job JSON>' (the columns and timestamp format of
-- the repository's job reads). A job too large for a notification (8,000 bytes) is sent without its JSON, and the API
-- reads it back.
CREATE OR REPLACE FUNCTION notify_job_status() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  job text;
BEGIN
  IF TG_TABLE_NAME = 'dish_recognition_jobs' THEN
    job := json_build_object('id', NEW.id, 'status', NEW.status, 'target_date', NEW.target_date,
      'target_meal_type', NEW.target_meal_type, 'result', NEW.result, 'error', NEW.error,
      'created_at', to_char(NEW.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'updated_at', to_char(NEW.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text;
  ELSE
    job := json_build_object('id', NEW.id, 'status', NEW.status, 'job_type', NEW.job_type, 'result', NEW.result,
      'error', NEW.error,
      'created_at', to_char(NEW.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'updated_at', to_char(NEW.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text;
  END IF;
  PERFORM pg_notify(TG_ARGV[0], NEW.id || ' ' || NEW.status || ' ' || floor(extract(epoch FROM NEW.updated_at) * 1000)
    || CASE WHEN octet_length(job) > 7900 THEN '' ELSE ' ' || job END);
  RETURN NULL;
END $$;
