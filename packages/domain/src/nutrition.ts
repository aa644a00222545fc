export type UnitKind = 'mass' | 'volume' | 'count';

export interface Unit {
  code: string;
  kind: UnitKind;
  /** Grams (mass) or millilitres (volume) in one unit; null for counted units. */
  factor: number | null;
}

/** What a product weighs in the units that are not mass. */
export interface ProductMeasures {
  densityGPerMl: number | null;
  pieceG: number | null;
  /** Grams of other counted units: `{"clove": 5, "pack": 900}`. */
  unitGrams: Record<string, number>;
  /** The share of a counted unit as bought that is eaten (1 when absent). */
  ediblePortion?: number;
}

export interface Macros {
  calories: number;
  protein: number;
  fat: number;
  carbs: number;
}

/**
 * What labels declare beside the macros (the EU's mandatory declaration, with fibre), per 100 g of a product or per
 * serving of a recipe; null where unknown. Salt is sodium × 2.5 where only sodium is known.
 */
export const NUTRIENTS = ['fiber', 'sugars', 'saturated_fat', 'salt'] as const;
export type Nutrient = (typeof NUTRIENTS)[number];
export type Nutrients = Record<Nutrient, number | null>;

export const UNKNOWN_NUTRIENTS: Nutrients = { fiber: null, sugars: null, saturated_fat: null, salt: null };

/** Salt is given to 0.01 g (a label's precision for small amounts); the others to 0.1 g. */
export const roundNutrient = (n: Nutrient, x: number) =>
  n === 'salt' ? Math.round(x * 100) / 100 : Math.round(x * 10) / 10;

/** Liquids without a known density are taken as water. */
const DEFAULT_DENSITY = 1;

/**
 * Grams in `quantity` of `unit` of a product, or null when the unit cannot be weighed for it (a `pack` of unknown
 * size).
 */
export function gramsOf(quantity: number, unit: Unit, product: ProductMeasures): number | null {
  switch (unit.kind) {
    case 'mass':
      return quantity * unit.factor!;
    case 'volume':
      return quantity * unit.factor! * (product.densityGPerMl ?? DEFAULT_DENSITY);
    case 'count': {
      const grams = product.unitGrams[unit.code] ?? (unit.code === 'piece' ? product.pieceG : null);
      return grams == null ? null : quantity * grams;
    }
  }
}

/**
 * Grams of food in `quantity` of `unit`: a counted unit (a piece, a clove) is weighed as bought, so only its edible
 * share counts (an egg's shell, an orange's peel, a chicken's bones are not eaten). Shopping keeps `gramsOf`.
 */
export function edibleGramsOf(quantity: number, unit: Unit, product: ProductMeasures): number | null {
  const grams = gramsOf(quantity, unit, product);
  return grams !== null && unit.kind === 'count' ? grams * (product.ediblePortion ?? 1) : grams;
}

/** Nutrition of `grams` of a product given per 100 g. */
export function nutritionOfGrams(per100g: Macros, grams: number): Macros {
  const f = grams / 100;
  return {
    calories: per100g.calories * f,
    protein: per100g.protein * f,
    fat: per100g.fat * f,
    carbs: per100g.carbs * f,
  };
}

export const round1 = (x: number) => Math.round(x * 10) / 10;

/** The most one serving holds: the bounds of a model's own per-serving estimate, and of nutrition computed for it. */
export const MAX_PER_SERVING: Readonly<Macros> = { calories: 3000, protein: 300, fat: 300, carbs: 500 };

/** Whether per-serving nutrition is within `MAX_PER_SERVING` (beyond it, the amounts it came from cannot be right). */
export const plausibleServing = (m: Macros) =>
  m.calories <= MAX_PER_SERVING.calories &&
  m.protein <= MAX_PER_SERVING.protein &&
  m.fat <= MAX_PER_SERVING.fat &&
  m.carbs <= MAX_PER_SERVING.carbs;

export interface IngredientAmount {
  grams: number | null;
  per100g: Macros | null;
  /** Per 100 g; unknown when absent. */
  nutrients?: Nutrients;
}

/**
 * Per-serving nutrition of a recipe: each ingredient's grams × its per-100 g values, summed and divided by servings,
 * rounded to 0.1. Ingredients that cannot be weighed or have no nutrition are counted in `unmeasured`. `servingG` is
 * what one serving weighs (the ingredients' grams ÷ servings, to 0.1 g), null unless every ingredient was weighed,
 * and null for a serving under 0.05 g (a pinch of salt): 0 g is no serving weight, and portions of it would be
 * infinite. A nutrient beyond the macros is null unless every weighed ingredient states it: a partial sum would read
 * as a whole.
 */
export function recipePerServing(
  ingredients: IngredientAmount[],
  servings: number,
): Macros & { unmeasured: number; servingG: number | null; nutrients: Nutrients } {
  const nutrients = { ...UNKNOWN_NUTRIENTS };
  const counted = ingredients.filter((i) => i.grams !== null && i.per100g !== null);
  for (const n of NUTRIENTS) {
    if (counted.length === 0 || counted.some((i) => i.nutrients?.[n] == null)) continue;
    const total = counted.reduce((sum, i) => sum + (i.nutrients![n]! * i.grams!) / 100, 0);
    nutrients[n] = roundNutrient(n, total / servings);
  }
  const total: Macros = { calories: 0, protein: 0, fat: 0, carbs: 0 };
  let unmeasured = 0;
  let grams = 0;
  for (const amount of ingredients) {
    if (amount.grams !== null) grams += amount.grams;
    if (amount.grams === null || amount.per100g === null) {
      unmeasured++;
      continue;
    }
    const n = nutritionOfGrams(amount.per100g, amount.grams);
    total.calories += n.calories;
    total.protein += n.protein;
    total.fat += n.fat;
    total.carbs += n.carbs;
  }
  const servingG = ingredients.every((i) => i.grams !== null) ? round1(grams / servings) : 0;
  return {
    calories: round1(total.calories / servings),
    protein: round1(total.protein / servings),
    fat: round1(total.fat / servings),
    carbs: round1(total.carbs / servings),
    unmeasured,
    servingG: servingG > 0 ? servingG : null,
    nutrients,
  };
}

/** The most portions a diary entry takes. */
export const MAX_PORTIONS = 50;

/**
 * Portions in `grams` of a dish whose serving weighs `servingG` (a recognised 350 g plate of a 250 g serving is 1.4
 * portions), rounded to 0.001 (so grams stay in proportion: 100 g and 1000 g of a dish differ tenfold within 0.1 %),
 * at least 0.001; null when the serving weight is unknown, since the grams then say nothing of portions. Not capped:
 * more than MAX_PORTIONS is the caller's to refuse, as the entry would otherwise not hold what the grams say.
 */
export function portionsOfGrams(grams: number, servingG: number | null): number | null {
  if (!servingG || servingG <= 0) return null;
  return Math.max(0.001, Math.round((grams / servingG) * 1000) / 1000);
}

/** Scales per-serving values by a number of portions (1.5 portions of a recipe). */
export function scaleMacros(m: Macros, factor: number): Macros {
  return {
    calories: round1(m.calories * factor),
    protein: round1(m.protein * factor),
    fat: round1(m.fat * factor),
    carbs: round1(m.carbs * factor),
  };
}
