/** One planned meal of a day: its per-serving calories and the servings planned. */
export interface PlannedMeal {
  caloriesPerServing: number;
  servings: number;
}

export const DAY_TOLERANCE = 0.1;
const STEP = 0.05;
/** A planned meal is half a serving to two: beyond that, another recipe fits better than a scaled one. */
export const MIN_SERVINGS = 0.5;
export const MAX_SERVINGS = 2;

const roundStep = (x: number) => Math.min(MAX_SERVINGS, Math.max(MIN_SERVINGS, Math.round(x / STEP) * STEP));

/** The part of a day's calories each meal type usually carries. */
export const MEAL_SHARES: Record<string, number> = {
  breakfast: 0.25,
  second_breakfast: 0.1,
  lunch: 0.35,
  afternoon_snack: 0.1,
  dinner: 0.25,
  snack: 0.1,
};

/**
 * Calories for some of a day's meals: their meal types' share of the day's target (a snack and a dinner are 35 %
 * of it), never more than the whole day.
 */
export function mealsTarget(dayTarget: number, mealTypes: readonly string[]): number {
  const share = [...new Set(mealTypes)].reduce((sum, type) => sum + (MEAL_SHARES[type] ?? 0), 0);
  return dayTarget * Math.min(1, share);
}
const dayCalories = (meals: PlannedMeal[], servings: number[]) =>
  meals.reduce((sum, m, i) => sum + m.caloriesPerServing * servings[i]!, 0);

/**
 * Servings for each meal of a day so that the day lands within ±10 % of the calorie target: every meal is scaled by
 * the same factor (the menu keeps its proportions), rounded to 0.05 of a serving and kept within 0.5-2 servings, and
 * if rounding pushed the day out of the band, the most caloric meal is nudged back in. A target the bounds cannot
 * reach is approached as far as they allow: a target of 0 (a day its kept meals already filled) is half a serving
 * of each. Days without calories or without a target (null) are left as they are.
 */
export function fitDayServings(meals: PlannedMeal[], target: number | null, tolerance = DAY_TOLERANCE): number[] {
  const current = dayCalories(
    meals,
    meals.map((m) => m.servings),
  );
  if (target === null || current <= 0) return meals.map((m) => m.servings);
  if (target <= 0) return meals.map(() => MIN_SERVINGS);
  const factor = target / current;
  const servings = meals.map((m) => roundStep(m.servings * factor));
  const total = dayCalories(meals, servings);
  if (Math.abs(total - target) > target * tolerance) {
    const biggest = meals.reduce(
      (best, m, i) => (m.caloriesPerServing > meals[best]!.caloriesPerServing ? i : best),
      0,
    );
    const others = total - meals[biggest]!.caloriesPerServing * servings[biggest]!;
    servings[biggest] = roundStep((target - others) / meals[biggest]!.caloriesPerServing);
  }
  return servings.map((s) => Math.round(s * 100) / 100);
}

/** True when a day's calories are within the tolerance of the target. */
export function dayWithinTarget(meals: PlannedMeal[], target: number, tolerance = DAY_TOLERANCE): boolean {
  const total = dayCalories(
    meals,
    meals.map((m) => m.servings),
  );
  return Math.abs(total - target) <= target * tolerance;
}
