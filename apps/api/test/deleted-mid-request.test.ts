import t from 'tap';
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

/**
 * A PATCH updates its row, then reads it back in a second statement. Another device's DELETE committed between the
 * two: the PATCH answered 200 with `{}`. Locks make that order certain: the row's lock holds the update back, then a
 * lock on products holds the read back while the row is deleted.
 */
for (const kind of ['diary', 'pantry'] as const) {
  t.test(`${kind}: a PATCH whose row another device deletes right after the update is 404`, async (t) => {
    const { app, url, sql } = await buildTestApp(t);
    const a = as(app, await login(app, `patch-gone-${kind}`));
    const [milk] = await sql`SELECT id FROM products WHERE code = 'milk'`;
    const [table, path, create, patch] =
      kind === 'diary'
        ? ([
            'meal_diary',
            '/diary',
            { date: '2026-11-20', meal_type: 'lunch', product_id: milk!.id, portion_g: 100 },
            {
              portion_g: 200,
            },
          ] as const)
        : ([
            'user_products',
            '/user-products',
            { product_id: milk!.id, quantity: 1, unit_code: 'l' },
            {
              quantity: 2,
            },
          ] as const);
    const created = await a({ method: 'POST', url: path, payload: create });
    t.equal(created.statusCode, 201);
    const id = created.json().id as string;

    const releaseRow = await hold(url, (tx) => tx`SELECT 1 FROM ${tx(table)} WHERE id = ${id} FOR UPDATE`);
    const patching = a({ method: 'PATCH', url: `${path}/${id}`, payload: patch });
    await until(
      () => sql`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE ${`%UPDATE ${table}%`}`,
      'the update waits for the row',
    );
    const releaseProducts = await hold(url, (tx) => tx`LOCK TABLE products IN ACCESS EXCLUSIVE MODE`);
    await releaseRow();
    await until(
      () => sql`SELECT 1 FROM pg_locks WHERE relation = 'products'::regclass AND NOT granted`,
      'the read after the update waits for products',
    );
    t.equal((await sql`DELETE FROM ${sql(table)} WHERE id = ${id} RETURNING id`).length, 1, 'deleted meanwhile');
    await releaseProducts();
    const res = await patching;
    t.equal(res.statusCode, 404, `answered ${res.statusCode} ${res.body.slice(0, 100)}`);
    t.equal(res.json().code, 'not_found');
  });
}

/**
 * A create sent again with its client id answers with the stored row, read after the id is found. Another device's
 * DELETE committed between the two: the retry answered 200 with `{}`. A lock on products holds the read back.
 */
for (const kind of ['diary', 'pantry'] as const) {
  t.test(`${kind}: a create retried while another device deletes its row is 409 id_conflict`, async (t) => {
    const { app, url, sql } = await buildTestApp(t);
    const a = as(app, await login(app, `retry-gone-${kind}`));
    const [milk] = await sql`SELECT id FROM products WHERE code = 'milk'`;
    const id = crypto.randomUUID();
    const [table, path, create] =
      kind === 'diary'
        ? ([
            'meal_diary',
            '/diary',
            { id, date: '2026-11-20', meal_type: 'lunch', product_id: milk!.id, portion_g: 100 },
          ] as const)
        : (['user_products', '/user-products', { id, product_id: milk!.id, quantity: 1, unit_code: 'l' }] as const);
    t.equal((await a({ method: 'POST', url: path, payload: create })).statusCode, 201);

    const releaseProducts = await hold(url, (tx) => tx`LOCK TABLE products IN ACCESS EXCLUSIVE MODE`);
    const retrying = a({ method: 'POST', url: path, payload: create });
    await until(
      () => sql`SELECT 1 FROM pg_locks WHERE relation = 'products'::regclass AND NOT granted`,
      'the read of the stored row waits for products',
    );
    t.equal((await sql`DELETE FROM ${sql(table)} WHERE id = ${id} RETURNING id`).length, 1, 'deleted meanwhile');
    await releaseProducts();
    const res = await retrying;
    t.equal(res.statusCode, 409, `answered ${res.statusCode} ${res.body.slice(0, 100)}`);
    t.equal(res.json().code, 'id_conflict');
  });
}
