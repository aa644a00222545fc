CREATE TABLE "cuisine_translations" (
	"cuisine_code" text NOT NULL,
	"language_code" text NOT NULL,
	"name" text NOT NULL,
	CONSTRAINT "cuisine_translations_cuisine_code_language_code_pk" PRIMARY KEY("cuisine_code","language_code")
);
--> statement-breakpoint
CREATE TABLE "cuisines" (
	"code" text PRIMARY KEY NOT NULL,
	"sort_order" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dish_categories" (
	"code" text PRIMARY KEY NOT NULL,
	"sort_order" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dish_category_translations" (
	"category_code" text NOT NULL,
	"language_code" text NOT NULL,
	"name" text NOT NULL,
	CONSTRAINT "dish_category_translations_category_code_language_code_pk" PRIMARY KEY("category_code","language_code")
);
--> statement-breakpoint
CREATE TABLE "languages" (
	"code" text PRIMARY KEY NOT NULL,
	"native_name" text NOT NULL,
	"english_name" text NOT NULL,
	"sort_order" integer NOT NULL,
	"search_config" text DEFAULT 'simple' NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL
);
--> statement-breakpoint
CREATE TABLE "product_categories" (
	"code" text PRIMARY KEY NOT NULL,
	"shop_order" integer NOT NULL,
	"default_storage_days" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "product_category_translations" (
	"category_code" text NOT NULL,
	"language_code" text NOT NULL,
	"name" text NOT NULL,
	CONSTRAINT "product_category_translations_category_code_language_code_pk" PRIMARY KEY("category_code","language_code")
);
--> statement-breakpoint
CREATE TABLE "tag_translations" (
	"tag_code" text NOT NULL,
	"language_code" text NOT NULL,
	"name" text NOT NULL,
	CONSTRAINT "tag_translations_tag_code_language_code_pk" PRIMARY KEY("tag_code","language_code")
);
--> statement-breakpoint
CREATE TABLE "tags" (
	"code" text PRIMARY KEY NOT NULL,
	"sort_order" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "unit_translations" (
	"unit_code" text NOT NULL,
	"language_code" text NOT NULL,
	"name" text NOT NULL,
	"short" text NOT NULL,
	CONSTRAINT "unit_translations_unit_code_language_code_pk" PRIMARY KEY("unit_code","language_code")
);
--> statement-breakpoint
CREATE TABLE "units" (
	"code" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"base_unit" text,
	"factor" numeric,
	"sort_order" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "units_kind_check" CHECK ("units"."kind" IN ('mass', 'volume', 'count')),
	CONSTRAINT "units_base_check" CHECK (("units"."base_unit" IS NULL) = ("units"."factor" IS NULL))
);
--> statement-breakpoint
CREATE TABLE "refresh_tokens" (
	"id" uuid PRIMARY KEY DEFAULT uuidv7() NOT NULL,
	"session_id" uuid NOT NULL,
	"secret_hash" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"replaced_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" uuid PRIMARY KEY DEFAULT uuidv7() NOT NULL,
	"user_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"revoked_reason" text,
	"user_agent" text
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" uuid PRIMARY KEY DEFAULT uuidv7() NOT NULL,
	"identity_provider" text NOT NULL,
	"external_subject" text NOT NULL,
	"email" text,
	"name" text,
	"date_of_birth" date,
	"sex" text,
	"height_cm" numeric,
	"weight_kg" numeric,
	"activity_level" text,
	"goal" text,
	"plan" text DEFAULT 'free' NOT NULL,
	"preferences" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "users_sex_check" CHECK ("users"."sex" IN ('male', 'female')),
	CONSTRAINT "users_activity_check" CHECK ("users"."activity_level" IN ('sedentary', 'light', 'moderate', 'active', 'very_active')),
	CONSTRAINT "users_goal_check" CHECK ("users"."goal" IN ('lose', 'maintain', 'gain')),
	CONSTRAINT "users_plan_check" CHECK ("users"."plan" IN ('free', 'paid')),
	CONSTRAINT "users_height_check" CHECK ("users"."height_cm" BETWEEN 50 AND 272),
	CONSTRAINT "users_weight_check" CHECK ("users"."weight_kg" BETWEEN 20 AND 500)
);
--> statement-breakpoint
CREATE TABLE "dish_tags" (
	"dish_id" uuid NOT NULL,
	"tag_code" text NOT NULL,
	CONSTRAINT "dish_tags_dish_id_tag_code_pk" PRIMARY KEY("dish_id","tag_code")
);
--> statement-breakpoint
CREATE TABLE "dish_translations" (
	"dish_id" uuid NOT NULL,
	"language_code" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	CONSTRAINT "dish_translations_dish_id_language_code_pk" PRIMARY KEY("dish_id","language_code")
);
--> statement-breakpoint
CREATE TABLE "dishes" (
	"id" uuid PRIMARY KEY DEFAULT uuidv7() NOT NULL,
	"code" text,
	"category_code" text,
	"cuisine_code" text,
	"image_url" text,
	"source" text DEFAULT 'catalog' NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dishes_code_unique" UNIQUE("code"),
	CONSTRAINT "dishes_source_check" CHECK (source IN ('catalog', 'ai', 'menu', 'user', 'stub'))
);
--> statement-breakpoint
CREATE TABLE "product_aliases" (
	"id" uuid PRIMARY KEY DEFAULT uuidv7() NOT NULL,
	"product_id" uuid NOT NULL,
	"language_code" text,
	"name" text NOT NULL,
	"is_primary" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "products" (
	"id" uuid PRIMARY KEY DEFAULT uuidv7() NOT NULL,
	"code" text,
	"canonical_name" text NOT NULL,
	"barcode" text,
	"brand" text,
	"category_code" text,
	"calories_per_100g" numeric,
	"protein_per_100g" numeric,
	"fat_per_100g" numeric,
	"carbs_per_100g" numeric,
	"default_unit_code" text DEFAULT 'g' NOT NULL,
	"storage_days" integer,
	"density_g_per_ml" numeric,
	"piece_g" numeric,
	"unit_grams" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"source" text DEFAULT 'seed' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "products_code_unique" UNIQUE("code"),
	CONSTRAINT "products_barcode_unique" UNIQUE("barcode"),
	CONSTRAINT "products_barcode_check" CHECK ("products"."barcode" ~ '^([0-9]{8}|[0-9]{13})$'),
	CONSTRAINT "products_nutrition_check" CHECK ("products"."calories_per_100g" BETWEEN 0 AND 900 AND "products"."protein_per_100g" >= 0 AND "products"."fat_per_100g" >= 0 AND "products"."carbs_per_100g" >= 0),
	CONSTRAINT "products_storage_check" CHECK ("products"."storage_days" > 0)
);
--> statement-breakpoint
CREATE TABLE "recipe_ingredients" (
	"id" uuid PRIMARY KEY DEFAULT uuidv7() NOT NULL,
	"recipe_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"product_id" uuid,
	"name" text,
	"quantity" numeric NOT NULL,
	"unit_code" text NOT NULL,
	"note" jsonb,
	CONSTRAINT "recipe_ingredients_named_check" CHECK ("recipe_ingredients"."product_id" IS NOT NULL OR "recipe_ingredients"."name" IS NOT NULL),
	CONSTRAINT "recipe_ingredients_quantity_check" CHECK ("recipe_ingredients"."quantity" > 0)
);
--> statement-breakpoint
CREATE TABLE "recipe_step_translations" (
	"step_id" uuid NOT NULL,
	"language_code" text NOT NULL,
	"text" text NOT NULL,
	CONSTRAINT "recipe_step_translations_step_id_language_code_pk" PRIMARY KEY("step_id","language_code")
);
--> statement-breakpoint
CREATE TABLE "recipe_steps" (
	"id" uuid PRIMARY KEY DEFAULT uuidv7() NOT NULL,
	"recipe_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"duration_minutes" integer
);
--> statement-breakpoint
CREATE TABLE "recipe_translations" (
	"recipe_id" uuid NOT NULL,
	"language_code" text NOT NULL,
	"notes" text,
	CONSTRAINT "recipe_translations_recipe_id_language_code_pk" PRIMARY KEY("recipe_id","language_code")
);
--> statement-breakpoint
CREATE TABLE "recipes" (
	"id" uuid PRIMARY KEY DEFAULT uuidv7() NOT NULL,
	"dish_id" uuid NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"source" text NOT NULL,
	"servings" numeric DEFAULT 1 NOT NULL,
	"prep_minutes" integer,
	"cook_minutes" integer,
	"calories_per_serving" numeric,
	"protein_per_serving" numeric,
	"fat_per_serving" numeric,
	"carbs_per_serving" numeric,
	"image_url" text,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "recipes_source_check" CHECK (source IN ('catalog', 'ai', 'menu', 'user', 'stub')),
	CONSTRAINT "recipes_servings_check" CHECK ("recipes"."servings" > 0)
);
--> statement-breakpoint
CREATE TABLE "meal_diary" (
	"id" uuid PRIMARY KEY DEFAULT uuidv7() NOT NULL,
	"user_id" uuid NOT NULL,
	"date" date NOT NULL,
	"meal_type" text NOT NULL,
	"dish_id" uuid,
	"recipe_id" uuid,
	"product_id" uuid,
	"portions" numeric,
	"portion_g" numeric,
	"job_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "meal_diary_meal_type_check" CHECK (meal_type IN ('breakfast', 'second_breakfast', 'lunch', 'afternoon_snack', 'dinner', 'snack')),
	CONSTRAINT "meal_diary_one_item_check" CHECK (("meal_diary"."dish_id" IS NULL) <> ("meal_diary"."product_id" IS NULL)),
	CONSTRAINT "meal_diary_dish_recipe_check" CHECK (("meal_diary"."dish_id" IS NULL) = ("meal_diary"."recipe_id" IS NULL)),
	CONSTRAINT "meal_diary_product_grams_check" CHECK ("meal_diary"."product_id" IS NULL OR "meal_diary"."portion_g" > 0),
	CONSTRAINT "meal_diary_portions_check" CHECK ("meal_diary"."portions" > 0)
);
--> statement-breakpoint
CREATE TABLE "menu_items" (
	"id" uuid PRIMARY KEY DEFAULT uuidv7() NOT NULL,
	"menu_plan_id" uuid NOT NULL,
	"date" date NOT NULL,
	"meal_type" text NOT NULL,
	"dish_id" uuid NOT NULL,
	"recipe_id" uuid NOT NULL,
	"servings" numeric DEFAULT 1 NOT NULL,
	CONSTRAINT "menu_items_meal_type_check" CHECK (meal_type IN ('breakfast', 'second_breakfast', 'lunch', 'afternoon_snack', 'dinner', 'snack')),
	CONSTRAINT "menu_items_servings_check" CHECK ("menu_items"."servings" > 0)
);
--> statement-breakpoint
CREATE TABLE "menu_plans" (
	"id" uuid PRIMARY KEY DEFAULT uuidv7() NOT NULL,
	"user_id" uuid NOT NULL,
	"week_start" date NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "menu_plans_monday_check" CHECK (extract(isodow FROM "menu_plans"."week_start") = 1)
);
--> statement-breakpoint
CREATE TABLE "recommendation_sets" (
	"id" uuid PRIMARY KEY DEFAULT uuidv7() NOT NULL,
	"user_id" uuid NOT NULL,
	"day" date NOT NULL,
	"language_code" text NOT NULL,
	"meal_type" text DEFAULT '' NOT NULL,
	"items" jsonb NOT NULL,
	"generated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "shopping_list_items" (
	"id" uuid PRIMARY KEY DEFAULT uuidv7() NOT NULL,
	"shopping_list_id" uuid NOT NULL,
	"product_id" uuid,
	"name" text NOT NULL,
	"quantity" numeric,
	"unit_code" text,
	"category_code" text,
	"checked" boolean DEFAULT false NOT NULL,
	"is_manual" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "shopping_list_items_quantity_check" CHECK ("shopping_list_items"."quantity" > 0)
);
--> statement-breakpoint
CREATE TABLE "shopping_lists" (
	"id" uuid PRIMARY KEY DEFAULT uuidv7() NOT NULL,
	"user_id" uuid NOT NULL,
	"week_start" date NOT NULL,
	"generated_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_products" (
	"id" uuid PRIMARY KEY DEFAULT uuidv7() NOT NULL,
	"user_id" uuid NOT NULL,
	"product_id" uuid,
	"name" text,
	"quantity" numeric NOT NULL,
	"unit_code" text NOT NULL,
	"storage_days" integer NOT NULL,
	"added_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "user_products_named_check" CHECK ("user_products"."product_id" IS NOT NULL OR "user_products"."name" IS NOT NULL),
	CONSTRAINT "user_products_quantity_check" CHECK ("user_products"."quantity" > 0),
	CONSTRAINT "user_products_storage_check" CHECK ("user_products"."storage_days" > 0)
);
--> statement-breakpoint
CREATE TABLE "user_saved_recipes" (
	"id" uuid PRIMARY KEY DEFAULT uuidv7() NOT NULL,
	"user_id" uuid NOT NULL,
	"recipe_id" uuid NOT NULL,
	"saved_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dish_recognition_jobs" (
	"id" uuid PRIMARY KEY DEFAULT uuidv7() NOT NULL,
	"user_id" uuid NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"plan" text DEFAULT 'free' NOT NULL,
	"images" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"result" jsonb,
	"error" jsonb,
	"attempts" integer DEFAULT 0 NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"target_date" date,
	"target_meal_type" text,
	CONSTRAINT "dish_jobs_status_check" CHECK (status IN ('queued', 'processing', 'done', 'failed')),
	CONSTRAINT "dish_jobs_plan_check" CHECK ("dish_recognition_jobs"."plan" IN ('free', 'paid')),
	CONSTRAINT "dish_jobs_meal_type_check" CHECK (target_meal_type IN ('breakfast', 'second_breakfast', 'lunch', 'afternoon_snack', 'dinner', 'snack'))
);
--> statement-breakpoint
CREATE TABLE "job_images" (
	"id" uuid PRIMARY KEY DEFAULT uuidv7() NOT NULL,
	"dish_job_id" uuid,
	"product_job_id" uuid,
	"position" integer DEFAULT 0 NOT NULL,
	"content_type" text NOT NULL,
	"byte_size" integer NOT NULL,
	"data" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "job_images_one_job_check" CHECK (("job_images"."dish_job_id" IS NULL) <> ("job_images"."product_job_id" IS NULL))
);
--> statement-breakpoint
CREATE TABLE "product_recognition_jobs" (
	"id" uuid PRIMARY KEY DEFAULT uuidv7() NOT NULL,
	"user_id" uuid NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"plan" text DEFAULT 'free' NOT NULL,
	"images" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"result" jsonb,
	"error" jsonb,
	"attempts" integer DEFAULT 0 NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"job_type" text NOT NULL,
	CONSTRAINT "product_jobs_status_check" CHECK (status IN ('queued', 'processing', 'done', 'failed')),
	CONSTRAINT "product_jobs_plan_check" CHECK ("product_recognition_jobs"."plan" IN ('free', 'paid')),
	CONSTRAINT "product_jobs_type_check" CHECK ("product_recognition_jobs"."job_type" IN ('receipt', 'products'))
);
--> statement-breakpoint
ALTER TABLE "cuisine_translations" ADD CONSTRAINT "cuisine_translations_cuisine_code_cuisines_code_fk" FOREIGN KEY ("cuisine_code") REFERENCES "public"."cuisines"("code") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cuisine_translations" ADD CONSTRAINT "cuisine_translations_language_code_languages_code_fk" FOREIGN KEY ("language_code") REFERENCES "public"."languages"("code") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dish_category_translations" ADD CONSTRAINT "dish_category_translations_category_code_dish_categories_code_fk" FOREIGN KEY ("category_code") REFERENCES "public"."dish_categories"("code") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dish_category_translations" ADD CONSTRAINT "dish_category_translations_language_code_languages_code_fk" FOREIGN KEY ("language_code") REFERENCES "public"."languages"("code") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_category_translations" ADD CONSTRAINT "product_category_translations_category_code_product_categories_code_fk" FOREIGN KEY ("category_code") REFERENCES "public"."product_categories"("code") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_category_translations" ADD CONSTRAINT "product_category_translations_language_code_languages_code_fk" FOREIGN KEY ("language_code") REFERENCES "public"."languages"("code") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tag_translations" ADD CONSTRAINT "tag_translations_tag_code_tags_code_fk" FOREIGN KEY ("tag_code") REFERENCES "public"."tags"("code") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tag_translations" ADD CONSTRAINT "tag_translations_language_code_languages_code_fk" FOREIGN KEY ("language_code") REFERENCES "public"."languages"("code") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "unit_translations" ADD CONSTRAINT "unit_translations_unit_code_units_code_fk" FOREIGN KEY ("unit_code") REFERENCES "public"."units"("code") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "unit_translations" ADD CONSTRAINT "unit_translations_language_code_languages_code_fk" FOREIGN KEY ("language_code") REFERENCES "public"."languages"("code") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD CONSTRAINT "refresh_tokens_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dish_tags" ADD CONSTRAINT "dish_tags_dish_id_dishes_id_fk" FOREIGN KEY ("dish_id") REFERENCES "public"."dishes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dish_tags" ADD CONSTRAINT "dish_tags_tag_code_tags_code_fk" FOREIGN KEY ("tag_code") REFERENCES "public"."tags"("code") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dish_translations" ADD CONSTRAINT "dish_translations_dish_id_dishes_id_fk" FOREIGN KEY ("dish_id") REFERENCES "public"."dishes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dish_translations" ADD CONSTRAINT "dish_translations_language_code_languages_code_fk" FOREIGN KEY ("language_code") REFERENCES "public"."languages"("code") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dishes" ADD CONSTRAINT "dishes_category_code_dish_categories_code_fk" FOREIGN KEY ("category_code") REFERENCES "public"."dish_categories"("code") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dishes" ADD CONSTRAINT "dishes_cuisine_code_cuisines_code_fk" FOREIGN KEY ("cuisine_code") REFERENCES "public"."cuisines"("code") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dishes" ADD CONSTRAINT "dishes_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_aliases" ADD CONSTRAINT "product_aliases_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_aliases" ADD CONSTRAINT "product_aliases_language_code_languages_code_fk" FOREIGN KEY ("language_code") REFERENCES "public"."languages"("code") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_category_code_product_categories_code_fk" FOREIGN KEY ("category_code") REFERENCES "public"."product_categories"("code") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_default_unit_code_units_code_fk" FOREIGN KEY ("default_unit_code") REFERENCES "public"."units"("code") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recipe_ingredients" ADD CONSTRAINT "recipe_ingredients_recipe_id_recipes_id_fk" FOREIGN KEY ("recipe_id") REFERENCES "public"."recipes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recipe_ingredients" ADD CONSTRAINT "recipe_ingredients_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recipe_ingredients" ADD CONSTRAINT "recipe_ingredients_unit_code_units_code_fk" FOREIGN KEY ("unit_code") REFERENCES "public"."units"("code") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recipe_step_translations" ADD CONSTRAINT "recipe_step_translations_step_id_recipe_steps_id_fk" FOREIGN KEY ("step_id") REFERENCES "public"."recipe_steps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recipe_step_translations" ADD CONSTRAINT "recipe_step_translations_language_code_languages_code_fk" FOREIGN KEY ("language_code") REFERENCES "public"."languages"("code") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recipe_steps" ADD CONSTRAINT "recipe_steps_recipe_id_recipes_id_fk" FOREIGN KEY ("recipe_id") REFERENCES "public"."recipes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recipe_translations" ADD CONSTRAINT "recipe_translations_recipe_id_recipes_id_fk" FOREIGN KEY ("recipe_id") REFERENCES "public"."recipes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recipe_translations" ADD CONSTRAINT "recipe_translations_language_code_languages_code_fk" FOREIGN KEY ("language_code") REFERENCES "public"."languages"("code") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recipes" ADD CONSTRAINT "recipes_dish_id_dishes_id_fk" FOREIGN KEY ("dish_id") REFERENCES "public"."dishes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recipes" ADD CONSTRAINT "recipes_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meal_diary" ADD CONSTRAINT "meal_diary_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meal_diary" ADD CONSTRAINT "meal_diary_dish_id_dishes_id_fk" FOREIGN KEY ("dish_id") REFERENCES "public"."dishes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meal_diary" ADD CONSTRAINT "meal_diary_recipe_id_recipes_id_fk" FOREIGN KEY ("recipe_id") REFERENCES "public"."recipes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meal_diary" ADD CONSTRAINT "meal_diary_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meal_diary" ADD CONSTRAINT "meal_diary_job_id_dish_recognition_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."dish_recognition_jobs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "menu_items" ADD CONSTRAINT "menu_items_menu_plan_id_menu_plans_id_fk" FOREIGN KEY ("menu_plan_id") REFERENCES "public"."menu_plans"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "menu_items" ADD CONSTRAINT "menu_items_dish_id_dishes_id_fk" FOREIGN KEY ("dish_id") REFERENCES "public"."dishes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "menu_items" ADD CONSTRAINT "menu_items_recipe_id_recipes_id_fk" FOREIGN KEY ("recipe_id") REFERENCES "public"."recipes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "menu_plans" ADD CONSTRAINT "menu_plans_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recommendation_sets" ADD CONSTRAINT "recommendation_sets_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recommendation_sets" ADD CONSTRAINT "recommendation_sets_language_code_languages_code_fk" FOREIGN KEY ("language_code") REFERENCES "public"."languages"("code") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shopping_list_items" ADD CONSTRAINT "shopping_list_items_shopping_list_id_shopping_lists_id_fk" FOREIGN KEY ("shopping_list_id") REFERENCES "public"."shopping_lists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shopping_list_items" ADD CONSTRAINT "shopping_list_items_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shopping_list_items" ADD CONSTRAINT "shopping_list_items_unit_code_units_code_fk" FOREIGN KEY ("unit_code") REFERENCES "public"."units"("code") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shopping_list_items" ADD CONSTRAINT "shopping_list_items_category_code_product_categories_code_fk" FOREIGN KEY ("category_code") REFERENCES "public"."product_categories"("code") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shopping_lists" ADD CONSTRAINT "shopping_lists_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_products" ADD CONSTRAINT "user_products_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_products" ADD CONSTRAINT "user_products_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_products" ADD CONSTRAINT "user_products_unit_code_units_code_fk" FOREIGN KEY ("unit_code") REFERENCES "public"."units"("code") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_saved_recipes" ADD CONSTRAINT "user_saved_recipes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_saved_recipes" ADD CONSTRAINT "user_saved_recipes_recipe_id_recipes_id_fk" FOREIGN KEY ("recipe_id") REFERENCES "public"."recipes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dish_recognition_jobs" ADD CONSTRAINT "dish_recognition_jobs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_images" ADD CONSTRAINT "job_images_dish_job_id_dish_recognition_jobs_id_fk" FOREIGN KEY ("dish_job_id") REFERENCES "public"."dish_recognition_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_images" ADD CONSTRAINT "job_images_product_job_id_product_recognition_jobs_id_fk" FOREIGN KEY ("product_job_id") REFERENCES "public"."product_recognition_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_recognition_jobs" ADD CONSTRAINT "product_recognition_jobs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "refresh_tokens_session_idx" ON "refresh_tokens" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "sessions_user_idx" ON "sessions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "sessions_revoked_idx" ON "sessions" USING btree ("revoked_at") WHERE "sessions"."revoked_at" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "users_identity_idx" ON "users" USING btree ("identity_provider","external_subject");--> statement-breakpoint
CREATE INDEX "dish_tags_tag_idx" ON "dish_tags" USING btree ("tag_code");--> statement-breakpoint
CREATE INDEX "dishes_category_idx" ON "dishes" USING btree ("category_code");--> statement-breakpoint
CREATE INDEX "dishes_cuisine_idx" ON "dishes" USING btree ("cuisine_code");--> statement-breakpoint
CREATE UNIQUE INDEX "product_aliases_unique_idx" ON "product_aliases" USING btree ("product_id","language_code","name");--> statement-breakpoint
CREATE UNIQUE INDEX "product_aliases_primary_idx" ON "product_aliases" USING btree ("product_id","language_code") WHERE "product_aliases"."is_primary";--> statement-breakpoint
CREATE INDEX "products_category_idx" ON "products" USING btree ("category_code");--> statement-breakpoint
CREATE UNIQUE INDEX "recipe_ingredients_position_idx" ON "recipe_ingredients" USING btree ("recipe_id","position");--> statement-breakpoint
CREATE INDEX "recipe_ingredients_product_idx" ON "recipe_ingredients" USING btree ("product_id");--> statement-breakpoint
CREATE UNIQUE INDEX "recipe_steps_position_idx" ON "recipe_steps" USING btree ("recipe_id","position");--> statement-breakpoint
CREATE INDEX "recipes_dish_idx" ON "recipes" USING btree ("dish_id");--> statement-breakpoint
CREATE UNIQUE INDEX "recipes_default_idx" ON "recipes" USING btree ("dish_id") WHERE "recipes"."is_default";--> statement-breakpoint
CREATE INDEX "meal_diary_user_date_idx" ON "meal_diary" USING btree ("user_id","date");--> statement-breakpoint
CREATE INDEX "meal_diary_user_created_idx" ON "meal_diary" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "meal_diary_job_idx" ON "meal_diary" USING btree ("job_id");--> statement-breakpoint
CREATE UNIQUE INDEX "menu_items_slot_idx" ON "menu_items" USING btree ("menu_plan_id","date","meal_type");--> statement-breakpoint
CREATE UNIQUE INDEX "menu_plans_week_idx" ON "menu_plans" USING btree ("user_id","week_start");--> statement-breakpoint
CREATE UNIQUE INDEX "recommendation_sets_key_idx" ON "recommendation_sets" USING btree ("user_id","day","language_code","meal_type");--> statement-breakpoint
CREATE INDEX "shopping_list_items_list_idx" ON "shopping_list_items" USING btree ("shopping_list_id");--> statement-breakpoint
CREATE UNIQUE INDEX "shopping_lists_week_idx" ON "shopping_lists" USING btree ("user_id","week_start");--> statement-breakpoint
CREATE INDEX "user_products_user_idx" ON "user_products" USING btree ("user_id","added_at");--> statement-breakpoint
CREATE UNIQUE INDEX "user_saved_recipes_unique_idx" ON "user_saved_recipes" USING btree ("user_id","recipe_id");--> statement-breakpoint
CREATE INDEX "dish_jobs_user_created_idx" ON "dish_recognition_jobs" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "job_images_dish_job_idx" ON "job_images" USING btree ("dish_job_id");--> statement-breakpoint
CREATE INDEX "job_images_product_job_idx" ON "job_images" USING btree ("product_job_id");--> statement-breakpoint
CREATE INDEX "job_images_created_idx" ON "job_images" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "product_jobs_user_created_idx" ON "product_recognition_jobs" USING btree ("user_id","created_at");