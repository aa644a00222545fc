ALTER TABLE "products" ADD COLUMN "edible_portion" numeric DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "recipe_ingredients" ADD COLUMN "yield_factor" numeric DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_edible_portion_check" CHECK ("products"."edible_portion" > 0 AND "products"."edible_portion" <= 1);--> statement-breakpoint
ALTER TABLE "recipe_ingredients" ADD CONSTRAINT "recipe_ingredients_yield_check" CHECK ("recipe_ingredients"."yield_factor" >= 0 AND "recipe_ingredients"."yield_factor" <= 1);