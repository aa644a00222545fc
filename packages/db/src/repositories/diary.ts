import type postgres from 'postgres';
import type { Queryable } from '../client.ts';
import { runStatementText, statementSlots, statementText } from '../statement-text.ts';
import { DAY_TOTALS, MEAL_TYPES, type MealType } from '@nutrition/domain';
import { localizedName } from './localized.ts';
import { visibleDish, visibleRecipe } from './ownership.ts';
import type { NutrientGrams } from './nutrients.ts';
import { STORED_PROFILE, type StoredProfile } from './profiles.ts';

export type { MealType };

export interface DiaryEntryRow extends NutrientGrams {
  id: string;
  date: string;
  meal_type: MealType;
  dish_id: string | null;
  product_id: string | null;
  recipe_id: string | null;
  name: string;
  portions: number | null;
  portion_g: number | null;
  calories: number | null;
  protein_g: number | null;
  fat_g: number | null;
  carbs_g: number | null;
  job_id: string | null;
  created_at: Date;
  version: number;
}

/** A new entry, as the day's JSON has it (`json`) and parsed, with what adding it to a kept day takes (`insert`). */
export interface InsertedDiaryEntry {
  /** `created_at` as the day's JSON writes it, ISO 8601 in UTC to the millisecond. */
  entry: Omit<DiaryEntryRow, 'created_at'> & { created_at: string };
  json: string;
  place: string;
  /** Null when the day had no version: it was never written, so it was empty. */
  day_version_before: string | null;
  day_version: string;
}

export interface NewDiaryEntry {
  date: string;
  mealType: string;
  dishId: string | null;
  recipeId: string | null;
  productId: string | null;
  portions: number | null;
  portionG: number | null;
  jobId: string | null;
  /** A client-made id and the fingerprint of its create (see sync.ts); else the database makes the id. */
  id?: string;
  clientHash?: string;
}

/** Which entries a statement reads: of either kind (a day), or of one known kind (a new entry). */
type EntryKind = 'dish' | 'product' | 'any';

/**
 * An entry's amount of a nutrient (named as in DAY_TOTALS): its recipe's per serving × portions, or its product's per
 * 100 g × grams. The columns are named by the nutrient without its unit (`protein_g`: `protein_per_serving`).
 */
const amount = (kind: EntryKind, nutrient: string) => {
  const stem = nutrient.replace(/_g$/, '');
  const dish = `r.${stem}_per_serving * e.portions`;
  const product = `p.${stem}_per_100g * e.portion_g / 100`;
  if (kind === 'any') return `CASE WHEN e.dish_id IS NOT NULL THEN ${dish} ELSE ${product} END`;
  return kind === 'dish' ? dish : product;
};

/**
 * Name and nutrition are computed at read time: recipe per-serving × portions for dish entries, product per-100 g ×
 * portion_g / 100 for product entries (rounded to 0.1, salt to 0.01). The name in the request language (else
 * English) is a scalar subquery of the entry's kind: one index probe per entry instead of four joins. A statement
 * about one new entry names its kind: it then neither joins the other kind's table (the planner hashed every recipe
 * to join one product entry) nor carries the other branch.
 */
const ENTRY = (sql: Queryable, language: string | postgres.Parameter, kind: EntryKind = 'any') => {
  const dishName = localizedName(sql, 'dish_translations', sql`x.dish_id = e.dish_id`, language);
  const productName = sql`COALESCE(${localizedName(
    sql,
    'product_aliases',
    sql`x.product_id = e.product_id AND x.is_primary`,
    language,
  )}, p.canonical_name)`;
  const name =
    kind === 'dish'
      ? dishName
      : kind === 'product'
        ? productName
        : sql`CASE WHEN e.dish_id IS NOT NULL THEN ${dishName} ELSE ${productName} END`;
  return sql`
  e.id, e.date, e.meal_type, e.dish_id, e.product_id, e.recipe_id, ${name} AS name,
  e.portions::float8 AS portions, e.portion_g::float8 AS portion_g,
  ${sql.unsafe(
    // constant text: no values of its own
    DAY_TOTALS.map(
      ([nutrient, decimals]) => `round(${amount(kind, nutrient)}, ${decimals})::float8 AS ${nutrient}`,
    ).join(', '),
  )},
  e.job_id, e.created_at, e.version`;
};

const ENTRY_JOINS = (sql: Queryable, kind: EntryKind = 'any') => sql`
  ${kind === 'product' ? sql`` : sql`LEFT JOIN recipes r ON r.id = e.recipe_id`}
  ${kind === 'dish' ? sql`` : sql`LEFT JOIN products p ON p.id = e.product_id`}`;

/** An entry's meal type as its position in the day, read beside ENTRY as `meal_position`. */
const MEAL_POSITION = (sql: Queryable) =>
  sql.unsafe(`array_position('{${MEAL_TYPES.join(',')}}'::text[], e.meal_type) AS meal_position`);

/**
 * The order of a day's entries (rows of ENTRY and MEAL_POSITION as `d`): meal type, then the time logged, then id.
 * The same columns in both of the day's aggregates, so PostgreSQL sorts the day once for them.
 */
const DAY_ORDER = (sql: Queryable) => sql`d.meal_position, d.created_at, d.id`;

/**
 * An entry of a day (a row of ENTRY as `d`) as the day's JSON has it: a row, which PostgreSQL turns into JSON faster
 * than json_build_object with 21 pairs (the whole day read 0.89 against 1.11 ms for a day of 63 entries).
 */
const DAY_ENTRY = (sql: Queryable) => sql`
  (SELECT x FROM (SELECT d.id, d.date, d.meal_type, d.dish_id, d.product_id, d.recipe_id, d.name,
    d.portions, d.portion_g, d.calories, d.protein_g, d.fat_g, d.carbs_g, d.fiber_g, d.sugars_g,
    d.saturated_fat_g, d.salt_g, d.job_id,
    to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at, d.version) x)`;

/**
 * An entry's place in its day as text of DIARY_PLACE_LENGTH characters (domain) that sorts as DAY_ORDER does: the
 * meal type's position (one digit), the time logged to the microsecond, the id.
 */
const DAY_PLACE = (sql: Queryable) => sql`
  d.meal_position::text || to_char(d.created_at AT TIME ZONE 'UTC', 'YYYYMMDDHH24MISSUS') || d.id::text`;

/**
 * A day's totals as JSON text (rows of ENTRY as `d`), with DAY_TOTALS' decimals. Only known values are summed: a
 * nutrient no entry states is null, except on an empty day and for the first four, which are then 0.
 */
const DAY_TOTALS_JSON = (sql: Queryable) => {
  const pairs = DAY_TOTALS.map(([nutrient, decimals, zeroWhenUnknown]) => {
    const known = `COALESCE(sum(${nutrient}), ${zeroWhenUnknown ? '0' : 'CASE WHEN count(*) = 0 THEN 0 END'})`;
    return `'${nutrient}', round(${known}::numeric, ${decimals})`;
  });
  return sql.unsafe(`json_build_object(${pairs.join(', ')})::text`);
};

/** The values of a diary insert, by name: its statement is text with a `$n` for each (see insertStatement). */
const INSERT_VALUES = [
  'id',
  'userId',
  'date',
  'mealType',
  'dishId',
  'recipeId',
  'productId',
  'portions',
  'portionG',
  'jobId',
  'clientHash',
  'language',
] as const;
type InsertValue = (typeof INSERT_VALUES)[number];
const insertStatements = new Map<'dish' | 'product', { text: string; keys: string[] }>();

/**
 * The statement that inserts an entry and answers it as the day's JSON has it, with what adding it to a kept day
 * takes: its place in the day, the day's version before and after. Its text is built once per kind of entry
 * (`statementText`): building its fragments and their text on every insert cost Node about 45 µs of CPU, a fifth of
 * the API's share of a write. The statement sets the day's version itself (the trigger then leaves it) to learn the
 * version it replaced: the row's lock makes that exact, since every change to the day waits for it. The user's row is
 * locked first, as the entry's foreign key check would lock it, so an account deletion and a write take their locks
 * in the same order.
 */
function insertStatement(sql: Queryable, kind: 'dish' | 'product') {
  let statement = insertStatements.get(kind);
  if (statement) return statement;
  const { slots: V, keys } = statementSlots(sql, INSERT_VALUES);
  statement = statementText(
    sql`
    WITH e AS (
      INSERT INTO meal_diary (id, user_id, date, meal_type, dish_id, recipe_id, product_id, portions, portion_g,
                              job_id, client_hash)
      VALUES (COALESCE(${V.id}::uuid, uuidv7()), ${V.userId}, ${V.date}, ${V.mealType},
              ${V.dishId}, ${V.recipeId}, ${V.productId}, ${V.portions}, ${V.portionG},
              ${V.jobId}, ${V.clientHash})
      RETURNING *),
    owner AS (SELECT id FROM users WHERE id = ${V.userId} FOR KEY SHARE),
    day AS (
      INSERT INTO diary_days (user_id, date, version)
      SELECT id, ${V.date}, pg_current_xact_id() FROM owner
      ON CONFLICT (user_id, date) DO UPDATE SET version = excluded.version
      RETURNING old.version::text AS version)
    SELECT row_to_json(${DAY_ENTRY(sql)})::text AS json, ${DAY_PLACE(sql)} AS place,
           (SELECT version FROM day) AS day_version_before, pg_current_xact_id()::text AS day_version
    FROM (SELECT ${ENTRY(sql, V.language, kind)}, ${MEAL_POSITION(sql)} FROM e ${ENTRY_JOINS(sql, kind)}) d`,
    keys,
  );
  insertStatements.set(kind, statement);
  return statement;
}

/**
 * The caller's own dish or a catalog dish of that name, in any language, case- and accent-insensitive: the exact
 * folded name through its index first; only without one the trigram comparison, which costs a few microseconds per
 * name (the planner scans a small table rather than use the trigram index). LIMIT 1 stops after the first branch
 * that finds a dish. Other users' dishes are never found.
 */
const DISH_BY_NAME = (sql: Queryable, userId: string, name: string) => {
  const text = name.trim();
  return sql`
    (SELECT t.dish_id FROM dish_translations t JOIN dishes d ON d.id = t.dish_id
     WHERE fold_text(t.name) = fold_text(${text}) AND ${visibleDish(sql, userId)}
     ORDER BY d.created_by = ${userId} DESC NULLS LAST LIMIT 1)
    UNION ALL
    (SELECT t.dish_id FROM dish_translations t JOIN dishes d ON d.id = t.dish_id
     WHERE ${visibleDish(sql, userId)}
       AND fold_text(t.name) % fold_text(${text}) AND similarity(fold_text(t.name), fold_text(${text})) >= 0.7
     ORDER BY similarity(fold_text(t.name), fold_text(${text})) DESC, d.created_by = ${userId} DESC NULLS LAST LIMIT 1)
    LIMIT 1`;
};

/**
 * Every query is scoped by the owner: another user's id behaves as if it did not exist. Built for one executor: the
 * pool, or a transaction (`diaryRepository(tx)`), so code inside a transaction cannot reach the pool.
 */
export function diaryRepository(sql: Queryable) {
  return {
    /**
     * One day as JSON text built by PostgreSQL (entries in meal-type order and their totals), with the profile fields
     * the calorie target needs and the day's version as read: one round trip, and no objects for Node to build and
     * serialise again. `places` are the entries' places in that order (see DAY_PLACE), for adding one later.
     */
    async dayJson(userId: string, date: string, language: string) {
      const [row] = await sql<
        {
          entries: string;
          totals: string;
          places: string;
          profile: StoredProfile | null;
          day_version: string | null;
        }[]
      >`
        SELECT
          COALESCE(json_agg(${DAY_ENTRY(sql)} ORDER BY ${DAY_ORDER(sql)}), '[]')::text AS entries,
          COALESCE(string_agg(${DAY_PLACE(sql)}, '' ORDER BY ${DAY_ORDER(sql)}), '') AS places,
          ${DAY_TOTALS_JSON(sql)} AS totals,
          (SELECT row_to_json(p) FROM (SELECT ${STORED_PROFILE(sql)} FROM users WHERE id = ${userId}) p) AS profile,
          (SELECT version::text FROM diary_days WHERE user_id = ${userId} AND date = ${date}) AS day_version
        -- OFFSET 0 keeps the subquery apart: pulled up, each entry's nutrition was computed once for its JSON and
        -- again for the totals (a day of 100 entries: 1.28-1.33 ms of CPU apart, 1.51-1.57 pulled up).
        FROM (SELECT ${ENTRY(sql, language)}, ${MEAL_POSITION(sql)} FROM meal_diary e ${ENTRY_JOINS(sql)}
              WHERE e.user_id = ${userId} AND e.date = ${date} OFFSET 0) d`;
      return row!;
    },

    async get(userId: string, id: string, language: string): Promise<DiaryEntryRow | null> {
      const [row] = await sql<DiaryEntryRow[]>`
        SELECT ${ENTRY(sql, language)} FROM meal_diary e ${ENTRY_JOINS(sql)}
        WHERE e.user_id = ${userId} AND e.id = ${id}`;
      return row ?? null;
    },

    /** The user's entries among `ids` (the change feed's read). */
    async byIds(userId: string, ids: string[], language: string): Promise<DiaryEntryRow[]> {
      return sql<DiaryEntryRow[]>`
        SELECT ${ENTRY(sql, language)} FROM meal_diary e ${ENTRY_JOINS(sql)}
        WHERE e.user_id = ${userId} AND e.id = ANY(${ids}::uuid[])`;
    },

    /** Every entry of the user, oldest day first (the data export). */
    async all(userId: string, language: string): Promise<DiaryEntryRow[]> {
      return sql<DiaryEntryRow[]>`
        SELECT ${ENTRY(sql, language)} FROM meal_diary e ${ENTRY_JOINS(sql)}
        WHERE e.user_id = ${userId} ORDER BY e.date, e.created_at, e.id`;
    },

    /** Inserts an entry and answers it as a kept day takes it (see insertStatement). */
    async insert(userId: string, entry: NewDiaryEntry, language: string): Promise<InsertedDiaryEntry> {
      const statement = insertStatement(sql, entry.productId === null ? 'dish' : 'product');
      const values: Record<InsertValue, postgres.SerializableParameter> = {
        id: entry.id ?? null,
        userId,
        date: entry.date,
        mealType: entry.mealType,
        dishId: entry.dishId,
        recipeId: entry.recipeId,
        productId: entry.productId,
        portions: entry.portions,
        portionG: entry.portionG,
        jobId: entry.jobId,
        clientHash: entry.clientHash ?? null,
        language,
      };
      const [row] = await runStatementText<Omit<InsertedDiaryEntry, 'entry'>[]>(sql, statement, values);
      return { ...row!, entry: JSON.parse(row!.json) };
    },

    /**
     * The fields given change; `portion_g: null` clears it. False when the entry is not the user's, or when
     * `version` is given and the entry's is another (If-Match).
     */
    async update(
      userId: string,
      id: string,
      patch: { date?: string; mealType?: string; portions?: number; portionG?: number | null },
      version?: number,
    ): Promise<boolean> {
      const rows = await sql`
        UPDATE meal_diary SET
          date = COALESCE(${patch.date ?? null}::date, date),
          meal_type = COALESCE(${patch.mealType ?? null}, meal_type),
          portions = COALESCE(${patch.portions ?? null}::numeric, portions),
          portion_g = CASE WHEN ${patch.portionG !== undefined} THEN ${patch.portionG ?? null}::numeric
                           ELSE portion_g END
        WHERE user_id = ${userId} AND id = ${id} AND (${version ?? null}::int IS NULL OR version = ${version ?? null})
        RETURNING id`;
      return rows.length > 0;
    },

    async delete(userId: string, id: string): Promise<boolean> {
      const rows = await sql`DELETE FROM meal_diary WHERE user_id = ${userId} AND id = ${id} RETURNING id`;
      return rows.length > 0;
    },

    /** Distinct dishes and products of the user's recent entries, with how often each was logged. */
    /**
     * Distinct dishes and products by their latest use, newest first; `after` continues from a page's last item
     * (its `page_at`, the full-precision time, and `page_key`).
     */
    async recent(userId: string, language: string, limit: number, after?: { at: string; key: string }) {
      const pageEnd = after
        ? sql`HAVING (max(created_at), COALESCE(dish_id, product_id))
                < (${after.at}::timestamptz, ${after.key}::uuid)`
        : sql``;
      return sql<
        {
          kind: 'dish' | 'product';
          dish_id: string | null;
          product_id: string | null;
          recipe_id: string | null;
          name: string;
          last_used_at: Date;
          use_count: number;
          page_at: string;
          page_key: string;
        }[]
      >`
        WITH used AS (
          SELECT CASE WHEN dish_id IS NOT NULL THEN 'dish' ELSE 'product' END AS kind, dish_id, product_id,
                 COALESCE(dish_id, product_id) AS key,
                 (array_agg(recipe_id ORDER BY created_at DESC))[1] AS recipe_id,
                 max(created_at) AS last_used_at, count(*)::int AS use_count
          FROM meal_diary WHERE user_id = ${userId}
          GROUP BY 1, dish_id, product_id
          ${pageEnd}
          ORDER BY last_used_at DESC, key DESC LIMIT ${limit}
        )
        SELECT u.kind, u.dish_id, u.product_id, u.recipe_id,
               COALESCE(tl.name, te.name, pl.name, pe.name, p.canonical_name) AS name, u.last_used_at, u.use_count,
               to_char(u.last_used_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS page_at, u.key AS page_key
        FROM used u
        LEFT JOIN dish_translations tl ON tl.dish_id = u.dish_id AND tl.language_code = ${language}
        LEFT JOIN dish_translations te ON te.dish_id = u.dish_id AND te.language_code = 'en'
        LEFT JOIN products p ON p.id = u.product_id
        LEFT JOIN product_aliases pl ON pl.product_id = p.id AND pl.language_code = ${language} AND pl.is_primary
        LEFT JOIN product_aliases pe ON pe.product_id = p.id AND pe.language_code = 'en' AND pe.is_primary
        ORDER BY u.last_used_at DESC, u.key DESC`;
    },

    /**
     * The default recipe of a dish the user may log (a catalog dish or one made for the user) and what one serving of
     * it weighs; null when the user may not log the dish.
     */
    async dishRecipe(userId: string, dishId: string): Promise<{ id: string; serving_g: number | null } | null> {
      const [row] = await sql<{ id: string; serving_g: number | null }[]>`
        SELECT r.id, r.serving_g::float8 AS serving_g FROM recipes r JOIN dishes d ON d.id = r.dish_id
        WHERE r.dish_id = ${dishId} AND ${visibleDish(sql, userId)} AND ${visibleRecipe(sql, userId)}
        ORDER BY r.is_default DESC, r.id LIMIT 1`;
      return row ?? null;
    },

    /** What one serving of a recipe weighs; null when unknown. */
    async servingGrams(recipeId: string): Promise<number | null> {
      const [row] = await sql<{ serving_g: number | null }[]>`
        SELECT serving_g::float8 AS serving_g FROM recipes WHERE id = ${recipeId}`;
      return row?.serving_g ?? null;
    },

    async jobLinked(jobId: string): Promise<boolean> {
      const rows = await sql`SELECT 1 FROM meal_diary WHERE job_id = ${jobId}`;
      return rows.length > 0;
    },

    async ownsDishJob(userId: string, jobId: string): Promise<boolean> {
      const rows = await sql`SELECT 1 FROM dish_recognition_jobs WHERE id = ${jobId} AND user_id = ${userId}`;
      return rows.length > 0;
    },

    /**
     * A dish by name in any language: exact (case-insensitive) first, else a very close name (trigram similarity of
     * at least 0.7). Catalog dishes and the user's own named dishes only: other users' names stay private.
     */
    async findDishByName(userId: string, name: string): Promise<string | null> {
      const [row] = await sql<{ dish_id: string }[]>`${DISH_BY_NAME(sql, userId, name)}`;
      return row?.dish_id ?? null;
    },

    /**
     * Serialises the creation of a dish named `name` for the user until the transaction ends, so the API and the dish
     * worker racing on one name make one dish.
     */
    async lockDishName(userId: string, name: string): Promise<void> {
      await sql`SELECT pg_advisory_xact_lock(hashtextextended(${userId} || ':' || fold_text(${name.trim()}), 0))`;
    },

    /** The dish `findDishByName` finds, with its default recipe's per-serving macros, in one statement. */
    async findDishWithRecipe(userId: string, name: string) {
      const [row] = await sql<
        { dish_id: string; recipe_id: string; calories: number; protein: number; fat: number; carbs: number }[]
      >`
        SELECT m.dish_id, r.id AS recipe_id, r.calories_per_serving::float8 AS calories,
               r.protein_per_serving::float8 AS protein,
               r.fat_per_serving::float8 AS fat, r.carbs_per_serving::float8 AS carbs
        FROM (${DISH_BY_NAME(sql, userId, name)}) m
        CROSS JOIN LATERAL (
          SELECT * FROM recipes r WHERE r.dish_id = m.dish_id ORDER BY r.is_default DESC, r.id LIMIT 1) r`;
      return row ?? null;
    },

    /** Creates the user's dish with a recipe stub whose per-serving macros a model estimated. */
    async createStubDish(
      userId: string,
      name: string,
      language: string,
      macros: { calories: number; protein: number; fat: number; carbs: number },
    ): Promise<{ dishId: string; recipeId: string }> {
      const [dish] = await sql<{ id: string }[]>`
        INSERT INTO dishes (source, created_by) VALUES ('stub', ${userId}) RETURNING id`;
      // The name typed is the dish's name in every language; English, where every reader falls back, holds it too.
      const names = [{ dish_id: dish!.id, language_code: language, name: name.trim() }];
      if (language !== 'en') names.push({ ...names[0]!, language_code: 'en' });
      await sql`INSERT INTO dish_translations ${sql(names)}`;
      const [recipe] = await sql<{ id: string }[]>`
        INSERT INTO recipes (dish_id, is_default, source, servings, calories_per_serving, protein_per_serving,
                             fat_per_serving, carbs_per_serving, created_by)
        VALUES (${dish!.id}, true, 'stub', 1, ${macros.calories}, ${macros.protein}, ${macros.fat}, ${macros.carbs},
          ${userId})
        RETURNING id`;
      return { dishId: dish!.id, recipeId: recipe!.id };
    },
  };
}
