/**
 * The service's enumerations, each defined once: the schema's check constraints, the routes' TypeBox schemas, the
 * model output schemas and the seed all import them from here.
 */

/** Meal types in day order: the order a day's diary and menu items are listed in. */
export const MEAL_TYPES = ['breakfast', 'second_breakfast', 'lunch', 'afternoon_snack', 'dinner', 'snack'] as const;
export type MealType = (typeof MEAL_TYPES)[number];

export const JOB_STATUSES = ['queued', 'processing', 'done', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Paid users' jobs are taken first. */
export const PLANS = ['free', 'paid'] as const;
export type Plan = (typeof PLANS)[number];

export const RECOGNITION_KINDS = ['dish', 'product'] as const;
export type RecognitionKind = (typeof RECOGNITION_KINDS)[number];

/** What a product job reads: a shop receipt, or photos of products. */
export const PRODUCT_JOB_TYPES = ['receipt', 'products'] as const;
export type ProductJobType = (typeof PRODUCT_JOB_TYPES)[number];

export const RECIPE_SOURCES = ['catalog', 'ai', 'menu', 'user', 'stub'] as const;
export type RecipeSource = (typeof RECIPE_SOURCES)[number];

/**
 * The unit codes the code relies on (recipes, shopping rounding, the offline model); the seeded `units` table holds
 * exactly these (a test ties the two).
 */
export const UNIT_CODES = [
  'g',
  'kg',
  'mg',
  'oz',
  'lb',
  'pinch',
  'ml',
  'l',
  'dl',
  'fl_oz',
  'tsp',
  'tbsp',
  'cup',
  'cup_jp',
  'glass',
  'piece',
  'clove',
  'slice',
  'pack',
  'can',
  'bottle',
  'bunch',
  'handful',
  'sprig',
  'leaf',
] as const;
export type UnitCode = (typeof UNIT_CODES)[number];
