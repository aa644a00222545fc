import t from 'tap';
import type { Sql } from '../src/client.ts';
import { catalogRepository, type ProductSearch } from '../src/repositories/index.ts';
import { openTestDatabase } from '../src/testing.ts';

const LIMIT = 7;

/** Every page of a search as the API paged it from rows: `LIMIT + 1` rows, the last kept one's keyset if more come. */
async function pagesFromRows(sql: Sql, s: Omit<ProductSearch, 'limit' | 'after'>) {
  const repo = catalogRepository(sql);
  const pages = [];
  let after: ProductSearch['after'];
  for (;;) {
    const rows = await repo.searchProducts({ ...s, limit: LIMIT + 1, after });
    const items = rows.slice(0, LIMIT);
    const last = rows.length > LIMIT ? { score: items.at(-1)!.score, id: items.at(-1)!.id } : null;
    pages.push({ items, last });
    if (!last) return pages;
    after = last;
  }
}

/** The same pages as PostgreSQL writes them for the API. */
async function pagesAsJson(sql: Sql, s: Omit<ProductSearch, 'limit' | 'after'>) {
  const repo = catalogRepository(sql);
  const pages = [];
  let after: ProductSearch['after'];
  for (;;) {
    const page = await repo.searchProductsPage({ ...s, limit: LIMIT, after });
    pages.push({ items: JSON.parse(page.items) as unknown[], last: page.last });
    if (!page.last) return pages;
    after = page.last;
  }
}

t.test('a page written by PostgreSQL holds the products, values and keysets of the rows it replaces', async (t) => {
  const { sql } = await openTestDatabase(t, { max: 2 });
  // 14 imported names holding a word of their own: exactly two pages, the second with no page after it.
  await sql`
    WITH p AS (
      INSERT INTO products (canonical_name, source, calories_per_100g, storage_days)
      SELECT 'Quokkaberry jam ' || i, 'off', 250.5 + i / 10.0, CASE WHEN i % 2 = 0 THEN i END
      FROM generate_series(1, 14) i RETURNING id, canonical_name)
    INSERT INTO product_aliases (product_id, language_code, name, is_primary, imported)
    SELECT id, NULL, canonical_name, true, true FROM p`;
  // Its words in the vocabulary, as an import leaves them: not a typo.
  await sql`INSERT INTO search_words (word) VALUES ('quokkaberry'), ('jam') ON CONFLICT DO NOTHING`;
  const [category] = await sql<{ code: string }[]>`
    SELECT category_code AS code FROM products WHERE code = 'milk'`;
  const searches: Omit<ProductSearch, 'limit' | 'after'>[] = [
    { q: 'milk', language: 'en' },
    { q: 'mi', language: 'en' },
    { q: 'milk', language: 'de' },
    { q: 'молоко', language: 'ru' },
    { q: 'chiken', language: 'en' },
    { q: 'milk', language: 'en', ingredientsOnly: true },
    { q: 'milk', language: 'en', category: category!.code },
    { q: 'quokkaberry', language: 'en' },
    { q: 'no such product anywhere', language: 'en' },
  ];
  for (const s of searches) {
    const fromRows = await pagesFromRows(sql, s);
    const asJson = await pagesAsJson(sql, s);
    t.strictSame(asJson, JSON.parse(JSON.stringify(fromRows)), `${JSON.stringify(s)}: ${fromRows.length} page(s)`);
  }
  const quokka = await pagesAsJson(sql, { q: 'quokkaberry', language: 'en' });
  t.same(
    quokka.map((p) => p.items.length),
    [7, 7],
    'a result that fills its last page exactly has no page after it',
  );
  t.same(await pagesAsJson(sql, { q: 'no such product anywhere', language: 'en' }), [{ items: [], last: null }]);
});

t.test(
  'a repository that built its statements for other searches answers each as one built for it alone',
  async (t) => {
    const { sql } = await openTestDatabase(t, { max: 2 });
    const [category] = await sql<{ code: string }[]>`SELECT category_code AS code FROM products WHERE code = 'milk'`;
    const searches: ProductSearch[] = [
      { q: 'milk', language: 'en', limit: 5 },
      { q: 'm', language: 'en', limit: 5 },
      { q: 'mi', language: 'uk', limit: 3 },
      { q: 'chocolate milk', language: 'en', limit: 5 },
      { q: 'chiken', language: 'en', limit: 5 },
      { q: 'chiken brest', language: 'en', limit: 5 },
      { q: 'a%b milk', language: 'en', limit: 5 },
      { q: '50%', language: 'en', limit: 5 },
      { q: 'milk', language: 'en', limit: 5, ingredientsOnly: true },
      { q: 'milk', language: 'en', limit: 5, category: category!.code },
      { q: 'молоко', language: 'ru', limit: 5 },
    ];
    // Each search's second page too: the keyset is one more choice of the statement.
    for (const s of [...searches]) {
      const first = await catalogRepository(sql).searchProductsPage(s);
      if (first.last) searches.push({ ...s, after: first.last });
    }
    t.ok(searches.length > 13, 'some searches have a second page');
    const shared = catalogRepository(sql);
    // Three rounds in different orders through one repository, each answer against a repository built for it.
    for (const round of [0, 1, 2]) {
      const order = searches.map((s, i) => ({ s, k: (i * (round * 5 + 3)) % searches.length }));
      for (const { s } of order.sort((x, y) => x.k - y.k)) {
        const expected = await catalogRepository(sql).searchProductsPage(s);
        t.strictSame(await shared.searchProductsPage(s), expected, `round ${round}: ${JSON.stringify(s)}`);
      }
    }
    // Every search twice and all at once through a repository that has built nothing yet, on a pool of two
    // connections: first builds of one shape race each other, and each answer is still its own.
    const expected = [];
    for (const s of searches) expected.push(await catalogRepository(sql).searchProductsPage(s));
    const racing = catalogRepository(sql);
    const answers = await Promise.all([...searches, ...searches].map((s) => racing.searchProductsPage(s)));
    t.strictSame(answers, [...expected, ...expected], `${answers.length} searches at once`);
  },
);
