import { json, login, maxRow, percentile, root, startProcess, type Row } from './lib.ts';

/** Week menu and shopping-list generation on the offline model. */
export async function menuBench(databaseUrl: string, runs: number): Promise<Row[]> {
  const api = await startProcess(`${root}apps/api/src/main.ts`, { DATABASE_URL: databaseUrl, RATE_LIMIT_MODEL_PER_MINUTE: '100000000' }, '/health');
  try {
    const token = await login(api.url, 'bench-menu');
    await json(`${api.url}/profile`, { method: 'PUT', token, body: JSON.stringify({ sex: 'female', weight_kg: 65, height_cm: 168, date_of_birth: '1990-01-01', activity_level: 'moderate', goal: 'maintain' }) });
    const menu: number[] = [];
    const shopping: number[] = [];
    for (let i = 0; i < runs; i++) {
      const week = new Date(Date.UTC(2027, 0, 4 + 7 * i)).toISOString().slice(0, 10);
      let t = performance.now();
      const generated = await json(`${api.url}/ai/generate-menu`, { method: 'POST', token, body: JSON.stringify({ week_start: week }) });
      menu.push(performance.now() - t);
      if (generated.status !== 200) throw new Error(`generate-menu answered ${generated.status}`);
      t = performance.now();
      await json(`${api.url}/shopping-list/generate`, { method: 'POST', token, body: JSON.stringify({ week_start: week }) });
      shopping.push(performance.now() - t);
    }
    return [
      maxRow('menu', 'week menu generation (offline model), median', percentile(menu, 50), 'ms', 200),
      maxRow('menu', 'shopping list generation, median', percentile(shopping, 50), 'ms', 200),
    ];
  } finally {
    await api.stop();
  }
}
