import { PgBoss } from 'pg-boss';
import { createDatabase } from '@nutrition/db';
import { QUEUE_SCHEMA } from '@nutrition/worker';
import {
  cpuPerUnit,
  cpuTimes,
  json,
  login,
  maxRow,
  percentile,
  ratioRow,
  reported,
  root,
  startProcess,
  type Row,
} from './lib.ts';
import { fakeJpeg } from '../apps/api/test/processes.ts';

const CONCURRENCY = 5;

/**
 * Bare pg-boss: the same number of no-op jobs consumed by the same number of loops, each fetching and completing one
 * job at a time with no pause (pg-boss's own work() waits a polling interval between fetches).
 */
async function bareConsume(url: string, jobs: number): Promise<{ rate: number; cpuMsPerJob: number }> {
  const boss = new PgBoss({
    connectionString: url,
    schema: QUEUE_SCHEMA,
    supervise: false,
    schedule: false,
    max: CONCURRENCY + 2,
  });
  boss.on('error', () => {});
  await boss.start();
  await boss.createQueue('bench-bare').catch(() => {});
  await boss.insert(
    'bench-bare',
    Array.from({ length: jobs }, (_, i) => ({ data: { i } })),
  );
  const [{ pid }] = (await boss.getDb().executeSql('SELECT pg_backend_pid() AS pid')).rows as [{ pid: number }];
  const cpuBefore = cpuTimes(pid);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (;;) {
        const [job] = await boss.fetch('bench-bare');
        if (!job) return;
        await boss.complete('bench-bare', job.id);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuMsPerJob = cpuPerUnit(cpuBefore, cpuTimes(pid), jobs).total;
  await boss.stop({ graceful: false, close: true });
  return { rate: jobs / seconds, cpuMsPerJob };
}

/** Dish jobs submitted over HTTP, recognised by a worker process with the offline (instant) model. */
export async function queueBench(databaseUrl: string, jobs: number, pickups: number): Promise<Row[]> {
  const { rate: bare, cpuMsPerJob: bareCpuMs } = await bareConsume(databaseUrl, jobs);
  const { sql, close } = createDatabase(databaseUrl, { max: 2 });
  const api = await startProcess(
    `${root}apps/api/src/main.ts`,
    { DATABASE_URL: databaseUrl, RATE_LIMIT_PER_MINUTE: '100000000', RATE_LIMIT_MODEL_PER_MINUTE: '100000000' },
    '/health',
  );
  const worker = await startProcess(
    `${root}apps/dish-worker/src/main.ts`,
    { DATABASE_URL: databaseUrl, WORKER_CONCURRENCY: String(CONCURRENCY), LOG_LEVEL: 'info' },
    '/health',
    'HEALTH_PORT',
  );
  try {
    const token = await login(api.url, 'bench-queue');
    const [user] = await sql<{ id: string }[]>`SELECT id FROM users WHERE external_subject = 'bench-queue'`;
    const image = { content_type: 'image/jpeg', data_base64: fakeJpeg(1, 1024).toString('base64') };
    const body = JSON.stringify({ image });
    // Where the machine's time goes: every process of the run, from the first submission to the last job's end.
    const backend = (await sql<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`)[0]!.pid;
    const servers = { API: api.child.pid!, worker: worker.child.pid! };
    const cpuBefore = cpuTimes(backend, servers);
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next < jobs) {
          next++;
          const res = await json(`${api.url}/ai/recognize-dish`, { method: 'POST', token, body });
          if (res.status !== 202) throw new Error(`submission answered ${res.status}`);
        }
      }),
    );
    const submittedMs = performance.now() - started;
    for (;;) {
      const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM dish_recognition_jobs
        WHERE user_id = ${user!.id} AND status IN ('done', 'failed')`;
      if (row!.n >= jobs) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const endToEnd = jobs / ((performance.now() - started) / 1000);
    const perJob = cpuPerUnit(cpuBefore, cpuTimes(backend, servers), jobs);
    process.stderr.write(
      ` [submitted ${Math.round(jobs / (submittedMs / 1000))} jobs/s; bare ${Math.round(bare)} jobs/s; CPU per job: ` +
        `${perJob.text}, bare ${bareCpuMs.toFixed(2)} ms]`,
    );

    const latencies: number[] = [];
    for (let i = 0; i < pickups; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const { body: accepted } = await json(`${api.url}/ai/recognize-dish`, { method: 'POST', token, body });
      for (;;) {
        const [row] = await sql<{ ms: number | null }[]>`
          SELECT extract(epoch FROM started_at - created_at)::float8 * 1000 AS ms FROM dish_recognition_jobs WHERE id =
            ${accepted.job_id}`;
        if (row?.ms != null) {
          latencies.push(row.ms);
          break;
        }
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    return [
      ratioRow('queue', `${jobs.toLocaleString('en')} dish jobs through API and worker`, endToEnd, 'jobs/s', bare, 0.5),
      maxRow('queue', 'idle worker pick-up p50', percentile(latencies, 50), 'ms', 50),
      reported(
        ratioRow(
          'queue',
          'CPU per job, every process (bare: PostgreSQL and its loop)',
          perJob.total,
          'ms',
          bareCpuMs,
          0,
        ),
      ),
    ];
  } finally {
    await worker.stop();
    await api.stop();
    await close();
  }
}
