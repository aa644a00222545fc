import t, { type Test } from 'tap';
import { fileURLToPath } from 'node:url';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { createTestDatabase } from '@nutrition/db/testing';
import { createDatabase } from '@nutrition/db';
import { importFoodDump } from '../src/import/importer.ts';
import { catalogRepository, generatedRecipeRepository } from '@nutrition/db/repositories';
import { seed } from '../src/seed/index.ts';
import { gtinCheckDigit } from '@nutrition/domain';
import { randomBytes } from 'node:crypto';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/off/${name}`, import.meta.url));
/** A path in a directory of the test's own, removed when it ends. */
async function tempFile(t: Test, name: string) {
  const dir = await mkdtemp(join(tmpdir(), 'off-'));
  t.teardown(() => rm(dir, { recursive: true }));
  return join(dir, name);
}
const LANGUAGES = ['en', 'ru', 'uk', 'de', 'fr', 'es', 'it', 'pt', 'pl', 'tr', 'zh', 'ja'];
// What the fixtures hold on purpose (see how they were made in the commit that added them).
const SKIPPED = { no_name: 6, impossible_nutrition: 10, invalid_barcode: 1 };
// Two rows have a wrong check digit (lines 63 and 146 of the CSV): imported with their code as given.
const UNCHECKED = 2;

/** Names whose `imported` flag disagrees with their product's source. */
async function misflagged(sql: postgres.Sql) {
  const [row] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM product_aliases a JOIN products p ON p.id = a.product_id WHERE a.imported <>
      (p.source = 'off')`;
  return row!.n;
}

/**
 * A pool connected as a login role that may read and write the catalog but not set `session_replication_role`, as a
 * managed database's application role often cannot. Closed and dropped at the end of the test, before its database
 * (teardowns run last first).
 */
async function asPlainRole(t: Test, url: string) {
  const name = `importer_${randomBytes(4).toString('hex')}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`
    CREATE ROLE ${name} LOGIN PASSWORD 'importer';
    GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${name};
    GRANT TEMP ON DATABASE ${new URL(url).pathname.slice(1)} TO ${name};`);
  const role = new URL(url);
  role.username = name;
  role.password = 'importer';
  const pool = createDatabase(role.href, { max: 3 });
  t.teardown(async () => {
    await pool.close();
    await admin.unsafe(`DROP OWNED BY ${name}; DROP ROLE ${name}`);
    await admin.end();
  });
  return pool.sql;
}

/** Every imported product with its names, in one comparable text. */
async function importedCatalog(sql: postgres.Sql) {
  const [row] = await sql<{ catalog: string }[]>`
    SELECT string_agg(concat_ws('|', p.barcode, p.canonical_name, p.brand, p.category_code, p.default_unit_code,
             p.calories_per_100g, p.salt_per_100g,
             (SELECT string_agg(concat_ws(':', a.language_code, a.name, a.is_primary), ',' ORDER BY a.name)
              FROM product_aliases a WHERE a.product_id = p.id)), E'\n' ORDER BY p.barcode) AS catalog
    FROM products p WHERE p.source = 'off'`;
  return row!.catalog;
}

async function setup(t: Test) {
  const db = await createTestDatabase();
  const database = createDatabase(db.url, { max: 3 });
  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
  t.teardown(async () => {
    await database.close();
    await sql.end();
    await db.drop();
  });
  return { app: database.sql, sql, url: db.url };
}

/**
 * Imports `path` while another transaction has inserted `code` and not committed, and returns once the import waits
 * for it (a batch naming that barcode, inside its own transaction); `commit` lets it go on.
 */
async function importBehindHeldBarcode(
  t: Test,
  { app, sql, url }: Awaited<ReturnType<typeof setup>>,
  path: string,
  code: string,
) {
  const other = postgres(url, { max: 1, onnotice: () => {} });
  t.teardown(() => other.end());
  const tx = await other.reserve();
  await tx`BEGIN`;
  await tx`INSERT INTO products (barcode, canonical_name, source) VALUES (${code}, 'Old name', 'off')`;
  let settled = false;
  const importing = importFoodDump(app, path, LANGUAGES).finally(() => (settled = true));
  const waiting = () => sql`
    SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
  while (!settled && (await waiting()).length === 0) await new Promise((r) => setTimeout(r, 20));
  t.notOk(settled, 'the batch waits for the other transaction');
  const commit = async () => {
    await tx`COMMIT`;
    tx.release();
  };
  return { importing, commit };
}

t.test('the CSV export: counts, a second import changes nothing', async (t) => {
  const { app, sql } = await setup(t);
  const first = await importFoodDump(app, fixture('products.csv'), LANGUAGES, { batchSize: 1000 });
  t.same(first, {
    read: 240,
    inserted: 221,
    updated: 0,
    unchanged: 0,
    duplicates: 2,
    uncheckedBarcodes: UNCHECKED,
    skipped: SKIPPED,
    keysChecked: 'per batch',
  });
  const [counts] = await sql<{ products: number; aliases: number; kj_only: number }[]>`
    SELECT count(*)::int AS products,
           (SELECT count(*)::int FROM product_aliases a JOIN products p ON p.id = a.product_id WHERE p.source = 'off')
             AS aliases,
           count(*) FILTER (WHERE calories_per_100g IS NOT NULL)::int AS kj_only
    FROM products WHERE source = 'off'`;
  t.equal(counts!.products, 221);
  t.ok(counts!.aliases >= 221, 'every product is findable by its name');
  const [trimmed] =
    await sql`SELECT count(*)::int AS n FROM products WHERE source = 'off' AND canonical_name <> btrim(canonical_name)`;
  t.equal(trimmed!.n, 0, 'names trimmed');
  t.equal(await misflagged(sql), 0, 'the names of imported products, and only those, are flagged imported');

  const second = await importFoodDump(app, fixture('products.csv'), LANGUAGES, { batchSize: 1000 });
  t.same(second, {
    read: 240,
    inserted: 0,
    updated: 0,
    unchanged: 221,
    duplicates: 2,
    uncheckedBarcodes: UNCHECKED,
    skipped: SKIPPED,
    keysChecked: 'per batch',
  });
  const [after] = await sql`SELECT count(*)::int AS n FROM products WHERE source = 'off'`;
  t.equal(after!.n, 221, 'nothing duplicated');
  const [rice] = await sql`
    SELECT fiber_per_100g::float8 AS fiber, sugars_per_100g::float8 AS sugars,
           saturated_fat_per_100g::float8 AS saturated_fat, salt_per_100g::float8 AS salt
    FROM products WHERE barcode = '4822392518910'`;
  t.same(rice, { fiber: 1.3, sugars: 0.2, saturated_fat: 0.2, salt: 0.01 }, 'fibre, sugars, saturates and salt read');
  const typo =
    await sql`SELECT canonical_name, barcode FROM products WHERE barcode IN ('4822753671905', '027000634944')`;
  t.equal(typo.length, 2, 'rows whose check digit is wrong are imported, their codes kept as given');
  const found = await catalogRepository(app).searchProducts({ q: 'red kidney beans', language: 'en', limit: 5 });
  t.ok(
    found.some((p) => p.barcode === '027000634944'),
    'and found by name',
  );
});

t.test('JSONL, plain and gzipped, old nutriments and new aggregated_set, names in several languages', async (t) => {
  const { app, sql } = await setup(t);
  const plain = await importFoodDump(app, fixture('products.jsonl'), LANGUAGES);
  t.same(plain, {
    read: 220,
    inserted: 201,
    updated: 0,
    unchanged: 0,
    duplicates: 2,
    uncheckedBarcodes: UNCHECKED,
    skipped: SKIPPED,
    keysChecked: 'per batch',
  });
  const gz = await importFoodDump(app, fixture('products.jsonl.gz'), LANGUAGES);
  t.same(gz, {
    read: 220,
    inserted: 0,
    updated: 0,
    unchanged: 201,
    duplicates: 2,
    uncheckedBarcodes: UNCHECKED,
    skipped: SKIPPED,
    keysChecked: 'per batch',
  });

  const [nutrition] =
    await sql`SELECT count(*) FILTER (WHERE calories_per_100g IS NOT NULL)::int AS with_kcal, count(*)::int AS n FROM
      products WHERE source = 'off'`;
  t.ok(
    nutrition!.with_kcal >= 190,
    `${nutrition!.with_kcal} of ${nutrition!.n} have kcal (both nutrition shapes read)`,
  );
  const [languages] =
    await sql`SELECT count(DISTINCT language_code)::int AS n FROM product_aliases a JOIN products p ON p.id =
      a.product_id WHERE p.source = 'off'`;
  t.ok(languages!.n >= 4, `aliases in ${languages!.n} languages`);
});

t.test('a changed row updates the product; curated products are never overwritten', async (t) => {
  const { app, sql } = await setup(t);
  const [seeded] =
    await sql`SELECT id, barcode, canonical_name FROM products WHERE source = 'seed' AND length(barcode) = 13 LIMIT 1`;
  const path = await tempFile(t, 'changed.jsonl');
  const doc = (name: string, kcal: number, code = '4006381333931') =>
    JSON.stringify({ code, product_name: name, lang: 'de', nutriments: { 'energy-kcal_100g': kcal } });
  await writeFile(path, `${doc('Milch', 64)}\n${doc('Hijack', 1, seeded!.barcode)}\n`);
  t.match(await importFoodDump(app, path, LANGUAGES), { inserted: 1, unchanged: 1 });
  await writeFile(path, `${doc('Milch fettarm', 48)}\n`);
  t.match(await importFoodDump(app, path, LANGUAGES), { inserted: 0, updated: 1 });
  const [milk] =
    await sql`SELECT canonical_name, calories_per_100g::float8 AS kcal FROM products WHERE barcode = '4006381333931'`;
  t.same(milk, { canonical_name: 'Milch fettarm', kcal: 48 });
  const vocabulary = await sql`SELECT word FROM search_words WHERE word IN ('milch', 'fettarm')`;
  t.equal(vocabulary.length, 2, 'the words of new and changed names reach the typo vocabulary');
  const [kept] = await sql`SELECT canonical_name FROM products WHERE id = ${seeded!.id}`;
  t.equal(kept!.canonical_name, seeded!.canonical_name);
  t.equal(await misflagged(sql), 0, 'rewritten names are flagged imported too');
  const matched = await generatedRecipeRepository(app).matchProducts(['Milch fettarm', seeded!.canonical_name]);
  t.same(matched, [null, seeded!.id], 'ingredient names match curated products, never imported ones');

  const repo = catalogRepository(app);
  const found = await repo.searchProducts({ q: 'milch fettarm', language: 'de', limit: 5 });
  t.equal(found[0]?.canonical_name, 'Milch fettarm', 'imported products are searchable');
});

t.test('ingredient search finds every curated name however many imported names share its word', async (t) => {
  const { app, sql } = await setup(t);
  const path = await tempFile(t, 'milk.jsonl');
  // More imported "milk" names than search takes candidates, then the seed again (as every `pnpm start` runs it):
  // the curated names are rewritten behind the imported ones in the table.
  const docs = Array.from({ length: 400 }, (_, i) => {
    const payload = String(400000000000 + i);
    return JSON.stringify({
      code: payload + gtinCheckDigit(payload),
      product_name: `${i % 2 ? 'Milk drink' : 'Chocolate milk bar'} ${i}`,
      lang: 'en',
    });
  });
  await writeFile(path, `${docs.join('\n')}\n`);
  t.match(await importFoodDump(app, path, LANGUAGES), { inserted: 400 });
  await seed(app);
  const curated = (
    await sql<{ id: string }[]>`
    SELECT DISTINCT p.id FROM products p JOIN product_aliases a ON a.product_id = p.id
    WHERE p.source = 'seed' AND a.language_code = 'en' AND to_tsvector('simple', a.name) @@ 'milk:*'::tsquery`
  ).map((r) => r.id);
  t.ok(curated.length >= 5, `${curated.length} curated products named with milk`);
  const repo = catalogRepository(app);
  const found = await repo.searchProducts({ q: 'milk', language: 'en', limit: 100, ingredientsOnly: true });
  t.same(found.map((f) => f.id).sort(), curated.sort(), 'every curated milk product, no imported one');
  const all = await repo.searchProducts({ q: 'milk', language: 'en', limit: 100 });
  t.ok(
    all.some((f) => f.canonical_name.startsWith('Milk drink')),
    'product search still finds imported names',
  );
});

t.test(
  'written on two connections: the last row of a barcode wins across batches; a pool of one still imports',
  async (t) => {
    const { app, sql, url } = await setup(t);
    const path = await tempFile(t, 'writers.jsonl');
    const doc = (code: string, name: string) =>
      JSON.stringify({ code, product_name: name, lang: 'en', nutriments: { 'energy-kcal_100g': 100 } });
    // Barcodes of both writers, each named three times in batches of two: only the third name may remain.
    const codes = ['4006381333931', '4006381333948', '4006381333955', '4006381333962'];
    const rows = [1, 2, 3].flatMap((round) => codes.map((code) => doc(code, `Product ${code} v${round}`)));
    await writeFile(path, `${rows.join('\n')}\n`);
    t.match(await importFoodDump(app, path, LANGUAGES, { batchSize: 2 }), { read: 12, inserted: 4 });
    const names = await sql<{ barcode: string; canonical_name: string }[]>`
    SELECT barcode, canonical_name FROM products WHERE barcode = ANY(${codes}) ORDER BY barcode`;
    t.same(
      names.map((n) => n.canonical_name),
      codes.map((code) => `Product ${code} v3`),
    );

    const single = createDatabase(url, { max: 1 });
    t.teardown(() => single.close());
    await writeFile(path, `${doc('4006381333979', 'Single pool product')}\n`);
    t.match(await importFoodDump(single.sql, path, LANGUAGES), { inserted: 1 });
  },
);

t.test('a barcode another transaction inserts while a batch is written: the batch is upserted instead', async (t) => {
  const { app, sql, url } = await setup(t);
  const path = await tempFile(t, 'a.jsonl');
  const codes = ['4006381333931', '4006381333948', '4006381333955'];
  const doc = (code: string) =>
    JSON.stringify({ code, product_name: `Product ${code}`, lang: 'en', nutriments: { 'energy-kcal_100g': 100 } });
  await writeFile(path, `${codes.map(doc).join('\n')}\n`);
  // An import beside this one has inserted the second product and not committed yet: the batch waits for it.
  const { importing, commit } = await importBehindHeldBarcode(t, { app, sql, url }, path, codes[1]!);
  await commit();
  const summary = await importing;
  t.match(summary, { inserted: 2, updated: 1, unchanged: 0 });
  const rows = await sql<{ canonical_name: string; names: string[] }[]>`
    SELECT p.canonical_name, array_agg(a.name) AS names FROM products p JOIN product_aliases a ON a.product_id = p.id
    WHERE p.barcode = ANY(${codes}) GROUP BY p.id ORDER BY p.barcode`;
  t.same(
    rows,
    codes.map((code) => ({ canonical_name: `Product ${code}`, names: [`Product ${code}`] })),
    'each product once, with its name from the file',
  );
});

t.test('salt from sodium where a document gives only sodium; a changed nutrient updates the product', async (t) => {
  const { app, sql } = await setup(t);
  const dir = await mkdtemp(join(tmpdir(), 'off-'));
  t.teardown(() => rm(dir, { recursive: true }));
  const doc = (sodium: number) =>
    JSON.stringify({
      code: '4006381333931',
      product_name: 'Salzbrezeln',
      lang: 'de',
      nutriments: {
        'energy-kcal_100g': 380,
        proteins_100g: 10,
        fat_100g: 3,
        carbohydrates_100g: 76,
        fiber_100g: 3.1,
        sugars_100g: 1.5,
        'saturated-fat_100g': 0.4,
        sodium_100g: sodium,
      },
    });
  await writeFile(join(dir, 'a.jsonl'), `${doc(1.6)}\n`);
  await importFoodDump(app, join(dir, 'a.jsonl'), LANGUAGES);
  const read = () => sql`
    SELECT fiber_per_100g::float8 AS fiber, salt_per_100g::float8 AS salt
    FROM products WHERE barcode = '4006381333931'`;
  t.same((await read())[0], { fiber: 3.1, salt: 4 });
  await writeFile(join(dir, 'b.jsonl'), `${doc(0.8)}\n`);
  t.match(await importFoodDump(app, join(dir, 'b.jsonl'), LANGUAGES), { updated: 1 });
  t.same((await read())[0], { fiber: 3.1, salt: 2 });
});

t.test('names and brands with backslashes, quotes, line breaks and NUL bytes arrive as written', async (t) => {
  const { app, sql } = await setup(t);
  const file = await tempFile(t, 'odd.jsonl');
  const name = 'Crème "brûlée" \\ C:\\new\\tab';
  await writeFile(
    file,
    `${JSON.stringify({
      code: '4006381333931',
      product_name: name,
      product_name_fr: `${name}\n2`,
      brands: 'A\\B\tC\u0000',
      lang: 'de',
      nutriments: { 'energy-kcal_100g': 300 },
    })}\n`,
  );
  t.match(await importFoodDump(app, file, LANGUAGES), { inserted: 1 });
  const [product] = await sql`SELECT canonical_name, brand FROM products WHERE barcode = '4006381333931'`;
  t.same(product, { canonical_name: name, brand: 'A\\B C' }, 'a line break or tab reads as a space; a NUL goes');
  const names = await sql`
    SELECT a.language_code, a.name FROM product_aliases a JOIN products p ON p.id = a.product_id
    WHERE p.barcode = '4006381333931' ORDER BY a.language_code`;
  t.same(names, [
    { language_code: 'de', name },
    { language_code: 'fr', name: `${name} 2` },
  ]);
});

t.test('a role that may not write as a replica: keys checked per row by PostgreSQL, the same catalog', async (t) => {
  const replica = await setup(t);
  const plain = await setup(t);
  const asRole = await asPlainRole(t, plain.url);
  const summary = await importFoodDump(asRole, fixture('products.csv'), LANGUAGES, { batchSize: 100 });
  t.match(summary, { inserted: 221, keysChecked: 'per row' });
  t.match(await importFoodDump(replica.app, fixture('products.csv'), LANGUAGES, { batchSize: 100 }), {
    inserted: 221,
    keysChecked: 'per batch',
  });
  t.equal(await importedCatalog(plain.sql), await importedCatalog(replica.sql), 'the same products and names');
});

t.test(
  'a category or language the catalog lacks fails its batch either way; nothing of the batch is written',
  async (t) => {
    const replica = await setup(t);
    const plain = await setup(t);
    const asRole = await asPlainRole(t, plain.url);
    const path = await tempFile(t, 'snacks.jsonl');
    const doc = (code: string, tag: string) =>
      JSON.stringify({
        code,
        product_name: `Product ${code}`,
        categories_tags: [tag],
        nutriments: { 'energy-kcal_100g': 1 },
      });
    // Both barcodes go to the same writer, so into one batch.
    await writeFile(path, `${doc('4006381333931', 'en:breads')}\n${doc('4006381333955', 'en:popcorn')}\n`);
    for (const { sql } of [replica, plain]) {
      await sql`UPDATE products SET category_code = NULL WHERE category_code = 'snacks'`;
      await sql`DELETE FROM product_categories WHERE code = 'snacks'`;
    }
    await t.rejects(importFoodDump(replica.app, path, LANGUAGES), /the catalog has no categories snacks/);
    await t.rejects(importFoodDump(asRole, path, LANGUAGES), { code: '23503' }, 'a foreign-key violation');
    for (const { sql } of [replica, plain]) t.equal(await importedCatalog(sql), null, 'no product written');

    // A language the importer was told of that the catalog lacks: the same, for the name.
    await writeFile(path, `${JSON.stringify({ code: '4006381333931', product_name: 'Brot', lang: 'xx' })}\n`);
    await t.rejects(importFoodDump(replica.app, path, ['xx']), /the catalog has no languages xx/);
    await t.rejects(importFoodDump(asRole, path, ['xx']), { code: '23503' }, 'a foreign-key violation');
    for (const { sql } of [replica, plain]) t.equal(await importedCatalog(sql), null, 'no product written');
  },
);

t.test('a category a batch names cannot be deleted until the batch commits, then not at all', async (t) => {
  const { app, sql, url } = await setup(t);
  await sql`UPDATE products SET category_code = NULL WHERE category_code = 'snacks'`;
  const path = await tempFile(t, 'popcorn.jsonl');
  const code = '4006381333931';
  await writeFile(path, `${JSON.stringify({ code, product_name: 'Popcorn', categories_tags: ['en:popcorn'] })}\n`);
  // Another transaction holds the barcode, so the batch waits inside its transaction, after its keys are checked.
  const { importing, commit } = await importBehindHeldBarcode(t, { app, sql, url }, path, code);
  const deleting = sql.begin(async (d) => {
    await d`SET LOCAL lock_timeout = '300ms'`;
    await d`DELETE FROM product_categories WHERE code = 'snacks'`;
  });
  await t.rejects(deleting, { code: '55P03' }, 'the delete waits for the batch');
  await commit();
  t.match(await importing, { updated: 1, keysChecked: 'per batch' });
  await t.rejects(sql`DELETE FROM product_categories WHERE code = 'snacks'`, { code: '23503' }, 'then it is in use');
});

t.test('writing as a replica skips only foreign-key checks: API processes hear that the catalog changed', async (t) => {
  const { app, sql, url } = await setup(t);
  const skipped = await sql`
    SELECT t.tgname FROM pg_trigger t
    WHERE t.tgrelid IN ('products'::regclass, 'product_aliases'::regclass) AND t.tgenabled <> 'A'
      AND NOT EXISTS (SELECT FROM pg_constraint c WHERE c.oid = t.tgconstraint AND c.contype = 'f')`;
  t.same(skipped, [], 'every other trigger of the tables an import writes fires in a replica session');
  const listener = postgres(url, { max: 1, onnotice: () => {} });
  t.teardown(() => listener.end());
  let heard = 0;
  await listener.listen('catalog_changed', () => heard++);
  const path = await tempFile(t, 'one.jsonl');
  await writeFile(path, `${JSON.stringify({ code: '4006381333931', product_name: 'Heard of' })}\n`);
  t.match(await importFoodDump(app, path, LANGUAGES), { inserted: 1, keysChecked: 'per batch' });
  for (let i = 0; i < 100 && heard === 0; i++) await new Promise((r) => setTimeout(r, 20));
  t.ok(heard > 0, 'catalog_changed was sent');
});
