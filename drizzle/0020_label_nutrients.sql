ALTER TABLE "products" ADD COLUMN "fiber_per_100g" numeric;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "sugars_per_100g" numeric;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "saturated_fat_per_100g" numeric;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "salt_per_100g" numeric;--> statement-breakpoint
ALTER TABLE "recipes" ADD COLUMN "fiber_per_serving" numeric;--> statement-breakpoint
ALTER TABLE "recipes" ADD COLUMN "sugars_per_serving" numeric;--> statement-breakpoint
ALTER TABLE "recipes" ADD COLUMN "saturated_fat_per_serving" numeric;--> statement-breakpoint
ALTER TABLE "recipes" ADD COLUMN "salt_per_serving" numeric;--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_nutrients_check" CHECK ("products"."fiber_per_100g" BETWEEN 0 AND 100 AND "products"."sugars_per_100g" BETWEEN 0 AND 100 AND
        "products"."saturated_fat_per_100g" BETWEEN 0 AND 100 AND "products"."salt_per_100g" BETWEEN 0 AND 100);