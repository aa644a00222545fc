CREATE TABLE "search_words" (
	"word" text PRIMARY KEY NOT NULL
);
--> statement-breakpoint
ALTER TABLE "product_aliases" ADD COLUMN "search_name" text GENERATED ALWAYS AS (lower(name)) STORED;--> statement-breakpoint
CREATE INDEX "search_words_trgm_idx" ON "search_words" USING gin ("word" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "search_words_prefix_idx" ON "search_words" USING btree ("word" text_pattern_ops);--> statement-breakpoint
CREATE INDEX "dish_translations_trgm_idx" ON "dish_translations" USING gin (lower("name") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "product_aliases_trgm_idx" ON "product_aliases" USING gin ("search_name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "product_aliases_prefix_idx" ON "product_aliases" USING btree ("search_name" text_pattern_ops);--> statement-breakpoint
CREATE INDEX "product_aliases_fts_idx" ON "product_aliases" USING gin (to_tsvector('simple', "name"));