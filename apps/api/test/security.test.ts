import t from 'tap';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { InjectOptions } from 'fastify';
import { addDays, todayUtc, weekStart } from '@nutrition/domain';
import { as, assertError, buildTestApp, inlinedDocument, login, logCapture, type Session } from './helpers.ts';
import { fakeJpeg, imageJson } from './processes.ts';

t.test('Idempotency-Key: a retried creation makes one row; another body with the same key is 409', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const a = as(app, await login(app, 'retrier'));
  const [milk] = await sql`SELECT id FROM products WHERE code = 'milk'`;
  const cases = [
    {
      url: '/diary',
      table: 'meal_diary',
      payload: { date: '2026-11-20', meal_type: 'lunch', product_id: milk!.id, portion_g: 200 },
      other: { date: '2026-11-20', meal_type: 'lunch', product_id: milk!.id, portion_g: 300 },
      status: 201,
      idKey: 'id',
    },
    {
      url: '/user-products',
      table: 'user_products',
      payload: { product_id: milk!.id, quantity: 1, unit_code: 'l' },
      other: { product_id: milk!.id, quantity: 2, unit_code: 'l' },
      status: 201,
      idKey: 'id',
    },
    {
      url: '/ai/recognize-dish',
      table: 'dish_recognition_jobs',
      payload: { image: imageJson(fakeJpeg(1)) },
      other: { image: imageJson(fakeJpeg(2)) },
      status: 202,
      idKey: 'job_id',
    },
    {
      url: '/ai/recognize-products',
      table: 'product_recognition_jobs',
      payload: { images: [imageJson(fakeJpeg(3))] },
      other: { images: [imageJson(fakeJpeg(4))] },
      status: 202,
      idKey: 'job_id',
    },
  ];
  for (const c of cases) {
    const count = async () => (await sql`SELECT count(*)::int AS n FROM ${sql(c.table)}`)[0]!.n as number;
    const before = await count();
    const headers = { 'idempotency-key': `key-${c.table}` };
    const replies = await Promise.all(
      [1, 2, 3].map(() => a({ method: 'POST', url: c.url, payload: c.payload, headers })),
    );
    t.same(
      replies.map((r) => r.statusCode),
      [c.status, c.status, c.status],
      `${c.url}: every retry answers ${c.status}`,
    );
    t.equal(new Set(replies.map((r) => r.json()[c.idKey])).size, 1, `${c.url}: the same response`);
    t.equal(await count(), before + 1, `${c.url}: one row`);
    assertError(t, await a({ method: 'POST', url: c.url, payload: c.other, headers }), 409, 'idempotency_key_reused');
    t.equal(
      (await a({ method: 'POST', url: c.url, payload: c.other, headers: { 'idempotency-key': `fresh-${c.table}` } }))
        .statusCode,
      c.status,
    );
    t.equal(await count(), before + 2);
  }
  const bad = await a({
    method: 'POST',
    url: '/diary',
    payload: { date: '2026-02-30', meal_type: 'lunch', product_id: milk!.id, portion_g: 1 },
    headers: { 'idempotency-key': 'k1' },
  });
  assertError(t, bad, 400);
  const good = await a({
    method: 'POST',
    url: '/diary',
    payload: { date: '2026-02-28', meal_type: 'lunch', product_id: milk!.id, portion_g: 1 },
    headers: { 'idempotency-key': 'k2' },
  });
  t.equal(good.statusCode, 201, 'a failed attempt does not hold its key');
});

/**
 * Every operation of the OpenAPI document is classified here; a new route that is not fails the test. For each route
 * that takes an id of user data, a second user gets 404; for each list of user data, the second user's answer holds
 * none of the first user's ids. Dishes and recipes made for a user (stubs from diary names, recommendations, menus)
 * are that user's data too, in the path and in request bodies.
 */
const CATALOG = ['/products/{id}', '/products/barcode/{barcode}'];
const OWNED: Record<string, string> = {
  'GET /dishes/{id}': 'stubDish',
  'GET /recipes/{id}': 'stubRecipe',
  'PATCH /diary/{id}': 'entry',
  'DELETE /diary/{id}': 'entry',
  'DELETE /menu/items/{id}': 'menuItem',
  'GET /user-products/{id}': 'pantry',
  'PATCH /user-products/{id}': 'pantry',
  'DELETE /user-products/{id}': 'pantry',
  'GET /saved-recipes/{id}': 'bookmark',
  'DELETE /saved-recipes/{id}': 'bookmark',
  'PATCH /shopping-list/items/{id}': 'shoppingItem',
  'DELETE /shopping-list/items/{id}': 'shoppingItem',
  'GET /ai/jobs/{id}': 'dishJob',
  'GET /ai/jobs/{id}/stream': 'dishJob',
  'GET /ai/product-jobs/{id}': 'productJob',
  'GET /ai/product-jobs/{id}/stream': 'productJob',
  'POST /ai/product-jobs/{id}/apply': 'productJob',
};
const LISTS = [
  'GET /diary',
  'GET /diary/recent',
  'GET /user-products',
  'GET /saved-recipes',
  'GET /menu',
  'GET /shopping-list',
  'GET /ai/jobs',
  'GET /ai/product-jobs',
  'GET /ai/product-jobs/history',
  'GET /profile',
  'GET /recommendations',
  'GET /sync',
  'GET /me/export',
];
/**
 * Every id field of every request body, found in the OpenAPI document: each is tried with another user's row below,
 * or says why it has no owner. A new body field ending in `_id` that is in neither list fails the test.
 */
const BODY_IDS: Record<string, (ids: Record<string, string>) => { payload: Record<string, unknown> }> = {
  'POST /diary dish_id': (ids) => ({ payload: { date: '2026-11-20', meal_type: 'lunch', dish_id: ids.stubDish } }),
  'POST /diary job_id': (ids) => ({
    payload: { date: '2026-11-20', meal_type: 'lunch', dish_id: ids.catalogDish, job_id: ids.dishJob },
  }),
  'POST /saved-recipes recipe_id': (ids) => ({ payload: { recipe_id: ids.stubRecipe } }),
  'PUT /menu items.dish_id': (ids) => ({
    payload: { week_start: ids.week, items: [{ date: ids.week, meal_type: 'dinner', dish_id: ids.menuDish }] },
  }),
  'PUT /menu items.recipe_id': (ids) => ({
    payload: { week_start: ids.week, items: [{ date: ids.week, meal_type: 'dinner', recipe_id: ids.aiRecipe }] },
  }),
};
/** Products have no maker: the catalog's and imported ones are everyone's. */
const SHARED_BODY_IDS = [
  'POST /diary product_id',
  'POST /user-products product_id',
  'POST /shopping-list/items product_id',
];

/** `METHOD /path field` for every property ending in `_id` of every JSON request body (arrays as `items.`). */
function bodyIdFields(doc: { paths: Record<string, Record<string, any>> }): string[] {
  const found: string[] = [];
  const walk = (node: any, path: string, op: string) => {
    if (!node || typeof node !== 'object') return;
    for (const [name, child] of Object.entries<any>(node.properties ?? {})) {
      if (name.endsWith('_id')) found.push(`${op} ${path}${name}`);
      walk(child, `${path}${name}.`, op);
    }
    for (const key of ['items', 'anyOf', 'oneOf', 'allOf'])
      for (const child of [node[key]].flat()) walk(child, path, op);
  };
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods))
      walk(op.requestBody?.content?.['application/json']?.schema, '', `${method.toUpperCase()} ${path}`);
  }
  return found;
}
const OTHER = [
  'GET /health',
  'GET /health/live',
  'GET /ready',
  'POST /auth/login',
  'POST /auth/refresh',
  'POST /auth/logout',
  'PUT /profile',
  'GET /languages',
  'GET /units',
  'GET /cuisines',
  'GET /tags',
  'GET /dish-categories',
  'GET /product-categories',
  'GET /dishes',
  'GET /dishes/search',
  'GET /products/search',
  'GET /ingredients/search',
  'POST /diary',
  'POST /user-products',
  'POST /saved-recipes',
  'PUT /menu',
  'DELETE /menu',
  'DELETE /saved-recipes',
  'POST /ai/generate-menu',
  'POST /shopping-list/generate',
  'POST /shopping-list/items',
  'POST /ai/recognize-dish',
  'POST /ai/recognize-receipt',
  'POST /ai/recognize-products',
  // The caller's own feed stream and account: sync.test.ts and data-rights.test.ts show another user's stays apart.
  'GET /sync/stream',
  'DELETE /me',
];

t.test("authorization matrix: another user's rows are 404 or absent on every route", async (t) => {
  const { app, sql } = await buildTestApp(t);
  const alice: Session = await login(app, 'alice');
  const a = as(app, alice);
  const b = as(app, await login(app, 'mallory'));
  const week = weekStart(todayUtc());
  const [borscht] =
    await sql`SELECT d.id AS dish_id, r.id AS recipe_id FROM dishes d JOIN recipes r ON r.dish_id = d.id WHERE d.code =
      'borscht'`;
  const [milk] = await sql`SELECT id FROM products WHERE code = 'milk'`;
  const ids: Record<string, string> = {
    entry: (
      await a({
        method: 'POST',
        url: '/diary',
        payload: { date: todayUtc(), meal_type: 'lunch', dish_id: borscht!.dish_id },
      })
    ).json().id,
    pantry: (
      await a({ method: 'POST', url: '/user-products', payload: { product_id: milk!.id, quantity: 1, unit_code: 'l' } })
    ).json().id,
    bookmark: (await a({ method: 'POST', url: '/saved-recipes', payload: { recipe_id: borscht!.recipe_id } })).json()
      .id,
    dishJob: (await a({ method: 'POST', url: '/ai/recognize-dish', payload: { image: imageJson(fakeJpeg(1)) } })).json()
      .job_id,
    productJob: (
      await a({ method: 'POST', url: '/ai/recognize-receipt', payload: { images: [imageJson(fakeJpeg(2))] } })
    ).json().job_id,
  };
  await a({
    method: 'PUT',
    url: '/menu',
    payload: { week_start: week, items: [{ date: week, meal_type: 'lunch', recipe_id: borscht!.recipe_id }] },
  });
  ids.shoppingItem = (
    await a({ method: 'POST', url: '/shopping-list/items', payload: { week_start: week, name: 'Salt' } })
  ).json().id;
  const menu = (await a({ method: 'GET', url: `/menu?week_start=${week}` })).json();
  ids.menu = menu.id;
  ids.menuItem = menu.days.flatMap((d: { items: { id: string }[] }) => d.items)[0].id;
  await sql`UPDATE product_recognition_jobs SET status = 'done', result = '{"items":[],"model":"offline"}' WHERE id =
    ${ids.productJob!}`;
  const stub = (
    await a({
      method: 'POST',
      url: '/diary',
      payload: { date: todayUtc(), meal_type: 'snack', name: "grandma's secret cookies" },
    })
  ).json();
  ids.stubDish = stub.dish_id;
  ids.stubRecipe = stub.recipe_id;
  ids.aiRecipe = (await a({ method: 'GET', url: '/recommendations?limit=1' })).json().items[0].id;
  const nextWeek = addDays(week, 7);
  const generated = (
    await a({ method: 'POST', url: '/ai/generate-menu', payload: { dates: [nextWeek], meal_types: ['lunch'] } })
  ).json();
  ids.menuDish = generated.plans[0].days[0].items[0].dish_id;
  const secrets = Object.values(ids);
  ids.catalogDish = borscht!.dish_id;
  ids.week = week;

  const doc = await inlinedDocument(app);
  const operations = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
    Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
  );
  const classified = new Set([...Object.keys(OWNED), ...LISTS, ...OTHER, ...CATALOG.map((p) => `GET ${p}`)]);
  for (const op of operations) t.ok(classified.has(op), `${op} is classified for the authorization matrix`);

  t.same(
    bodyIdFields(doc).sort(),
    [...Object.keys(BODY_IDS), ...SHARED_BODY_IDS].sort(),
    'every id field of a request body is tried or shared',
  );
  for (const [field, request] of Object.entries(BODY_IDS)) {
    const [method, path] = field.split(' ') as [string, string];
    const res = await b({ method: method as InjectOptions['method'], url: path, ...request(ids) });
    assertError(t, res, 404, 'not_found');
  }
  const search = await b({ method: 'GET', url: `/dishes/search?q=${encodeURIComponent("grandma's secret cookies")}` });
  t.notOk(search.body.includes(ids.stubDish!), "dish search never finds another user's dish");
  const own = await a({ method: 'GET', url: `/dishes/search?q=${encodeURIComponent('grandma secret cookies')}` });
  t.equal(own.json().items[0]?.id, ids.stubDish, "but finds the caller's own");

  for (const [op, kind] of Object.entries(OWNED)) {
    const [method, path] = op.split(' ') as [string, string];
    const payload =
      method === 'PATCH'
        ? kind === 'pantry'
          ? { quantity: 5 }
          : kind === 'entry'
            ? { portions: 3 }
            : { checked: true }
        : method === 'POST'
          ? {}
          : undefined;
    const res = await b({
      method: method as InjectOptions['method'],
      url: path.replace('{id}', ids[kind]!),
      ...(payload ? { payload } : {}),
    });
    assertError(t, res, 404, 'not_found');
  }
  // Bookmarks addressed by recipe: another user's query neither finds nor removes alice's.
  assertError(
    t,
    await b({ method: 'DELETE', url: `/saved-recipes?recipe_id=${borscht!.recipe_id}` }),
    404,
    'not_found',
  );
  const bySaved = await b({ method: 'GET', url: `/saved-recipes?recipe_id=${borscht!.recipe_id}` });
  t.same(bySaved.json().items, [], "another user's bookmark of the recipe is not found by recipe");
  const kept = await a({ method: 'GET', url: `/saved-recipes?recipe_id=${borscht!.recipe_id}` });
  t.equal(kept.json().items[0]?.id, ids.bookmark, "alice's bookmark is found by its recipe and kept");
  const query: Record<string, string> = {
    'GET /diary': `?date=${todayUtc()}`,
    'GET /menu': `?week_start=${week}`,
    'GET /shopping-list': `?week_start=${week}`,
    'GET /recommendations': '?limit=1',
  };
  for (const op of LISTS) {
    const path = op.split(' ')[1]!;
    const res = await b({ method: 'GET', url: `${path}${query[op] ?? ''}` });
    t.equal(res.statusCode, 200, op);
    for (const secret of secrets) t.notOk(res.body.includes(secret), `${op} shows none of alice's rows`);
  }
  for (const [url, kind] of [
    ['/dishes/{id}', 'stubDish'],
    ['/recipes/{id}', 'stubRecipe'],
    ['/recipes/{id}', 'aiRecipe'],
  ] as const) {
    t.equal(
      (await a({ method: 'GET', url: url.replace('{id}', ids[kind]!) })).statusCode,
      200,
      `alice reads her own ${kind}`,
    );
  }
  // Alice's rows are untouched by every attempt.
  t.equal((await a({ method: 'GET', url: `/saved-recipes/${ids.bookmark}` })).statusCode, 200);
  t.equal((await a({ method: 'GET', url: `/ai/jobs/${ids.dishJob}` })).statusCode, 200);
  t.match((await a({ method: 'GET', url: '/user-products' })).json().items, [{ id: ids.pantry, quantity: 1 }]);
  t.equal((await a({ method: 'GET', url: `/menu?week_start=${week}` })).json().id, ids.menu);
});

t.test('tokens and secrets never reach the logs', async (t) => {
  const { lines, stream } = logCapture();
  const { app } = await buildTestApp(
    t,
    {},
    {
      logger: {
        level: 'trace',
        stream,
        redact: {
          paths: ['req.headers.authorization', '*.refresh_token', '*.access_token', '*.id_token'],
          censor: '[redacted]',
        },
      },
    },
  );
  const session = await login(app, 'quiet');
  const refreshed = (
    await app.inject({ method: 'POST', url: '/auth/refresh', payload: { refresh_token: session.refresh_token } })
  ).json();
  await as(
    app,
    refreshed,
  )({ method: 'POST', url: '/auth/logout', payload: { refresh_token: refreshed.refresh_token } });
  const log = lines.join('');
  t.ok(log.length > 0, 'requests were logged');
  for (const secret of [session.access_token, session.refresh_token, refreshed.access_token, refreshed.refresh_token]) {
    t.notOk(log.includes(secret), 'no token in the logs');
  }
});

t.test('production refuses the development JWT secret and the noop verifier', async (t) => {
  const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
  const { NODE_OPTIONS: _, ...env } = process.env;
  const run = spawnSync('env', ['-u', 'NODE_OPTIONS', process.execPath, main], {
    env: { ...env, NODE_ENV: 'production', DATABASE_URL: 'postgres://unused@127.0.0.1:1/x' },
    encoding: 'utf8',
  });
  t.equal(run.status, 1);
  t.match(run.stderr, /JWT_SECRET: set a real secret in production/);
  t.match(run.stderr, /AUTH_VERIFIER: noop is for local development only/);
  t.match(run.stderr, /OPENAI_API_KEY: required in production/);
});

t.test('workers: loopback outside production, and no silent offline model in production', async (t) => {
  const { workerSettings } = await import('@nutrition/worker');
  const base = { DATABASE_URL: 'postgres://x/y' };
  t.equal(workerSettings(base).HOST, '127.0.0.1');
  t.equal(workerSettings({ ...base, HOST: '0.0.0.0' }).HOST, '0.0.0.0');
  t.equal(workerSettings({ ...base, NODE_ENV: 'production', OPENAI_API_KEY: 'sk-test' }).HOST, '0.0.0.0');
  t.throws(() => workerSettings({ ...base, NODE_ENV: 'production' }), /OPENAI_API_KEY: required in production/);
  t.equal(workerSettings({ ...base, NODE_ENV: 'production', MODEL_PROVIDER: 'offline' }).HOST, '0.0.0.0');
});
