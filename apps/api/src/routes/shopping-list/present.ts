import type { ShoppingItemRow, shoppingRepository } from '@nutrition/db/repositories';

type Line = Omit<ShoppingItemRow, 'category_code' | 'category_name' | 'shop_order'>;

/** Items (already in shop order) grouped by category. */
export function group(items: ShoppingItemRow[]) {
  const groups: { category_code: string; category_name: string; items: Line[] }[] = [];
  for (const { category_code, category_name, shop_order: _, ...item } of items) {
    const last = groups.at(-1);
    const g = last?.category_code === category_code ? last : { category_code, category_name, items: [] as Line[] };
    if (g !== last) groups.push(g);
    g.items.push(item);
  }
  return groups;
}

/** A week's list as the API shows it (an empty one when the week has none). */
export async function renderList(
  shopping: ReturnType<typeof shoppingRepository>,
  userId: string,
  weekStart: string,
  language: string,
) {
  const list = await shopping.list(userId, weekStart);
  if (!list) return { id: null, week_start: weekStart, generated_at: null, groups: [] };
  return { ...list, groups: group(await shopping.items(list.id, language)) };
}
