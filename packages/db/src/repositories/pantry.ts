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
  version: number;
}

/** Now and today for the user, and their time zone (the API's `userTime`). */
export interface LocalTime {
  zone: string;
  now: Date;
  today: string;
}

/**
 * The zone as PostgreSQL must be given it. `AT TIME ZONE` reads a name that is also an abbreviation as the
 * abbreviation: CET as UTC+1 all year, where the zone CET keeps summer time. These four zones with summer time are
 * links in tzdata (since 2024b) to the zones named here, which PostgreSQL reads as zones.
 */
const ZONE_LINKS: Record<string, string> = {
  CET: 'Europe/Brussels',
  MET: 'Europe/Brussels',
  EET: 'Europe/Athens',
  WET: 'Europe/Lisbon',
};
const sqlZone = (zone: string) => ZONE_LINKS[zone] ?? zone;

/**
 * Expiry is derived, never stored: added_at + storage_days calendar days on the user's clock (so a clock change in
 * between moves no date), computed in SQL whatever the session zone. In milliseconds, as the API sends it, so the
 * keyset cursor compares exactly what the client saw.
 */
export const EXPIRES_AT = (sql: Queryable, zone: string, alias = 'u') =>
  sql`date_trunc('milliseconds', ((${sql(alias)}.added_at AT TIME ZONE ${sqlZone(zone)}) + make_interval(days =>
    ${sql(alias)}.storage_days)) AT TIME ZONE ${sqlZone(zone)})`;

/**
 * Calendar days from the user's today to the expiry date on their clock (0: expires today; negative: expired). Both
 * dates by PostgreSQL's zone rules: its tzdata may be older than the runtime's (Alberta's rules changed in 2026), and
 * the runtime's today would then be a day off the expiry date in the hour where the two disagree.
 */
const DAYS_LEFT = (sql: Queryable, time: LocalTime) =>
  sql`((${EXPIRES_AT(sql, time.zone)}) AT TIME ZONE ${sqlZone(time.zone)})::date
    - (${time.now}::timestamptz AT TIME ZONE ${sqlZone(time.zone)})::date`;

const ITEM = (sql: Queryable, _language: string, time: LocalTime) => sql`
  u.id, u.product_id, COALESCE(u.name, pl.name, pe.name, p.canonical_name) AS name, u.quantity::float8 AS quantity,
  u.unit_code, COALESCE(ut.name, ue.name, u.unit_code) AS unit_name, u.storage_days, u.added_at,
  ${EXPIRES_AT(sql, time.zone)} AS expires_at, ${DAYS_LEFT(sql, time)} AS days_left,
  u.version`;

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
    /**
     * Items by expiry (soonest first); `expiringWithinDays` keeps those whose `days_left` is at most that (expired
     * ones included).
     */
    async list(
      userId: string,
      language: string,
      time: LocalTime,
      opts: { expiringWithinDays?: number; limit: number; after?: { expires_at: string; id: string } },
    ) {
      return sql<PantryItemRow[]>`
        SELECT ${ITEM(sql, language, time)} FROM user_products u ${JOINS(sql, language)}
        WHERE u.user_id = ${userId}
          ${
            opts.expiringWithinDays !== undefined
              ? sql`AND ${DAYS_LEFT(sql, time)} <=
            ${opts.expiringWithinDays}`
              : sql``
          }
          ${
            opts.after
              ? sql`AND (${EXPIRES_AT(sql, time.zone)}, u.id) > (${opts.after.expires_at}::timestamptz,
            ${opts.after.id}::uuid)`
              : sql``
          }
        ORDER BY ${EXPIRES_AT(sql, time.zone)}, u.id
        LIMIT ${opts.limit}`;
    },

    /** The user's items among `ids` (the change feed's read); every item without `ids`. */
    async byIds(userId: string, ids: string[] | null, language: string, time: LocalTime): Promise<PantryItemRow[]> {
      return sql<PantryItemRow[]>`
        SELECT ${ITEM(sql, language, time)} FROM user_products u ${JOINS(sql, language)}
        WHERE u.user_id = ${userId} ${ids ? sql`AND u.id = ANY(${ids}::uuid[])` : sql``} ORDER BY u.id`;
    },

    async get(userId: string, id: string, language: string, time: LocalTime): Promise<PantryItemRow | null> {
      const [row] = await sql<PantryItemRow[]>`
        SELECT ${ITEM(sql, language, time)} FROM user_products u ${JOINS(sql, language)} WHERE u.user_id = ${userId}
          AND u.id = ${id}`;
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
        WHERE a.search_name = fold_text(${name.trim()})
        ORDER BY p.source <> 'off' DESC, a.is_primary DESC LIMIT 1`;
      return row?.product_id ?? null;
    },

    async unitExists(code: string): Promise<boolean> {
      return (await sql`SELECT 1 FROM units WHERE code = ${code}`).length > 0;
    },

    async insert(
      userId: string,
      item: {
        productId: string | null;
        name: string | null;
        quantity: number;
        unitCode: string;
        storageDays: number;
        addedAt: string | Date;
        /** A client-made id and the fingerprint of its create; else the database makes the id. */
        id?: string;
        clientHash?: string;
      },
    ) {
      const [row] = await sql<{ id: string }[]>`
        INSERT INTO user_products (id, user_id, product_id, name, quantity, unit_code, storage_days, added_at,
          client_hash)
        VALUES (COALESCE(${item.id ?? null}::uuid, uuidv7()), ${userId}, ${item.productId}, ${item.name},
          ${item.quantity}, ${item.unitCode}, ${item.storageDays}, ${item.addedAt}::timestamptz,
          ${item.clientHash ?? null})
        RETURNING id`;
      return row!.id;
    },

    /** False when the item is not the user's, or when `version` is given and the item's is another (If-Match). */
    async update(userId: string, id: string, patch: PantryPatch, version?: number): Promise<boolean> {
      const fields: Record<string, string | number> = {};
      for (const [key, value] of Object.entries(patch)) if (value !== undefined) fields[key] = value;
      const matches = sql`user_id = ${userId} AND id = ${id}
        AND (${version ?? null}::int IS NULL OR version = ${version ?? null})`;
      const rows = Object.keys(fields).length
        ? await sql`UPDATE user_products SET ${sql(fields)}, updated_at = now() WHERE ${matches} RETURNING id`
        : await sql`SELECT id FROM user_products WHERE ${matches}`;
      return rows.length > 0;
    },

    async delete(userId: string, id: string): Promise<boolean> {
      return (await sql`DELETE FROM user_products WHERE user_id = ${userId} AND id = ${id} RETURNING id`).length > 0;
    },
  };
}
