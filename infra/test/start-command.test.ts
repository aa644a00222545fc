import t from 'tap';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { freePort, startEmbeddedPostgres } from '@nutrition/db';
import { api, fakeJpeg, imageJson, loginOver } from '../../apps/api/test/processes.ts';
import { fakeOpenAi } from '../../packages/ai/test/fake-openai.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

t.setTimeout(180_000);

/**
 * `pnpm start` as a terminal runs it: in a process group of its own, stopped by Ctrl-C, which the terminal sends to
 * every process of the group at once. Before, the embedded PostgreSQL got it too and shut down at once, while the apps
 * were still finishing: their last statements failed ("terminating connection due to administrator command").
 */
t.test('Ctrl-C on pnpm start: a photo being recognised is finished and kept, then the database stops', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'nutrition-start-'));
  const dataDir = join(dir, 'postgres');
  // The model answers slowly, so the dish worker has the job in hand when Ctrl-C comes.
  const dish = JSON.stringify({ dishes: [{ name: 'Borscht', portion_g: 350, portions: 1, confidence: 0.9 }] });
  const model = await fakeOpenAi(() => ({ delayMs: 2_000, content: dish }));
  const [pgPort, apiPort] = [await freePort(), await freePort()];
  // tap's loaders (NODE_OPTIONS) stay out of the service's processes; without DATABASE_URL it starts its own server.
  const { NODE_OPTIONS: _, DATABASE_URL: __, ...env } = process.env;
  const service = spawn(process.execPath, ['scripts/start.ts'], {
    cwd: root,
    detached: true,
    env: {
      ...env,
      EMBEDDED_POSTGRES_DIR: dataDir,
      EMBEDDED_POSTGRES_PORT: String(pgPort),
      PORT: String(apiPort),
      OPENAI_API_KEY: 'k',
      OPENAI_BASE_URL: model.baseUrl,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  service.stdout!.on('data', (d) => (output += d));
  service.stderr!.on('data', (d) => (output += d));
  const exited = once(service, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  t.teardown(async () => {
    if (service.exitCode === null && service.signalCode === null) process.kill(-service.pid!, 'SIGKILL');
    // A server left behind by a failed run is stopped through its pid file.
    const pid = await readFile(join(dataDir, 'postmaster.pid'), 'utf8').catch(() => null);
    if (pid) process.kill(Number(pid.split('\n')[0]), 'SIGQUIT');
    await model.close();
    await rm(dir, { recursive: true, force: true });
  });

  const url = `http://127.0.0.1:${apiPort}`;
  const ready = () => /Server listening/.test(output) && output.match(/worker ready/g)?.length === 2;
  for (const started = Date.now(); !ready(); await new Promise((r) => setTimeout(r, 100))) {
    if (service.exitCode !== null || Date.now() - started > 120_000) throw new Error(`did not start:\n${output}`);
  }
  const token = await loginOver(url, 'start-user');
  const accepted = await api(url, token, 'POST', '/ai/recognize-dish', { image: imageJson(fakeJpeg(1)) });
  t.equal(accepted.status, 202);
  for (const started = Date.now(); model.requests.length === 0; await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() - started > 20_000) throw new Error(`the worker never asked the model:\n${output}`);
  }

  process.kill(-service.pid!, 'SIGINT');
  const [code] = await exited;
  t.equal(code, 0, 'exits cleanly');
  t.equal(output.match(/"msg":"stopped"/g)?.length, 3, 'the API and both workers stopped on their own');
  t.notMatch(output, /terminating connection|DatabaseError/, 'no app lost its database while stopping');
  t.match(output, /\[start\] stopping/);

  // The server stopped with the service, and the job's result was saved before it did.
  const pg = await startEmbeddedPostgres({ dataDir, port: await freePort() });
  const sql = postgres(pg.url('nutrition'), { max: 1, onnotice: () => {} });
  try {
    const [job] = await sql`SELECT status, result FROM dish_recognition_jobs WHERE id = ${accepted.body.job_id}`;
    t.equal(job?.status, 'done', 'the job in hand at Ctrl-C finished');
    t.match(job?.result, { dishes: [{ name: 'Borscht' }] });
  } finally {
    await sql.end();
    await pg.stop();
  }
});
