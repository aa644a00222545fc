-- Generated, with this note added. Imported products (nearly all of a large catalog) have no code, and nothing looks
-- products up by category alone: each row an import writes left an entry in both indexes for nothing. A code stays
-- unique among seeded products; the seed's upsert names the index's condition (ON CONFLICT (code) WHERE ...). The
-- release before keeps working while this one rolls out: only the seed, which this release runs, writes codes.
ALTER TABLE "products" DROP CONSTRAINT "products_code_unique";--> statement-breakpoint
DROP INDEX "products_category_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "products_code_unique" ON "products" USING btree ("code") WHERE "products"."code" IS NOT NULL;