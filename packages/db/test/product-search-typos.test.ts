import t from 'tap';
import type { Sql } from '../src/client.ts';
import { catalogRepository } from '../src/repositories/index.ts';
import { openTestDatabase } from '../src/testing.ts';

/** Imported products named `${prefix} ${i}` for i from 1 to `count`, with their words in the typo vocabulary. */
async function importNames(sql: Sql, prefix: string, count: number) {
  await sql`
    WITH p AS (
      INSERT INTO products (canonical_name, source)
      SELECT ${prefix} || ' ' || i, 'off' FROM generate_series(1, ${count}::int) i RETURNING id, canonical_name)
    INSERT INTO product_aliases (product_id, language_code, name, is_primary, imported)
    SELECT id, 'en', canonical_name, true, true FROM p`;
  await sql`
    INSERT INTO search_words (word) SELECT DISTINCT lower(w) FROM regexp_split_to_table(${prefix}, ' ') w
    ON CONFLICT DO NOTHING`;
}

/** The page for `q`, and how many entries each full-text index (all names; curated ones) handed over meanwhile. */
async function search(sql: Sql, q: string) {
  return sql.begin(async (tx) => {
    // Statistics of the transaction so far: the difference is this search's own.
    const read = async () =>
      (
        await tx<{ all: number; curated: number }[]>`
          SELECT pg_stat_get_xact_tuples_returned('product_aliases_fts_idx'::regclass)::int AS all,
                 pg_stat_get_xact_tuples_returned('product_aliases_curated_fts_idx'::regclass)::int AS curated`
      )[0]!;
    const before = await read();
    const rows = await catalogRepository(tx).searchProducts({ q, language: 'en', limit: 21 });
    const after = await read();
    return {
      names: rows.map((r) => r.name),
      fullText: after.all - before.all,
      curatedFullText: after.curated - before.curated,
    };
  });
}

t.test(
  'a typo of a common word: names starting with its correction, without visiting every name holding it',
  async (t) => {
    const { sql } = await openTestDatabase(t, { max: 1 });
    await importNames(sql, 'Grilled chicken', 1000);
    await importNames(sql, 'Chicken bites', 200);

    const typo = await search(sql, 'chiken');
    t.equal(typo.names.length, 21, 'a full first page');
    t.ok(
      ['Chicken breast', 'Chicken wings', 'Chicken bites 1'].every((n) => typo.names.includes(n)),
      `the catalog's own chicken products and names starting with the correction: ${typo.names.join(', ')}`,
    );
    // Before, the full text's bitmap held every name with the word chicken (1,200 and more) to take 150 of them.
    t.equal(typo.fullText, 0, 'the full-text index of all names is not read');

    // No typo: names starting with the word fill the page, and no full text runs at all.
    const word = await search(sql, 'chicken');
    t.equal(word.names.length, 21);
    t.same([word.fullText, word.curatedFullText], [0, 0], 'neither full-text index is read');
  },
);

t.test('a typo whose correction starts too few names still finds names holding it inside', async (t) => {
  const { sql } = await openTestDatabase(t, { max: 1 });
  await importNames(sql, 'Roasted zucchinis', 30);
  await importNames(sql, 'Zucchinis', 2);

  const typo = await search(sql, 'zuchinis');
  t.equal(typo.names.length, 21, 'a full first page');
  t.ok(typo.fullText > 0, 'full text fills the page');
  t.same(typo.names.slice(0, 2).sort(), ['Zucchinis 1', 'Zucchinis 2'], 'the closest names first');
  t.ok(
    typo.names.slice(2).every((n) => /^Roasted zucchinis/.test(n)),
    'then names holding the correction inside',
  );
});
