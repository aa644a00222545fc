import t from 'tap';
import { generatedRecipeRepository } from '../src/repositories/index.ts';
import { openTestDatabase } from '../src/testing.ts';

t.test(
  'ingredient names match curated products as the plain query at the default trigram threshold does',
  async (t) => {
    const { sql } = await openTestDatabase(t, { max: 1 });
    const curated = (
      await sql<{ name: string }[]>`
      SELECT name FROM product_aliases WHERE NOT imported ORDER BY md5(name) LIMIT 150`
    ).map((r) => r.name);
    // Exact names, shouting, one letter short, two words swapped, and words that are no product.
    const names = [
      ...curated,
      ...curated.map((n) => `  ${n.toUpperCase()} `),
      ...curated.map((n) => n.slice(0, -1)),
      ...curated.map((n) => n.split(' ').reverse().join(' ')),
      'xylophone',
      'zzz',
      '',
    ];
    // The query as it ran before it became a function, at PostgreSQL's default threshold: the reference.
    const plain = async () =>
      (
        await sql<{ product_id: string | null }[]>`
        SELECT m.product_id
        FROM unnest(${names.map((n) => n.trim())}::text[]) WITH ORDINALITY AS typed(name, i)
        CROSS JOIN LATERAL (SELECT fold_text(typed.name) AS name, typed.i) q
        LEFT JOIN LATERAL (
          SELECT a.product_id FROM product_aliases a
          WHERE NOT a.imported AND (a.search_name = q.name OR a.search_name % q.name)
            AND similarity(a.search_name, q.name) >= 0.6
          ORDER BY a.search_name = q.name DESC, similarity(a.search_name, q.name) DESC, a.is_primary DESC
          LIMIT 1
        ) m ON true
        ORDER BY q.i`
      ).map((r) => r.product_id);
    const matched = await generatedRecipeRepository(sql).matchProducts(names);
    t.same(matched, await plain(), 'the same product for every name, in the order of the names');
    t.equal(matched.slice(0, 300).filter((id) => id === null).length, 0, 'exact names match whatever their case');
    t.ok(matched.slice(300, 450).filter(Boolean).length > 100, 'most names one letter short match');
    t.same(matched.slice(-3), [null, null, null], 'words that are no product match nothing');
    const [setting] = await sql<
      { threshold: string }[]
    >`SELECT current_setting('pg_trgm.similarity_threshold') AS threshold`;
    t.equal(Number(setting!.threshold), 0.3, "the connection keeps its threshold (product search's typo correction)");
    t.same(await generatedRecipeRepository(sql).matchProducts([]), []);
  },
);
