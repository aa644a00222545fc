import t from 'tap';
import { openTestDatabase } from '@nutrition/db/testing';
import { queueDatabase } from '../src/queues.ts';

t.test("pg-boss's per-job statements run prepared, those without parameters too", async (t) => {
  const { sql } = await openTestDatabase(t, { max: 1 });
  const queue = queueDatabase(sql);
  // pg-boss's fetch inlines its queue name and batch size: a text without parameters.
  for (let i = 0; i < 3; i++)
    t.same((await queue.executeSql(`SELECT code FROM languages WHERE code = 'de'`)).rows, [{ code: 'de' }]);
  for (const code of ['en', 'fr', 'ja'])
    t.same((await queue.executeSql('SELECT code FROM languages WHERE code = $1', [code])).rows, [{ code }]);
  const prepared = await sql<{ statement: string; runs: number }[]>`
    SELECT statement, (generic_plans + custom_plans)::int AS runs FROM pg_prepared_statements
    WHERE statement LIKE 'SELECT code FROM languages WHERE code =%' ORDER BY statement`;
  t.same(prepared, [
    { statement: 'SELECT code FROM languages WHERE code = $1', runs: 3 },
    { statement: "SELECT code FROM languages WHERE code = 'de'", runs: 3 },
  ]);
});
