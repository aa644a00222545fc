import t from 'tap';
import { todayUtc, weekStart } from '@nutrition/domain';
import { recognitionRepository } from '@nutrition/db/repositories';
import { as, assertError, buildTestApp, login } from './helpers.ts';
import { fakeJpeg, imageJson } from './processes.ts';

t.test('PATCH /diary/{id}: portions, grams, moving an entry to another day, double taps, wrong fields', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const a = as(app, await login(app, 'patcher'));
  const [borscht] = await sql`SELECT id FROM dishes WHERE code = 'borscht'`;
  const [milk] = await sql`SELECT id FROM products WHERE code = 'milk'`;
  const dish = (
    await a({
      method: 'POST',
      url: '/diary',
      payload: { date: '2026-11-20', meal_type: 'lunch', dish_id: borscht!.id },
    })
  ).json();
  const product = (
    await a({
      method: 'POST',
      url: '/diary',
      payload: { date: '2026-11-20', meal_type: 'snack', product_id: milk!.id, portion_g: 100 },
    })
  ).json();
  const day = async (date: string) => (await a({ method: 'GET', url: `/diary?date=${date}` })).json();
  const before = await day('2026-11-20');
  t.equal(before.entries.length, 2);

  const doubled = await a({ method: 'PATCH', url: `/diary/${dish.id}`, payload: { portions: 2, meal_type: 'dinner' } });
  t.equal(doubled.statusCode, 200);
  t.match(doubled.json(), { id: dish.id, portions: 2, meal_type: 'dinner', date: '2026-11-20' });
  t.equal(doubled.json().calories, Math.round(dish.calories * 2 * 10) / 10, 'nutrition follows the portions');

  const grams = await a({ method: 'PATCH', url: `/diary/${product.id}`, payload: { portion_g: 250 } });
  t.equal(grams.json().portion_g, 250);
  t.equal(grams.json().calories, Math.round(product.calories * 2.5 * 10) / 10, 'a product entry follows its grams');

  // Moved to another day: the day read before (and kept in memory) no longer shows it, the new day does.
  const both = await Promise.all(
    [1, 2].map(() => a({ method: 'PATCH', url: `/diary/${dish.id}`, payload: { date: '2026-11-21' } })),
  );
  t.same(
    both.map((r) => r.statusCode),
    [200, 200],
    'the same change twice at once: both answered',
  );
  t.same(both[0]!.json(), both[1]!.json(), 'with the same entry');
  t.same(
    (await day('2026-11-20')).entries.map((e: { id: string }) => e.id),
    [product.id],
  );
  t.same(
    (await day('2026-11-21')).entries.map((e: { id: string }) => e.id),
    [dish.id],
  );
  t.equal((await day('2026-11-21')).totals.calories, doubled.json().calories, 'the new day counts it');

  const cleared = await a({ method: 'PATCH', url: `/diary/${dish.id}`, payload: { portion_g: 300 } });
  t.equal(cleared.json().portion_g, 300);
  t.equal(
    (await a({ method: 'PATCH', url: `/diary/${dish.id}`, payload: { portion_g: null } })).json().portion_g,
    null,
    'null clears the grams of a dish entry',
  );

  const stored = await sql`SELECT date, portions, portion_g FROM meal_diary ORDER BY id`;
  for (const [payload, path] of [
    [{}, '/body'],
    [{ portions: 0 }, '/body/portions'],
    [{ portions: 2, colour: 'red' }, '/body'],
    [{ date: '2026-02-30' }, '/body/date'],
    [{ date: '9999-01-01' }, '/body/date'],
    [{ meal_type: 'brunch' }, '/body/meal_type'],
  ] as const) {
    const body = assertError(
      t,
      await a({ method: 'PATCH', url: `/diary/${dish.id}`, payload }),
      400,
      'validation_failed',
    );
    t.match(body.details[0].path, new RegExp(`^${path}`), `${JSON.stringify(payload)} names ${path}`);
  }
  assertError(
    t,
    await a({ method: 'PATCH', url: `/diary/${product.id}`, payload: { portions: 2 } }),
    400,
    'validation_failed',
  );
  assertError(
    t,
    await a({ method: 'PATCH', url: `/diary/${product.id}`, payload: { portion_g: null } }),
    400,
    'validation_failed',
  );
  t.same(
    await sql`SELECT date, portions, portion_g FROM meal_diary ORDER BY id`,
    stored,
    'refused changes store nothing',
  );
  assertError(
    t,
    await a({ method: 'PATCH', url: '/diary/00000000-0000-4000-8000-000000000000', payload: { portions: 1 } }),
    404,
    'not_found',
  );
});

t.test('DELETE /menu/items/{id} removes one slot; a double tap is one 204 and one 404', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const a = as(app, await login(app, 'planner'));
  const week = weekStart(todayUtc());
  const [borscht] = await sql`SELECT r.id FROM recipes r JOIN dishes d ON d.id = r.dish_id WHERE d.code = 'borscht'`;
  await a({
    method: 'PUT',
    url: '/menu',
    payload: {
      week_start: week,
      items: [
        { date: week, meal_type: 'lunch', recipe_id: borscht!.id },
        { date: week, meal_type: 'dinner', recipe_id: borscht!.id },
      ],
    },
  });
  const items = async () =>
    (await a({ method: 'GET', url: `/menu?week_start=${week}` }))
      .json()
      .days.flatMap((d: { items: { id: string; meal_type: string }[] }) => d.items);
  const [lunch, dinner] = await items();
  const taps = await Promise.all([1, 2].map(() => a({ method: 'DELETE', url: `/menu/items/${lunch.id}` })));
  t.same(taps.map((r) => r.statusCode).sort(), [204, 404]);
  t.same(
    (await items()).map((i: { id: string }) => i.id),
    [dinner.id],
    'the other slot stays',
  );
});

t.test('bookmarks by recipe: whether a recipe is saved, and removing its bookmark', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const a = as(app, await login(app, 'saver'));
  const [borscht, other] = await sql`SELECT id FROM recipes ORDER BY id LIMIT 2`;
  const saved = (await a({ method: 'POST', url: '/saved-recipes', payload: { recipe_id: borscht!.id } })).json();
  await a({ method: 'POST', url: '/saved-recipes', payload: { recipe_id: other!.id } });
  const byRecipe = await a({ method: 'GET', url: `/saved-recipes?recipe_id=${borscht!.id}` });
  t.same(
    byRecipe.json().items.map((i: { id: string }) => i.id),
    [saved.id],
  );
  t.equal((await a({ method: 'DELETE', url: `/saved-recipes?recipe_id=${borscht!.id}` })).statusCode, 204);
  assertError(t, await a({ method: 'DELETE', url: `/saved-recipes?recipe_id=${borscht!.id}` }), 404, 'not_found');
  t.same((await a({ method: 'GET', url: `/saved-recipes?recipe_id=${borscht!.id}` })).json().items, []);
  t.equal((await a({ method: 'GET', url: '/saved-recipes' })).json().items.length, 1, 'the other bookmark stays');
  assertError(t, await a({ method: 'DELETE', url: '/saved-recipes?recipe_id=nope' }), 400, 'validation_failed');
  assertError(t, await a({ method: 'DELETE', url: '/saved-recipes' }), 400, 'validation_failed');
});

t.test('preferences.language: null clears the preference and the request language decides again', async (t) => {
  const { app } = await buildTestApp(t);
  const a = as(app, await login(app, 'polyglot'));
  const put = (preferences: unknown) => a({ method: 'PUT', url: '/profile', payload: { preferences } });
  t.equal((await put({ language: 'de', meals_per_day: 4 })).json().preferences.language, 'de');
  t.equal((await a({ method: 'GET', url: '/units' })).headers['content-language'], 'de');
  const cleared = (await put({ language: null })).json();
  t.equal(cleared.preferences.language, null);
  t.equal(cleared.preferences.meals_per_day, 4, 'other preferences stay');
  const units = await a({ method: 'GET', url: '/units', headers: { 'accept-language': 'fr' } });
  t.equal(units.headers['content-language'], 'fr', 'the request language applies again');
  assertError(t, await put({ language: 'xx' }), 400, 'validation_failed');
});

t.test("a dish entry in grams: portions from the recipe's serving weight, nutrition in proportion", async (t) => {
  const { app, sql } = await buildTestApp(t);
  const a = as(app, await login(app, 'weigher'));
  const [borscht] = await sql`
    SELECT d.id, r.serving_g::float8 AS serving_g FROM dishes d JOIN recipes r ON r.dish_id = d.id AND r.is_default
    WHERE d.code = 'borscht'`;
  t.ok(borscht!.serving_g > 100, `a serving of borscht weighs ${borscht!.serving_g} g`);
  const [unweighed] = await sql`SELECT count(*)::int AS n FROM recipes WHERE source = 'catalog' AND serving_g IS NULL`;
  t.equal(unweighed!.n, 0, 'every catalog recipe knows its serving weight');
  const log = async (payload: Record<string, unknown>) =>
    (
      await a({ method: 'POST', url: '/diary', payload: { date: '2026-11-20', meal_type: 'lunch', ...payload } })
    ).json();

  const small = await log({ dish_id: borscht!.id, portion_g: 100 });
  const large = await log({ dish_id: borscht!.id, portion_g: 1000 });
  t.equal(small.portions, Math.round((100 / borscht!.serving_g) * 1000) / 1000);
  t.ok(Math.abs(large.calories / small.calories - 10) < 0.2, `1000 g is ten times 100 g (${small.calories} kcal)`);
  const serving = await log({ dish_id: borscht!.id });
  const weighed = await log({ dish_id: borscht!.id, portion_g: borscht!.serving_g });
  t.equal(weighed.calories, serving.calories, 'one serving by weight is one portion');
  const both = await log({ dish_id: borscht!.id, portions: 2, portion_g: 100 });
  t.equal(both.portions, 2, 'portions given win over grams');

  const patched = await a({ method: 'PATCH', url: `/diary/${small.id}`, payload: { portion_g: 500 } });
  t.equal(patched.json().portions, Math.round((500 / borscht!.serving_g) * 1000) / 1000, 'new grams, new portions');
  t.ok(Math.abs(patched.json().calories / small.calories - 5) < 0.1);

  // A dish the model only estimated (no weighed ingredients): the grams are kept, one portion counted.
  const estimated = await log({ name: 'Grandma’s secret stew', portion_g: 400 });
  t.match(estimated, { portions: 1, portion_g: 400 });
});

t.test('the shopping list says what a shop sells, without tap water unless asked', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const a = as(app, await login(app, 'list-maker'));
  const week = weekStart(todayUtc());
  // Dishes whose recipes use water and counted units (bay leaves, bunches, cloves), at awkward servings.
  const dishes = await sql`
    SELECT DISTINCT r.dish_id, r.id AS recipe_id FROM recipes r
    JOIN recipe_ingredients i ON i.recipe_id = r.id JOIN products p ON p.id = i.product_id
    WHERE r.source = 'catalog' AND (p.code = 'water' OR i.unit_code IN ('leaf', 'bunch', 'clove'))
    ORDER BY r.id LIMIT 6`;
  const items = dishes.map((d, i) => ({
    date: week,
    meal_type: ['breakfast', 'lunch', 'dinner', 'snack', 'afternoon_snack', 'second_breakfast'][i],
    recipe_id: d.recipe_id,
    servings: 0.35 + i * 0.17,
  }));
  const put = await a({ method: 'PUT', url: '/menu', payload: { week_start: week, items } });
  t.equal(put.statusCode, 200, put.body.slice(0, 300));
  const list = (await a({ method: 'POST', url: '/shopping-list/generate', payload: { week_start: week } })).json();
  const lines = list.groups.flatMap((g: { items: unknown[] }) => g.items);
  const counted = lines.filter((l: { unit_code: string }) =>
    ['piece', 'bunch', 'leaf', 'clove', 'can', 'pack'].includes(l.unit_code),
  );
  t.ok(counted.length > 0, `${counted.length} counted lines`);
  t.same(
    counted.filter((l: { quantity: number }) => !Number.isInteger(l.quantity)),
    [],
    'no fraction of a counted unit',
  );
  const [water] = await sql`SELECT id FROM products WHERE code = 'water'`;
  t.notOk(
    lines.some((l: { product_id: string }) => l.product_id === water!.id),
    'no tap water',
  );
  const withTap = (
    await a({
      method: 'POST',
      url: '/shopping-list/generate',
      payload: { week_start: week, include_tap_items: true },
    })
  ).json();
  const tapLines = withTap.groups.flatMap((g: { items: unknown[] }) => g.items);
  t.ok(
    tapLines.some((l: { product_id: string }) => l.product_id === water!.id),
    'water when asked for',
  );
});

t.test('apply refuses quantities no purchase holds, item by item, and stores nothing', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const a = as(app, await login(app, 'receipt-reader'));
  const job = (
    await a({ method: 'POST', url: '/ai/recognize-receipt', payload: { images: [imageJson(fakeJpeg(11))] } })
  ).json();
  const jobs = recognitionRepository(app.sql);
  await jobs.start('product', job.job_id);
  const line = (name: string, quantity: number, unit_code: string) => ({
    name,
    product_id: null,
    quantity,
    unit_code,
    storage_days: 7,
    confidence: 0.8,
    price: 2,
  });
  await jobs.finish('product', job.job_id, {
    result: {
      items: [line('Milk', 1, 'l'), line('Canned pineapple', 800, 'can'), line('Mint', 600, 'bunch')],
    },
  });
  const url = `/ai/product-jobs/${job.job_id}/apply`;
  const refused = assertError(t, await a({ method: 'POST', url, payload: {} }), 422, 'implausible_quantity');
  t.same(
    refused.details.map((d: { path: string }) => d.path),
    ['/result/items/1/quantity', '/result/items/2/quantity'],
    'each implausible item named',
  );
  t.match(refused.details[0].message, /Canned pineapple: 800 can/);
  t.equal((await sql`SELECT count(*)::int AS n FROM user_products`)[0]!.n, 0, 'nothing stored');
  const applied = await a({ method: 'POST', url, payload: { item_indexes: [0] } });
  t.equal(applied.statusCode, 200);
  t.same(
    applied.json().items.map((i: { name: string }) => i.name),
    ['Milk'],
    'the plausible items can still be applied',
  );
});
