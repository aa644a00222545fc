CREATE INDEX "dish_jobs_queued_idx" ON "dish_recognition_jobs" USING btree ("plan","created_at") WHERE status = 'queued';--> statement-breakpoint
CREATE INDEX "dish_jobs_finished_idx" ON "dish_recognition_jobs" USING btree ("finished_at" DESC NULLS LAST) WHERE status = 'done';--> statement-breakpoint
CREATE INDEX "product_jobs_queued_idx" ON "product_recognition_jobs" USING btree ("plan","created_at") WHERE status = 'queued';--> statement-breakpoint
CREATE INDEX "product_jobs_finished_idx" ON "product_recognition_jobs" USING btree ("finished_at" DESC NULLS LAST) WHERE status = 'done';