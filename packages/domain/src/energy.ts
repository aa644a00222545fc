export const ACTIVITY_FACTORS = {
  sedentary: 1.2,
  light: 1.375,
  moderate: 1.55,
  active: 1.725,
  very_active: 1.9,
} as const;

export const GOAL_DELTAS = { lose: -500, maintain: 0, gain: 300 } as const;

/** Below this a diet needs medical supervision; the service never suggests less. */
export const CALORIE_FLOOR = 1200;

/** Share of energy from each macronutrient, and kcal per gram of it. */
export const MACRO_SPLIT = { protein: 0.25, fat: 0.3, carbs: 0.45 } as const;
export const KCAL_PER_GRAM = { protein: 4, fat: 9, carbs: 4 } as const;

export type Sex = 'male' | 'female';
export type ActivityLevel = keyof typeof ACTIVITY_FACTORS;
export type Goal = keyof typeof GOAL_DELTAS;

export interface EnergyInputs {
  sex: Sex | null;
  weightKg: number | null;
  heightCm: number | null;
  dateOfBirth: string | null;
  activityLevel: ActivityLevel | null;
  goal: Goal | null;
}

export interface MacroTargets {
  protein_g: number;
  fat_g: number;
  carbs_g: number;
}

/** Whole years between a `YYYY-MM-DD` birth date and `today` (a birthday counts on its day). */
export function ageOn(dateOfBirth: string, today: string): number {
  const [by, bm, bd] = dateOfBirth.split('-').map(Number) as [number, number, number];
  const [ty, tm, td] = today.split('-').map(Number) as [number, number, number];
  const hadBirthday = tm > bm || (tm === bm && td >= bd);
  return ty - by - (hadBirthday ? 0 : 1);
}

/** Basal metabolic rate by Mifflin-St Jeor, in kcal a day; null while an input is missing. */
export function basalMetabolicRate(
  sex: Sex | null,
  weightKg: number | null,
  heightCm: number | null,
  age: number | null,
) {
  if (sex === null || weightKg === null || heightCm === null || age === null) return null;
  return 10 * weightKg + 6.25 * heightCm - 5 * age + (sex === 'male' ? 5 : -161);
}

/** Daily calorie target: BMR × activity factor + goal delta, rounded, never below the floor. */
export function calorieTarget(bmr: number | null, activityLevel: ActivityLevel | null, goal: Goal | null) {
  if (bmr === null || activityLevel === null || goal === null) return null;
  return Math.max(CALORIE_FLOOR, Math.round(bmr * ACTIVITY_FACTORS[activityLevel] + GOAL_DELTAS[goal]));
}

export function macroTargets(target: number | null): MacroTargets | null {
  if (target === null) return null;
  const grams = (macro: keyof typeof MACRO_SPLIT) => Math.round((target * MACRO_SPLIT[macro]) / KCAL_PER_GRAM[macro]);
  return { protein_g: grams('protein'), fat_g: grams('fat'), carbs_g: grams('carbs') };
}

/** Everything the profile derives from the user's inputs, as of `today`. */
export function energyProfile(inputs: EnergyInputs, today: string) {
  const age = inputs.dateOfBirth ? ageOn(inputs.dateOfBirth, today) : null;
  const bmr = basalMetabolicRate(inputs.sex, inputs.weightKg, inputs.heightCm, age);
  const target = calorieTarget(bmr, inputs.activityLevel, inputs.goal);
  return {
    age,
    bmr: bmr === null ? null : Math.round(bmr * 100) / 100,
    calorie_target: target,
    macro_targets: macroTargets(target),
  };
}
