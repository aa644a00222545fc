import net from 'node:net';
import t from 'tap';
import { createDatabase } from '@nutrition/db';
import { createTestDatabase } from '@nutrition/db/testing';
import { createBoss, enqueueRecognition, RETRY_LIMIT } from '../src/queues.ts';
import { startWorkerLoop } from '../src/worker-loop.ts';

const quiet = { info: () => {}, error: () => {} };
const until = async (done: () => boolean, ms: number) => {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
};

t.test('a job whose every attempt throws is retried, then taken from the dead-letter queue and given up', async (t) => {
  const db = await createTestDatabase();
  const { sql, close } = createDatabase(db.url, { max: 4 });
  const boss = createBoss(db.url, { supervise: true, intervalSeconds: 1 });
  boss.on('error', () => {});
  await boss.start();
  const attempts: string[] = [];
  const givenUp: string[] = [];
  const loop = startWorkerLoop(boss, () => createDatabase(db.url, { max: 3 }), {
    kind: 'dish',
    concurrency: 2,
    handle: async (data) => {
      attempts.push(data.jobId);
      throw new Error('always');
    },
    giveUp: async (data) => {
      givenUp.push(data.jobId);
    },
    pollMs: 200,
    log: quiet,
  });
  t.teardown(async () => {
    await loop.stop(1000);
    await boss.stop({ graceful: false, close: true });
    await close();
    await db.drop();
  });

  await sql.begin((tx) => enqueueRecognition(boss, tx, 'dish', 'free', 'doomed'));
  await until(() => givenUp.length > 0, 30_000);
  t.same(givenUp, ['doomed'], 'given up once');
  t.same(attempts, Array(RETRY_LIMIT + 1).fill('doomed'), 'after the first attempt and every retry');
});

/**
 * A TCP relay to PostgreSQL whose open connections can be frozen: their bytes are no longer passed on, and nothing
 * closes them, as when a network path or a database host disappears without a word. Later connections pass.
 */
async function relay(target: URL) {
  const open = new Set<{ client: net.Socket; server: net.Socket }>();
  const frozen: net.Socket[] = [];
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    const pair = { client, server: upstream };
    open.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    const drop = () => {
      open.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    freeze() {
      for (const { client, server: upstream } of open) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
        frozen.push(client, upstream);
      }
      open.clear();
    },
    close: () => {
      for (const socket of frozen) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

t.test('queue connections that stop answering without closing: the loop reopens its pool and goes on', async (t) => {
  const db = await createTestDatabase();
  const { sql, close } = createDatabase(db.url, { max: 2 });
  const boss = createBoss(db.url, { supervise: false });
  boss.on('error', () => {});
  await boss.start();
  const path = await relay(new URL(db.url));
  const handled: string[] = [];
  const errors: string[] = [];
  const loop = startWorkerLoop(boss, () => createDatabase(path.url, { max: 3, connectTimeoutMs: 1000 }), {
    kind: 'dish',
    concurrency: 2,
    handle: async (data) => {
      handled.push(data.jobId);
      return 'done';
    },
    giveUp: async () => {},
    pollMs: 200,
    statementTimeoutMs: 1500,
    log: { info: () => {}, error: (_o, message) => errors.push(message) },
  });
  t.teardown(async () => {
    await loop.stop(1000);
    await boss.stop({ graceful: false, close: true });
    await close();
    await path.close();
    await db.drop();
  });

  await sql.begin((tx) => enqueueRecognition(boss, tx, 'dish', 'free', 'before'));
  await until(() => handled.includes('before'), 10_000);
  t.same(handled, ['before'], 'a job is taken through the relay');

  path.freeze();
  await sql.begin((tx) => enqueueRecognition(boss, tx, 'dish', 'free', 'after'));
  await until(() => handled.includes('after'), 15_000);
  t.same(handled, ['before', 'after'], 'the next job is taken over new connections');
  t.ok(errors.includes('a queue statement went unanswered; reopening the queue pool'), 'and the loop says why');
});
