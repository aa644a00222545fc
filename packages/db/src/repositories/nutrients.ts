import type postgres from 'postgres';
import type { Queryable } from '../client.ts';

/** Label nutrients beyond the macros, per serving of a recipe; null where an ingredient does not state them. */
export interface NutrientsPerServing {
  fiber_per_serving: number | null;
  sugars_per_serving: number | null;
  saturated_fat_per_serving: number | null;
  salt_per_serving: number | null;
}

/** The same nutrients in an amount eaten or planned (a diary entry, a menu item). */
export interface NutrientGrams {
  fiber_g: number | null;
  sugars_g: number | null;
  saturated_fat_g: number | null;
  salt_g: number | null;
}

/** Columns of recipe `r`, named as in `NutrientsPerServing`. */
export const RECIPE_NUTRIENTS = (sql: Queryable) => sql`
  r.fiber_per_serving::float8 AS fiber_per_serving, r.sugars_per_serving::float8 AS sugars_per_serving,
  r.saturated_fat_per_serving::float8 AS saturated_fat_per_serving, r.salt_per_serving::float8 AS salt_per_serving`;

/** Columns of product `p` per 100 g. */
export const PRODUCT_NUTRIENTS = (sql: Queryable) => sql`
  p.fiber_per_100g::float8 AS fiber_per_100g, p.sugars_per_100g::float8 AS sugars_per_100g,
  p.saturated_fat_per_100g::float8 AS saturated_fat_per_100g, p.salt_per_100g::float8 AS salt_per_100g`;

/** `servings` of recipe `r`, named as in `NutrientGrams`; salt to 0.01 g, the others to 0.1 g. */
export const SERVINGS_NUTRIENTS = (sql: Queryable, servings: postgres.Fragment) => sql`
  round(r.fiber_per_serving * ${servings}, 1)::float8 AS fiber_g,
  round(r.sugars_per_serving * ${servings}, 1)::float8 AS sugars_g,
  round(r.saturated_fat_per_serving * ${servings}, 1)::float8 AS saturated_fat_g,
  round(r.salt_per_serving * ${servings}, 2)::float8 AS salt_g`;
