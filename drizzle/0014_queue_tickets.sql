-- Queue positions from tickets: a sequence per queue and plan, drawn at submission. Concurrent submissions never
-- share a ticket, and uncommitted ones still count, which a count of queued rows cannot give. Jobs queued before this
-- migration get tickets in submission order.
CREATE SEQUENCE "public"."dish_jobs_free_tickets" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE SEQUENCE "public"."dish_jobs_paid_tickets" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE SEQUENCE "public"."product_jobs_free_tickets" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE SEQUENCE "public"."product_jobs_paid_tickets" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
DROP INDEX "dish_jobs_queued_idx";--> statement-breakpoint
DROP INDEX "product_jobs_queued_idx";--> statement-breakpoint
ALTER TABLE "dish_recognition_jobs" ADD COLUMN "queue_seq" bigint;--> statement-breakpoint
ALTER TABLE "product_recognition_jobs" ADD COLUMN "queue_seq" bigint;--> statement-breakpoint
CREATE INDEX "dish_jobs_taken_idx" ON "dish_recognition_jobs" USING btree ("plan","queue_seq") WHERE status <> 'queued';--> statement-breakpoint
CREATE INDEX "dish_jobs_processing_idx" ON "dish_recognition_jobs" USING btree ("plan") WHERE status = 'processing';--> statement-breakpoint
CREATE INDEX "product_jobs_taken_idx" ON "product_recognition_jobs" USING btree ("plan","queue_seq") WHERE status <> 'queued';--> statement-breakpoint
CREATE INDEX "product_jobs_processing_idx" ON "product_recognition_jobs" USING btree ("plan") WHERE status = 'processing';--> statement-breakpoint
UPDATE "dish_recognition_jobs" j SET "queue_seq" = t.n FROM (
  SELECT id, nextval('dish_jobs_free_tickets') AS n FROM (
    SELECT id FROM "dish_recognition_jobs" WHERE status = 'queued' AND plan = 'free' ORDER BY created_at, id) q) t
WHERE j.id = t.id;--> statement-breakpoint
UPDATE "dish_recognition_jobs" j SET "queue_seq" = t.n FROM (
  SELECT id, nextval('dish_jobs_paid_tickets') AS n FROM (
    SELECT id FROM "dish_recognition_jobs" WHERE status = 'queued' AND plan = 'paid' ORDER BY created_at, id) q) t
WHERE j.id = t.id;--> statement-breakpoint
UPDATE "product_recognition_jobs" j SET "queue_seq" = t.n FROM (
  SELECT id, nextval('product_jobs_free_tickets') AS n FROM (
    SELECT id FROM "product_recognition_jobs" WHERE status = 'queued' AND plan = 'free' ORDER BY created_at, id) q) t
WHERE j.id = t.id;--> statement-breakpoint
UPDATE "product_recognition_jobs" j SET "queue_seq" = t.n FROM (
  SELECT id, nextval('product_jobs_paid_tickets') AS n FROM (
    SELECT id FROM "product_recognition_jobs" WHERE status = 'queued' AND plan = 'paid' ORDER BY created_at, id) q) t
WHERE j.id = t.id;
