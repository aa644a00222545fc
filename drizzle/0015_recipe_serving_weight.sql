ALTER TABLE "recipes" ADD COLUMN "serving_g" numeric;--> statement-breakpoint
ALTER TABLE "recipes" ADD CONSTRAINT "recipes_serving_g_check" CHECK ("recipes"."serving_g" > 0);