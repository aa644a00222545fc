import t from 'tap';
import { createDatabase } from '@nutrition/db';
import { createTestDatabase } from '@nutrition/db/testing';
import { createBoss, enqueueRecognition, RETRY_LIMIT } from '../src/queues.ts';
import { startWorkerLoop } from '../src/worker-loop.ts';

t.test('a job whose every attempt throws is retried, then taken from the dead-letter queue and given up', async (t) => {
  const db = await createTestDatabase();
  const { sql, close } = createDatabase(db.url, { max: 4 });
  const boss = createBoss(db.url, { supervise: true, intervalSeconds: 1 });
  boss.on('error', () => {});
  await boss.start();
  const attempts: string[] = [];
  const givenUp: string[] = [];
  const loop = startWorkerLoop(boss, sql, {
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
    log: { info: () => {}, error: () => {} },
  });
  t.teardown(async () => {
    await loop.stop(1000);
    await boss.stop({ graceful: false, close: true });
    await close();
    await db.drop();
  });

  await sql.begin((tx) => enqueueRecognition(boss, tx, 'dish', 'free', 'doomed'));
  const until = Date.now() + 30_000;
  while (givenUp.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  t.same(givenUp, ['doomed'], 'given up once');
  t.same(attempts, Array(RETRY_LIMIT + 1).fill('doomed'), 'after the first attempt and every retry');
});
