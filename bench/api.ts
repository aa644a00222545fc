import { autocannon, json, login, ratioRow, startProcess, root, type Row } from './lib.ts';

/** Authenticated GET /diary with 20 entries and GET /profile, against Fastify hello-world. */
export async function apiBench(databaseUrl: string, seconds: number): Promise<Row[]> {
  const hello = await startProcess(`${root}bench/hello.ts`, {}, /hello ready/);
  const api = await startProcess(
    `${root}apps/api/src/main.ts`,
    { DATABASE_URL: databaseUrl, RATE_LIMIT_PER_MINUTE: '100000000' },
    '/health',
  );
  try {
    const token = await login(api.url, 'bench-api');
    const [dish] = (await json(`${api.url}/dishes?limit=1`, { token })).body.items;
    const date = new Date().toISOString().slice(0, 10);
    for (let i = 0; i < 20; i++) {
      await json(`${api.url}/diary`, {
        method: 'POST',
        token,
        body: JSON.stringify({ date, meal_type: 'lunch', dish_id: dish.id, portions: 1 + (i % 3) }),
      });
    }
    const headers = { authorization: `Bearer ${token}`, 'accept-language': 'en' };
    const base = await autocannon(`${hello.url}/`, { seconds, connections: 50 });
    const diary = await autocannon(`${api.url}/diary?date=${date}`, { seconds, connections: 50, headers });
    const profile = await autocannon(`${api.url}/profile`, { seconds, connections: 50, headers });
    return [
      ratioRow('api', 'GET /diary (20 entries) req/s', diary.rps, 'req/s', base.rps, 0.25),
      ratioRow('api', 'GET /profile req/s', profile.rps, 'req/s', base.rps, 0.25),
    ];
  } finally {
    await api.stop();
    await hello.stop();
  }
}
