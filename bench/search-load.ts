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

/**
 * What a search box sends, many users at once: a query per keystroke, so common words and their first letters
 * dominate, then two-word queries, typos and other languages. Weights follow the shape of real search logs (a few
 * head queries make most of the traffic); the words are the dump's commonest (each in about 4 % of names).
 */
const MIX: [string, string, number][] = [
  // [query, language, weight]
  ...['milk', 'chocolate', 'cheese', 'bread', 'yogurt', 'juice', 'chicken', 'coffee', 'rice', 'tea'].map(
    (q, i): [string, string, number] => [q, 'en', 12 - i],
  ),
  ...['mil', 'milk', 'cho', 'choc', 'chee', 'bre', 'brea', 'yog', 'jui', 'chi', 'chic', 'cof', 'ric'].map(
    (q): [string, string, number] => [q, 'en', 5],
  ),
  ...['m', 'mi', 'c', 'ch', 'b', 'br', 'y', 'yo'].map((q): [string, string, number] => [q, 'en', 3]),
  ...['chocolate milk', 'milk choc', 'apple juice', 'green tea', 'organic yog', 'orange juice', 'rice cho'].map(
    (q): [string, string, number] => [q, 'en', 4],
  ),
  ...['chocolte', 'chiken', 'yoghurt', 'chese', 'bred', 'cofee', 'orgnic'].map((q): [string, string, number] => [
    q,
    'en',
    3,
  ]),
  ['молоко', 'ru', 4],
  ['сыр', 'ru', 3],
  ['хлеб', 'ru', 3],
  ['мол', 'ru', 2],
  ['Milch', 'de', 3],
  ['Käse', 'de', 2],
  ['kase', 'de', 2],
  ['lait', 'fr', 2],
  ['fromage', 'fr', 2],
  ['leche', 'es', 2],
  ['mleko', 'pl', 2],
];

/**
 * `search-load`: /products/search under 32 connections over the imported catalog, against hello-world; once as
 * deployed (answers asked again within a minute come from the process's search cache) and once with the cache off,
 * which is what every query costs the database.
 */
export async function searchLoadBench(databaseUrl: string, seconds: number): Promise<Row[]> {
  const hello = await startProcess(`${root}bench/hello.ts`, {}, /hello ready/);
  const connections = 32;
  const { sql, close } = createDatabase(databaseUrl, { max: 1 });
  try {
    const backend = (await sql<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`)[0]!.pid;
    const measured = { seconds, connections };
    // Each server warms up on its own load first (here each connection prepares each shape of search); the API's
    // warm-up is reported.
    const warm = warmUp(measured);
    const helloRequests = [{ method: 'GET', path: '/', headers: {} }];
    await mixedLoad(hello.url, helloRequests, warm);
    const base = await loadWithCpu(backend, 'hello', hello, helloRequests, measured);
    const rows: Row[] = [];
    for (const cacheMb of ['16', '0']) {
      const api = await startProcess(
        `${root}apps/api/src/main.ts`,
        { DATABASE_URL: databaseUrl, RATE_LIMIT_PER_MINUTE: '100000000', SEARCH_CACHE_MB: cacheMb },
        '/health',
      );
      try {
        const token = await login(api.url, 'bench-search-load');
        // Interleaved rather than in runs, as many users typing at once would send them.
        const queue = shuffle(MIX.flatMap(([q, lang, weight]) => Array.from({ length: weight }, () => ({ q, lang }))));
        const requests: LoadRequest[] = queue.map(({ q, lang }) => ({
          method: 'GET',
          path: `/products/search?q=${encodeURIComponent(q)}`,
          headers: { authorization: `Bearer ${token}`, 'accept-language': lang },
        }));
        const cold = await mixedLoad(api.url, requests, warm);
        const load = await loadWithCpu(backend, 'API', api, requests, measured);
        const label = cacheMb === '0' ? 'search cache off' : 'as deployed';
        rows.push(
          ratioRow('search-load', `typing mix, 32 connections, ${label}, req/s`, load.rps, 'req/s', base.rps, 0.1),
          maxRow('search-load', `p99 under that load, ${label}`, load.p99, 'ms', 50, base.p99),
          ...warmUpRows('search-load', warm, cold, base.rps, label),
        );
        if (cacheMb === '0') {
          // What each query costs the machine: with two cores, 0.10 of hello-world allows about ten times its cost.
          process.stderr.write(
            ` [CPU per request, cache off: ${load.cpu.text}; hello-world ${base.cpu.total.toFixed(3)} ms]`,
          );
          rows.push(
            reported(
              ratioRow(
                'search-load',
                'CPU per search, cache off (API, PostgreSQL, load client; baseline: hello-world)',
                load.cpu.total,
                'ms',
                base.cpu.total,
                0,
              ),
            ),
          );
        }
      } finally {
        await api.stop();
      }
    }
    return rows;
  } finally {
    await hello.stop();
    await close();
  }
}
