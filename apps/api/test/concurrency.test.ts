import t from 'tap';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createSigner } from 'fast-jwt';
import { as, assertError, buildTestApp, login, type Session } from './helpers.ts';
import { fakeJpeg, imageJson, readStream } from './processes.ts';
import { buildApp } from '../src/app.ts';
import { openStreams } from '../src/sse.ts';
import { DEV_JWT_SECRET, loadConfig } from '../src/config.ts';
import { fakeOpenAi } from '../../../packages/ai/test/fake-openai.ts';

/** Many users at once: rate limits out of the way, the default pool (4 connections, 2 transactions at once). */
const CROWD = { RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_MODEL_PER_MINUTE: '100000' };

async function users(app: Parameters<typeof login>[0], prefix: string, n: number) {
  return Promise.all(Array.from({ length: n }, (_, i) => login(app, `${prefix}-${i}`)));
}

t.test('50 concurrent week-menu generations on the default pool: every one completes', async (t) => {
  const { app, sql } = await buildTestApp(t, CROWD);
  const crowd = await users(app, 'menu', 50);
  const replies = await Promise.all(
    crowd.map((s) => as(app, s)({ method: 'POST', url: '/ai/generate-menu', payload: {} })),
  );
  t.same([...new Set(replies.map((r) => r.statusCode))], [200], 'all 200');
  t.ok(
    replies.every((r) => r.json().days.flatMap((d: { items: unknown[] }) => d.items).length === 21),
    'each a full week',
  );
  const [{ n }] = (await sql`SELECT count(*)::int AS n FROM menu_items`) as unknown as [{ n: number }];
  t.equal(n, 50 * 21, 'nothing lost, nothing doubled');
  t.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200, 'the API still answers');
});

t.test('50 concurrent recognition submissions and 50 diary entries by new names: every one completes', async (t) => {
  const { app, sql } = await buildTestApp(t, CROWD);
  const crowd = await users(app, 'burst', 50);
  const [jobs, entries] = await Promise.all([
    Promise.all(
      crowd.map((s, i) =>
        as(app, s)({ method: 'POST', url: '/ai/recognize-dish', payload: { image: imageJson(fakeJpeg(i)) } }),
      ),
    ),
    Promise.all(
      crowd.map((s, i) =>
        as(
          app,
          s,
        )({
          method: 'POST',
          url: '/diary',
          payload: { date: '2026-11-20', meal_type: 'lunch', name: `Home stew number ${i}` },
        }),
      ),
    ),
  ]);
  t.same([...new Set(jobs.map((r) => r.statusCode))], [202]);
  t.same([...new Set(entries.map((r) => r.statusCode))], [201]);
  const [row] =
    await sql`SELECT (SELECT count(*)::int FROM dish_recognition_jobs) AS jobs, (SELECT count(*)::int FROM meal_diary)
      AS entries`;
  t.same(row, { jobs: 50, entries: 50 });
});

t.test(
  'one day written 40 times at once through two API processes, read meanwhile: each process ends with it whole',
  async (t) => {
    // Pools of 4 (the default): more writes at once than connections, in both processes. Each keeps days it has read.
    const { app, url, sql } = await buildTestApp(t, CROWD);
    const other = await buildApp(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: url, ...CROWD }));
    t.teardown(() => other.close());
    const session = await login(app, 'busy-day');
    const [here, there] = [as(app, session), as(other, session)];
    const [milk] = await sql<{ id: string }[]>`SELECT id FROM products WHERE code = 'milk'`;
    const [day, next] = ['2026-11-21', '2026-11-22'];
    const ids = (reply: { json: () => { entries: { id: string }[] } }) =>
      reply
        .json()
        .entries.map((e) => e.id)
        .sort();
    const read = (who: typeof here, date: string) => who({ method: 'GET', url: `/diary?date=${date}` });
    await Promise.all([read(here, day), read(there, day), read(here, next), read(there, next)]);

    const writes = Array.from({ length: 40 }, (_, i) =>
      (i % 2 ? here : there)({
        method: 'POST',
        url: '/diary',
        payload: { date: day, meal_type: 'snack', product_id: milk!.id, portion_g: 10 + i },
      }),
    );
    // Reads of the day while it is being written, in both processes: they keep whatever version they saw.
    const reads = Array.from({ length: 20 }, (_, i) => read(i % 2 ? here : there, day));
    const written = await Promise.all(writes);
    await Promise.all(reads);
    t.same([...new Set(written.map((r) => r.statusCode))], [201], 'every write created its entry');
    const stored = (
      await sql<{ id: string }[]>`
      SELECT id FROM meal_diary WHERE user_id = ${session.user.id} AND date = ${day}`
    )
      .map((r) => r.id)
      .sort();
    t.equal(stored.length, 40);
    t.same(ids(await read(here, day)), stored, 'this process serves the day with all 40');
    t.same(ids(await read(there, day)), stored, 'and so does the other');

    // Half of them moved to the next day at once, from both processes.
    const moving = stored.slice(0, 20);
    const moved = await Promise.all(
      moving.map((id, i) => (i % 2 ? here : there)({ method: 'PATCH', url: `/diary/${id}`, payload: { date: next } })),
    );
    t.same([...new Set(moved.map((r) => r.statusCode))], [200]);
    for (const who of [here, there]) {
      t.same(ids(await read(who, day)), stored.slice(20), 'the day keeps the other half');
      t.same(ids(await read(who, next)), [...moving].sort(), 'the next day holds the moved half');
    }
  },
);

t.test(
  'a saturated pool answers 503 busy with Retry-After after a bounded wait, then recovers by itself',
  async (t) => {
    // A pool of 4 keeps 2 connections for single statements and runs 2 transactions at once.
    const { app, url } = await buildTestApp(t, { ...CROWD, DATABASE_POOL_SIZE: '4', DATABASE_BUSY_WAIT_MS: '300' });
    const stuck = await login(app, 'stuck');
    const other = await login(app, 'other');
    const [milk] = await (await import('postgres')).default(url, {
      max: 1,
    })`SELECT id FROM products WHERE code = 'milk'`;
    const postgres = (await import('postgres')).default;
    const blocker = postgres(url, { max: 1, onnotice: () => {} });
    t.teardown(() => blocker.end());
    // A transaction elsewhere holds the user's row: every insert of the user's rows waits for it.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holding = blocker.begin(async (tx) => {
      await tx`SELECT 1 FROM users WHERE id = ${stuck.user.id} FOR UPDATE`;
      locked();
      await released;
    });
    await isLocked;
    const add = (n: number) =>
      as(
        app,
        stuck,
      )({ method: 'POST', url: '/user-products', payload: { product_id: milk!.id, quantity: n, unit_code: 'l' } });
    const waiting = [add(1), add(2)];
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    const refused = await Promise.all([add(3), add(4), add(5)]);
    const waited = Date.now() - started;
    for (const res of refused) {
      assertError(t, res, 503, 'busy');
      t.equal(res.headers['retry-after'], '1');
    }
    t.ok(waited >= 250 && waited < 3000, `refused after a bounded wait (${waited} ms)`);
    const read = await as(app, other)({ method: 'GET', url: '/profile' });
    t.equal(read.statusCode, 200, 'single statements still have their connections');

    release();
    await holding;
    t.same(
      (await Promise.all(waiting)).map((r) => r.statusCode),
      [201, 201],
      'the waiting transactions finish',
    );
    t.equal((await add(6)).statusCode, 201, 'and new ones run again: recovered without a restart');
    t.equal((await app.inject({ method: 'GET', url: '/health/live' })).statusCode, 200);
  },
);

t.test('refresh grace: parallel and retried refreshes all get working pairs; later reuse is still theft', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const session = await login(app, 'phone');
  const refresh = (token: string) =>
    app.inject({ method: 'POST', url: '/auth/refresh', payload: { refresh_token: token } });

  const parallel = await Promise.all([1, 2, 3].map(() => refresh(session.refresh_token)));
  t.same(
    parallel.map((r) => r.statusCode),
    [200, 200, 200],
    'three parallel refreshes all succeed',
  );
  const pairs = parallel.map((r) => r.json() as Session);
  t.equal(new Set(pairs.map((p) => p.refresh_token)).size, 1, 'they hold the same new refresh token');
  for (const pair of pairs)
    t.equal((await as(app, pair)({ method: 'GET', url: '/profile' })).statusCode, 200, 'every access token works');

  const retried = await refresh(session.refresh_token);
  t.equal(retried.statusCode, 200, 'a retry after a lost response works too');
  t.equal(retried.json().refresh_token, pairs[0]!.refresh_token);

  const next = await refresh(pairs[1]!.refresh_token);
  t.equal(next.statusCode, 200, 'the new refresh token rotates on');
  t.equal((await as(app, pairs[2]!)({ method: 'GET', url: '/profile' })).statusCode, 200, 'nothing was revoked');

  // Past the 30 s grace, reusing a rotated token revokes the session.
  await sql`UPDATE refresh_tokens SET replaced_at = replaced_at - interval '31 seconds' WHERE replaced_at IS NOT NULL`;
  assertError(t, await refresh(session.refresh_token), 401, 'refresh_token_reused');
  assertError(t, await as(app, next.json())({ method: 'GET', url: '/profile' }), 401, 'session_revoked');
  assertError(t, await refresh(next.json().refresh_token), 401, 'invalid_refresh_token');
});

t.test('logout with the refresh token alone; unknown tokens are 204 too', async (t) => {
  const { app } = await buildTestApp(t);
  const session = await login(app, 'leaving');
  const logout = (body: Record<string, unknown>) => app.inject({ method: 'POST', url: '/auth/logout', payload: body });
  t.equal((await logout({ refresh_token: session.refresh_token })).statusCode, 204);
  assertError(t, await as(app, session)({ method: 'GET', url: '/profile' }), 401, 'session_revoked');
  assertError(
    t,
    await app.inject({ method: 'POST', url: '/auth/refresh', payload: { refresh_token: session.refresh_token } }),
    401,
  );
  t.equal(
    (await logout({ refresh_token: `${session.user.id}.${'A'.repeat(43)}` })).statusCode,
    204,
    'an unknown token',
  );
  t.equal((await logout({ refresh_token: 'garbage' })).statusCode, 204, 'a malformed token');
  assertError(t, await logout({}), 400, 'validation_failed');
});

t.test("an access token whose sub is not its session's user, or not a UUID, is 401", async (t) => {
  const { app } = await buildTestApp(t);
  const alice = await login(app, 'alice-sid');
  const bob = await login(app, 'bob-sid');
  const claims = JSON.parse(Buffer.from(alice.access_token.split('.')[1]!, 'base64url').toString());
  const sign = createSigner({ key: DEV_JWT_SECRET, algorithm: 'HS256' });
  const get = (token: string) =>
    app.inject({ method: 'GET', url: '/profile', headers: { authorization: `Bearer ${token}` } });
  assertError(t, await get(sign({ sub: bob.user.id, sid: claims.sid })), 401, 'invalid_token');
  assertError(t, await get(sign({ sub: 'not-a-uuid', sid: claims.sid })), 401, 'invalid_token');
  assertError(
    t,
    await get(sign({ sub: alice.user.id, sid: '00000000-0000-7000-8000-000000000000' })),
    401,
    'invalid_token',
  );
  t.equal((await get(alice.access_token)).statusCode, 200);
  t.equal(
    (await get(sign({ sub: alice.user.id, sid: claims.sid }))).statusCode,
    200,
    'a fresh token of the same session',
  );
});

t.test('an open SSE stream of a session ends within a second of its logout', async (t) => {
  const { app } = await buildTestApp(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const session = await login(app, 'streamer');
  const job = (
    await as(app, session)({ method: 'POST', url: '/ai/recognize-dish', payload: { image: imageJson(fakeJpeg(7)) } })
  ).json();
  const stream = readStream(`${base}/ai/jobs/${job.job_id}/stream`, session.access_token, 10_000);
  await new Promise((r) => setTimeout(r, 300));
  const loggedOut = Date.now();
  t.equal(
    (await app.inject({ method: 'POST', url: '/auth/logout', payload: { refresh_token: session.refresh_token } }))
      .statusCode,
    204,
  );
  const ended = await stream;
  t.ok(Date.now() - loggedOut < 1000, `ended ${Date.now() - loggedOut} ms after logout`);
  t.equal(ended.events[0]?.data.status, 'queued', 'the stream was live before');
  t.ok(ended.comments.includes('session revoked'));
});

// A phone that opens a stream and goes away at once (a tunnel, a swipe) closes before the route has read the database:
// the stream then missed the close and was kept open for good, with its ping timer, its job watch or its place among
// the polled sync streams (100 of 100 such streams, on both routes).
t.test('a stream whose client left before it opened is not kept open', async (t) => {
  const { app } = await buildTestApp(t, CROWD);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const session = await login(app, 'leaves-early');
  const job = (
    await as(app, session)({ method: 'POST', url: '/ai/recognize-dish', payload: { image: imageJson(fakeJpeg(8)) } })
  ).json();
  /** The stream's request on a raw socket, closed `afterMs` after it is sent. */
  const dropped = (path: string, afterMs: number) =>
    new Promise<void>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${session.access_token}\r\n\r\n`);
        setTimeout(() => socket.destroy(), afterMs);
      });
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
    });
  const before = openStreams();
  for (const path of [`/ai/jobs/${job.job_id}/stream`, '/sync/stream'])
    await Promise.all(Array.from({ length: 50 }, (_, i) => dropped(path, i % 3)));
  let open = openStreams() - before;
  for (let i = 0; i < 50 && open > 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    open = openStreams() - before;
  }
  t.equal(open, 0, 'no stream is left open once its client has gone');
});

t.test('apply: three parallel calls add the items once and all answer with them; the body is optional', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const session = await login(app, 'shopper');
  const a = as(app, session);
  const [milk] = await sql`SELECT id FROM products WHERE code = 'milk'`;
  const result = {
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
      {
        name: 'Odd thing',
        product_id: null,
        quantity: 1,
        unit_code: 'piece',
        storage_days: 5,
        confidence: 0.5,
        price: null,
      },
    ],
    model: 'offline',
  };
  const [job] = await sql`
    INSERT INTO product_recognition_jobs (user_id, status, job_type, result)
    VALUES (${session.user.id}, 'done', 'receipt', ${sql.json(result)}) RETURNING id`;
  const apply = () => a({ method: 'POST', url: `/ai/product-jobs/${job!.id}/apply` });
  const replies = await Promise.all([apply(), apply(), apply()]);
  t.same(
    replies.map((r) => r.statusCode),
    [200, 200, 200],
  );
  const ids = replies.map((r) =>
    r
      .json()
      .items.map((i: { id: string }) => i.id)
      .join(),
  );
  t.equal(new Set(ids).size, 1, 'every call answers with the same items');
  t.equal(replies[0]!.json().items.length, 2);
  const [{ n }] =
    (await sql`SELECT count(*)::int AS n FROM user_products WHERE user_id = ${session.user.id}`) as unknown as [
      { n: number },
    ];
  t.equal(n, 2, 'added once');
  const later = await a({ method: 'POST', url: `/ai/product-jobs/${job!.id}/apply`, payload: { item_indexes: [0] } });
  t.equal(later.json().items.length, 2, 'a later call with another selection adds nothing and answers the first items');
  assertError(
    t,
    await as(app, await login(app, 'not-the-shopper'))({ method: 'POST', url: `/ai/product-jobs/${job!.id}/apply` }),
    404,
  );
});

t.test('a dish job links to one diary entry: a second link is 409 job_already_linked, also when racing', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const session = await login(app, 'linker');
  const a = as(app, session);
  const [borscht] = await sql`SELECT id FROM dishes WHERE code = 'borscht'`;
  const newJob = async () =>
    (
      await sql`INSERT INTO dish_recognition_jobs (user_id, status) VALUES (${session.user.id}, 'done') RETURNING id`
    )[0]!.id as string;
  const link = (jobId: string) =>
    a({
      method: 'POST',
      url: '/diary',
      payload: { date: '2026-11-20', meal_type: 'dinner', dish_id: borscht!.id, job_id: jobId },
    });
  const first = await newJob();
  t.equal((await link(first)).statusCode, 201);
  assertError(t, await link(first), 409, 'job_already_linked');
  const racing = await newJob();
  const replies = await Promise.all([1, 2, 3, 4].map(() => link(racing)));
  t.same(replies.map((r) => r.statusCode).sort(), [201, 409, 409, 409]);
  const [{ n }] = (await sql`SELECT count(*)::int AS n FROM meal_diary WHERE job_id = ${racing}`) as unknown as [
    { n: number },
  ];
  t.equal(n, 1);
});

t.test(
  'Idempotency-Key: when storing the response fails, the effect is undone too, and the retry runs once',
  async (t) => {
    const { app, sql } = await buildTestApp(t);
    const a = as(app, await login(app, 'unlucky'));
    const [milk] = await sql`SELECT id FROM products WHERE code = 'milk'`;
    await sql.unsafe(`
    CREATE FUNCTION fail_storing() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk full'; END $$;
    CREATE TRIGGER fail_storing BEFORE INSERT ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION fail_storing();`);
    const post = () =>
      a({
        method: 'POST',
        url: '/diary',
        headers: { 'idempotency-key': 'lost-response' },
        payload: { date: '2026-11-20', meal_type: 'lunch', product_id: milk!.id, portion_g: 150 },
      });
    assertError(t, await post(), 500, 'internal_error');
    const count = async () => (await sql`SELECT count(*)::int AS n FROM meal_diary`)[0]!.n as number;
    t.equal(await count(), 0, 'no entry without its stored response');
    await sql`DROP TRIGGER fail_storing ON idempotency_keys`;
    const retried = await Promise.all([post(), post()]);
    t.same(
      retried.map((r) => r.statusCode),
      [201, 201],
    );
    t.equal(retried[0]!.json().id, retried[1]!.json().id);
    t.equal(await count(), 1, 'the retry made one entry');
  },
);

t.test(
  'model cost: known diary names ask no model; unknown ones do, under the model budget; cached reads are free',
  async (t) => {
    const model = await fakeOpenAi([{ content: JSON.stringify({ calories: 420, protein: 20, fat: 15, carbs: 50 }) }]);
    t.teardown(model.close);
    const { app } = await buildTestApp(t, {
      OPENAI_API_KEY: 'test',
      OPENAI_BASE_URL: model.baseUrl,
      RATE_LIMIT_MODEL_PER_MINUTE: '2',
    });
    const a = as(app, await login(app, 'eater'));
    const log = (name: string) =>
      a({ method: 'POST', url: '/diary', payload: { date: '2026-11-20', meal_type: 'lunch', name } });
    for (const name of [
      'Borscht',
      'BORSCHT',
      'Борщ',
      'борщ ',
      'Taboulé libanais',
      'TABOULE LIBANAIS',
      'kofte turques grillees',
    ]) {
      t.equal((await log(name)).statusCode, 201, name);
    }
    t.equal(model.requests.length, 0, 'catalog names, in any case, accents or language, asked nothing');
    t.equal((await log("Grandma's secret cookies")).statusCode, 201);
    t.equal(model.requests.length, 1, 'an unknown name asked once');
    t.equal((await log("GRANDMA'S SECRET COOKIES")).statusCode, 201);
    t.equal(model.requests.length, 1, "then it is the user's own dish");
    t.equal((await log('Another invention')).statusCode, 201);
    const third = await log('A third invention');
    assertError(t, third, 429, 'rate_limited');
    t.ok(Number(third.headers['retry-after']) > 0);
    t.equal((await log('Borscht')).statusCode, 201, 'known names still log past the model budget');
  },
);

t.test(
  'bodies: over the largest valid request is 413 before parsing; the model budget is spent before the body is read',
  async (t) => {
    const { app } = await buildTestApp(t, { RATE_LIMIT_MODEL_PER_MINUTE: '1' });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const session = await login(app, 'uploader');
    /**
     * Announces a JSON body of `bytes` over a raw socket and sends it in pieces until the server answers or closes; a
     * server that refuses early may close while the body is still coming, so what it said is read from the socket.
     */
    const post = (path: string, bytes: number) =>
      new Promise<{ status: number; body: string; sent: number }>((resolve) => {
        const socket = net.connect((app.server.address() as AddressInfo).port, '127.0.0.1');
        let sent = 0;
        let received = '';
        const done = () => {
          socket.destroy();
          const [head = '', body = ''] = received.split('\r\n\r\n');
          resolve({ status: Number(head.split(' ')[1]), body, sent });
        };
        socket.on('data', (d) => {
          received += d;
          if (/\r\n\r\n[\s\S]*\}$/.test(received)) done();
        });
        socket.on('error', () => {});
        socket.on('close', done);
        socket.write(
          `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${session.access_token}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${bytes}\r\n\r\n`,
        );
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const write = () => {
          if (received || socket.destroyed || sent >= bytes) return;
          sent += chunk.length;
          socket.write(chunk, (err) => (err ? undefined : setTimeout(write, 1)));
        };
        write();
      });
    const tooLarge = await post('/ai/recognize-dish', 12 * 1024 * 1024);
    t.equal(tooLarge.status, 413, 'one image is at most 8 MiB as base64: 12 MiB is refused');
    t.equal(JSON.parse(tooLarge.body).code, 'payload_too_large');
    const over = await post('/ai/recognize-products', 20 * 1024 * 1024);
    t.equal(over.status, 429, 'a client past its model budget is refused before its body is read');
    t.ok(over.sent < 20 * 1024 * 1024, `answered after ${Math.round(over.sent / 1024)} KiB of 20 MiB`);
    t.equal(JSON.parse(over.body).code, 'rate_limited');
  },
);
