import postgres from 'postgres';
import { json, login, maxRow, percentile, root, startProcess, timedGet, type Row } from './lib.ts';

/**
 * An app's sync pull for a user with a year of diary (three entries a day, 1,095 rows) and a full pantry: from an
 * empty cursor (everything, in pages of 500, as `has_more` asks) and from the cursor of the pull before, after one
 * change (an app coming back to the foreground). Other users' rows fill the feed around the user's.
 */
export async function syncBench(databaseUrl: string, runs: number): Promise<Row[]> {
  const api = await startProcess(`${root}apps/api/src/main.ts`, { DATABASE_URL: databaseUrl }, '/health');
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const token = await login(api.url, 'bench-sync');
    const others = await Promise.all(Array.from({ length: 20 }, (_, i) => login(api.url, `bench-sync-other-${i}`)));
    const [milk] = await sql`SELECT id FROM products WHERE code = 'milk'`;
    await sql`
      INSERT INTO meal_diary (user_id, date, meal_type, product_id, portion_g)
      SELECT u.id, DATE '2026-01-01' + d, m, ${milk!.id}, 100 + d
      FROM users u, generate_series(0, 364) d, unnest(ARRAY['breakfast', 'lunch', 'dinner']) m
      WHERE u.external_subject LIKE 'bench-sync%'`;
    await sql`
      INSERT INTO user_products (user_id, product_id, quantity, unit_code, storage_days)
      SELECT u.id, ${milk!.id}, i, 'l', 7 FROM users u, generate_series(1, 40) i
      WHERE u.external_subject LIKE 'bench-sync%'`;
    await sql`VACUUM (ANALYZE) sync_changes`;
    const headers = { authorization: `Bearer ${token}` };

    const pullAll = async (from?: string) => {
      let cursor = from;
      let rows = 0;
      for (;;) {
        const res = await timedGet(`${api.url}/sync?limit=500${cursor ? `&cursor=${cursor}` : ''}`, headers);
        if (res.status !== 200) throw new Error(`sync answered ${res.status}`);
        for (const change of Object.values<{ upserted: unknown[] }>(res.body.changes)) rows += change.upserted.length;
        cursor = res.body.cursor;
        if (!res.body.has_more) return { cursor: cursor!, rows };
      }
    };
    const full: number[] = [];
    let cursor = '';
    let rows = 0;
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      ({ cursor, rows } = await pullAll());
      full.push(performance.now() - t);
    }
    if (rows < 1_000) throw new Error(`the first pull brought ${rows} rows`);
    const recent: number[] = [];
    for (let i = 0; i < runs * 20; i++) {
      await json(`${api.url}/diary`, {
        method: 'POST',
        token: i % 2 ? token : others[i % others.length]!,
        body: JSON.stringify({ date: '2026-11-25', meal_type: 'snack', product_id: milk!.id, portion_g: 10 }),
      });
      const t = performance.now();
      const res = await pullAll(cursor);
      recent.push(performance.now() - t);
      cursor = res.cursor;
    }
    return [
      maxRow('sync', `first pull, everything (${rows} rows in pages of 500), median`, percentile(full, 50), 'ms', 1000),
      maxRow('sync', 'pull from a recent cursor after one change, median', percentile(recent, 50), 'ms', 5),
    ];
  } finally {
    await sql.end();
    await api.stop();
  }
}
