import t from 'tap';
import postgres from 'postgres';
import { as, assertError, buildTestApp, login } from './helpers.ts';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';

const RFC3339_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

t.test('personal data', async (t) => {
  const { app, sql, url, adminUrl } = await buildTestApp(t);
  const alice = await login(app, 'alice');
  const bob = await login(app, 'bob');
  const a = as(app, alice);
  const b = as(app, bob);
  const [borscht] = await sql`
    SELECT d.id AS dish_id, r.id AS recipe_id, r.calories_per_serving::float8 AS kcal, r.protein_per_serving::float8 AS
      protein,
           r.fat_per_serving::float8 AS fat, r.carbs_per_serving::float8 AS carbs
    FROM dishes d JOIN recipes r ON r.dish_id = d.id AND r.is_default WHERE d.code = 'borscht'`;
  const [milk] = await sql`
    SELECT id, calories_per_100g::float8 AS kcal, protein_per_100g::float8 AS protein, storage_days
    FROM products WHERE code = 'milk'`;
  const round1 = (x: number) => Math.round(x * 10) / 10;
  const count = async (table: string) => (await sql`SELECT count(*)::int AS n FROM ${sql(table)}`)[0]!.n as number;

  t.test('diary: dishes by portions, products by grams, totals over both', async (t) => {
    const dish = await a({
      method: 'POST',
      url: '/diary',
      payload: { date: '2026-11-20', meal_type: 'lunch', dish_id: borscht!.dish_id, portions: 1.5 },
    });
    t.equal(dish.statusCode, 201);
    t.match(dish.json(), {
      dish_id: borscht!.dish_id,
      recipe_id: borscht!.recipe_id,
      product_id: null,
      portions: 1.5,
      name: 'Borscht',
      calories: round1(borscht!.kcal * 1.5),
      protein_g: round1(borscht!.protein * 1.5),
    });
    const product = await a({
      method: 'POST',
      url: '/diary',
      payload: { date: '2026-11-20', meal_type: 'breakfast', product_id: milk!.id, portion_g: 250 },
    });
    t.equal(product.statusCode, 201);
    t.match(product.json(), {
      product_id: milk!.id,
      dish_id: null,
      portion_g: 250,
      calories: round1(milk!.kcal * 2.5),
    });

    await a({
      method: 'PUT',
      url: '/profile',
      payload: {
        sex: 'female',
        weight_kg: 60,
        height_cm: 165,
        date_of_birth: '1990-01-01',
        activity_level: 'light',
        goal: 'maintain',
      },
    });
    const day = (
      await a({ method: 'GET', url: '/diary?date=2026-11-20', headers: { 'accept-language': 'ru' } })
    ).json();
    t.equal(day.entries.length, 2);
    t.same(
      day.entries.map((e: { meal_type: string }) => e.meal_type),
      ['breakfast', 'lunch'],
      'in meal-type order',
    );
    t.equal(day.entries[1].name, 'Борщ', 'names in the request language');
    t.equal(day.totals.calories, round1(round1(borscht!.kcal * 1.5) + round1(milk!.kcal * 2.5)));
    t.type(day.calorie_target, 'number');
    t.same((await a({ method: 'GET', url: '/diary?date=2026-11-21' })).json().entries, []);
  });

  t.test('diary: creating by name finds the dish in any language, or creates one stub once', async (t) => {
    const ru = await a({
      method: 'POST',
      url: '/diary',
      payload: { date: '2026-11-21', meal_type: 'dinner', name: 'Борщ' },
    });
    t.equal(ru.json().dish_id, borscht!.dish_id, 'a Russian name finds the catalog dish');
    const close = await a({
      method: 'POST',
      url: '/diary',
      payload: { date: '2026-11-21', meal_type: 'dinner', name: 'borscht ' },
    });
    t.equal(close.json().dish_id, borscht!.dish_id);

    const dishesBefore = await count('dishes');
    const first = await a({
      method: 'POST',
      url: '/diary',
      payload: { date: '2026-11-21', meal_type: 'snack', name: 'Grandma’s cabbage pie surprise' },
    });
    t.equal(first.statusCode, 201);
    const second = await a({
      method: 'POST',
      url: '/diary',
      payload: { date: '2026-11-22', meal_type: 'snack', name: 'grandma’s cabbage pie surprise' },
    });
    t.equal(second.json().dish_id, first.json().dish_id, 'the same name reuses the dish');
    t.equal(await count('dishes'), dishesBefore + 1, 'exactly one dish created');
    const [stub] =
      await sql`SELECT source, servings::float8 AS servings, calories_per_serving::float8 AS kcal FROM recipes WHERE id
        = ${first.json().recipe_id}`;
    t.match(stub, { source: 'stub', servings: 1 });
    t.ok(stub!.kcal > 50 && stub!.kcal < 1500, `estimated ${stub!.kcal} kcal from similar dishes`);
    t.equal(first.json().calories, stub!.kcal);

    const racing = await Promise.all(
      [1, 2, 3].map(() =>
        a({
          method: 'POST',
          url: '/diary',
          payload: { date: '2026-11-22', meal_type: 'snack', name: 'Midnight noodle special' },
        }),
      ),
    );
    t.equal(new Set(racing.map((r) => r.json().dish_id)).size, 1, 'concurrent requests create one dish');
  });

  // Readers fall back to English: a name typed in German had no name in French, Japanese or any other language.
  t.test('diary: a dish logged by a new name keeps that name in every language', async (t) => {
    const name = 'Omas Pflaumenkuchen spezial';
    const created = await a({
      method: 'POST',
      url: '/diary',
      headers: { 'accept-language': 'de' },
      payload: { date: '2026-11-23', meal_type: 'snack', name },
    });
    t.equal(created.statusCode, 201);
    const { id, dish_id: dishId, recipe_id: recipeId } = created.json();
    for (const lang of ['fr', 'ja', 'en']) {
      const headers = { 'accept-language': lang };
      const day = await a({ method: 'GET', url: '/diary?date=2026-11-23', headers });
      t.equal(day.json().entries.find((e: { id: string }) => e.id === id)?.name, name, `the day in ${lang}`);
      t.equal((await a({ method: 'GET', url: `/dishes/${dishId}`, headers })).json().name, name, `the dish in ${lang}`);
      t.equal((await a({ method: 'GET', url: `/recipes/${recipeId}`, headers })).json().name, name, `recipe, ${lang}`);
      const recent = await a({ method: 'GET', url: '/diary/recent', headers });
      t.ok(JSON.stringify(recent.json()).includes(name), `recent dishes in ${lang}`);
    }
  });

  t.test('diary: invalid input is 400 and stores nothing', async (t) => {
    const before = await count('meal_diary');
    const cases: Record<string, unknown>[] = [
      { date: '2026-02-30', meal_type: 'lunch', dish_id: borscht!.dish_id },
      { date: '2026-13-01', meal_type: 'lunch', dish_id: borscht!.dish_id },
      { date: '2026-11-20', meal_type: 'brunch', dish_id: borscht!.dish_id },
      { date: '2026-11-20', meal_type: 'lunch' },
      { date: '2026-11-20', meal_type: 'lunch', dish_id: borscht!.dish_id, product_id: milk!.id, portion_g: 10 },
      { date: '2026-11-20', meal_type: 'lunch', name: 'Soup', dish_id: borscht!.dish_id },
      { date: '2026-11-20', meal_type: 'lunch', product_id: milk!.id },
      { date: '2026-11-20', meal_type: 'lunch', dish_id: borscht!.dish_id, portions: 0 },
      { date: '2026-11-20', meal_type: 'lunch', dish_id: borscht!.dish_id, portions: -1 },
      { date: '2026-11-20', meal_type: 'lunch', product_id: milk!.id, portion_g: 0 },
      { date: '2026-11-20', meal_type: 'lunch', name: 'Soup', calories: 100 },
      { date: '2026-11-20', meal_type: 'lunch', name: '   ' },
      { date: '2026-11-20', meal_type: 'lunch', dish_id: 'not-a-uuid' },
    ];
    for (const payload of cases)
      assertError(t, await a({ method: 'POST', url: '/diary', payload }), 400, 'validation_failed');
    assertError(t, await a({ method: 'GET', url: '/diary?date=2026-02-30' }), 400, 'validation_failed');
    assertError(
      t,
      await a({
        method: 'POST',
        url: '/diary',
        payload: { date: '2026-11-20', meal_type: 'lunch', dish_id: '01900000-0000-7000-8000-000000000000' },
      }),
      404,
    );
    // No product of that id: the insert's foreign key answers, as a 404 rather than a database error.
    const unknownProduct = await a({
      method: 'POST',
      url: '/diary',
      payload: {
        date: '2026-11-20',
        meal_type: 'lunch',
        product_id: '01900000-0000-7000-8000-000000000000',
        portion_g: 5,
      },
    });
    assertError(t, unknownProduct, 404, 'not_found');
    t.equal(unknownProduct.json().message, 'Product not found');
    t.equal(await count('meal_diary'), before, 'nothing stored');
  });

  t.test('the database itself enforces exactly one of dish and product', async (t) => {
    await t.rejects(
      sql`INSERT INTO meal_diary (user_id, date, meal_type, dish_id, recipe_id, product_id, portion_g)
          VALUES (${alice.user.id}, '2026-11-20', 'lunch', ${borscht!.dish_id}, ${borscht!.recipe_id}, ${milk!.id},
            100)`,
      { code: '23514' },
    );
    await t.rejects(
      sql`INSERT INTO meal_diary (user_id, date, meal_type) VALUES (${alice.user.id}, '2026-11-20', 'lunch')`,
      { code: '23514' },
    );
    await t.rejects(
      sql`INSERT INTO meal_diary (user_id, date, meal_type, dish_id, recipe_id) VALUES (${alice.user.id}, '2026-11-20',
        'tea', ${borscht!.dish_id}, ${borscht!.recipe_id})`,
      { code: '23514' },
    );
  });

  t.test('diary: recognition jobs link only for their owner', async (t) => {
    const [job] =
      await sql`INSERT INTO dish_recognition_jobs (user_id, status) VALUES (${alice.user.id}, 'done') RETURNING id`;
    const payload = { date: '2026-11-20', meal_type: 'dinner', dish_id: borscht!.dish_id, job_id: job!.id };
    assertError(t, await b({ method: 'POST', url: '/diary', payload }), 404, 'not_found');
    const linked = await a({ method: 'POST', url: '/diary', payload });
    t.equal(linked.statusCode, 201);
    t.equal(linked.json().job_id, job!.id);
  });

  t.test('diary: recent dishes and products with use counts', async (t) => {
    const recent = (await a({ method: 'GET', url: '/diary/recent?limit=50' })).json().items;
    const soup = recent.find((r: { dish_id: string }) => r.dish_id === borscht!.dish_id);
    t.match(soup, { kind: 'dish', recipe_id: borscht!.recipe_id, name: 'Borscht' });
    t.ok(soup.use_count >= 4, `borscht used ${soup.use_count} times`);
    t.match(
      recent.find((r: { product_id: string }) => r.product_id === milk!.id),
      { kind: 'product', use_count: 1 },
    );
    const times = recent.map((r: { last_used_at: string }) => r.last_used_at);
    t.same(times, [...times].sort().reverse(), 'most recent first');
    t.same((await b({ method: 'GET', url: '/diary/recent' })).json().items, [], 'another user sees none of it');
  });

  t.test("diary: a write changes only its own day; the user's other days and other users' stay kept", async (t) => {
    const other = await buildApp(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: url }));
    t.teardown(() => other.close());
    const erin = await login(app, 'erin');
    const e = as(app, erin);
    const elsewhere = as(other, erin);
    const f = as(app, await login(app, 'fred'));
    const day = async (who: typeof e, date: string) =>
      (await who({ method: 'GET', url: `/diary?date=${date}` })).json().entries as { id: string }[];
    const hits = async () =>
      Number(/diary_day_cache_reads_total\{result="hit"\} (\d+)/.exec((await app.inject('/metrics')).body)?.[1] ?? 0);
    const log = (who: typeof e, date: string) =>
      who({
        method: 'POST',
        url: '/diary',
        payload: { date, meal_type: 'lunch', product_id: milk!.id, portion_g: 50 },
      });

    const moved = (await log(e, '2026-10-02')).json();
    await log(f, '2026-10-02');
    for (const [who, date] of [
      [e, '2026-10-02'],
      [e, '2026-10-03'],
      [f, '2026-10-02'],
    ] as const)
      await day(who, date);
    const before = await hits();
    await log(e, '2026-10-03');
    t.equal((await day(e, '2026-10-02')).length, 1);
    t.equal((await day(f, '2026-10-02')).length, 1);
    t.equal((await hits()) - before, 2, "the user's other day and another user's day are served as kept");
    t.equal((await day(e, '2026-10-03')).length, 1, 'the day written to is read anew');

    // Moved by another process: both days change.
    t.equal(
      (await elsewhere({ method: 'PATCH', url: `/diary/${moved.id}`, payload: { date: '2026-10-03' } })).statusCode,
      200,
    );
    t.same(await day(e, '2026-10-02'), [], 'the entry left its old day');
    t.equal((await day(e, '2026-10-03')).length, 2, 'and is on its new one');
  });

  t.test('diary: a day read again follows every change, whichever API process made it', async (t) => {
    const other = await buildApp(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: url }));
    t.teardown(() => other.close());
    const dora = await login(app, 'dora');
    const d = as(app, dora);
    const elsewhere = as(other, dora);
    const date = '2026-10-01';
    const read = async (language = 'en') =>
      (await d({ method: 'GET', url: `/diary?date=${date}`, headers: { 'accept-language': language } })).json();

    const first = (
      await d({
        method: 'POST',
        url: '/diary',
        payload: { date, meal_type: 'breakfast', product_id: milk!.id, portion_g: 100 },
      })
    ).json();
    t.equal((await read()).entries.length, 1);
    t.same(await read(), await read(), 'the same day twice');

    const second = (
      await elsewhere({
        method: 'POST',
        url: '/diary',
        payload: { date, meal_type: 'lunch', dish_id: borscht!.dish_id },
      })
    ).json();
    t.same(
      (await read()).entries.map((e: { id: string }) => e.id),
      [first.id, second.id],
      'an entry added by another process',
    );
    t.equal((await read('ru')).entries[1].name, 'Борщ', 'each language is its own day');
    t.equal((await read()).entries[1].name, 'Borscht');

    t.equal((await elsewhere({ method: 'DELETE', url: `/diary/${first.id}` })).statusCode, 204);
    t.same(
      (await read()).entries.map((e: { id: string }) => e.id),
      [second.id],
      'an entry deleted by another process',
    );

    t.equal((await read()).calorie_target, null, 'no target without a profile');
    await elsewhere({
      method: 'PUT',
      url: '/profile',
      payload: {
        sex: 'male',
        weight_kg: 80,
        height_cm: 180,
        date_of_birth: '1990-01-01',
        activity_level: 'moderate',
        goal: 'maintain',
      },
    });
    t.type((await read()).calorie_target, 'number', 'a profile change is seen at once');

    // Catalog changes reach every API process by NOTIFY: the kept day is rebuilt within moments, not after a minute.
    const [recipe] = await sql`SELECT calories_per_serving FROM recipes WHERE id = ${borscht!.recipe_id}`;
    const [dishName] =
      await sql`SELECT name FROM dish_translations WHERE dish_id = ${borscht!.dish_id} AND language_code = 'en'`;
    t.teardown(async () => {
      await sql`UPDATE recipes SET calories_per_serving = ${recipe!.calories_per_serving} WHERE id =
        ${borscht!.recipe_id}`;
      await sql`UPDATE dish_translations SET name = ${dishName!.name} WHERE dish_id = ${borscht!.dish_id} AND
        language_code = 'en'`;
    });
    await sql`UPDATE recipes SET calories_per_serving = 123 WHERE id = ${borscht!.recipe_id}`;
    await sql`UPDATE dish_translations SET name = 'Beet soup' WHERE dish_id = ${borscht!.dish_id} AND language_code =
      'en'`;
    let day = await read();
    for (let i = 0; i < 50 && day.entries[0].name !== 'Beet soup'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      day = await read();
    }
    t.match(day.entries[0], { name: 'Beet soup', calories: 123 }, 'a catalog change is seen');
    t.same(day.totals.calories, 123);

    t.same(
      (await b({ method: 'GET', url: `/diary?date=${date}` })).json().entries,
      [],
      "another user's day is their own",
    );
  });

  t.test('pantry: from a product, from a name, units and defaults', async (t) => {
    const fromId = await a({
      method: 'POST',
      url: '/user-products',
      payload: { product_id: milk!.id, quantity: 1, unit_code: 'l' },
    });
    t.equal(fromId.statusCode, 201);
    t.match(fromId.json(), { product_id: milk!.id, storage_days: milk!.storage_days, unit_code: 'l', quantity: 1 });
    const byName = await a({
      method: 'POST',
      url: '/user-products',
      payload: { name: 'Молоко 3,2%', quantity: 500, unit_code: 'ml' },
      headers: { 'accept-language': 'ru' },
    });
    t.match(byName.json(), { product_id: milk!.id, unit_name: 'миллилитр' });
    const own = await a({
      method: 'POST',
      url: '/user-products',
      payload: { name: 'Homemade plum jam', quantity: 2, unit_code: 'can' },
    });
    t.match(own.json(), { product_id: null, name: 'Homemade plum jam', storage_days: 7 });
    const custom = await a({
      method: 'POST',
      url: '/user-products',
      payload: { product_id: milk!.id, quantity: 1, unit_code: 'l', storage_days: 3 },
    });
    t.equal(custom.json().storage_days, 3);

    const before = await count('user_products');
    for (const payload of [
      { product_id: milk!.id, quantity: 1, unit_code: 'bucket' },
      { product_id: milk!.id, quantity: 0, unit_code: 'l' },
      { product_id: milk!.id, quantity: -2, unit_code: 'l' },
      { quantity: 1, unit_code: 'l' },
      { product_id: milk!.id, name: 'Milk', quantity: 1, unit_code: 'l' },
      { product_id: milk!.id, quantity: 1, unit_code: 'l', storage_days: 0 },
      { product_id: milk!.id, quantity: 1, unit_code: 'l', added_at: '2026-02-30T10:00:00Z' },
      { product_id: milk!.id, quantity: 1, unit_code: 'l', expires_at: '2027-01-01T00:00:00Z' },
    ]) {
      assertError(t, await a({ method: 'POST', url: '/user-products', payload }), 400, 'validation_failed');
    }
    t.equal(await count('user_products'), before, 'nothing stored');
  });

  t.test('pantry: expiry in SQL across a DST change and a month end, whatever the session time zone', async (t) => {
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    t.teardown(() => admin.end());
    await admin.unsafe(`ALTER DATABASE ${new URL(url).pathname.slice(1)} SET timezone = 'Europe/Berlin'`);
    const berlin = await buildApp(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: url }));
    t.teardown(() => berlin.close());
    const c = as(berlin, await login(berlin, 'carol'));
    const dst = (
      await c({
        method: 'POST',
        url: '/user-products',
        payload: { name: 'Yeast', quantity: 1, unit_code: 'pack', storage_days: 2, added_at: '2026-03-28T10:00:00Z' },
      })
    ).json();
    t.equal(
      new Date(dst.expires_at).toISOString(),
      '2026-03-30T10:00:00.000Z',
      'two days later across the 29 March clock change',
    );
    const monthEnd = (
      await c({
        method: 'POST',
        url: '/user-products',
        payload: { name: 'Cream', quantity: 1, unit_code: 'pack', storage_days: 3, added_at: '2026-01-30T22:00:00Z' },
      })
    ).json();
    t.equal(new Date(monthEnd.expires_at).toISOString(), '2026-02-02T22:00:00.000Z');
    const leap = (
      await c({
        method: 'POST',
        url: '/user-products',
        payload: { name: 'Kefir', quantity: 1, unit_code: 'pack', storage_days: 1, added_at: '2024-02-28T12:00:00Z' },
      })
    ).json();
    t.equal(new Date(leap.expires_at).toISOString(), '2024-02-29T12:00:00.000Z');
  });

  t.test('pantry: listing by expiry, filter, update, delete', async (t) => {
    const now = Date.now();
    const soon = (
      await a({
        method: 'POST',
        url: '/user-products',
        payload: {
          name: 'Fresh fish',
          quantity: 1,
          unit_code: 'piece',
          storage_days: 2,
          added_at: new Date(now - 86_400_000).toISOString(),
        },
      })
    ).json();
    const list = (await a({ method: 'GET', url: '/user-products?limit=100' })).json().items;
    const expiries = list.map((i: { expires_at: string }) => i.expires_at);
    t.same(expiries, [...expiries].sort(), 'sorted by expires_at');
    t.ok(
      list.every(
        (i: { expires_at: string; added_at: string }) => RFC3339_UTC.test(i.expires_at) && RFC3339_UTC.test(i.added_at),
      ),
      'RFC 3339 in UTC',
    );
    t.ok(list.length >= 3, `${list.length} items to page through`);
    const pages = [];
    for (let cursor: string | null = null, n = 0; n === 0 || cursor; n++) {
      const page = await a({ method: 'GET', url: `/user-products?limit=2${cursor ? `&cursor=${cursor}` : ''}` });
      t.equal(page.statusCode, 200, `page ${n + 1}`);
      pages.push(...page.json().items);
      cursor = page.json().next_cursor;
    }
    t.same(
      pages.map((i: { id: string }) => i.id),
      list.map((i: { id: string }) => i.id),
      'pages of two give the same list',
    );
    const expiring = (await a({ method: 'GET', url: '/user-products?expiring_within_days=2' })).json().items;
    t.ok(expiring.some((i: { id: string }) => i.id === soon.id));
    t.ok(expiring.every((i: { days_left: number }) => i.days_left <= 2));
    t.equal(soon.days_left, 1);

    const patched = await a({ method: 'PATCH', url: `/user-products/${soon.id}`, payload: { quantity: 0.5 } });
    t.match(patched.json(), { quantity: 0.5, storage_days: 2, name: 'Fresh fish' });
    assertError(
      t,
      await a({ method: 'PATCH', url: `/user-products/${soon.id}`, payload: { unit_code: 'bucket' } }),
      400,
      'validation_failed',
    );
    assertError(
      t,
      await a({ method: 'PATCH', url: `/user-products/${soon.id}`, payload: { quantity: 0 } }),
      400,
      'validation_failed',
    );
    t.equal((await a({ method: 'DELETE', url: `/user-products/${soon.id}` })).statusCode, 204);
    assertError(t, await a({ method: 'DELETE', url: `/user-products/${soon.id}` }), 404, 'not_found');
  });

  t.test('saved recipes: idempotent bookmark, read-time name and nutrition', async (t) => {
    const first = await a({ method: 'POST', url: '/saved-recipes', payload: { recipe_id: borscht!.recipe_id } });
    t.equal(first.statusCode, 201);
    t.match(first.json(), {
      recipe_id: borscht!.recipe_id,
      dish_id: borscht!.dish_id,
      name: 'Borscht',
      calories_per_serving: borscht!.kcal,
    });
    const again = await a({ method: 'POST', url: '/saved-recipes', payload: { recipe_id: borscht!.recipe_id } });
    t.equal(again.statusCode, 200);
    t.equal(again.json().id, first.json().id);
    assertError(
      t,
      await a({
        method: 'POST',
        url: '/saved-recipes',
        payload: { recipe_id: '01900000-0000-7000-8000-000000000000' },
      }),
      404,
    );
    t.equal(
      (
        await a({ method: 'GET', url: `/saved-recipes/${first.json().id}`, headers: { 'accept-language': 'uk' } })
      ).json().name,
      'Борщ',
    );
    t.equal((await a({ method: 'GET', url: '/saved-recipes' })).json().items.length, 1);
  });

  t.test("isolation: another user's rows answer 404 or an empty list on every route", async (t) => {
    const entry = (
      await a({
        method: 'POST',
        url: '/diary',
        payload: { date: '2026-11-19', meal_type: 'lunch', dish_id: borscht!.dish_id },
      })
    ).json();
    const item = (
      await a({ method: 'POST', url: '/user-products', payload: { product_id: milk!.id, quantity: 1, unit_code: 'l' } })
    ).json();
    const bookmark = (await a({ method: 'GET', url: '/saved-recipes' })).json().items[0];

    t.same((await b({ method: 'GET', url: '/diary?date=2026-11-19' })).json().entries, []);
    assertError(t, await b({ method: 'DELETE', url: `/diary/${entry.id}` }), 404, 'not_found');
    t.same((await b({ method: 'GET', url: '/user-products' })).json().items, []);
    assertError(
      t,
      await b({ method: 'PATCH', url: `/user-products/${item.id}`, payload: { quantity: 9 } }),
      404,
      'not_found',
    );
    assertError(t, await b({ method: 'DELETE', url: `/user-products/${item.id}` }), 404, 'not_found');
    t.same((await b({ method: 'GET', url: '/saved-recipes' })).json().items, []);
    assertError(t, await b({ method: 'GET', url: `/saved-recipes/${bookmark.id}` }), 404, 'not_found');
    assertError(t, await b({ method: 'DELETE', url: `/saved-recipes/${bookmark.id}` }), 404, 'not_found');

    t.equal(
      (await a({ method: 'GET', url: '/diary?date=2026-11-19' })).json().entries.length,
      1,
      "alice's entry untouched",
    );
    t.equal((await a({ method: 'GET', url: `/saved-recipes/${bookmark.id}` })).statusCode, 200);
    const mine = (await a({ method: 'GET', url: '/user-products?limit=100' }))
      .json()
      .items.find((i: { id: string }) => i.id === item.id);
    t.equal(mine.quantity, 1);
    t.equal((await a({ method: 'DELETE', url: `/diary/${entry.id}` })).statusCode, 204);
    t.equal((await a({ method: 'DELETE', url: `/saved-recipes/${bookmark.id}` })).statusCode, 204);
  });
});

t.test(
  'a dish logged by grams: more than 50 portions is 400; a dish of unknown weight keeps its portions',
  async (t) => {
    const { app, sql } = await buildTestApp(t);
    const a = as(app, await login(app, 'by-grams'));
    const [small] = await sql`
    SELECT d.id AS dish_id, r.serving_g::float8 AS serving_g FROM dishes d
    JOIN recipes r ON r.dish_id = d.id AND r.is_default
    WHERE r.serving_g IS NOT NULL AND d.source = 'catalog' ORDER BY r.serving_g LIMIT 1`;
    const log = (portion_g: number) =>
      a({
        method: 'POST',
        url: '/diary',
        payload: { date: '2026-03-12', meal_type: 'lunch', dish_id: small!.dish_id, portion_g },
      });
    // 60 servings were logged as 50 (the diary's limit), showing the grams of 60 with the nutrition of 50.
    assertError(t, await log(Math.ceil(small!.serving_g * 60)), 400, 'validation_failed');
    const fifty = await log(Math.floor(small!.serving_g * 50));
    t.equal(fifty.statusCode, 201);
    t.ok(fifty.json().portions <= 50 && fifty.json().portions > 49.9, 'up to 50 portions');
    assertError(
      t,
      await a({ method: 'PATCH', url: `/diary/${fifty.json().id}`, payload: { portion_g: small!.serving_g * 51 } }),
      400,
      'validation_failed',
    );
    // A dish logged by name has no serving weight: new grams said 1 portion, replacing the 3 logged.
    const stub = await a({
      method: 'POST',
      url: '/diary',
      payload: { date: '2026-03-12', meal_type: 'dinner', name: 'Grandma special zzq', portions: 3 },
    });
    t.equal(stub.statusCode, 201);
    const patched = await a({ method: 'PATCH', url: `/diary/${stub.json().id}`, payload: { portion_g: 300 } });
    t.equal(patched.statusCode, 200);
    t.equal(patched.json().portions, 3, 'the portions logged stay');
    t.equal(patched.json().portion_g, 300);
    t.equal(patched.json().calories, stub.json().calories, 'and so does the nutrition');
  },
);
