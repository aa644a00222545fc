import { boolean, check, integer, numeric, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';

export const languages = pgTable('languages', {
  code: text().primaryKey(),
  nativeName: text().notNull(),
  englishName: text().notNull(),
  sortOrder: integer().notNull(),
  /** PostgreSQL text search configuration for this language; `simple` where PostgreSQL has none. */
  searchConfig: text().notNull().default('simple'),
  isActive: boolean().notNull().default(true),
});

const languageCode = () =>
  text()
    .notNull()
    .references(() => languages.code);

export const units = pgTable(
  'units',
  {
    code: text().primaryKey(),
    kind: text().notNull(),
    /** `g` for mass, `ml` for volume, null for counted units whose weight depends on the product. */
    baseUnit: text(),
    /** Amount of the base unit in one of this unit. */
    factor: numeric({ mode: 'number' }),
    sortOrder: integer().notNull().default(0),
  },
  (t) => [
    check('units_kind_check', sql`${t.kind} IN ('mass', 'volume', 'count')`),
    check('units_base_check', sql`(${t.baseUnit} IS NULL) = (${t.factor} IS NULL)`),
  ],
);

export const unitTranslations = pgTable(
  'unit_translations',
  {
    unitCode: text()
      .notNull()
      .references(() => units.code, { onDelete: 'cascade' }),
    languageCode: languageCode(),
    name: text().notNull(),
    short: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.unitCode, t.languageCode] })],
);

export const cuisines = pgTable('cuisines', {
  code: text().primaryKey(),
  sortOrder: integer().notNull().default(0),
});

export const cuisineTranslations = pgTable(
  'cuisine_translations',
  {
    cuisineCode: text()
      .notNull()
      .references(() => cuisines.code, { onDelete: 'cascade' }),
    languageCode: languageCode(),
    name: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.cuisineCode, t.languageCode] })],
);

export const tags = pgTable('tags', {
  code: text().primaryKey(),
  sortOrder: integer().notNull().default(0),
});

export const tagTranslations = pgTable(
  'tag_translations',
  {
    tagCode: text()
      .notNull()
      .references(() => tags.code, { onDelete: 'cascade' }),
    languageCode: languageCode(),
    name: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.tagCode, t.languageCode] })],
);

export const dishCategories = pgTable('dish_categories', {
  code: text().primaryKey(),
  sortOrder: integer().notNull().default(0),
});

export const dishCategoryTranslations = pgTable(
  'dish_category_translations',
  {
    categoryCode: text()
      .notNull()
      .references(() => dishCategories.code, { onDelete: 'cascade' }),
    languageCode: languageCode(),
    name: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.categoryCode, t.languageCode] })],
);

export const productCategories = pgTable('product_categories', {
  code: text().primaryKey(),
  /** Aisle order used to group a shopping list the way one walks through a shop. */
  shopOrder: integer().notNull(),
  defaultStorageDays: integer().notNull(),
});

export const productCategoryTranslations = pgTable(
  'product_category_translations',
  {
    categoryCode: text()
      .notNull()
      .references(() => productCategories.code, { onDelete: 'cascade' }),
    languageCode: languageCode(),
    name: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.categoryCode, t.languageCode] })],
);
