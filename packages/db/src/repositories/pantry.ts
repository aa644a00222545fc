import type { Queryable } from '../client.ts';

export interface PantryItemRow {
  id: string;
  product_id: string | null;
  name: string;
  quantity: number;
  unit_code: string;
  unit_name: string;
  storage_days: number;
  added_at: Date;
  expires_at: Date;
  days_left: number;
}

/**
 * Expiry is derived, never stored: added_at + storage_days calendar days, counted in UTC whatever the session zone.
 * In milliseconds, as the API sends it, so the keyset cursor compares exactly what the client saw.
 */
const EXPIRES_AT = (sql: Queryable) =>
  sql`date_trunc('milliseconds', ((u.added_at AT TIME ZONE 'UTC') + make_interval(days => u.storage_days)) AT TIME ZONE 'UTC')`;

const ITEM = (sql: Queryable, language: string) => sql`
  u.id, u.product_id, COALESCE(u.name, pl.name, pe.name, p.canonical_name) AS name, u.quantity::float8 AS quantity,
  u.unit_code, COALESCE(ut.name, ue.name, u.unit_code) AS unit_name, u.storage_days, u.added_at,
  ${EXPIRES_AT(sql)} AS expires_at,
  ((${EXPIRES_AT(sql)}) AT TIME ZONE 'UTC')::date - (now() AT TIME ZONE 'UTC')::date AS days_left`;

const JOINS = (sql: Queryable, language: string) => sql`
  LEFT JOIN products p ON p.id = u.product_id
  LEFT JOIN product_aliases pl ON pl.product_id = p.id AND pl.language_code = ${language} AND pl.is_primary
  LEFT JOIN product_aliases pe ON pe.product_id = p.id AND pe.language_code = 'en' AND pe.is_primary
  LEFT JOIN unit_translations ut ON ut.unit_code = u.unit_code AND ut.language_code = ${language}
  LEFT JOIN unit_translations ue ON ue.unit_code = u.unit_code AND ue.language_code = 'en'`;

export interface PantryPatch {
  quantity?: number;
  unit_code?: string;
  storage_days?: number;
  added_at?: string;
  name?: string;
}

/** The pantry (`user_products`), every query scoped by its owner. */
export function pantryRepository(sql: Queryable) {
  return {
    /** Items by expiry (soonest first); `expiringWithinDays` keeps those expiring by then (expired ones included). */
    async list(userId: string, language: string, opts: { expiringWithinDays?: number; limit: number; after?: { expires_at: string; id: string } }) {
      return sql<PantryItemRow[]>`
        SELECT ${ITEM(sql, language)} FROM user_products u ${JOINS(sql, language)}
        WHERE u.user_id = ${userId}
          ${opts.expiringWithinDays !== undefined ? sql`AND ${EXPIRES_AT(sql)} <= now() + make_interval(days => ${opts.expiringWithinDays})` : sql``}
          ${opts.after ? sql`AND (${EXPIRES_AT(sql)}, u.id) > (${opts.after.expires_at}::timestamptz, ${opts.after.id}::uuid)` : sql``}
        ORDER BY ${EXPIRES_AT(sql)}, u.id
        LIMIT ${opts.limit}`;
    },

    async get(userId: string, id: string, language: string): Promise<PantryItemRow | null> {
      const [row] = await sql<PantryItemRow[]>`
        SELECT ${ITEM(sql, language)} FROM user_products u ${JOINS(sql, language)} WHERE u.user_id = ${userId} AND u.id = ${id}`;
      return row ?? null;
    },

    /** Storage days a product keeps by default: its own, else its category's. */
    async productDefaults(productId: string): Promise<{ storage_days: number | null } | null> {
      const [row] = await sql<{ storage_days: number | null }[]>`
        SELECT COALESCE(p.storage_days, c.default_storage_days) AS storage_days
        FROM products p LEFT JOIN product_categories c ON c.code = p.category_code WHERE p.id = ${productId}`;
      return row ?? null;
    },

    /** A catalog product whose name (any language) is exactly this one, preferring curated products. */
    async productByName(name: string): Promise<string | null> {
      const [row] = await sql<{ product_id: string }[]>`
        SELECT a.product_id FROM product_aliases a JOIN products p ON p.id = a.product_id
        WHERE a.search_name = ${name.trim().toLowerCase()}
        ORDER BY p.source <> 'off' DESC, a.is_primary DESC LIMIT 1`;
      return row?.product_id ?? null;
    },

    async unitExists(code: string): Promise<boolean> {
      return (await sql`SELECT 1 FROM units WHERE code = ${code}`).length > 0;
    },

    async insert(userId: string, item: { productId: string | null; name: string | null; quantity: number; unitCode: string; storageDays: number; addedAt: string | null }) {
      const [row] = await sql<{ id: string }[]>`
        INSERT INTO user_products (user_id, product_id, name, quantity, unit_code, storage_days, added_at)
        VALUES (${userId}, ${item.productId}, ${item.name}, ${item.quantity}, ${item.unitCode}, ${item.storageDays},
                COALESCE(${item.addedAt}::timestamptz, now()))
        RETURNING id`;
      return row!.id;
    },

    async update(userId: string, id: string, patch: PantryPatch): Promise<boolean> {
      const fields: Record<string, string | number> = {};
      for (const [key, value] of Object.entries(patch)) if (value !== undefined) fields[key] = value;
      const rows = Object.keys(fields).length
        ? await sql`UPDATE user_products SET ${sql(fields)}, updated_at = now() WHERE user_id = ${userId} AND id = ${id} RETURNING id`
        : await sql`SELECT id FROM user_products WHERE user_id = ${userId} AND id = ${id}`;
      return rows.length > 0;
    },

    async delete(userId: string, id: string): Promise<boolean> {
      return (await sql`DELETE FROM user_products WHERE user_id = ${userId} AND id = ${id} RETURNING id`).length > 0;
    },
  };
}
