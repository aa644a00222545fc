import type { Queryable } from '../client.ts';
import { MEAL_TYPES, type MealType } from '@nutrition/domain';
import { lockOwner, visibleDish, visibleRecipe } from './ownership.ts';
import { syncRepository } from './sync.ts';
import { type NutrientGrams, SERVINGS_NUTRIENTS } from './nutrients.ts';

export interface MenuItemRow extends NutrientGrams {
  id: string;
  date: string;
  meal_type: MealType;
  dish_id: string;
  recipe_id: string;
  name: string;
  servings: number;
  calories: number | null;
  protein_g: number | null;
  fat_g: number | null;
  carbs_g: number | null;
  image_url: string | null;
  calories_per_serving: number | null;
  version: number;
}

export interface MenuSlotInput {
  /** A client-made id for the slot's item: it replaces an item of another id in that slot. */
  id?: string;
  date: string;
  meal_type: string;
  dish_id: string;
  recipe_id: string;
  servings: number;
}

/** A menu item `m` as the API shows it, with the tables it reads. */
const ITEM = (sql: Queryable, language: string) => sql`
  m.id, m.date, m.meal_type, m.dish_id, m.recipe_id, COALESCE(tl.name, te.name) AS name,
  m.servings::float8 AS servings,
  round(r.calories_per_serving * m.servings, 1)::float8 AS calories,
  round(r.protein_per_serving * m.servings, 1)::float8 AS protein_g,
  round(r.fat_per_serving * m.servings, 1)::float8 AS fat_g,
  round(r.carbs_per_serving * m.servings, 1)::float8 AS carbs_g,
  ${SERVINGS_NUTRIENTS(sql, sql`m.servings`)},
  COALESCE(r.image_url, d.image_url) AS image_url,
  r.calories_per_serving::float8 AS calories_per_serving, m.version
  FROM menu_items m JOIN recipes r ON r.id = m.recipe_id JOIN dishes d ON d.id = m.dish_id
  LEFT JOIN dish_translations tl ON tl.dish_id = m.dish_id AND tl.language_code = ${language}
  LEFT JOIN dish_translations te ON te.dish_id = m.dish_id AND te.language_code = 'en'`;

/**
 * Serialises the writes of one user's menus until the transaction ends (the owner first, as every write does; see
 * `lockOwner`). A week sent again checked its client ids against the tombstones of deleted items before a deletion on
 * another device committed, and upserted after it: the deleted item came back. Each statement after this lock sees
 * every menu write committed before it.
 */
async function lockMenus(sql: Queryable, userId: string) {
  await lockOwner(sql, userId);
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`menu:${userId}`}, 0))`;
}

/** Weekly menus: one plan per user and Monday, one item per date and meal type. */
export function menuRepository(sql: Queryable) {
  return {
    async plan(userId: string, weekStart: string, language: string) {
      const [plan] = await sql<
        { id: string; model: string | null }[]
      >`SELECT id, model FROM menu_plans WHERE user_id = ${userId} AND week_start = ${weekStart}`;
      if (!plan) return { id: null, model: null, items: [] as MenuItemRow[] };
      const items = await sql<MenuItemRow[]>`
        SELECT ${ITEM(sql, language)} WHERE m.menu_plan_id = ${plan.id}
        ORDER BY m.date, array_position(${[...MEAL_TYPES]}::text[], m.meal_type)`;
      return { id: plan.id, model: plan.model, items };
    },

    /** The user's items among `ids` (the change feed's read); every item without `ids`. */
    async itemsByIds(userId: string, ids: string[] | null, language: string): Promise<MenuItemRow[]> {
      return sql<MenuItemRow[]>`
        SELECT ${ITEM(sql, language)} WHERE m.user_id = ${userId} ${ids ? sql`AND m.id = ANY(${ids}::uuid[])` : sql``}
        ORDER BY m.date, array_position(${[...MEAL_TYPES]}::text[], m.meal_type)`;
    },

    /** The dish and recipe of a slot given either, among those the user may see; null otherwise. */
    async resolve(userId: string, ref: { dish_id?: string; recipe_id?: string }) {
      const [row] = ref.recipe_id
        ? await sql<{ dish_id: string; recipe_id: string }[]>`
            SELECT dish_id, id AS recipe_id FROM recipes r WHERE id = ${ref.recipe_id} AND
              ${visibleRecipe(sql, userId)}`
        : await sql<{ dish_id: string; recipe_id: string }[]>`
            SELECT r.dish_id, r.id AS recipe_id FROM recipes r JOIN dishes d ON d.id = r.dish_id
            WHERE r.dish_id = ${ref.dish_id!} AND ${visibleDish(sql, userId)} AND ${visibleRecipe(sql, userId)}
            ORDER BY r.is_default DESC, r.id LIMIT 1`;
      return row ?? null;
    },

    /**
     * Upserts the named slots of a week, leaving every other slot as it is; `model` records a generation (slots
     * planned by hand keep the model of the last one). Answers the slots' client ids that name items deleted since
     * (their tombstones), and then writes nothing: such an id is not reused. In a transaction (it takes `lockMenus`,
     * so the tombstones it reads are those of every deletion committed before it).
     */
    async upsertSlots(userId: string, weekStart: string, slots: MenuSlotInput[], model?: string): Promise<string[]> {
      await lockMenus(sql, userId);
      const deleted = await syncRepository(sql).deletedMenuItems(slots.flatMap((slot) => (slot.id ? [slot.id] : [])));
      if (deleted.length > 0) return deleted;
      const [plan] = await sql<{ id: string }[]>`
        INSERT INTO menu_plans (user_id, week_start, model) VALUES (${userId}, ${weekStart}, ${model ?? null})
        ON CONFLICT (user_id, week_start)
          DO UPDATE SET updated_at = now(), model = COALESCE(excluded.model, menu_plans.model)
        RETURNING id`;
      if (slots.length === 0) return [];
      const rows = JSON.stringify(slots.map((slot) => ({ ...slot, id: slot.id ?? null })));
      const given = sql`jsonb_to_recordset(${rows}::jsonb)
        AS x(id uuid, date date, meal_type text, dish_id uuid, recipe_id uuid, servings numeric)`;
      await sql`
        DELETE FROM menu_items m USING ${given}
        WHERE m.menu_plan_id = ${plan!.id} AND m.date = x.date AND m.meal_type = x.meal_type AND m.id <> x.id`;
      await sql`
        INSERT INTO menu_items (id, menu_plan_id, date, meal_type, dish_id, recipe_id, servings)
        SELECT COALESCE(x.id, uuidv7()), ${plan!.id}, x.date, x.meal_type, x.dish_id, x.recipe_id, x.servings
        FROM ${given}
        ON CONFLICT (menu_plan_id, date, meal_type)
          DO UPDATE SET dish_id = excluded.dish_id, recipe_id = excluded.recipe_id, servings = excluded.servings`;
      return [];
    },

    /** One slot of one of the user's menus; false when there is none. In a transaction (it takes `lockMenus`). */
    async deleteItem(userId: string, id: string): Promise<boolean> {
      await lockMenus(sql, userId);
      const rows = await sql`
        DELETE FROM menu_items WHERE id = ${id} AND user_id = ${userId} RETURNING id`;
      return rows.length > 0;
    },

    /** In a transaction (it takes `lockMenus`). */
    async deleteWeek(userId: string, weekStart: string) {
      await lockMenus(sql, userId);
      await sql`DELETE FROM menu_plans WHERE user_id = ${userId} AND week_start = ${weekStart}`;
    },
  };
}
