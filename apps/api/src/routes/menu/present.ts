import type { MenuItemRow } from '@nutrition/db/repositories';
import { addDays, round1 } from '@nutrition/domain';

function totalsOf(items: MenuItemRow[]) {
  const sum = (key: 'calories' | 'protein_g' | 'fat_g' | 'carbs_g') =>
    round1(items.reduce((s, i) => s + (i[key] ?? 0), 0));
  // The known values summed: null when items exist and none states the nutrient.
  const known = (key: 'fiber_g' | 'sugars_g' | 'saturated_fat_g' | 'salt_g', digits: number) => {
    const values = items.map((i) => i[key]).filter((v) => v !== null);
    if (items.length > 0 && values.length === 0) return null;
    return Number(values.reduce((s, v) => s + v, 0).toFixed(digits));
  };
  return {
    calories: sum('calories'),
    protein_g: sum('protein_g'),
    fat_g: sum('fat_g'),
    carbs_g: sum('carbs_g'),
    fiber_g: known('fiber_g', 1),
    sugars_g: known('sugars_g', 1),
    saturated_fat_g: known('saturated_fat_g', 1),
    salt_g: known('salt_g', 2),
  };
}

/** A week as the contract shows it: seven days, items in meal-type order, day and week totals. */
export function present(weekStart: string, plan: { id: string | null; model: string | null; items: MenuItemRow[] }) {
  const days = Array.from({ length: 7 }, (_, i) => {
    const date = addDays(weekStart, i);
    const items = plan.items.filter((item) => item.date === date).map(({ calories_per_serving: _, ...item }) => item);
    return { date, items, totals: totalsOf(plan.items.filter((item) => item.date === date)) };
  });
  return { id: plan.id, week_start: weekStart, model: plan.model, days, totals: totalsOf(plan.items) };
}
