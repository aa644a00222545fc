DROP INDEX "meal_diary_job_idx";--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD COLUMN "replaced_by" uuid;--> statement-breakpoint
ALTER TABLE "product_recognition_jobs" ADD COLUMN "applied_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "product_recognition_jobs" ADD COLUMN "applied_item_ids" uuid[];--> statement-breakpoint
-- Hand-written: entries that linked a job a second time (possible before this index) keep the entry and lose the
-- link; the first entry of each job keeps it.
UPDATE meal_diary d SET job_id = NULL
WHERE job_id IS NOT NULL AND EXISTS (
  SELECT 1 FROM meal_diary f WHERE f.job_id = d.job_id AND (f.created_at, f.id) < (d.created_at, d.id));--> statement-breakpoint
CREATE UNIQUE INDEX "meal_diary_job_idx" ON "meal_diary" USING btree ("job_id") WHERE "meal_diary"."job_id" IS NOT NULL;--> statement-breakpoint
-- Hand-written. Names compared the way people type them: case- and accent-insensitive (`Tulú` = `tulu`, `ё` = `е`).
-- unaccent() is only STABLE (its dictionary could change); with the dictionary named, the wrapper is safe to mark
-- IMMUTABLE and so usable in indexes.
CREATE EXTENSION IF NOT EXISTS unaccent;--> statement-breakpoint
CREATE FUNCTION fold_text(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  RETURN lower(public.unaccent('public.unaccent'::regdictionary, $1));--> statement-breakpoint
CREATE INDEX dish_translations_folded_name_idx ON dish_translations (fold_text(name));
