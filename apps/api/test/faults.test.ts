import t from 'tap';
import postgres from 'postgres';
import { createTestDatabase } from '@nutrition/db/testing';
import { addDays, todayUtc, weekStart } from '@nutrition/domain';
import { api, fakeJpeg, imageJson, loginOver, readStream, startService, ownPostgres } from './processes.ts';
import { fakeOpenAi, sampleRecipe } from '../../../packages/ai/test/fake-openai.ts';

/** The API's listen_connection_up once it reads `want`, or what it read last after `ms`. */
async function listenUp(url: string, want: string, ms: number) {
  const started = Date.now();
  for (;;) {
    const value = /^listen_connection_up (\S+)$/m.exec(await (await fetch(`${url}/metrics`)).text())?.[1];
    if (value === want || Date.now() - started > ms) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

t.test('PostgreSQL stopped and restarted under the running API: 503s, then everything recovers', async (t) => {
  const pg = await ownPostgres(t, 'fault');
  const url = pg.url;

  const server = await startService(t, 'api', { DATABASE_URL: url });
  // A product worker: it leaves the dish job below alone, so the stream ends with the state this test writes.
  const worker = await startService(t, 'product-worker', { DATABASE_URL: url });
  const token = await loginOver(server.url, 'steady');
  const job = await api(server.url, token, 'POST', '/ai/recognize-dish', { image: imageJson(fakeJpeg(1)) });
  const stream = readStream(`${server.url}/ai/jobs/${job.body.job_id}/stream`, token, 90_000);
  await new Promise((r) => setTimeout(r, 300));
  t.equal(await listenUp(server.url, '1', 0), '1', 'listen_connection_up: 1 while the database runs');

  await pg.stop();
  // The README's alert on 0 never fired: the gauge stayed 1 through the whole outage.
  t.equal(await listenUp(server.url, '0', 3000), '0', 'listen_connection_up: 0 once the LISTEN connection is lost');
  const health = await api(server.url, null, 'GET', '/health');
  t.equal(health.status, 503, 'health says the database is down');
  t.match(health.body, { db: 'down' });
  const profile = await api(server.url, token, 'GET', '/profile');
  t.equal(profile.status, 503, 'a request needing the database fails cleanly');
  t.match(profile.body, { code: 'database_unavailable', request_id: String });
  t.equal((await fetch(`${server.url}/health/live`)).status, 200, 'liveness does not ask the database');
  // A worker scraped during the outage answers 503 and lives on (a rejected metrics read used to end it).
  for (let i = 0; i < 3; i++) {
    t.equal((await fetch(`${worker.url}/metrics`)).status, 503, 'worker metrics: 503 while the database is down');
    t.equal((await fetch(`${worker.url}/health`)).status, 503, 'worker health: 503 while the database is down');
    t.equal((await fetch(`${worker.url}/health/live`)).status, 200, 'worker liveness: 200');
  }
  await new Promise((r) => setTimeout(r, 500));
  t.equal(
    worker.child.exitCode,
    null,
    `the worker process is still running${worker.child.exitCode === null ? '' : `:\n${worker.output()}`}`,
  );

  t.equal(await listenUp(server.url, '0', 0), '0', 'and stays 0 while the database is down');

  await pg.start();
  let recovered = 0;
  for (let i = 0; i < 100 && recovered !== 200; i++) {
    recovered = (await api(server.url, null, 'GET', '/health')).status;
    if (recovered !== 200) await new Promise((r) => setTimeout(r, 200));
  }
  t.equal(recovered, 200, 'health recovers without a restart');
  t.equal((await api(server.url, token, 'GET', '/profile')).status, 200, 'requests work again');
  let workerHealth = 0;
  for (let i = 0; i < 50 && workerHealth !== 200; i++) {
    workerHealth = (await fetch(`${worker.url}/health`)).status;
    if (workerHealth !== 200) await new Promise((r) => setTimeout(r, 200));
  }
  t.equal(workerHealth, 200, 'the worker recovers without a restart');
  t.equal((await fetch(`${worker.url}/metrics`)).status, 200);

  // The LISTEN connection reconnects on its own; a status change after that reaches the open stream.
  t.equal(await listenUp(server.url, '1', 10_000), '1', 'listen_connection_up: 1 again once LISTEN is made again');
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  t.teardown(() => sql.end());
  await sql`UPDATE dish_recognition_jobs SET status = 'failed', error = '{"code":"test","message":"test"}' WHERE id =
    ${job.body.job_id}`;
  const events = (await stream).events;
  t.equal(events.at(-1)?.data.status, 'failed', 'the SSE stream resumed after the LISTEN reconnect');
});

t.test("a lock on the queue table: a worker's /metrics answers 503 within its bound and leaves nothing", async (t) => {
  const db = await createTestDatabase();
  const sql = postgres(db.url, { max: 2, onnotice: () => {} });
  let release = () => {};
  t.teardown(async () => {
    release();
    await sql.end();
    await db.drop();
  });
  const worker = await startService(t, 'dish-worker', { DATABASE_URL: db.url });
  /** A scrape, given up after 6 s (status 0), as Prometheus gives up on its scrape timeout. */
  const scrape = async () => {
    const started = Date.now();
    try {
      const res = await fetch(`${worker.url}/metrics`, { signal: AbortSignal.timeout(6000) });
      return { status: res.status, body: await res.text(), ms: Date.now() - started };
    } catch {
      return { status: 0, body: '', ms: Date.now() - started };
    }
  };
  t.match((await scrape()).body, /recognition_queue_depth\{queue="dish-recognition-free"\} 0/, 'the depth, before');
  // As VACUUM FULL, REINDEX or a pg-boss migration hold it: the depth's count waits for the lock.
  const released = new Promise<void>((resolve) => (release = resolve));
  const locked = sql.begin(async (tx) => {
    await tx`LOCK TABLE pgboss.job IN ACCESS EXCLUSIVE MODE`;
    await released;
  });
  await new Promise((r) => setTimeout(r, 200));
  const during = await Promise.all([scrape(), scrape()]);
  for (const { status, ms } of during) {
    // It waited as long as the lock was held: here until the test lets go, for minutes in a VACUUM FULL.
    t.equal(status, 503, 'answered as while the database is down');
    t.ok(ms < 3500, `within the 2 s bound: ${ms} ms`);
  }
  t.equal((await fetch(`${worker.url}/health/live`)).status, 200, 'the worker lives on');
  // The counts were cancelled, not left waiting on the lock: one per scrape would pile up.
  const waiting = await sql`SELECT count(*)::int AS n FROM pg_stat_activity
    WHERE datname = current_database() AND state = 'active' AND wait_event_type = 'Lock'
      AND query LIKE '%count(*)::int AS n FROM "pgboss".job%'`;
  t.equal(waiting[0]!.n, 0, 'no depth statement left waiting');
  release();
  await locked;
  const after = await scrape();
  t.equal(after.status, 200, 'the depth again once the lock is gone');
  t.match(after.body, /recognition_queue_depth/);
});

t.test('the server killed in the middle of a week-menu generation leaves the previous menu intact', async (t) => {
  const db = await createTestDatabase();
  t.teardown(db.drop);
  const slow = await fakeOpenAi([
    { delayMs: 5000, content: JSON.stringify({ days: [{ date: todayUtc(), meals: [sampleRecipe()] }] }) },
  ]);
  t.teardown(slow.close);
  const env = { DATABASE_URL: db.url, OPENAI_API_KEY: 'k', OPENAI_BASE_URL: slow.baseUrl };
  const first = await startService(t, 'api', env);
  const token = await loginOver(first.url, 'planner');
  const week = addDays(weekStart(todayUtc()), 7);
  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
  t.teardown(() => sql.end());
  const [borscht] = await sql`SELECT r.id FROM recipes r JOIN dishes d ON d.id = r.dish_id WHERE d.code = 'borscht'`;
  const before = (
    await api(first.url, token, 'PUT', '/menu', {
      week_start: week,
      items: [{ date: week, meal_type: 'lunch', recipe_id: borscht!.id }],
    })
  ).body;

  void api(first.url, token, 'POST', '/ai/generate-menu', { week_start: week }).catch(() => {});
  while (slow.requests.length === 0) await new Promise((r) => setTimeout(r, 20));
  first.child.kill('SIGKILL');

  const second = await startService(t, 'api', env);
  const after = (await api(second.url, token, 'GET', `/menu?week_start=${week}`)).body;
  t.same(after, before, 'the menu is exactly as it was');
  const [orphans] = await sql`SELECT count(*)::int AS n FROM recipes WHERE source = 'menu'`;
  t.equal(orphans!.n, 0, 'no half-written recipes');
});

t.test('a model answering garbage or not at all: jobs end failed with a code, a bounded number of calls', async (t) => {
  const db = await createTestDatabase();
  t.teardown(db.drop);
  const garbage = await fakeOpenAi([{ content: 'I am not JSON' }]);
  t.teardown(garbage.close);
  const server = await startService(t, 'api', { DATABASE_URL: db.url });
  const token = await loginOver(server.url, 'unlucky');
  await startService(t, 'dish-worker', { DATABASE_URL: db.url, OPENAI_API_KEY: 'k', OPENAI_BASE_URL: garbage.baseUrl });
  await startService(t, 'product-worker', {
    DATABASE_URL: db.url,
    OPENAI_API_KEY: 'k',
    OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
  });

  const dish = await api(server.url, token, 'POST', '/ai/recognize-dish', { image: imageJson(fakeJpeg(1)) });
  const dishEnd = (await readStream(`${server.url}/ai/jobs/${dish.body.job_id}/stream`, token)).events.at(-1)!.data;
  t.match(dishEnd, { status: 'failed', error: { code: 'recognition_failed' } });
  t.equal(garbage.requests.length, 3, 'one call and two corrected retries, then no more');

  const receipt = await api(server.url, token, 'POST', '/ai/recognize-receipt', {
    images: [imageJson(fakeJpeg(2)), imageJson(fakeJpeg(3))],
  });
  const receiptEnd = (await readStream(`${server.url}/ai/product-jobs/${receipt.body.job_id}/stream`, token)).events.at(
    -1,
  )!.data;
  t.match(receiptEnd, { status: 'failed', error: { code: 'model_unavailable' } });

  await new Promise((r) => setTimeout(r, 3000));
  t.equal(garbage.requests.length, 3, 'pg-boss did not retry a model failure');
  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
  t.teardown(() => sql.end());
  const stuck = await sql`
    SELECT (SELECT count(*)::int FROM dish_recognition_jobs WHERE status IN ('queued', 'processing'))
         + (SELECT count(*)::int FROM product_recognition_jobs WHERE status IN ('queued', 'processing')) AS n`;
  t.equal(stuck[0]!.n, 0, 'nothing stuck');
});
