ALTER TABLE "menu_plans" ADD COLUMN "model" text;--> statement-breakpoint
ALTER TABLE "recommendation_sets" ADD COLUMN "model" text;