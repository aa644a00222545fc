import { energyProfile } from '@nutrition/domain';
import { energyInputs, type ProfileRow } from '@nutrition/db/repositories';

const DEFAULT_MEALS_PER_DAY = 3;

/** A profile as the API shows it: the stored fields, preferences with their defaults, and the derived targets. */
export function present(row: ProfileRow, today: string) {
  const derived = energyProfile(energyInputs(row), today);
  return {
    ...row,
    age: derived.age,
    preferences: {
      language: row.preferences.language ?? null,
      cuisines: row.preferences.cuisines ?? [],
      excluded_tags: row.preferences.excluded_tags ?? [],
      meals_per_day: row.preferences.meals_per_day ?? DEFAULT_MEALS_PER_DAY,
    },
    bmr: derived.bmr,
    calorie_target: derived.calorie_target,
    macro_targets: derived.macro_targets,
  };
}
