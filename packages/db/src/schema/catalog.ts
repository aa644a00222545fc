import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, decimal, id, oneOf, RECIPE_SOURCES, timestamptz } from './columns.ts';
import { cuisines, dishCategories, languages, productCategories, tags, units } from './reference.ts';
import { users } from './users.ts';

export const products = pgTable(
  'products',
  {
    id: id(),
    /** Stable key of seeded products, so that re-seeding updates instead of duplicating. */
    code: text(),
    canonicalName: text().notNull(),
    /** Normalised GTIN: EAN-13 (UPC-A gets its leading zero) or EAN-8. */
    barcode: text().unique(),
    brand: text(),
    categoryCode: text().references(() => productCategories.code),
    caloriesPer100g: decimal('calories_per_100g'),
    proteinPer100g: decimal('protein_per_100g'),
    fatPer100g: decimal('fat_per_100g'),
    carbsPer100g: decimal('carbs_per_100g'),
    /** Label nutrients beyond the macros, null where unknown; salt is sodium × 2.5 where a source gives sodium. */
    fiberPer100g: decimal('fiber_per_100g'),
    sugarsPer100g: decimal('sugars_per_100g'),
    saturatedFatPer100g: decimal('saturated_fat_per_100g'),
    saltPer100g: decimal('salt_per_100g'),
    defaultUnitCode: text()
      .notNull()
      .default('g')
      .references(() => units.code),
    storageDays: integer(),
    /** Grams per millilitre, for converting volume units. */
    densityGPerMl: decimal(),
    /** Grams of one piece, as bought. */
    pieceG: decimal(),
    /**
     * The share of a piece as bought that is eaten (an egg without its shell 0.88, a whole chicken off the bone 0.68):
     * what pieces become in grams of food. Per-100 g values are of the edible part.
     */
    ediblePortion: decimal().notNull().default(1),
    /** Grams of other counted units: `{"clove": 5, "pack": 900}`. */
    unitGrams: jsonb().$type<Record<string, number>>().notNull().default({}),
    /** `seed`, `off` (Open Food Facts import), `ai` (named by a model) or `user`. */
    source: text().notNull().default('seed'),
    createdAt: createdAt(),
    updatedAt: timestamptz().notNull().defaultNow(),
  },
  (t) => [
    // Only seeded products have a code: imported ones (nearly all of a large catalog) are left out of its index.
    // Nothing looks products up by category alone (search filters its candidates), so that column has no index.
    uniqueIndex('products_code_unique').on(t.code).where(sql`${t.code} IS NOT NULL`),
    check('products_barcode_check', sql`${t.barcode} ~ '^[0-9]{8,14}$'`),
    check(
      'products_nutrition_check',
      sql`${t.caloriesPer100g} BETWEEN 0 AND 900 AND ${t.proteinPer100g} >= 0 AND ${t.fatPer100g} >= 0 AND
        ${t.carbsPer100g} >= 0`,
    ),
    check(
      'products_nutrients_check',
      sql`${t.fiberPer100g} BETWEEN 0 AND 100 AND ${t.sugarsPer100g} BETWEEN 0 AND 100 AND
        ${t.saturatedFatPer100g} BETWEEN 0 AND 100 AND ${t.saltPer100g} BETWEEN 0 AND 100`,
    ),
    check('products_edible_portion_check', sql`${t.ediblePortion} > 0 AND ${t.ediblePortion} <= 1`),
    check('products_storage_check', sql`${t.storageDays} > 0`),
  ],
);

/** Names of a product in each language; the primary alias of a language is its display name there. */
export const productAliases = pgTable(
  'product_aliases',
  {
    id: id(),
    productId: uuid()
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    languageCode: text().references(() => languages.code),
    name: text().notNull(),
    isPrimary: boolean().notNull().default(false),
    /**
     * What search compares: the name folded as people type it, lower case without accents (`fold_text`: `Tulú` is
     * `tulu`, `ё` is `е`).
     */
    searchName: text().generatedAlwaysAs(sql`fold_text(name)`),
    /**
     * A name of a product from the bulk import (`source = 'off'`, which never changes): ingredient search and
     * ingredient matching leave these out, so the curated indexes below do not hold them.
     */
    imported: boolean().notNull().default(false),
  },
  (t) => [
    uniqueIndex('product_aliases_unique_idx').on(t.productId, t.languageCode, t.name),
    // Search: text_pattern_ops (prefixes, exact names), simple full text (words). The same two over curated names
    // alone serve ingredient search, and trigram similarity matches ingredient names to curated products: however
    // many imported names share a word, they never crowd curated ones out of a bounded candidate set.
    index('product_aliases_prefix_idx').on(t.searchName.op('text_pattern_ops')),
    index('product_aliases_fts_idx').using('gin', sql`to_tsvector('simple', ${t.searchName})`),
    index('product_aliases_curated_prefix_idx').on(t.searchName.op('text_pattern_ops')).where(sql`NOT ${t.imported}`),
    // Curated names in one language by prefix: a letter or two ranks the request language's names first.
    index('product_aliases_curated_language_prefix_idx')
      .on(t.languageCode, t.searchName.op('text_pattern_ops'))
      .where(sql`NOT ${t.imported}`),
    index('product_aliases_curated_fts_idx')
      .using('gin', sql`to_tsvector('simple', ${t.searchName})`)
      .where(sql`NOT ${t.imported}`),
    index('product_aliases_curated_trgm_idx')
      .using('gin', t.searchName.op('gin_trgm_ops'))
      .where(sql`NOT ${t.imported}`),
    uniqueIndex('product_aliases_primary_idx').on(t.productId, t.languageCode).where(sql`${t.isPrimary}`),
  ],
);

export const dishes = pgTable(
  'dishes',
  {
    id: id(),
    code: text().unique(),
    categoryCode: text().references(() => dishCategories.code),
    cuisineCode: text().references(() => cuisines.code),
    imageUrl: text(),
    /** Who made it: the catalog, a model (`ai`, `menu`, `stub`) or a user. */
    source: text().notNull().default('catalog'),
    createdBy: uuid().references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [
    index('dishes_category_idx').on(t.categoryCode),
    index('dishes_cuisine_idx').on(t.cuisineCode),
    check('dishes_source_check', oneOf('source', RECIPE_SOURCES)),
  ],
);

export const dishTranslations = pgTable(
  'dish_translations',
  {
    dishId: uuid()
      .notNull()
      .references(() => dishes.id, { onDelete: 'cascade' }),
    languageCode: text()
      .notNull()
      .references(() => languages.code),
    name: text().notNull(),
    description: text(),
  },
  (t) => [
    primaryKey({ columns: [t.dishId, t.languageCode] }),
    index('dish_translations_trgm_idx').using('gin', sql`lower(${t.name}) gin_trgm_ops`),
    // Exact names (diary entries by name, recognised dishes) without computing trigrams.
    index('dish_translations_lower_name_idx').on(sql`lower(${t.name})`),
  ],
);

export const dishTags = pgTable(
  'dish_tags',
  {
    dishId: uuid()
      .notNull()
      .references(() => dishes.id, { onDelete: 'cascade' }),
    tagCode: text()
      .notNull()
      .references(() => tags.code),
  },
  (t) => [primaryKey({ columns: [t.dishId, t.tagCode] }), index('dish_tags_tag_idx').on(t.tagCode)],
);

export const recipes = pgTable(
  'recipes',
  {
    id: id(),
    dishId: uuid()
      .notNull()
      .references(() => dishes.id, { onDelete: 'cascade' }),
    /** The recipe a dish opens with; exactly one per dish. */
    isDefault: boolean().notNull().default(false),
    source: text().notNull(),
    servings: decimal().notNull().default(1),
    prepMinutes: integer(),
    cookMinutes: integer(),
    caloriesPerServing: decimal(),
    proteinPerServing: decimal(),
    fatPerServing: decimal(),
    carbsPerServing: decimal(),
    fiberPerServing: decimal(),
    sugarsPerServing: decimal(),
    saturatedFatPerServing: decimal(),
    saltPerServing: decimal(),
    /** What one serving weighs (the ingredients' grams ÷ servings); null when an ingredient cannot be weighed. */
    servingG: decimal(),
    imageUrl: text(),
    createdBy: uuid().references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [
    index('recipes_dish_idx').on(t.dishId),
    uniqueIndex('recipes_default_idx').on(t.dishId).where(sql`${t.isDefault}`),
    check('recipes_source_check', oneOf('source', RECIPE_SOURCES)),
    check('recipes_servings_check', sql`${t.servings} > 0`),
    check('recipes_serving_g_check', sql`${t.servingG} > 0`),
  ],
);

export const recipeTranslations = pgTable(
  'recipe_translations',
  {
    recipeId: uuid()
      .notNull()
      .references(() => recipes.id, { onDelete: 'cascade' }),
    languageCode: text()
      .notNull()
      .references(() => languages.code),
    notes: text(),
  },
  (t) => [primaryKey({ columns: [t.recipeId, t.languageCode] })],
);

export const recipeIngredients = pgTable(
  'recipe_ingredients',
  {
    id: id(),
    recipeId: uuid()
      .notNull()
      .references(() => recipes.id, { onDelete: 'cascade' }),
    position: integer().notNull(),
    /** Null when a model named an ingredient the catalog does not have; `name` keeps what it said. */
    productId: uuid().references(() => products.id),
    name: text(),
    quantity: decimal().notNull(),
    unitCode: text()
      .notNull()
      .references(() => units.code),
    /** Per-language notes (`{"en": "finely chopped"}`); a missing language falls back to English. */
    note: jsonb().$type<Record<string, string>>(),
    /**
     * The share of the ingredient's nutrition and weight that ends up in the dish: below 1 for what is strained out
     * or discarded (coffee grounds, tea leaves, the bread of kvass).
     */
    yieldFactor: decimal().notNull().default(1),
  },
  (t) => [
    uniqueIndex('recipe_ingredients_position_idx').on(t.recipeId, t.position),
    index('recipe_ingredients_product_idx').on(t.productId),
    check('recipe_ingredients_named_check', sql`${t.productId} IS NOT NULL OR ${t.name} IS NOT NULL`),
    check('recipe_ingredients_quantity_check', sql`${t.quantity} > 0`),
    check('recipe_ingredients_yield_check', sql`${t.yieldFactor} >= 0 AND ${t.yieldFactor} <= 1`),
  ],
);

export const recipeSteps = pgTable(
  'recipe_steps',
  {
    id: id(),
    recipeId: uuid()
      .notNull()
      .references(() => recipes.id, { onDelete: 'cascade' }),
    position: integer().notNull(),
    durationMinutes: integer(),
  },
  (t) => [uniqueIndex('recipe_steps_position_idx').on(t.recipeId, t.position)],
);

export const recipeStepTranslations = pgTable(
  'recipe_step_translations',
  {
    stepId: uuid()
      .notNull()
      .references(() => recipeSteps.id, { onDelete: 'cascade' }),
    languageCode: text()
      .notNull()
      .references(() => languages.code),
    text: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.stepId, t.languageCode] })],
);

/**
 * Every distinct word of the product names (3+ characters): a small table whose trigram index corrects typos in a
 * query word before the full-text search, instead of running trigram similarity over a million names.
 */
export const searchWords = pgTable('search_words', { word: text().primaryKey() }, (t) => [
  index('search_words_trgm_idx').using('gin', t.word.op('gin_trgm_ops')),
  index('search_words_prefix_idx').on(t.word.op('text_pattern_ops')),
]);
