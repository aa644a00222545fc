/** One planned meal of a day: its per-serving calories and the servings planned. */
export interface PlannedMeal {
  caloriesPerServing: number;
  servings: number;
}

export const DAY_TOLERANCE = 0.1;
const STEP = 0.05;
const MIN_SERVINGS = 0.25;

const roundStep = (x: number) => Math.max(MIN_SERVINGS, Math.round(x / STEP) * STEP);
const dayCalories = (meals: PlannedMeal[], servings: number[]) =>
  meals.reduce((sum, m, i) => sum + m.caloriesPerServing * servings[i]!, 0);

/**
 * Servings for each meal of a day so that the day lands within ±10 % of the calorie target: every meal is scaled by
 * the same factor (the menu keeps its proportions), rounded to 0.05 of a serving, and if rounding pushed the day out
 * of the band, the most caloric meal is nudged back in. Days without calories or target are left as they are.
 */
export function fitDayServings(meals: PlannedMeal[], target: number | null, tolerance = DAY_TOLERANCE): number[] {
  const current = dayCalories(
    meals,
    meals.map((m) => m.servings),
  );
  if (target === null || target <= 0 || current <= 0) return meals.map((m) => m.servings);
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
