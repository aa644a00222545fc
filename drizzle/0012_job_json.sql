-- Hand-written. A job as the API sends it, built in one place: the status trigger's notification and every read of
-- the repository call these (the columns, their order and the timestamp format live here only).
CREATE FUNCTION dish_job_json(j dish_recognition_jobs) RETURNS json LANGUAGE sql STABLE PARALLEL SAFE
  RETURN json_build_object('id', j.id, 'status', j.status, 'target_date', j.target_date,
    'target_meal_type', j.target_meal_type, 'result', j.result, 'error', j.error,
    'created_at', to_char(j.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'updated_at', to_char(j.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
--> statement-breakpoint
CREATE FUNCTION product_job_json(j product_recognition_jobs) RETURNS json LANGUAGE sql STABLE PARALLEL SAFE
  RETURN json_build_object('id', j.id, 'status', j.status, 'job_type', j.job_type, 'result', j.result,
    'error', j.error,
    'created_at', to_char(j.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'updated_at', to_char(j.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
--> statement-breakpoint
-- The notification: '<id> <status> <updated_at in epoch milliseconds> <job JSON>'; a job too large for a
-- notification (8,000 bytes) is sent without its JSON, and the API reads it back.
CREATE OR REPLACE FUNCTION notify_job_status() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  job text;
BEGIN
  IF TG_TABLE_NAME = 'dish_recognition_jobs' THEN
    job := dish_job_json(NEW::dish_recognition_jobs)::text;
  ELSE
    job := product_job_json(NEW::product_recognition_jobs)::text;
  END IF;
  PERFORM pg_notify(TG_ARGV[0], NEW.id || ' ' || NEW.status || ' ' || floor(extract(epoch FROM NEW.updated_at) * 1000)
    || CASE WHEN octet_length(job) > 7900 THEN '' ELSE ' ' || job END);
  RETURN NULL;
END $$;
