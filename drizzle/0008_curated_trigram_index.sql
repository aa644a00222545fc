-- Generated, with the backfill added by hand: names of imported products leave the trigram index, which only
-- ingredient matching (curated products) uses. On a large catalog the old row versions stay in the new index until
-- autovacuum (or VACUUM product_aliases) removes them; matching is slow until then.
DROP INDEX "product_aliases_trgm_idx";--> statement-breakpoint
ALTER TABLE "product_aliases" ADD COLUMN "imported" boolean DEFAULT false NOT NULL;--> statement-breakpoint
UPDATE "product_aliases" a SET "imported" = true FROM "products" p WHERE p."id" = a."product_id" AND p."source" = 'off';--> statement-breakpoint
CREATE INDEX "product_aliases_curated_trgm_idx" ON "product_aliases" USING gin ("search_name" gin_trgm_ops) WHERE NOT "product_aliases"."imported";
