import t from 'tap';
import { as, buildTestApp, login } from './helpers.ts';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';

/**
 * A day this process keeps takes a new entry in place (see routes/diary): every read must be the day PostgreSQL
 * builds, byte for byte. A second process without a day cache builds each day anew for comparison.
 */
t.test('diary: a kept day takes new entries in place', async (t) => {
  const { app, sql, url } = await buildTestApp(t);
  const fresh = await buildApp(
    loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: url, DIARY_CACHE_MB: '0' }),
  );
  t.teardown(() => fresh.close());
  // Unknown fiber and sugars: the totals then count them apart (null until an entry states them).
  const [withoutFiber] = await sql`
    UPDATE products SET fiber_per_100g = NULL, sugars_per_100g = NULL WHERE code = 'milk' RETURNING id`;
  const [withFiber] = await sql`
    SELECT id FROM products WHERE fiber_per_100g IS NOT NULL AND salt_per_100g IS NOT NULL LIMIT 1`;
  const [borscht] = await sql`SELECT id FROM dishes WHERE code = 'borscht'`;
  t.ok(withoutFiber && withFiber && borscht, 'the products and the dish');
  const hits = async () =>
    Number(/diary_day_cache_reads_total\{result="hit"\} (\d+)/.exec((await app.inject('/metrics')).body)?.[1] ?? 0);

  const reader = (session: string, language = 'en') => {
    const here = as(app, session);
    const there = as(fresh, session);
    const headers = { 'accept-language': language };
    return {
      write: (payload: object, extra: Record<string, string> = {}) =>
        here({ method: 'POST', url: '/diary', payload, headers: { ...headers, ...extra } }),
      read: async (date: string) => (await here({ method: 'GET', url: `/diary?date=${date}`, headers })).body,
      built: async (date: string) => (await there({ method: 'GET', url: `/diary?date=${date}`, headers })).body,
    };
  };

  t.test('each new entry: a kept day read again, equal to the day built anew', async (t) => {
    const alice = reader((await login(app, 'alice')).access_token);
    const date = '2026-11-24';
    t.equal(JSON.parse(await alice.read(date)).entries.length, 0, 'an empty day, kept');
    const writes = [
      { meal_type: 'snack', product_id: withoutFiber!.id, portion_g: 30 },
      { meal_type: 'breakfast', product_id: withFiber!.id, portion_g: 125.5 },
      { meal_type: 'dinner', dish_id: borscht!.id, portions: 1.5 },
      { meal_type: 'snack', product_id: withFiber!.id, portion_g: 0.1 },
      // A client-made id that sorts before every other, and one after: ties in time go by id.
      { meal_type: 'lunch', product_id: withFiber!.id, portion_g: 10, id: '00000000-0000-4000-8000-000000000000' },
      { meal_type: 'lunch', product_id: withFiber!.id, portion_g: 10, id: 'ffffffff-ffff-4fff-bfff-ffffffffffff' },
      // A name no dish has: a stub dish made in a transaction. A new dish name is a catalog change, which every
      // process hears and drops its kept days for, so this one may be built again.
      { meal_type: 'second_breakfast', name: 'Grandma’s "special" {"id":"x"} porridge' },
    ];
    for (const write of writes) {
      const res = await alice.write({ date, ...write });
      t.equal(res.statusCode, 201, write.meal_type);
      const before = await hits();
      const read = await alice.read(date);
      if (!('name' in write)) t.equal((await hits()) - before, 1, 'served as kept');
      t.equal(read, await alice.built(date), 'the same text as a day built anew');
    }
    const day = JSON.parse(await alice.read(date));
    t.same(
      day.entries.map((e: { meal_type: string }) => e.meal_type),
      ['breakfast', 'second_breakfast', 'lunch', 'lunch', 'dinner', 'snack', 'snack'],
    );
    t.equal(day.entries[2].id, '00000000-0000-4000-8000-000000000000');
  });

  t.test('double taps and many writes at once to one day, with reads between them', async (t) => {
    const bob = reader((await login(app, 'bob')).access_token);
    const date = '2026-11-25';
    await bob.read(date);
    const payload = { date, meal_type: 'lunch', product_id: withFiber!.id, portion_g: 42 };
    const responses = await Promise.all(
      Array.from({ length: 24 }, async (_, i) => {
        if (i % 4 === 3) return bob.read(date);
        if (i % 4 === 2) return bob.write({ ...payload, id: '11111111-1111-4111-8111-111111111111' });
        if (i % 4 === 1) return bob.write(payload, { 'idempotency-key': 'double-tap' });
        return bob.write({ ...payload, portion_g: i + 1 });
      }),
    );
    t.ok(responses.every((r) => typeof r === 'string' || r.statusCode === 201 || r.statusCode === 200));
    const read = await bob.read(date);
    t.equal(read, await bob.built(date), 'the same text as a day built anew');
    t.equal(JSON.parse(read).entries.length, 6 + 1 + 1, 'six plain writes, one per client id, one per key');
  });

  t.test('two processes writing one day, and a day kept in another language', async (t) => {
    const token = (await login(app, 'carol')).access_token;
    const here = reader(token);
    const russian = reader(token, 'ru');
    const elsewhere = await buildApp(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: url }));
    t.teardown(() => elsewhere.close());
    const other = as(elsewhere, token);
    const date = '2026-11-26';
    for (let i = 0; i < 6; i++) {
      await Promise.all([here.read(date), russian.read(date)]);
      const write = { date, meal_type: 'dinner', dish_id: borscht!.id, portions: i + 1 };
      const res = await (i % 2 ? here.write(write) : other({ method: 'POST', url: '/diary', payload: write }));
      t.equal(res.statusCode, 201);
      t.equal(await here.read(date), await here.built(date), `after write ${i + 1}, in English`);
      t.equal(await russian.read(date), await russian.built(date), 'and in Russian');
    }
    t.match(JSON.parse(await russian.read(date)).entries[0].name, /[а-я]/i, 'names in the reader’s language');
  });

  t.test("another user's kept day is left as it was", async (t) => {
    const dan = reader((await login(app, 'dan')).access_token);
    const erin = reader((await login(app, 'erin')).access_token);
    const date = '2026-11-27';
    await dan.write({ date, meal_type: 'lunch', product_id: withFiber!.id, portion_g: 50 });
    const kept = await dan.read(date);
    await erin.write({ date, meal_type: 'lunch', product_id: withFiber!.id, portion_g: 70 });
    const before = await hits();
    t.equal(await dan.read(date), kept);
    t.equal((await hits()) - before, 1, 'still kept');
    t.equal(JSON.parse(await erin.read(date)).entries.length, 1, 'each sees their own entry only');
  });
  t.test('an account deleted while its diary is written: no write fails with a 500, and nothing is left', async (t) => {
    const { access_token: session, user } = await login(app, 'fay');
    const fay = reader(session);
    const date = '2026-11-28';
    await fay.read(date);
    const write = (i: number) => fay.write({ date, meal_type: 'lunch', product_id: withFiber!.id, portion_g: i + 1 });
    const writes = Array.from({ length: 15 }, (_, i) => write(i));
    const deleted = as(app, session)({ method: 'DELETE', url: '/me' });
    writes.push(...Array.from({ length: 15 }, (_, i) => write(15 + i)));
    const answers = await Promise.all(writes);
    t.equal((await deleted).statusCode, 204);
    const statuses = answers.map((r) => r.statusCode);
    t.ok(
      statuses.every((s) => s === 201 || s === 401),
      `writes answered ${[...new Set(statuses)].join(', ')}: logged, or refused as the account went`,
    );
    for (const refused of answers.filter((r) => r.statusCode === 401))
      t.ok(['invalid_token', 'session_revoked'].includes(refused.json().code), refused.json().code);
    const [left] = await sql`
      SELECT (SELECT count(*) FROM meal_diary WHERE user_id = ${user.id})::int AS entries,
             (SELECT count(*) FROM diary_days WHERE user_id = ${user.id})::int AS days`;
    t.same(left, { entries: 0, days: 0 });
  });
  t.test("a write after the user's row is gone, while the process still takes the token: 401, not 500", async (t) => {
    const { access_token: session, user } = await login(app, 'gus');
    const gus = reader(session);
    const date = '2026-11-29';
    t.equal((await gus.write({ date, meal_type: 'lunch', product_id: withFiber!.id, portion_g: 5 })).statusCode, 201);
    // Removed behind the API's back: no revocation is heard, so the token it verified a moment ago still passes.
    await sql`DELETE FROM users WHERE id = ${user.id}`;
    const refused = await gus.write({ date, meal_type: 'lunch', product_id: withFiber!.id, portion_g: 6 });
    t.equal(refused.statusCode, 401);
    t.equal(refused.json().code, 'session_revoked');
    const pantry = await as(
      app,
      session,
    )({ method: 'POST', url: '/user-products', payload: { name: 'Tea', quantity: 1, unit_code: 'piece' } });
    t.equal(pantry.statusCode, 401, 'the pantry too');
  });
});
