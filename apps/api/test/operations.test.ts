import t from 'tap';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import http from 'node:http';
import postgres from 'postgres';
import { migrationsFolder } from '@nutrition/db';
import { createTestDatabase } from '@nutrition/db/testing';
import { as, assertError, buildTestApp, login } from './helpers.ts';
import { api, fakeJpeg, imageJson, loginOver, startService } from './processes.ts';
import { fakeOpenAi, sampleRecipe } from '../../../packages/ai/test/fake-openai.ts';

t.test('rate limits: 429 with Retry-After per user, stricter on model routes, per IP on public routes', async (t) => {
  const { app } = await buildTestApp(t, {
    RATE_LIMIT_PER_MINUTE: '5',
    RATE_LIMIT_MODEL_PER_MINUTE: '2',
    RATE_LIMIT_PUBLIC_PER_MINUTE: '4',
  });
  const a = as(app, await login(app, 'busy'));
  const b = as(app, await login(app, 'calm'));
  const statuses = [];
  for (let i = 0; i < 6; i++) statuses.push((await a({ method: 'GET', url: '/profile' })).statusCode);
  t.same(statuses, [200, 200, 200, 200, 200, 429]);
  const limited = await a({ method: 'GET', url: '/profile' });
  assertError(t, limited, 429, 'rate_limited');
  t.ok(Number(limited.headers['retry-after']) > 0, `Retry-After: ${limited.headers['retry-after']}`);
  t.equal((await b({ method: 'GET', url: '/profile' })).statusCode, 200, 'another user has their own budget');
  const model = [];
  for (let i = 0; i < 3; i++)
    model.push((await b({ method: 'GET', url: '/recommendations?limit=1&refresh=true' })).statusCode);
  t.same(model, [200, 200, 429], 'model calls have a stricter budget');
  t.equal(
    (await b({ method: 'GET', url: '/recommendations?limit=1' })).statusCode,
    200,
    'a cached answer costs no model call',
  );
  const publicRoute = [];
  for (let i = 0; i < 5; i++) publicRoute.push((await app.inject({ method: 'GET', url: '/languages' })).statusCode);
  t.equal(publicRoute.at(-1), 429, 'public routes are limited per IP');
  for (const url of ['/health', '/health/live', '/ready', '/metrics']) {
    const probes = [];
    for (let i = 0; i < 6; i++) probes.push((await app.inject({ method: 'GET', url })).statusCode);
    t.same(probes, Array(6).fill(200), `${url} is never limited`);
  }
});

t.test('a token on a public route changes nothing: counted per IP, never against its user', async (t) => {
  const loose = await buildTestApp(t, { RATE_LIMIT_PER_MINUTE: '5', RATE_LIMIT_PUBLIC_PER_MINUTE: '1000' });
  const old = await login(loose.app, 'victim');
  await as(loose.app, old)({ method: 'POST', url: '/auth/logout', payload: { refresh_token: old.refresh_token } });
  const fresh = await login(loose.app, 'victim');
  // A logged-out token sent to a public route spent its user's budget: their live session then got 429.
  for (let i = 0; i < 6; i++) await as(loose.app, old)({ method: 'GET', url: '/languages' });
  const live = await as(loose.app, fresh)({ method: 'GET', url: '/profile' });
  t.equal(live.statusCode, 200, "the user's budget is intact");

  // A valid token lifted login off its per-IP limit onto its user's (larger) budget.
  const strict = await buildTestApp(t, { RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_PUBLIC_PER_MINUTE: '3' });
  const session = await login(strict.app, 'bypass');
  const logins = [];
  for (let i = 0; i < 3; i++)
    logins.push(
      (
        await strict.app.inject({
          method: 'POST',
          url: '/auth/login',
          payload: { id_token: 'bypass' },
          headers: { authorization: `Bearer ${session.access_token}` },
        })
      ).statusCode,
    );
  t.same(logins, [200, 200, 429], 'the IP has its three logins, token or not');
});

t.test('metrics are scraped after real traffic', async (t) => {
  const { app } = await buildTestApp(t, { METRICS_TOKEN: 'scrape-me' });
  const a = as(app, await login(app, 'metered'));
  await a({ method: 'GET', url: '/profile' });
  await a({ method: 'GET', url: '/dishes/00000000-0000-7000-8000-000000000000' });
  assertError(t, await app.inject({ method: 'GET', url: '/metrics' }), 401);
  const res = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer scrape-me' } });
  t.equal(res.statusCode, 200);
  t.match(res.body, /http_requests_total\{method="GET",route="\/profile",status_code="200"\} 1/);
  t.match(res.body, /http_requests_total\{method="GET",route="\/dishes\/:id",status_code="404"\} 1/);
  t.match(
    res.body,
    /http_request_duration_seconds_bucket\{le="0.1",method="GET",route="\/profile",status_code="200"\}/,
  );
  t.match(res.body, /sse_open_streams 0/);
  t.match(res.body, /listen_connection_up 1/);
  t.match(res.body, /process_resident_memory_bytes/);
});

t.test(
  'SIGTERM: an open SSE stream is told to reconnect, an in-flight request finishes, the process exits',
  async (t) => {
    const db = await createTestDatabase();
    t.teardown(db.drop);
    const slow = await fakeOpenAi([{ delayMs: 1500, content: JSON.stringify({ recipes: [sampleRecipe()] }) }]);
    t.teardown(slow.close);
    const server = await startService(t, 'api', {
      DATABASE_URL: db.url,
      OPENAI_API_KEY: 'k',
      OPENAI_BASE_URL: slow.baseUrl,
    });
    const token = await loginOver(server.url, 'leaving');
    const job = await api(server.url, token, 'POST', '/ai/recognize-dish', { image: imageJson(fakeJpeg(1)) });

    const stream = new Promise<string>((resolve, reject) => {
      http
        .get(
          `${server.url}/ai/jobs/${job.body.job_id}/stream`,
          { headers: { authorization: `Bearer ${token}` } },
          (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (d) => (body += d));
            res.on('end', () => resolve(body));
          },
        )
        .on('error', reject);
    });
    const inflight = api(server.url, token, 'GET', '/recommendations?limit=1&lang=ru');
    while (slow.requests.length === 0) await new Promise((r) => setTimeout(r, 20));

    const exited = new Promise<number | null>((resolve) => server.child.on('exit', (code) => resolve(code)));
    const started = Date.now();
    server.child.kill('SIGTERM');
    const body = await stream;
    t.match(body, /event: status[\s\S]*"status":"queued"/, 'the stream had its first event');
    t.match(body, /: server shutting down, reconnect\n\n$/, 'and ended with the reconnect comment');
    const response = await inflight;
    t.equal(response.status, 200, 'the in-flight request finished');
    t.equal(response.body.items.length, 1);
    t.equal(await exited, 0, 'clean exit');
    t.ok(Date.now() - started < 10_000, `stopped in ${Date.now() - started} ms`);
    t.match(server.output(), /shutting down/);
  },
);

/** Runs `node src/migrate.ts <command>` as the compose service and the Kubernetes Job do: its exit code and output. */
function runSetup(url: string, command: string) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, ['src/migrate.ts', command], {
      cwd: new URL('..', import.meta.url),
      env: { ...process.env, DATABASE_URL: url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

t.test('setups started at once on an empty database all succeed, and migrate it once', async (t) => {
  const adminUrl = process.env.TEST_DATABASE_ADMIN_URL!;
  const name = `setup_${randomBytes(5).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  t.teardown(async () => {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });
  const url = adminUrl.replace(/\/[^/]*$/, `/${name}`);
  // Three at once, as replicas of a migration Job or a compose service restarted while the first still runs: without
  // the setup lock all but one exited 1 (`duplicate key value violates unique constraint "pg_type_typname_nsp_index"`).
  const runs = await Promise.all([runSetup(url, 'setup'), runSetup(url, 'setup'), runSetup(url, 'migrate')]);
  for (const [i, run] of runs.entries()) t.equal(run.code, 0, `setup ${i} exits 0`, { output: run.output });
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  t.teardown(() => sql.end());
  const [applied] = await sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`;
  const files = readdirSync(migrationsFolder).filter((f) => f.endsWith('.sql'));
  t.equal(applied!.n, files.length, 'each migration recorded once');
  const [queues] = await sql`SELECT count(*)::int AS n FROM pgboss.queue`;
  t.equal(queues!.n, 6, 'the paid, free and dead-letter queues of both kinds');
  const template = await createTestDatabase();
  t.teardown(template.drop);
  const seeded = postgres(template.url, { max: 1, onnotice: () => {} });
  const count = (db: postgres.Sql) => db`SELECT (SELECT count(*) FROM products) + (SELECT count(*) FROM dishes) AS n`;
  const [[ours], [expected]] = await Promise.all([count(sql), count(seeded)]);
  await seeded.end();
  t.equal(ours!.n, expected!.n, 'the catalog seeded once, as in a database set up alone');
});
