import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  customType,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, decimal, id, MEAL_TYPES, oneOf, timestamptz } from './columns.ts';
import { dishes, products, recipes } from './catalog.ts';
import { dishRecognitionJobs } from './recognition.ts';
import { languages, productCategories, units } from './reference.ts';
import { users } from './users.ts';

const owner = () =>
  uuid()
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' });

/**
 * What offline clients need of a synced row: its version (bumped by a trigger on every change; `If-Match` compares
 * it) and, for a row created with a client-made id, the fingerprint of that create (a replay with the same body gets
 * the row, another body a conflict).
 */
const synced = () => ({
  version: integer().notNull().default(1),
  clientHash: text(),
});

/** Pantry. `expires_at` is derived in SQL from added_at + storage_days and never stored. */
export const userProducts = pgTable(
  'user_products',
  {
    id: id(),
    userId: owner(),
    /** Null for the user's own item that the catalog does not know; `name` then says what it is. */
    productId: uuid().references(() => products.id),
    name: text(),
    quantity: decimal().notNull(),
    unitCode: text()
      .notNull()
      .references(() => units.code),
    storageDays: integer().notNull(),
    addedAt: timestamptz().notNull().defaultNow(),
    createdAt: createdAt(),
    updatedAt: timestamptz().notNull().defaultNow(),
    ...synced(),
  },
  (t) => [
    index('user_products_user_idx').on(t.userId, t.addedAt),
    check('user_products_named_check', sql`${t.productId} IS NOT NULL OR ${t.name} IS NOT NULL`),
    check('user_products_quantity_check', sql`${t.quantity} > 0`),
    check('user_products_storage_check', sql`${t.storageDays} > 0`),
  ],
);

export const userSavedRecipes = pgTable(
  'user_saved_recipes',
  {
    id: id(),
    userId: owner(),
    recipeId: uuid()
      .notNull()
      .references(() => recipes.id, { onDelete: 'cascade' }),
    savedAt: timestamptz().notNull().defaultNow(),
    ...synced(),
  },
  (t) => [uniqueIndex('user_saved_recipes_unique_idx').on(t.userId, t.recipeId)],
);

export const menuPlans = pgTable(
  'menu_plans',
  {
    id: id(),
    userId: owner(),
    weekStart: date({ mode: 'string' }).notNull(),
    /** The model of the latest generation (`offline` for the stand-in); null while only planned by hand. */
    model: text(),
    createdAt: createdAt(),
    updatedAt: timestamptz().notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('menu_plans_week_idx').on(t.userId, t.weekStart),
    check('menu_plans_monday_check', sql`extract(isodow FROM ${t.weekStart}) = 1`),
  ],
);

export const menuItems = pgTable(
  'menu_items',
  {
    id: id(),
    menuPlanId: uuid()
      .notNull()
      .references(() => menuPlans.id, { onDelete: 'cascade' }),
    /** The plan's owner, copied by a trigger on insert: the change feed and account deletion find items by it. */
    userId: owner(),
    date: date({ mode: 'string' }).notNull(),
    mealType: text().notNull(),
    dishId: uuid()
      .notNull()
      .references(() => dishes.id),
    recipeId: uuid()
      .notNull()
      .references(() => recipes.id),
    servings: decimal().notNull().default(1),
    /** Slots are put by date and meal type (PUT /menu), so no create fingerprint is kept. */
    version: synced().version,
  },
  (t) => [
    index('menu_items_user_idx').on(t.userId),
    uniqueIndex('menu_items_slot_idx').on(t.menuPlanId, t.date, t.mealType),
    check('menu_items_meal_type_check', oneOf('meal_type', MEAL_TYPES)),
    check('menu_items_servings_check', sql`${t.servings} > 0`),
  ],
);

export const shoppingLists = pgTable(
  'shopping_lists',
  {
    id: id(),
    userId: owner(),
    weekStart: date({ mode: 'string' }).notNull(),
    generatedAt: timestamptz(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('shopping_lists_week_idx').on(t.userId, t.weekStart)],
);

export const shoppingListItems = pgTable(
  'shopping_list_items',
  {
    id: id(),
    shoppingListId: uuid()
      .notNull()
      .references(() => shoppingLists.id, { onDelete: 'cascade' }),
    /** The list's owner, copied by a trigger on insert (see menu_items). */
    userId: owner(),
    productId: uuid().references(() => products.id),
    name: text().notNull(),
    quantity: decimal(),
    unitCode: text().references(() => units.code),
    categoryCode: text().references(() => productCategories.code),
    checked: boolean().notNull().default(false),
    /** Added by hand: kept when the list is regenerated. */
    isManual: boolean().notNull().default(false),
    createdAt: createdAt(),
    ...synced(),
  },
  (t) => [
    index('shopping_list_items_list_idx').on(t.shoppingListId),
    index('shopping_list_items_user_idx').on(t.userId),
    check('shopping_list_items_quantity_check', sql`${t.quantity} > 0`),
  ],
);

export const mealDiary = pgTable(
  'meal_diary',
  {
    id: id(),
    userId: owner(),
    date: date({ mode: 'string' }).notNull(),
    mealType: text().notNull(),
    dishId: uuid().references(() => dishes.id),
    recipeId: uuid().references(() => recipes.id),
    productId: uuid().references(() => products.id),
    portions: decimal(),
    portionG: decimal(),
    jobId: uuid().references(() => dishRecognitionJobs.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    ...synced(),
  },
  (t) => [
    index('meal_diary_user_date_idx').on(t.userId, t.date),
    index('meal_diary_user_created_idx').on(t.userId, t.createdAt),
    // A recognised dish is logged once: a second entry for the same job is a conflict, even when two requests race.
    uniqueIndex('meal_diary_job_idx').on(t.jobId).where(sql`${t.jobId} IS NOT NULL`),
    check('meal_diary_meal_type_check', oneOf('meal_type', MEAL_TYPES)),
    check('meal_diary_one_item_check', sql`(${t.dishId} IS NULL) <> (${t.productId} IS NULL)`),
    check('meal_diary_dish_recipe_check', sql`(${t.dishId} IS NULL) = (${t.recipeId} IS NULL)`),
    check('meal_diary_product_grams_check', sql`${t.productId} IS NULL OR ${t.portionG} > 0`),
    check('meal_diary_portions_check', sql`${t.portions} > 0`),
  ],
);

/** Generated recommendations, cached per user, day, language and meal type. */
export const recommendationSets = pgTable(
  'recommendation_sets',
  {
    id: id(),
    userId: owner(),
    day: date({ mode: 'string' }).notNull(),
    languageCode: text()
      .notNull()
      .references(() => languages.code),
    /** Empty string when no meal type was asked for, so the unique index covers it. */
    mealType: text().notNull().default(''),
    items: jsonb().notNull(),
    /** The model that made the set (`offline` for the stand-in); null for sets stored before it was kept. */
    model: text(),
    /**
     * How many recipes the model was asked for (the request's limit); it may answer fewer. The set serves every read
     * of a limit up to this. Null for sets stored before it was kept: as many as they hold.
     */
    asked: integer(),
    generatedAt: timestamptz().notNull().defaultNow(),
  },
  (t) => [uniqueIndex('recommendation_sets_key_idx').on(t.userId, t.day, t.languageCode, t.mealType)],
);

/** The kinds of rows the change feed carries (`sync_changes.kind`). */
export const SYNC_KINDS = [
  'diary_entries',
  'user_products',
  'saved_recipes',
  'menu_items',
  'shopping_items',
  'profile',
] as const;

const xid8 = customType<{ data: string }>({ dataType: () => 'xid8' });

/**
 * The change feed: one row per synced row, rewritten by triggers in the transaction that changes it, with that
 * transaction's id. A cursor is a snapshot: what it did not see and the reader's snapshot does is exactly what changed
 * since, in commit order rather than start order. Deleted rows stay as tombstones for the retention period.
 */
export const syncChanges = pgTable(
  'sync_changes',
  {
    rowId: uuid().notNull(),
    kind: text().notNull(),
    userId: owner(),
    xid: xid8().notNull(),
    deleted: boolean().notNull().default(false),
    changedAt: timestamptz().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.rowId, t.kind] }),
    index('sync_changes_feed_idx').on(t.userId, t.xid, t.kind, t.rowId),
    // The sync streams' poll reads the changes made since its last snapshot, whoever they belong to.
    index('sync_changes_xid_idx').on(t.xid),
    index('sync_changes_tombstones_idx').on(t.changedAt).where(sql`${t.deleted}`),
    check('sync_changes_kind_check', oneOf('kind', SYNC_KINDS)),
  ],
);

/**
 * The transaction that last changed each day of a user's diary, kept by a trigger on meal_diary. An API process may
 * keep a day's JSON while the day's row here is unchanged: a write leaves the user's other days, and every other
 * user's, kept.
 */
export const diaryDays = pgTable(
  'diary_days',
  {
    userId: owner(),
    date: date({ mode: 'string' }).notNull(),
    version: xid8().notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.date] })],
);
