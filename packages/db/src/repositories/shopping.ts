import type { ShoppingLine, ShoppingNeed, StockItem, Unit } from '@nutrition/domain';
import type { Queryable } from '../client.ts';
import { EXPIRES_AT, type LocalTime } from './pantry.ts';
import { lockOwner } from './ownership.ts';

export interface ShoppingItemRow {
  id: string;
  product_id: string | null;
  name: string;
  quantity: number | null;
  unit_code: string | null;
  unit_name: string | null;
  checked: boolean;
  week_start: string;
  version: number;
  category_code: string;
  category_name: string;
  shop_order: number;
}

const UNIT = (alias: string) =>
  `json_build_object('code', ${alias}.code, 'kind', ${alias}.kind, 'factor', ${alias}.factor::float8)`;

/** A list item `i` as the API shows it (with its category for grouping), with the tables it reads. */
const ITEM = (sql: Queryable, language: string) => sql`
  i.id, i.product_id, COALESCE(pl.name, i.name) AS name, i.quantity::float8 AS quantity, i.unit_code,
  COALESCE(ut.name, ue.name) AS unit_name, i.checked, l.week_start, i.version,
  COALESCE(i.category_code, 'other') AS category_code, COALESCE(ct.name, ce.name, 'other') AS category_name,
  COALESCE(c.shop_order, 999) AS shop_order
  FROM shopping_list_items i
  JOIN shopping_lists l ON l.id = i.shopping_list_id
  LEFT JOIN product_categories c ON c.code = COALESCE(i.category_code, 'other')
  LEFT JOIN product_category_translations ct ON ct.category_code = c.code AND ct.language_code = ${language}
  LEFT JOIN product_category_translations ce ON ce.category_code = c.code AND ce.language_code = 'en'
  LEFT JOIN product_aliases pl ON pl.product_id = i.product_id AND pl.language_code = ${language} AND pl.is_primary
  LEFT JOIN unit_translations ut ON ut.unit_code = i.unit_code AND ut.language_code = ${language}
  LEFT JOIN unit_translations ue ON ue.unit_code = i.unit_code AND ue.language_code = 'en'`;

/** Shop order: category, then unchecked first, then by name. */
const ITEM_ORDER = (sql: Queryable) => sql`ORDER BY l.week_start, shop_order, category_code, i.checked, name, i.id`;

/** Shopping lists: generated lines from the week's menu, manual lines kept across regenerations. */
export function shoppingRepository(sql: Queryable) {
  return {
    /** Every ingredient of the week's menu, scaled to the planned servings. */
    async needs(userId: string, weekStart: string, language: string): Promise<ShoppingNeed[]> {
      const rows = await sql<
        {
          product_id: string | null;
          product_code: string | null;
          name: string;
          quantity: number;
          unit: Unit;
          product_unit: Unit | null;
          density: number | null;
          piece_g: number | null;
          edible_portion: number | null;
          unit_grams: Record<string, number> | null;
          category_code: string | null;
        }[]
      >`
        SELECT i.product_id, p.code AS product_code, COALESCE(pl.name, pe.name, p.canonical_name, i.name) AS name,
               (i.quantity * m.servings / r.servings)::float8 AS quantity,
               ${sql.unsafe(UNIT('u'))} AS unit,
               CASE WHEN du.code IS NULL THEN NULL ELSE ${sql.unsafe(UNIT('du'))} END AS product_unit,
               p.density_g_per_ml::float8 AS density, p.piece_g::float8 AS piece_g,
               p.edible_portion::float8 AS edible_portion, p.unit_grams, p.category_code
        FROM menu_plans mp
        JOIN menu_items m ON m.menu_plan_id = mp.id
        JOIN recipes r ON r.id = m.recipe_id
        JOIN recipe_ingredients i ON i.recipe_id = r.id
        JOIN units u ON u.code = i.unit_code
        LEFT JOIN products p ON p.id = i.product_id
        LEFT JOIN units du ON du.code = p.default_unit_code
        LEFT JOIN product_aliases pl ON pl.product_id = p.id AND pl.language_code = ${language} AND pl.is_primary
        LEFT JOIN product_aliases pe ON pe.product_id = p.id AND pe.language_code = 'en' AND pe.is_primary
        WHERE mp.user_id = ${userId} AND mp.week_start = ${weekStart}`;
      return rows.map((r) => ({
        productId: r.product_id,
        productCode: r.product_code,
        name: r.name,
        quantity: r.quantity,
        unit: r.unit,
        productUnit: r.product_unit,
        measures: {
          densityGPerMl: r.density,
          pieceG: r.piece_g,
          unitGrams: r.unit_grams ?? {},
          ediblePortion: r.edible_portion ?? 1,
        },
        categoryCode: r.category_code,
      }));
    },

    async stock(userId: string, time: LocalTime): Promise<StockItem[]> {
      const rows = await sql<{ product_id: string; quantity: number; unit: Unit }[]>`
        SELECT u2.product_id, u2.quantity::float8 AS quantity, ${sql.unsafe(UNIT('u'))} AS unit
        FROM user_products u2 JOIN units u ON u.code = u2.unit_code
        WHERE u2.user_id = ${userId} AND u2.product_id IS NOT NULL AND ${EXPIRES_AT(sql, time.zone, 'u2')} >
          ${time.now}`;
      return rows.map((r) => ({ productId: r.product_id, quantity: r.quantity, unit: r.unit }));
    },

    /**
     * Replaces the generated lines of a week's list in one transaction. Manual lines stay; a line that remains
     * (same product, or same name when it has none) keeps its id and its checked state, with its new quantity, so a
     * client's references to it (and offline edits) survive a regeneration.
     */
    async replaceGenerated(userId: string, weekStart: string, lines: ShoppingLine[]) {
      // The list row's lock (taken by the upsert, held to commit) makes two regenerations of a week take turns.
      await lockOwner(sql, userId);
      const [list] = await sql<{ id: string }[]>`
        INSERT INTO shopping_lists (user_id, week_start, generated_at) VALUES (${userId}, ${weekStart}, now())
        ON CONFLICT (user_id, week_start) DO UPDATE SET generated_at = now()
        RETURNING id`;
      const listId = list!.id;
      const existing = await sql<{ id: string; key: string; unit_code: string }[]>`
        SELECT id, COALESCE(product_id::text, lower(name)) AS key, unit_code FROM shopping_list_items
        WHERE shopping_list_id = ${listId} AND NOT is_manual ORDER BY id`;
      // A product or name can stand on several lines (needs in units that do not convert): each old line goes to one
      // new line at most, first to a line in its own unit, then to a line of the same name left without one; the old
      // lines left over are deleted.
      const byKey = Map.groupBy(existing, (row) => row.key);
      const keyOf = (line: ShoppingLine) => line.productId ?? line.name.toLowerCase();
      const take = (line: ShoppingLine, sameUnit: boolean) => {
        const rows = byKey.get(keyOf(line)) ?? [];
        const at = sameUnit ? rows.findIndex((row) => row.unit_code === line.unitCode) : rows.length > 0 ? 0 : -1;
        return at < 0 ? undefined : rows.splice(at, 1)[0]!.id;
      };
      const ids = new Map(lines.map((line) => [line, take(line, true)]));
      for (const line of lines) if (ids.get(line) === undefined) ids.set(line, take(line, false));
      const kept = lines.flatMap((line) => (ids.get(line) ? [{ id: ids.get(line)!, line }] : []));
      const added = lines.filter((line) => ids.get(line) === undefined);
      const gone = [...byKey.values()].flat().map((row) => row.id);
      if (gone.length > 0) await sql`DELETE FROM shopping_list_items WHERE id = ANY(${gone}::uuid[])`;
      if (kept.length > 0) {
        const rows = kept.map(({ id, line }) => ({
          id,
          name: line.name,
          quantity: line.quantity,
          unit_code: line.unitCode,
          category_code: line.categoryCode,
        }));
        await sql`
          UPDATE shopping_list_items i
          SET name = x.name, quantity = x.quantity, unit_code = x.unit_code, category_code = x.category_code
          FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
            AS x(id uuid, name text, quantity numeric, unit_code text, category_code text)
          WHERE i.id = x.id`;
      }
      if (added.length > 0) {
        await sql`INSERT INTO shopping_list_items ${sql(
          added.map((l) => ({
            shopping_list_id: listId,
            product_id: l.productId,
            name: l.name,
            quantity: l.quantity,
            unit_code: l.unitCode,
            category_code: l.categoryCode,
            checked: false,
            is_manual: false,
          })),
        )}`;
      }
      return listId;
    },

    async items(listId: string, language: string): Promise<ShoppingItemRow[]> {
      return sql<
        ShoppingItemRow[]
      >`SELECT ${ITEM(sql, language)} WHERE i.shopping_list_id = ${listId} ${ITEM_ORDER(sql)}`;
    },

    /** The user's items among `ids` (the change feed's read); every item without `ids`. */
    async itemsByIds(userId: string, ids: string[] | null, language: string): Promise<ShoppingItemRow[]> {
      return sql<ShoppingItemRow[]>`
        SELECT ${ITEM(sql, language)} WHERE i.user_id = ${userId} ${ids ? sql`AND i.id = ANY(${ids}::uuid[])` : sql``}
        ${ITEM_ORDER(sql)}`;
    },

    async list(userId: string, weekStart: string) {
      const [row] = await sql<{ id: string; week_start: string; generated_at: Date | null }[]>`
        SELECT id, week_start, generated_at FROM shopping_lists WHERE user_id = ${userId} AND week_start =
          ${weekStart}`;
      return row ?? null;
    },

    async ensureList(userId: string, weekStart: string): Promise<string> {
      await lockOwner(sql, userId);
      const [row] = await sql<{ id: string }[]>`
        INSERT INTO shopping_lists (user_id, week_start) VALUES (${userId}, ${weekStart})
        ON CONFLICT (user_id, week_start) DO UPDATE SET week_start = excluded.week_start
        RETURNING id`;
      return row!.id;
    },

    async addManual(
      listId: string,
      item: {
        productId: string | null;
        name: string;
        quantity: number | null;
        unitCode: string | null;
        categoryCode: string | null;
        /** A client-made id and the fingerprint of its create; else the database makes the id. */
        id?: string;
        clientHash?: string;
      },
    ) {
      const [row] = await sql<{ id: string }[]>`
        INSERT INTO shopping_list_items (id, shopping_list_id, product_id, name, quantity, unit_code, category_code,
          is_manual, client_hash)
        VALUES (COALESCE(${item.id ?? null}::uuid, uuidv7()), ${listId}, ${item.productId}, ${item.name},
          ${item.quantity}, ${item.unitCode}, ${item.categoryCode}, true, ${item.clientHash ?? null})
        RETURNING id`;
      return row!.id;
    },

    /** False when the item is not the user's, or when `version` is given and the item's is another (If-Match). */
    async setChecked(userId: string, itemId: string, checked: boolean, version?: number): Promise<boolean> {
      const rows = await sql`
        UPDATE shopping_list_items SET checked = ${checked}
        WHERE id = ${itemId} AND user_id = ${userId}
          AND (${version ?? null}::int IS NULL OR version = ${version ?? null})
        RETURNING id`;
      return rows.length > 0;
    },

    async deleteItem(userId: string, itemId: string): Promise<boolean> {
      const rows = await sql`
        DELETE FROM shopping_list_items WHERE id = ${itemId} AND user_id = ${userId} RETURNING id`;
      return rows.length > 0;
    },

    async categoryOf(productId: string): Promise<{ exists: boolean; category: string | null }> {
      const [row] = await sql<
        { category_code: string | null }[]
      >`SELECT category_code FROM products WHERE id = ${productId}`;
      return { exists: !!row, category: row?.category_code ?? null };
    },
  };
}
