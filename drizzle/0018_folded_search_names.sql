DROP INDEX "product_aliases_fts_idx";--> statement-breakpoint
DROP INDEX "product_aliases_curated_fts_idx";--> statement-breakpoint
ALTER TABLE "product_aliases" drop column "search_name";--> statement-breakpoint
ALTER TABLE "product_aliases" ADD COLUMN "search_name" text GENERATED ALWAYS AS (fold_text(name)) STORED;--> statement-breakpoint
CREATE INDEX "product_aliases_fts_idx" ON "product_aliases" USING gin (to_tsvector('simple', "search_name"));--> statement-breakpoint
CREATE INDEX "product_aliases_curated_fts_idx" ON "product_aliases" USING gin (to_tsvector('simple', "search_name")) WHERE NOT "product_aliases"."imported";--> statement-breakpoint
-- Hand-written: dropping the column dropped its other indexes too; they come back over the folded names.
CREATE INDEX "product_aliases_prefix_idx" ON "product_aliases" USING btree ("search_name" text_pattern_ops);--> statement-breakpoint
CREATE INDEX "product_aliases_curated_prefix_idx" ON "product_aliases" USING btree ("search_name" text_pattern_ops) WHERE NOT "product_aliases"."imported";--> statement-breakpoint
CREATE INDEX "product_aliases_curated_trgm_idx" ON "product_aliases" USING gin ("search_name" gin_trgm_ops) WHERE NOT "product_aliases"."imported";--> statement-breakpoint
-- The typo vocabulary holds folded words now, the words search compares.
TRUNCATE search_words;--> statement-breakpoint
INSERT INTO search_words (word)
SELECT DISTINCT w.lexeme FROM product_aliases a, unnest(to_tsvector('simple', a.search_name)) AS w
WHERE length(w.lexeme) >= 3;
