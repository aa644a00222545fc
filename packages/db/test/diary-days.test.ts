import t from 'tap';
import { openTestDatabase } from '../src/testing.ts';

t.test("a diary day's version changes with every change to that day, and only that day's", async (t) => {
  const { sql } = await openTestDatabase(t, { max: 1 });
  const [user] = await sql<{ id: string }[]>`
    INSERT INTO users (identity_provider, external_subject) VALUES ('dev', 'days') RETURNING id`;
  const [product] = await sql<{ id: string }[]>`SELECT id FROM products WHERE code = 'milk'`;
  const versions = async () =>
    Object.fromEntries(
      (
        await sql<{ date: string; version: string }[]>`
          SELECT date::text, version::text FROM diary_days WHERE user_id = ${user!.id}`
      ).map((r) => [r.date, r.version]),
    );
  // The user's row as stored: a new row version has a new xmin.
  const userRow = async () =>
    (await sql<{ xmin: string }[]>`SELECT xmin::text AS xmin FROM users WHERE id = ${user!.id}`)[0]!.xmin;
  const userBefore = await userRow();

  const [entry] = await sql<{ id: string }[]>`
    INSERT INTO meal_diary (user_id, date, meal_type, product_id, portion_g)
    VALUES (${user!.id}, '2026-10-01', 'lunch', ${product!.id}, 100) RETURNING id`;
  await sql`INSERT INTO meal_diary (user_id, date, meal_type, product_id, portion_g)
    VALUES (${user!.id}, '2026-10-02', 'lunch', ${product!.id}, 100)`;
  const first = await versions();
  t.same(Object.keys(first).sort(), ['2026-10-01', '2026-10-02']);

  await sql`UPDATE meal_diary SET portion_g = 150 WHERE id = ${entry!.id}`;
  const second = await versions();
  t.not(second['2026-10-01'], first['2026-10-01'], 'a change to the day');
  t.equal(second['2026-10-02'], first['2026-10-02'], 'leaves the other day as it was');

  await sql`UPDATE meal_diary SET date = '2026-10-02' WHERE id = ${entry!.id}`;
  const third = await versions();
  t.not(third['2026-10-01'], second['2026-10-01'], 'a moved entry changes the day it left');
  t.not(third['2026-10-02'], second['2026-10-02'], 'and the day it joined');

  await sql`DELETE FROM meal_diary WHERE id = ${entry!.id}`;
  t.not((await versions())['2026-10-02'], third['2026-10-02'], 'a deletion changes its day');
  t.equal(await userRow(), userBefore, "no diary write rewrote the user's row");

  await sql`DELETE FROM users WHERE id = ${user!.id}`;
  t.same(await versions(), {}, "a deleted user's days go with them");
});

t.test('the users table keeps no diary counter of its own (migration 0027)', async (t) => {
  const { sql } = await openTestDatabase(t, { max: 1 });
  const columns = await sql<{ column_name: string }[]>`
    SELECT column_name FROM information_schema.columns WHERE table_name = 'users' AND column_name LIKE 'diary%'`;
  t.same(columns, [], 'days carry their own versions (diary_days)');
});
