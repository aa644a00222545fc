import { createDatabase } from '@nutrition/db';
import {
  loadWithCpu,
  login,
  maxRow,
  mixedLoad,
  ratioRow,
  reported,
  root,
  shuffle,
  startProcess,
  warmUp,
  warmUpRows,
  type LoadRequest,
  type Row,
} from './lib.ts';

const USERS = 200;
const DAYS = 14;
const SEARCHES = ['milk', 'chocolate', 'chee', 'bread', 'yog', 'chicken', 'apple juice', 'mil', 'coffee', 'rice'];

/**
 * `app-mixed`: the whole app as many people use it at once. 200 users with two weeks of diary each; per 100
 * requests 60 diary days, 15 product searches, 10 profiles, 10 diary writes and 5 pantry lists, each from any user
 * and day, 32 connections, against hello-world. Reports the diary day cache's hit rate under that mix (writes of one
 * user must not cost the others their kept days), and the diary writes alone. Both servers warm up on the same load
 * first.
 */
export async function appMixedBench(databaseUrl: string, seconds: number): Promise<Row[]> {
  const api = await startProcess(
    `${root}apps/api/src/main.ts`,
    // Rate limits out of the way: 200 users sign in from one address.
    { DATABASE_URL: databaseUrl, RATE_LIMIT_PER_MINUTE: '100000000', RATE_LIMIT_PUBLIC_PER_MINUTE: '100000000' },
    '/health',
  );
  const hello = await startProcess(`${root}bench/hello.ts`, {}, /hello ready/);
  const { sql, close } = createDatabase(databaseUrl, { max: 2 });
  try {
    const tokens: string[] = [];
    for (let u = 0; u < USERS; u++) tokens.push(await login(api.url, `bench-mixed-${u}`));
    const ids = tokens.map((t) => JSON.parse(Buffer.from(t.split('.')[1]!, 'base64url').toString()).sub as string);
    const dates = Array.from({ length: DAYS }, (_, d) => `2026-11-${String(d + 1).padStart(2, '0')}`);
    const [recipe] = await sql<{ dish_id: string; id: string }[]>`
      SELECT dish_id, id FROM recipes WHERE source = 'catalog' AND is_default ORDER BY id LIMIT 1`;
    const [product] = await sql<{ id: string }[]>`SELECT id FROM products WHERE code = 'milk'`;
    // Four entries a day for two weeks, written directly: the load starts from a diary people have filled.
    await sql`
      INSERT INTO meal_diary (user_id, date, meal_type, dish_id, recipe_id, portions)
      SELECT u, d::date, m, ${recipe!.dish_id}, ${recipe!.id}, 1
      FROM unnest(${ids}::uuid[]) u, unnest(${dates}::text[]) d, unnest(ARRAY['breakfast', 'lunch', 'dinner']) m`;
    await sql`
      INSERT INTO meal_diary (user_id, date, meal_type, product_id, portion_g)
      SELECT u, d::date, 'snack', ${product!.id}, 250 FROM unnest(${ids}::uuid[]) u, unnest(${dates}::text[]) d`;

    const requests: LoadRequest[] = [];
    const writes: LoadRequest[] = [];
    // User and day drawn apart from the kind of request (a fixed sequence): every user both reads and writes.
    let state = 11;
    const draw = (n: number) => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return Math.floor((state / 2 ** 32) * n);
    };
    for (let i = 0; i < 2000; i++) {
      const u = draw(USERS);
      const headers = { authorization: `Bearer ${tokens[u]}`, 'accept-language': 'en' };
      const date = dates[draw(DAYS)]!;
      const kind = i % 100;
      if (kind < 60) requests.push({ method: 'GET', path: `/diary?date=${date}`, headers });
      else if (kind < 75) {
        const q = SEARCHES[i % SEARCHES.length]!;
        requests.push({ method: 'GET', path: `/products/search?q=${encodeURIComponent(q)}`, headers });
      } else if (kind < 85) requests.push({ method: 'GET', path: '/profile', headers });
      else if (kind < 95) {
        const write = {
          method: 'POST',
          path: '/diary',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ date, meal_type: 'snack', product_id: product!.id, portion_g: 30 }),
        };
        requests.push(write);
        // Also run alone: many users writing at once, as when everyone logs lunch.
        writes.push(write);
      } else requests.push({ method: 'GET', path: '/user-products', headers });
    }
    const connections = 32;
    const helloRequests = [{ method: 'GET', path: '/', headers: {} }];
    const backend = (await sql<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`)[0]!.pid;
    const measured = { seconds, connections };
    // Each server warms up on its own load first (here the day cache fills too); the API's warm-up is reported.
    const warm = warmUp(measured);
    await mixedLoad(hello.url, helloRequests, warm);
    const base = await loadWithCpu(backend, 'hello', hello, helloRequests, measured);
    const mix = shuffle(requests);
    const cold = await mixedLoad(api.url, mix, warm);
    const before = await dayCacheReads(api.url);
    const load = await loadWithCpu(backend, 'API', api, mix, measured);
    const after = await dayCacheReads(api.url);
    const written = await loadWithCpu(backend, 'API', api, shuffle(writes), measured);
    process.stderr.write(
      ` [CPU per request: the mix ${load.cpu.text}; writes alone ${written.cpu.text}; hello-world ${base.cpu.text}]`,
    );
    const hits = after.hit - before.hit;
    const reads = hits + after.miss - before.miss;
    return [
      ratioRow(
        'app-mixed',
        `${USERS} users, the whole-app mix, 32 connections, req/s`,
        load.rps,
        'req/s',
        base.rps,
        0.15,
      ),
      maxRow('app-mixed', 'p99 under that load', load.p99, 'ms', 50, base.p99),
      ...warmUpRows('app-mixed', warm, cold, base.rps),
      reported(ratioRow('app-mixed', `diary writes alone, ${USERS} users, req/s`, written.rps, 'req/s', base.rps, 0)),
      reported(maxRow('app-mixed', 'p99 of those writes', written.p99, 'ms', 0)),
      reported(
        ratioRow(
          'app-mixed',
          'CPU per request of the mix (API, PostgreSQL, load client; baseline: hello-world)',
          load.cpu.total,
          'ms',
          base.cpu.total,
          0,
        ),
      ),
      reported(ratioRow('app-mixed', 'CPU per diary write alone', written.cpu.total, 'ms', base.cpu.total, 0)),
      {
        id: 'app-mixed',
        figure: 'diary day cache hit rate under that load',
        value: Math.round((hits / Math.max(1, reads)) * 1000) / 10,
        unit: '%',
        baseline: null,
        ratio: null,
        goal: 'reported (no goal)',
        met: null,
      },
    ];
  } finally {
    await close();
    await api.stop();
    await hello.stop();
  }
}

async function dayCacheReads(url: string): Promise<{ hit: number; miss: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const count = (result: string) =>
    Number(new RegExp(`diary_day_cache_reads_total\\{result="${result}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
  return { hit: count('hit'), miss: count('miss') };
}
