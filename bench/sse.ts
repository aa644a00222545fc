import { spawn } from 'node:child_process';
import { createDatabase } from '@nutrition/db';
import { login, maxRow, percentile, root, rssKiB, startProcess, type Row, type Proc } from './lib.ts';

/** Connections committing the burst's changes, as two busy workers would. */
const WRITERS = 2;

async function measure(
  server: Proc,
  url: string,
  token: string,
  ids: string[],
  change: (id: string) => Promise<unknown>,
) {
  const before = rssKiB(server.child.pid!);
  const client = spawn(process.execPath, [`${root}bench/sse-client.ts`], { stdio: ['pipe', 'pipe', 'inherit'] });
  // Listened for from the start: the client can exit (every stream has its event) before the burst's last commit
  // returns, and a listener added after that waited forever (a CI run's quick bench hung here for 90 minutes).
  const exited = new Promise((r) => client.on('exit', r));
  client.stdin.end(JSON.stringify({ url, token, ids }));
  let out = '';
  client.stdout.on('data', (d) => (out += d));
  while (!out.includes('ready')) {
    if (client.exitCode !== null) throw new Error('SSE client failed');
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 500));
  const perStreamKiB = (rssKiB(server.child.pid!) - before) / ids.length;
  // Each change is its own transaction, committed as fast as the writers go; its delay runs from just before it.
  const sent: Record<string, number> = {};
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (next < ids.length) {
        const id = ids[next++]!;
        sent[id] = Date.now();
        await change(id);
      }
    }),
  );
  const burstMs = Date.now() - started;
  await exited;
  const { second } = JSON.parse(out.trim().split('\n').at(-1)!) as { second: Record<string, number> };
  return { perStreamKiB, burstMs, delays: ids.map((id) => second[id]! - sent[id]!) };
}

/**
 * N concurrent job streams on one API process, then a burst in which every job changes status once (each change its
 * own commit), against bare node:http writing each notification to its socket.
 */
export async function sseBench(databaseUrl: string, streams: number): Promise<Row[]> {
  // The writers commit as the workers do (synchronous_commit off; see the worker runtime).
  const { sql, close } = createDatabase(databaseUrl, { max: WRITERS, synchronousCommit: false });
  const api = await startProcess(
    `${root}apps/api/src/main.ts`,
    { DATABASE_URL: databaseUrl, RATE_LIMIT_PER_MINUTE: '100000000' },
    '/health',
  );
  const bare = await startProcess(`${root}bench/sse-bare.ts`, { DATABASE_URL: databaseUrl }, /bare ready/);
  try {
    const token = await login(api.url, 'bench-sse');
    const [user] = await sql<{ id: string }[]>`SELECT id FROM users WHERE external_subject = 'bench-sse'`;
    const ids = (
      await sql<{ id: string }[]>`
      INSERT INTO dish_recognition_jobs (user_id) SELECT ${user!.id} FROM generate_series(1, ${streams}) RETURNING id`
    ).map((r) => r.id);
    const ours = await measure(
      api,
      `${api.url}/ai/jobs/{id}/stream`,
      token,
      ids,
      (id) => sql`UPDATE dish_recognition_jobs SET status = 'processing', updated_at = now() WHERE id = ${id}`,
    );
    const base = await measure(
      bare,
      `${bare.url}/{id}`,
      token,
      ids,
      (id) => sql`SELECT pg_notify('bench_bare', ${id})`,
    );
    const spread = (d: number[]) => [50, 90, 95, 99, 100].map((p) => percentile(d, p)).join('/');
    process.stderr.write(
      ` [burst: ${ours.burstMs} ms ours, ${base.burstMs} ms bare; ` +
        `p50/90/95/99/max ${spread(ours.delays)} vs ${spread(base.delays)} ms]`,
    );
    return [
      maxRow(
        'sse',
        `delivery p99, ${streams.toLocaleString('en')} streams, each changing status once`,
        percentile(ours.delays, 99),
        'ms',
        20,
        percentile(base.delays, 99),
      ),
      {
        ...maxRow(
          'sse',
          'memory per open stream',
          ours.perStreamKiB,
          'KiB',
          2.5 * base.perStreamKiB,
          base.perStreamKiB,
        ),
        goal: '<= 2.5 x baseline',
        met: ours.perStreamKiB <= 2.5 * Math.max(base.perStreamKiB, 1),
      },
    ];
  } finally {
    await bare.stop();
    await api.stop();
    await close();
  }
}
