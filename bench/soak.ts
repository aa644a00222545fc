import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { fakeJpeg } from '../apps/api/test/processes.ts';
import { json, login, root, rssKiB, startProcess } from './lib.ts';

export interface SoakReport {
  seconds: number;
  requests: number;
  errors: string[];
  streamsOpened: number;
  jobsSubmitted: number;
  jobsUnfinished: number;
  apiRssStartMiB: number;
  apiRssEndMiB: number;
  openStreamsAfter: number;
}

/**
 * A bounded mixed load on loopback: reads, writes and photo uploads from several users, plus open SSE streams, for a
 * fixed time; then every job must be finished, no request may have failed, the API's memory must not have kept
 * growing and no stream may be left open.
 */
export async function soak(
  databaseUrl: string,
  opts: { seconds: number; streams: number; users: number },
): Promise<SoakReport> {
  const env = {
    DATABASE_URL: databaseUrl,
    RATE_LIMIT_PER_MINUTE: '100000000',
    RATE_LIMIT_MODEL_PER_MINUTE: '100000000',
  };
  const api = await startProcess(`${root}apps/api/src/main.ts`, env, '/health');
  const dish = await startProcess(
    `${root}apps/dish-worker/src/main.ts`,
    { DATABASE_URL: databaseUrl },
    '/health',
    'HEALTH_PORT',
  );
  const product = await startProcess(
    `${root}apps/product-worker/src/main.ts`,
    { DATABASE_URL: databaseUrl },
    '/health',
    'HEALTH_PORT',
  );
  const errors: string[] = [];
  const jobs: { kind: 'dish' | 'product'; id: string; token: string }[] = [];
  let requests = 0;
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const streams: http.ClientRequest[] = [];
  try {
    const tokens = await Promise.all(Array.from({ length: opts.users }, (_, i) => login(api.url, `soak-${i}`)));
    const [dishRow] = (await json(`${api.url}/dishes?limit=1`, { token: tokens[0]! })).body.items;
    const call = async (
      token: string,
      path: string,
      init: { method?: string; body?: unknown } = {},
      expect = [200, 201, 202, 204],
    ) => {
      requests++;
      const res = await json(`${api.url}${path}`, {
        method: init.method ?? 'GET',
        token,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      }).catch((err: Error) => ({ status: 0, body: err.message }));
      if (!expect.includes(res.status))
        errors.push(`${init.method ?? 'GET'} ${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 120)}`);
      return res;
    };
    const openStream = (job: { kind: string; id: string; token: string }) => {
      const path = job.kind === 'dish' ? `/ai/jobs/${job.id}/stream` : `/ai/product-jobs/${job.id}/stream`;
      const req = http.get(`${api.url}${path}`, { agent, headers: { authorization: `Bearer ${job.token}` } }, (res) => {
        if (res.statusCode !== 200) errors.push(`stream ${path}: ${res.statusCode}`);
        res.resume();
      });
      req.on('error', (err) => errors.push(`stream ${path}: ${err.message}`));
      streams.push(req);
    };

    const warm = Date.now() + 2000;
    const end = Date.now() + opts.seconds * 1000;
    let rssStart = 0;
    const today = new Date().toISOString().slice(0, 10);
    await Promise.all(
      tokens.map(async (token, u) => {
        for (let i = 0; Date.now() < end; i++) {
          if (!rssStart && Date.now() > warm) rssStart = rssKiB(api.child.pid!);
          switch (i % 8) {
            case 0:
              await call(token, `/diary?date=${today}`);
              break;
            case 1:
              await call(token, `/products/search?q=${['milk', 'bread', 'гречка', 'käse'][i % 4]}`);
              break;
            case 2:
              await call(token, '/diary', {
                method: 'POST',
                body: { date: today, meal_type: 'lunch', dish_id: dishRow.id },
              });
              break;
            case 3:
              await call(token, '/user-products', {
                method: 'POST',
                body: { name: `Item ${i}`, quantity: 1, unit_code: 'piece' },
              });
              break;
            case 4: {
              const res = await call(token, '/ai/recognize-dish', {
                method: 'POST',
                body: {
                  image: { content_type: 'image/jpeg', data_base64: fakeJpeg(u * 1000 + i, 512).toString('base64') },
                },
              });
              if (res.status === 202) jobs.push({ kind: 'dish', id: res.body.job_id, token });
              break;
            }
            case 5: {
              const res = await call(token, '/ai/recognize-products', {
                method: 'POST',
                body: {
                  images: [
                    { content_type: 'image/jpeg', data_base64: fakeJpeg(u * 1000 + i + 7, 512).toString('base64') },
                  ],
                },
              });
              if (res.status === 202) jobs.push({ kind: 'product', id: res.body.job_id, token });
              break;
            }
            case 6:
              await call(token, '/profile');
              break;
            default:
              await call(token, '/dishes/search?q=borsch');
          }
          // Keep the configured number of streams open on the jobs submitted so far.
          while (streams.length < opts.streams && streams.length < jobs.length) openStream(jobs[streams.length]!);
        }
      }),
    );
    // Streams end by themselves once their jobs finish; wait for every job to be done.
    const deadline = Date.now() + 60_000;
    let unfinished = jobs.length;
    while (Date.now() < deadline) {
      unfinished = 0;
      for (const job of jobs) {
        const res = await json(`${api.url}/ai/${job.kind === 'dish' ? 'jobs' : 'product-jobs'}/${job.id}`, {
          token: job.token,
        });
        if (!['done', 'failed'].includes(res.body?.status)) unfinished++;
      }
      if (unfinished === 0) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    await new Promise((r) => setTimeout(r, 1000));
    const metrics = await fetch(`${api.url}/metrics`).then((r) => r.text());
    const openAfter = Number(/^sse_open_streams (\d+)/m.exec(metrics)?.[1] ?? -1);
    return {
      seconds: opts.seconds,
      requests,
      errors,
      streamsOpened: streams.length,
      jobsSubmitted: jobs.length,
      jobsUnfinished: unfinished,
      apiRssStartMiB: Math.round(rssStart / 1024),
      apiRssEndMiB: Math.round(rssKiB(api.child.pid!) / 1024),
      openStreamsAfter: openAfter,
    };
  } finally {
    for (const s of streams) s.destroy();
    agent.destroy();
    await Promise.all([api.stop(), dish.stop(), product.stop()]);
  }
}

/** `pnpm soak [seconds]`: the long form, on its own embedded PostgreSQL. */
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const postgres = (await import('postgres')).default;
  const { startEmbeddedPostgres } = await import('@nutrition/db');
  const { prepareDatabase } = await import('../apps/api/src/setup.ts');
  const dir = await mkdtemp(join(tmpdir(), 'nutrition-soak-'));
  const pg = await startEmbeddedPostgres({ dataDir: join(dir, 'data'), persistent: false });
  try {
    const admin = postgres(pg.url(), { max: 1, onnotice: () => {} });
    await admin`CREATE DATABASE soak`;
    await admin.end();
    await prepareDatabase(pg.url('soak'));
    const report = await soak(pg.url('soak'), { seconds: Number(process.argv[2] ?? 180), streams: 500, users: 20 });
    console.log(
      JSON.stringify({ ...report, errors: report.errors.slice(0, 20), errorCount: report.errors.length }, null, 2),
    );
    process.exitCode = report.errors.length || report.jobsUnfinished || report.openStreamsAfter ? 1 : 0;
  } finally {
    await pg.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
