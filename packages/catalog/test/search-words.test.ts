import t from 'tap';
import { openTestDatabase } from '@nutrition/db/testing';
import { firstUuidv7Of, learnSearchWords } from '../src/search-words.ts';

t.test("the bound of an import's names sorts every later uuidv7() after it, and earlier ones before", async (t) => {
  const { sql } = await openTestDatabase(t, { max: 1 });
  const [clock] = await sql<{ now: Date }[]>`SELECT clock_timestamp() AS now`;
  const bound = firstUuidv7Of(clock!.now);
  const [row] = await sql`
    SELECT uuidv7() >= ${bound}::uuid AS later, uuidv7(interval '-1 second') < ${bound}::uuid AS earlier,
           uuid_extract_timestamp(${bound}::uuid) = date_trunc('milliseconds', ${clock!.now}::timestamptz) AS same_ms,
           uuid_extract_version(${bound}::uuid) AS version`;
  t.same(row, { later: true, earlier: true, same_ms: true, version: 7 });
  t.equal(firstUuidv7Of(new Date(0)), '00000000-0000-7000-8000-000000000000');
});

t.test('the vocabulary learns the words of names written since the import began, and only those', async (t) => {
  const { sql } = await openTestDatabase(t, { max: 2 });
  const name = async (word: string) => {
    const [p] = await sql`INSERT INTO products (canonical_name, source) VALUES (${word}, 'off') RETURNING id`;
    await sql`INSERT INTO product_aliases (product_id, name, imported) VALUES (${p!.id}, ${`${word} Bio`}, true)`;
  };
  await name('Quarkolade');
  // The bound is a millisecond's first id: names of the same millisecond as the start are learned too.
  await new Promise((r) => setTimeout(r, 5));
  const [clock] = await sql<{ now: Date }[]>`SELECT now()`;
  await name('Zwiebelkuchen');
  await learnSearchWords(sql, clock!.now);
  const words = await sql`SELECT word FROM search_words WHERE word IN ('quarkolade', 'zwiebelkuchen', 'bio')`;
  t.same(words.map((w) => w.word).sort(), ['bio', 'zwiebelkuchen']);
});
