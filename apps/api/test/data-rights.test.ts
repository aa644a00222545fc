import t from 'tap';
import type postgres from 'postgres';
import { as, assertError, buildTestApp, login, type Session } from './helpers.ts';
import { fakeJpeg, imageJson } from './processes.ts';

/** Gives a user one row of every kind the service keeps: the diary (with a dish made for them), pantry, bookmark,
 * menu, shopping list, a recognition job with its photo, recommendations. */
async function fill(app: Parameters<typeof as>[0], sql: postgres.Sql, session: Session) {
  const call = as(app, session);
  const [borscht] = await sql`SELECT id FROM dishes WHERE code = 'borscht'`;
  const [recipe] = await sql`SELECT id FROM recipes WHERE dish_id = ${borscht!.id} AND is_default`;
  const [milk] = await sql`SELECT id FROM products WHERE code = 'milk'`;
  const requests = [
    { method: 'PUT', url: '/profile', payload: { weight_kg: 70, height_cm: 175, sex: 'female', goal: 'maintain' } },
    { method: 'POST', url: '/diary', payload: { date: '2026-11-25', meal_type: 'lunch', dish_id: borscht!.id } },
    {
      method: 'POST',
      url: '/diary',
      payload: { date: '2026-11-25', meal_type: 'dinner', name: `Granny's pie ${session.user.id}` },
    },
    { method: 'POST', url: '/user-products', payload: { product_id: milk!.id, quantity: 1, unit_code: 'l' } },
    { method: 'POST', url: '/saved-recipes', payload: { recipe_id: recipe!.id } },
    {
      method: 'PUT',
      url: '/menu',
      payload: { week_start: '2026-11-23', items: [{ date: '2026-11-23', meal_type: 'lunch', dish_id: borscht!.id }] },
    },
    { method: 'POST', url: '/shopping-list/generate', payload: { week_start: '2026-11-23' } },
    { method: 'POST', url: '/shopping-list/items', payload: { name: 'Candles', week_start: '2026-11-23' } },
    { method: 'POST', url: '/ai/recognize-dish', payload: { image: imageJson(fakeJpeg(7)) } },
    { method: 'GET', url: '/recommendations' },
  ] as const;
  for (const request of requests) {
    const res = await call(request);
    if (res.statusCode >= 300) throw new Error(`${request.method} ${request.url}: ${res.statusCode} ${res.body}`);
  }
}

t.test("GET /me/export: one readable document with every kind of row the user has, and nobody else's", async (t) => {
  const { app, sql } = await buildTestApp(t);
  const session = await login(app, 'exporter');
  const other = await login(app, 'neighbour');
  await fill(app, sql, session);
  await fill(app, sql, other);

  const res = await as(app, session)({ method: 'GET', url: '/me/export' });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /application\/json/);
  t.match(res.headers['content-disposition'], /attachment/);
  t.match(res.body, /\n {2}"diary_entries": \[\n/, 'indented for a person');
  const doc = res.json();
  t.match(doc.profile, { id: session.user.id, weight_kg: 70 });
  for (const section of [
    'sessions',
    'diary_entries',
    'pantry_items',
    'saved_recipes',
    'menus',
    'shopping_lists',
    'own_dishes',
    'own_recipes',
    'dish_jobs',
    'images',
    'recommendations',
  ])
    t.ok(doc[section].length > 0, `${section} holds the user's rows`);
  t.equal(doc.diary_entries.length, 2);
  t.match(doc.own_dishes[0], { id: String, name: /Granny's pie/, recipes: Array });
  t.match(doc.dish_jobs[0], { id: String, status: String });
  t.match(doc.images[0], { id: String, job_id: doc.dish_jobs[0].id, content_type: 'image/jpeg', byte_size: Number });
  t.equal(doc.menus[0].days[0].items.length, 1);
  t.ok(doc.shopping_lists[0].groups.length > 0);
  const text = JSON.stringify(doc);
  t.notMatch(text, /secret|refresh_token|access_token|data_base64/, 'no token material or photo bytes');
  t.notOk(text.includes(other.user.id), "nothing of the other user's");
  assertError(t, await app.inject({ method: 'GET', url: '/me/export' }), 401);
});

t.test(
  'DELETE /me: every table that references the user is emptied of them; catalog and others untouched',
  async (t) => {
    const { app, sql } = await buildTestApp(t);
    const session = await login(app, 'leaver');
    const second = await as(app, await login(app, 'leaver'))({ method: 'GET', url: '/profile' }); // a second device
    t.equal(second.statusCode, 200);
    const other = await login(app, 'stayer');
    await fill(app, sql, session);
    await fill(app, sql, other);
    const userId = session.user.id;

    // Every foreign key to users, wherever it is: a table added later is checked without changing this test.
    const references = await sql<{ table: string; column: string }[]>`
    SELECT c.conrelid::regclass::text AS table, a.attname AS column
    FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY(c.conkey)
    WHERE c.contype = 'f' AND c.confrelid = 'users'::regclass`;
    t.ok(references.length >= 12, `${references.length} user references found`);
    const count = async (id: string) => {
      const counts: Record<string, number> = {};
      for (const { table, column } of references) {
        const [row] = await sql`SELECT count(*)::int AS n FROM ${sql(table)} WHERE ${sql(column)} = ${id}`;
        counts[`${table}.${column}`] = row!.n;
      }
      return counts;
    };
    const before = await count(userId);
    for (const table of ['meal_diary', 'user_products', 'sessions', 'dishes', 'recipes', 'dish_recognition_jobs'])
      t.ok(
        Object.entries(before).some(([k, n]) => k.startsWith(`${table}.`) && n > 0),
        `the user has ${table} rows`,
      );
    const othersBefore = await count(other.user.id);
    const catalog = async () =>
      (
        await sql`SELECT (SELECT count(*) FROM dishes WHERE created_by IS NULL)::int AS dishes,
                       (SELECT count(*) FROM recipes WHERE created_by IS NULL)::int AS recipes,
                       (SELECT count(*) FROM products)::int AS products,
                       (SELECT count(*) FROM product_aliases)::int AS aliases`
      )[0];
    const catalogBefore = await catalog();
    const jobIds = (await sql`SELECT id FROM dish_recognition_jobs WHERE user_id = ${userId}`).map((r) => r.id);
    const sessionIds = (await sql`SELECT id FROM sessions WHERE user_id = ${userId}`).map((r) => r.id);
    t.equal(sessionIds.length, 2);

    const gone = await as(app, session)({ method: 'DELETE', url: '/me' });
    t.equal(gone.statusCode, 204);

    t.same(
      Object.entries(await count(userId)).filter(([, n]) => n > 0),
      [],
      'no row references the user',
    );
    t.equal((await sql`SELECT count(*)::int AS n FROM users WHERE id = ${userId}`)[0]!.n, 0);
    t.equal(
      (await sql`SELECT count(*)::int AS n FROM job_images WHERE dish_job_id = ANY(${jobIds}::uuid[])`)[0]!.n,
      0,
      'photos',
    );
    t.equal(
      (await sql`SELECT count(*)::int AS n FROM refresh_tokens WHERE session_id = ANY(${sessionIds}::uuid[])`)[0]!.n,
      0,
      'refresh tokens',
    );
    t.same(await count(other.user.id), othersBefore, "the other user's rows are all there");
    t.same(await catalog(), catalogBefore, 'the catalog is untouched');

    // Both devices are signed out at once.
    assertError(t, await as(app, session)({ method: 'GET', url: '/profile' }), 401);
    assertError(
      t,
      await app.inject({ method: 'POST', url: '/auth/refresh', payload: { refresh_token: session.refresh_token } }),
      401,
    );
    // The same identity signs in as somebody new, with nothing.
    const again = await login(app, 'leaver');
    t.not(again.user.id, userId);
    t.equal(again.user.is_new, true);
    const fresh = as(app, again);
    t.same((await fresh({ method: 'GET', url: '/diary?date=2026-11-25' })).json().entries, []);
    t.same((await fresh({ method: 'GET', url: '/user-products' })).json().items, []);
    t.equal((await as(app, other)({ method: 'GET', url: '/diary?date=2026-11-25' })).json().entries.length, 2);
  },
);

/**
 * Holds `table` in another transaction until `during` is done, with an export that has reached a section reading it
 * waiting there: what `during` commits lands between the export's sections.
 */
async function exportPausedAt(
  sql: postgres.Sql,
  table: string,
  exporting: () => Promise<unknown>,
  during: () => Promise<void>,
) {
  const blocker = await sql.reserve();
  try {
    await blocker`BEGIN`;
    await blocker.unsafe(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    const result = exporting();
    for (let i = 0; i < 250; i++) {
      const [w] = await sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE wait_event_type = 'Lock' AND query ILIKE ${`%${table}%`} AND pid <> pg_backend_pid()`;
      if (w!.n > 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await during();
    await blocker`COMMIT`;
    return await result;
  } finally {
    blocker.release();
  }
}

// Each section was its own statement: a write committed during an export showed in a later section and not in an
// earlier one (a dish made by a diary entry without the entry), and an export racing the account's deletion answered
// 200 after it with the diary but not the pantry. Now every section reads one snapshot.
t.test('GET /me/export reads one snapshot: racing writes and the deletion show in every section or none', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const session = await login(app, 'export-snapshot');
  const call = as(app, session);
  const [milk] = await sql`SELECT id FROM products WHERE code = 'milk'`;
  const post = async (url: string, payload: object) =>
    t.equal((await call({ method: 'POST', url, payload })).statusCode, 201);
  await post('/diary', { date: '2026-11-25', meal_type: 'lunch', product_id: milk!.id, portion_g: 100 });
  await post('/user-products', { product_id: milk!.id, quantity: 1, unit_code: 'l' });

  let logged: { dish_id: string } | undefined;
  const during = await exportPausedAt(
    sql,
    'menu_plans',
    () => call({ method: 'GET', url: '/me/export' }),
    async () => {
      // A new name: one transaction makes the dish, its recipe and the entry.
      const res = await call({
        method: 'POST',
        url: '/diary',
        payload: { date: '2026-11-25', meal_type: 'dinner', name: 'Pie of the night' },
      });
      logged = res.json();
    },
  );
  const doc = (during as { json: () => Record<string, { id: string; dish_id?: string }[]> }).json();
  const entry = doc.diary_entries!.some((e) => e.dish_id === logged!.dish_id);
  const dish = doc.own_dishes!.some((d) => d.id === logged!.dish_id);
  t.same({ entry, dish }, { entry: false, dish: false }, 'the write after the export began is in no section');

  const second = as(app, await login(app, 'export-snapshot'));
  const racing = (await exportPausedAt(
    sql,
    'unit_translations',
    () => call({ method: 'GET', url: '/me/export' }),
    async () => {
      t.equal((await second({ method: 'DELETE', url: '/me' })).statusCode, 204, 'deleted on another device');
    },
  )) as { statusCode: number; json: () => Record<string, unknown[]> };
  t.equal(racing.statusCode, 200, 'the export began first: the account as it was');
  t.same(
    [racing.json().diary_entries!.length, racing.json().pantry_items!.length],
    [2, 1],
    'with its diary and its pantry, not half of it',
  );
});
