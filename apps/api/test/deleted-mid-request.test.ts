import t, { type Test } from 'tap';
import postgres from 'postgres';
import { as, buildTestApp, login } from './helpers.ts';

/** Holds a lock in a transaction of its own connection until `release` is called. */
async function hold(url: string, lock: (tx: postgres.TransactionSql) => Promise<unknown>) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let held!: () => void;
  const isHeld = new Promise<void>((r) => (held = r));
  const done = sql
    .begin(async (tx) => {
      await lock(tx);
      held();
      await released;
    })
    .finally(() => sql.end({ timeout: 1 }));
  await isHeld;
  return async () => {
    release();
    await done;
  };
}

/** Polls until `query` returns a row. */
async function until(query: () => Promise<readonly unknown[]>, what: string) {
  for (let i = 0; i < 250; i++) {
    if ((await query()).length > 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`never: ${what}`);
}

/** A diary entry and a pantry item of milk: their table, route, create body (with `id` when given) and a change. */
const KINDS = {
  diary: {
    table: 'meal_diary',
    path: '/diary',
    create: (milk: string, id?: string) => ({
      id,
      date: '2026-11-20',
      meal_type: 'lunch',
      product_id: milk,
      portion_g: 100,
    }),
    patch: { portion_g: 200 },
  },
  pantry: {
    table: 'user_products',
    path: '/user-products',
    create: (milk: string, id?: string) => ({ id, product_id: milk, quantity: 1, unit_code: 'l' }),
    patch: { quantity: 2 },
  },
} as const;

/** A user of a test app, and the milk their rows name. */
async function setUp(t: Test, subject: string) {
  const { app, url, sql } = await buildTestApp(t);
  const a = as(app, await login(app, subject));
  const [milk] = await sql<{ id: string }[]>`SELECT id FROM products WHERE code = 'milk'`;
  return { a, url, sql, milk: milk!.id };
}

/**
 * Another device's DELETE of the row, committed while the request reads it: products stay locked while `start` sets
 * the read going, the row is deleted once the read waits for them, and then the read goes on.
 */
async function deleteWhileTheReadWaits(
  t: Test,
  { url, sql }: { url: string; sql: postgres.Sql },
  table: string,
  id: string,
  start: () => Promise<unknown>,
) {
  const releaseProducts = await hold(url, (tx) => tx`LOCK TABLE products IN ACCESS EXCLUSIVE MODE`);
  await start();
  await until(
    () => sql`SELECT 1 FROM pg_locks WHERE relation = 'products'::regclass AND NOT granted`,
    'the read of the row waits for products',
  );
  t.equal((await sql`DELETE FROM ${sql(table)} WHERE id = ${id} RETURNING id`).length, 1, 'deleted meanwhile');
  await releaseProducts();
}

/**
 * A PATCH updates its row, then reads it back in a second statement. Another device's DELETE committed between the
 * two: the PATCH answered 200 with `{}`. The row's lock holds the update back until products are locked.
 */
for (const [kind, { table, path, create, patch }] of Object.entries(KINDS)) {
  t.test(`${kind}: a PATCH whose row another device deletes right after the update is 404`, async (t) => {
    const user = await setUp(t, `patch-gone-${kind}`);
    const created = await user.a({ method: 'POST', url: path, payload: create(user.milk) });
    t.equal(created.statusCode, 201);
    const id = created.json().id as string;

    const releaseRow = await hold(user.url, (tx) => tx`SELECT 1 FROM ${tx(table)} WHERE id = ${id} FOR UPDATE`);
    const patching = user.a({ method: 'PATCH', url: `${path}/${id}`, payload: patch });
    await until(
      () =>
        user.sql`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE ${`%UPDATE ${table}%`}`,
      'the update waits for the row',
    );
    await deleteWhileTheReadWaits(t, user, table, id, releaseRow);
    const res = await patching;
    t.equal(res.statusCode, 404, `answered ${res.statusCode} ${res.body.slice(0, 100)}`);
    t.equal(res.json().code, 'not_found');
  });
}

/**
 * A create sent again with its client id answers with the stored row, read after the id is found. Another device's
 * DELETE committed between the two: the retry answered 200 with `{}`.
 */
for (const [kind, { table, path, create }] of Object.entries(KINDS)) {
  t.test(`${kind}: a create retried while another device deletes its row is 409 id_conflict`, async (t) => {
    const user = await setUp(t, `retry-gone-${kind}`);
    const id = crypto.randomUUID();
    const payload = create(user.milk, id);
    t.equal((await user.a({ method: 'POST', url: path, payload })).statusCode, 201);

    let retrying!: ReturnType<typeof user.a>;
    await deleteWhileTheReadWaits(t, user, table, id, async () => {
      retrying = user.a({ method: 'POST', url: path, payload });
    });
    const res = await retrying;
    t.equal(res.statusCode, 409, `answered ${res.statusCode} ${res.body.slice(0, 100)}`);
    t.equal(res.json().code, 'id_conflict');
  });
}
