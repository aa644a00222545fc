import t from 'tap';
import { openTestDatabase } from '../src/testing.ts';
import { diaryRepository } from '../src/repositories/diary.ts';

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

t.test('a diary insert answers the version its day had before it, exactly, however many race', async (t) => {
  const { sql } = await openTestDatabase(t, { max: 8 });
  const diary = diaryRepository(sql);
  const [user] = await sql<{ id: string }[]>`
    INSERT INTO users (identity_provider, external_subject) VALUES ('dev', 'racing') RETURNING id`;
  const [product] = await sql<{ id: string }[]>`SELECT id FROM products WHERE code = 'milk'`;
  const entry = (mealType: string) => ({
    date: '2026-10-05',
    mealType,
    dishId: null,
    recipeId: null,
    productId: product!.id,
    portions: null,
    portionG: 30,
    jobId: null,
  });

  const first = await diary.insert(user!.id, entry('lunch'), 'en');
  t.equal(first.day_version_before, null, 'a day never written had no version');
  // 40 inserts on 8 connections: each must name the version the one committed before it left, so the versions form
  // one chain from the first insert's to the day's current one.
  const raced = await Promise.all(
    Array.from({ length: 40 }, (_, i) => diary.insert(user!.id, entry(i % 2 ? 'snack' : 'breakfast'), 'en')),
  );
  const after = new Map(raced.map((r) => [r.day_version_before, r.day_version]));
  t.equal(after.size, raced.length, 'no two inserts replaced the same version');
  let version: string | undefined = first.day_version;
  let steps = 0;
  while (after.has(version!)) {
    version = after.get(version!);
    steps++;
  }
  t.equal(steps, raced.length, 'every insert continues the chain');
  const [day] = await sql<{ version: string }[]>`
    SELECT version::text FROM diary_days WHERE user_id = ${user!.id} AND date = '2026-10-05'`;
  t.equal(day!.version, version, "and its end is the day's version");
});

t.test("a transaction writes its day's version once, however many of the day's entries it changes", async (t) => {
  const { sql } = await openTestDatabase(t, { max: 1 });
  const [user] = await sql<{ id: string }[]>`
    INSERT INTO users (identity_provider, external_subject) VALUES ('dev', 'once') RETURNING id`;
  const [product] = await sql<{ id: string }[]>`SELECT id FROM products WHERE code = 'milk'`;
  await sql.begin(async (tx) => {
    // A row's ctid moves with every new version of it.
    const place = async () =>
      (await tx<{ ctid: string }[]>`SELECT ctid::text FROM diary_days WHERE user_id = ${user!.id}`)[0]?.ctid;
    const log = () => tx`INSERT INTO meal_diary (user_id, date, meal_type, product_id, portion_g)
      VALUES (${user!.id}, '2026-10-06', 'lunch', ${product!.id}, 100)`;
    await log();
    const written = await place();
    t.ok(written);
    await log();
    await tx`UPDATE meal_diary SET portion_g = 120 WHERE user_id = ${user!.id}`;
    t.equal(await place(), written, 'the second entry and the change left the row as the first entry wrote it');
  });
});
