import t from 'tap';
import { addDays, todayUtc, weekStart } from '@nutrition/domain';
import { as, buildTestApp, login, type Session } from './helpers.ts';

/**
 * An account deleted while the same user writes: each request either happens before the other or after it. Before,
 * writes that locked a row of the user's (an existing shopping list, menu plan or job, a refresh token) and then the
 * user's row took their locks in the other order than the deletion, and PostgreSQL ended one of the two with
 * "deadlock detected": a 500.
 */
const CROWD = {
  RATE_LIMIT_PER_MINUTE: '1000000',
  RATE_LIMIT_MODEL_PER_MINUTE: '1000000',
  RATE_LIMIT_PUBLIC_PER_MINUTE: '1000000',
  DATABASE_POOL_SIZE: '20',
  LOG_LEVEL: 'silent',
};
type Answer = { statusCode: number; body: string };

/** Tallies answers by label and status, and keeps the 5xx ones. */
function tally() {
  const counts: Record<string, number> = {};
  const failed: string[] = [];
  return {
    counts,
    failed,
    add(label: string, res: Answer) {
      counts[`${label} ${res.statusCode}`] = (counts[`${label} ${res.statusCode}`] ?? 0) + 1;
      if (res.statusCode >= 500) failed.push(`${label}: ${res.statusCode} ${res.body.slice(0, 160)}`);
    },
  };
}

t.test('writes to an existing list, plan or job, and refreshes, racing DELETE /me: no 500, nothing left', async (t) => {
  const { app, sql } = await buildTestApp(t, CROWD);
  const week = weekStart(todayUtc());
  const [borscht] = await sql`SELECT id FROM dishes WHERE code = 'borscht'`;
  const [milk] = await sql`SELECT id FROM products WHERE code = 'milk'`;
  const receipt = {
    items: [
      {
        name: 'Milk',
        product_id: milk!.id,
        quantity: 2,
        unit_code: 'l',
        storage_days: 7,
        confidence: 0.9,
        price: null,
      },
    ],
    model: 'offline',
  };
  const writes: Record<string, (s: Session, jobId: string) => Promise<Answer>> = {
    'POST /shopping-list/items': (s) =>
      as(app, s)({ method: 'POST', url: '/shopping-list/items', payload: { name: 'Eggs', week_start: week } }),
    'POST /shopping-list/generate': (s) =>
      as(app, s)({ method: 'POST', url: '/shopping-list/generate', payload: { week_start: week } }),
    'PUT /menu': (s) =>
      as(
        app,
        s,
      )({
        method: 'PUT',
        url: '/menu',
        payload: { week_start: week, items: [{ date: addDays(week, 1), meal_type: 'dinner', dish_id: borscht!.id }] },
      }),
    'POST /ai/product-jobs/{id}/apply': (s, jobId) =>
      as(app, s)({ method: 'POST', url: `/ai/product-jobs/${jobId}/apply` }),
    'POST /auth/refresh': (s) =>
      app.inject({ method: 'POST', url: '/auth/refresh', payload: { refresh_token: s.refresh_token } }),
  };
  const seen = tally();
  const users: string[] = [];
  for (let round = 0; round < 6; round++) {
    await Promise.all(
      Array.from({ length: 15 }, async (_, i) => {
        const s = await login(app, `gone-${round}-${i}`);
        users.push(s.user.id);
        const a = as(app, s);
        // The week's list and plan exist already, and a receipt's job is done: writes lock those rows first.
        await a({
          method: 'PUT',
          url: '/menu',
          payload: { week_start: week, items: [{ date: week, meal_type: 'lunch', dish_id: borscht!.id }] },
        });
        await a({ method: 'POST', url: '/shopping-list/items', payload: { name: 'Bread', week_start: week } });
        const [job] = await sql`
          INSERT INTO product_recognition_jobs (user_id, status, job_type, result)
          VALUES (${s.user.id}, 'done', 'receipt', ${sql.json(receipt)}) RETURNING id`;
        const [label, write] = Object.entries(writes)[(round * 15 + i) % 5]!;
        const writing = write(s, job!.id);
        await new Promise((r) => setTimeout(r, i % 4));
        const [w, d] = await Promise.all([writing, a({ method: 'DELETE', url: '/me' })]);
        seen.add(label, w);
        seen.add('DELETE /me', d);
      }),
    );
  }
  t.comment(JSON.stringify(seen.counts));
  t.same(seen.failed, [], 'no answer was a 5xx');
  t.equal(seen.counts['DELETE /me 204'], 90, 'every deletion went through');
  const [left] = await sql`
    SELECT (SELECT count(*) FROM users WHERE id = ANY(${users}::uuid[]))::int AS users,
           (SELECT count(*) FROM shopping_lists WHERE user_id = ANY(${users}::uuid[]))::int AS lists,
           (SELECT count(*) FROM menu_plans WHERE user_id = ANY(${users}::uuid[]))::int AS plans,
           (SELECT count(*) FROM user_products WHERE user_id = ANY(${users}::uuid[]))::int AS pantry`;
  t.same(left, { users: 0, lists: 0, plans: 0, pantry: 0 }, 'nothing of theirs is left');
});

t.test('a list and a plan whose upsert is slow: DELETE /me waits for the write, or the write for it', async (t) => {
  const { app, sql } = await buildTestApp(t, CROWD);
  const week = weekStart(todayUtc());
  const [borscht] = await sql`SELECT id FROM dishes WHERE code = 'borscht'`;
  // Widens the window between the parent row's lock and the rows written after it, which reference the user.
  await sql.unsafe(`
    CREATE FUNCTION slow_parent() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_sleep(0.3); RETURN NEW; END $$;
    CREATE TRIGGER slow_list BEFORE UPDATE ON shopping_lists FOR EACH ROW EXECUTE FUNCTION slow_parent();
    CREATE TRIGGER slow_plan BEFORE UPDATE ON menu_plans FOR EACH ROW EXECUTE FUNCTION slow_parent();`);
  for (const [label, payload] of [
    ['POST /shopping-list/items', { name: 'Eggs', week_start: week }],
    ['POST /shopping-list/generate', { week_start: week }],
    ['PUT /menu', { week_start: week, items: [{ date: week, meal_type: 'dinner', dish_id: borscht!.id }] }],
  ] as const) {
    const a = as(app, await login(app, `slow-${label}`));
    await a({ method: 'PUT', url: '/menu', payload: { week_start: week, items: [] } });
    await a({ method: 'POST', url: '/shopping-list/items', payload: { name: 'Bread', week_start: week } });
    const [method, url] = label.split(' ') as ['POST' | 'PUT', string];
    const writing = a({ method, url, payload });
    await new Promise((r) => setTimeout(r, 100));
    const [w, d] = await Promise.all([writing, a({ method: 'DELETE', url: '/me' })]);
    t.equal(w.statusCode, method === 'PUT' ? 200 : label.endsWith('items') ? 201 : 200, `${label}: done first`);
    t.equal(d.statusCode, 204, `${label}: then the account is deleted`);
  }
});
