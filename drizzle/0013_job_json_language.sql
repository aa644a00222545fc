-- Hand-written. A job read in a language: the names of catalog dishes and products in its result are those of the
-- reading request's language (a dish recognised for an English request reads "Борщ" in Russian); names without a
-- translation, and the status notifications (lang NULL), keep the name stored with the result.
DROP FUNCTION dish_job_json(dish_recognition_jobs);--> statement-breakpoint
DROP FUNCTION product_job_json(product_recognition_jobs);--> statement-breakpoint
CREATE FUNCTION dish_job_json(j dish_recognition_jobs, lang text DEFAULT NULL) RETURNS json LANGUAGE sql STABLE PARALLEL SAFE
  RETURN json_build_object('id', j.id, 'status', j.status, 'target_date', j.target_date,
    'target_meal_type', j.target_meal_type,
    'result', CASE WHEN lang IS NULL OR j.result->'dishes' IS NULL THEN j.result ELSE jsonb_set(j.result, '{dishes}',
      (SELECT COALESCE(jsonb_agg(CASE WHEN d ? 'dish_id' THEN jsonb_set(d, '{name}', to_jsonb(COALESCE(
          (SELECT t.name FROM dish_translations t WHERE t.dish_id = (d->>'dish_id')::uuid AND t.language_code = lang),
          d->>'name'))) ELSE d END ORDER BY n), '[]'::jsonb)
       FROM jsonb_array_elements(j.result->'dishes') WITH ORDINALITY AS x(d, n))) END,
    'error', j.error,
    'created_at', to_char(j.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'updated_at', to_char(j.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
--> statement-breakpoint
CREATE FUNCTION product_job_json(j product_recognition_jobs, lang text DEFAULT NULL) RETURNS json LANGUAGE sql STABLE
  PARALLEL SAFE
  RETURN json_build_object('id', j.id, 'status', j.status, 'job_type', j.job_type,
    'result', CASE WHEN lang IS NULL OR j.result->'items' IS NULL THEN j.result ELSE jsonb_set(j.result, '{items}',
      (SELECT COALESCE(jsonb_agg(CASE WHEN jsonb_typeof(i->'product_id') = 'string' THEN jsonb_set(i, '{name}',
          to_jsonb(COALESCE((SELECT a.name FROM product_aliases a WHERE a.product_id = (i->>'product_id')::uuid
                               AND a.language_code = lang AND a.is_primary), i->>'name'))) ELSE i END ORDER BY n),
          '[]'::jsonb)
       FROM jsonb_array_elements(j.result->'items') WITH ORDINALITY AS x(i, n))) END,
    'error', j.error,
    'created_at', to_char(j.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'updated_at', to_char(j.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
