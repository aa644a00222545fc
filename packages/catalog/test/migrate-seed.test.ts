import { UNIT_CODES, UNIT_FACTORS } from '@nutrition/domain';
import t from 'tap';
import postgres from 'postgres';
import { createTestDatabase, openTestDatabase } from '@nutrition/db/testing';
import { migrate } from '@nutrition/db';
import { createDatabase } from '@nutrition/db';
import { seed } from '../src/seed/index.ts';

const LANGUAGES = ['en', 'ru', 'uk', 'de', 'fr', 'es', 'it', 'pt', 'pl', 'tr', 'zh', 'ja'];

async function snapshot(sql: postgres.Sql) {
  const [schema] = await sql`
    SELECT md5(string_agg(table_name || '.' || column_name || ':' || data_type || ':' || coalesce(column_default, ''),
      ',' ORDER BY table_name, column_name)) AS columns,
           (SELECT count(*)::int FROM pg_indexes WHERE schemaname = 'public') AS indexes,
           (SELECT count(*)::int FROM pg_trigger WHERE NOT tgisinternal) AS triggers
    FROM information_schema.columns WHERE table_schema = 'public'`;
  const counts: Record<string, number> = {};
  for (const table of [
    'languages',
    'units',
    'unit_translations',
    'cuisines',
    'cuisine_translations',
    'tags',
    'tag_translations',
    'dish_categories',
    'dish_category_translations',
    'product_categories',
    'product_category_translations',
  ]) {
    const [row] = await sql`SELECT count(*)::int AS n FROM ${sql(table)}`;
    counts[table] = row!.n;
  }
  return { schema, counts };
}

t.test('migrating and seeding again changes nothing', async (t) => {
  const db = await createTestDatabase();
  t.teardown(db.drop);
  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
  t.teardown(() => sql.end());
  const before = await snapshot(sql);
  await migrate(db.url);
  const database = createDatabase(db.url, { max: 1 });
  await seed(database.sql);
  await seed(database.sql);
  await database.close();
  t.same(await snapshot(sql), before);
  t.ok(before.counts.units! >= 20, 'at least 20 units');
});

t.test('a product code names one product; imported products, which have none, stay out of its index', async (t) => {
  const { sql } = await openTestDatabase(t, { max: 1 });
  const [seeded] = await sql<{ code: string }[]>`SELECT code FROM products WHERE code IS NOT NULL LIMIT 1`;
  const twice = await sql`INSERT INTO products (code, canonical_name) VALUES (${seeded!.code}, 'copy')`.catch((e) => e);
  t.equal(twice.code, '23505', 'a second product with a seeded code is refused');
  const [index] = await sql<{ definition: string }[]>`
    SELECT pg_get_indexdef('products_code_unique'::regclass) AS definition`;
  t.match(index!.definition, /WHERE \(code IS NOT NULL\)$/, 'the code index holds only products that have a code');
  const [category] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM pg_indexes WHERE tablename = 'products' AND indexdef LIKE '%(category_code)%'`;
  t.equal(category!.n, 0, 'no index on the category alone: no query reads products by it');
});

t.test('names fold as people type them, and dish names are still looked up by their folded index', async (t) => {
  const { sql } = await openTestDatabase(t, { max: 1 });
  const [folded] = await sql`
    SELECT fold_text('Tulú Crème BRÛLÉE') AS latin, fold_text('Ёлка') AS cyrillic, fold_text(NULL) AS nothing`;
  t.same(folded, { latin: 'tulu creme brulee', cyrillic: 'елка', nothing: null });
  const [stale] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM product_aliases WHERE search_name IS DISTINCT FROM fold_text(name)`;
  t.equal(stale!.n, 0, 'every stored search name is the fold of its name');
  // The index expression and the query's must stay the same call for the planner to match them.
  const plan = await sql.begin(async (tx) => {
    await tx`SET LOCAL enable_seqscan = off`;
    return tx`EXPLAIN SELECT dish_id FROM dish_translations WHERE fold_text(name) = fold_text(${'Borsch'})`;
  });
  t.match(plan.map((r) => r['QUERY PLAN']).join('\n'), /dish_translations_folded_name_idx/);
});

t.test('every identifier key defaults to uuidv7()', async (t) => {
  const { sql } = await openTestDatabase(t, { max: 1 });
  const ids = await sql`
    SELECT table_name, column_default FROM information_schema.columns
    WHERE table_schema = 'public' AND column_name = 'id'`;
  t.ok(ids.length >= 20);
  for (const row of ids) t.equal(row.column_default, 'uuidv7()', row.table_name);
});

t.test('seeded names exist in all twelve languages and read as those languages', async (t) => {
  const { sql } = await openTestDatabase(t, { max: 1 });
  for (const [table, key] of [
    ['unit_translations', 'unit_code'],
    ['cuisine_translations', 'cuisine_code'],
    ['tag_translations', 'tag_code'],
    ['dish_category_translations', 'category_code'],
    ['product_category_translations', 'category_code'],
  ] as const) {
    const rows = await sql<{ code: string; langs: string[]; ru: string; uk: string; zh: string; ja: string }[]>`
      SELECT ${sql(key)} AS code, array_agg(language_code ORDER BY language_code) AS langs,
             max(name) FILTER (WHERE language_code = 'ru') AS ru, max(name) FILTER (WHERE language_code = 'uk') AS uk,
             max(name) FILTER (WHERE language_code = 'zh') AS zh, max(name) FILTER (WHERE language_code = 'ja') AS ja
      FROM ${sql(table)} GROUP BY 1`;
    t.ok(rows.length > 0, table);
    for (const r of rows) {
      t.same(r.langs, [...LANGUAGES].sort(), `${table} ${r.code} has all languages`);
      t.match(r.ru, /[а-яё]/i, `${table} ${r.code} ru is Cyrillic`);
      t.match(r.uk, /[а-яіїєґ]/i, `${table} ${r.code} uk is Cyrillic`);
      t.match(r.zh, /[\u3400-\u9fff]/, `${table} ${r.code} zh is Chinese`);
      t.match(r.ja, /[\u3040-\u30ff\u3400-\u9fff]/, `${table} ${r.code} ja is Japanese`);
    }
  }
});

t.test('the unit codes of the code are exactly the seeded units', async (t) => {
  const { sql } = await openTestDatabase(t, { max: 1 });
  const seeded = (await sql<{ code: string }[]>`SELECT code FROM units ORDER BY code`).map((u) => u.code);
  t.same(seeded, [...UNIT_CODES].sort());
  // The code bounds recipe amounts by these factors (implausibleRecipeQuantity): they must be the table's.
  const factors = await sql<{ code: string; factor: number }[]>`
    SELECT code, factor::float8 AS factor FROM units WHERE kind IN ('mass', 'volume')`;
  t.same(Object.fromEntries(factors.map((u) => [u.code, u.factor])), UNIT_FACTORS);
});
