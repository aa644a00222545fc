import t from 'tap';
import type postgres from 'postgres';
import { statementText } from '../src/statement-text.ts';
import { openTestDatabase } from '../src/testing.ts';

t.test('a statement built from fragments once runs with each call’s values as the fragments would', async (t) => {
  const { sql } = await openTestDatabase(t, { max: 1 });
  const a = sql.typed(null, 0);
  const b = sql.typed(null, 0);
  const slots = new Map<unknown, string>([
    [a, 'a'],
    [b, 'b'],
  ]);
  const sum = (x: postgres.Parameter | number, y: postgres.Parameter | number) => sql`(${x}::int + ${y}::int)`;
  const built = statementText(
    sql`SELECT ${sum(a, b)} AS s, ${sql.unsafe('upper')}(${b}::text) AS u, ${a}::int AS again
        FROM ${sql('languages')} LIMIT 1`,
    slots,
  );
  t.same(built.keys, ['a', 'b'], 'one parameter per slot, in order of first use');
  t.match(built.text, /\(\$1::int \+ \$2::int\) AS s, upper\(\$2::text\) AS u, \$1::int AS again/);
  t.match(built.text, /FROM "languages"/, 'identifiers quoted as postgres.js quotes them');

  for (const [x, y] of [
    [2, 40],
    [-7, 7],
  ] as const) {
    const values: Record<string, number> = { a: x, b: y };
    const [fromText] = await sql.unsafe(
      built.text,
      built.keys.map((k) => values[k]!),
      { prepare: true },
    );
    const [fromFragments] = await sql`SELECT ${sum(x, y)} AS s, upper(${y}::text) AS u, ${x}::int AS again
      FROM languages LIMIT 1`;
    t.same(fromText, fromFragments, `${x} and ${y}`);
  }
});

t.test('a value that is not a slot is refused, since every later run would repeat it', async (t) => {
  const { sql } = await openTestDatabase(t, { max: 1 });
  const a = sql.typed(null, 0);
  const slots = new Map<unknown, string>([[a, 'a']]);
  t.throws(() => statementText(sql`SELECT ${a}, ${'alice'}`, slots), /not a slot.*alice/);
  t.throws(() => statementText(sql`SELECT ${sql.unsafe('$1', [1])}`, slots), /not a slot/, 'unsafe text with values');
});
