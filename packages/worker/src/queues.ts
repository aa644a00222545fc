import type postgres from 'postgres';
import { PgBoss } from 'pg-boss';
import type { Queryable } from '@nutrition/db';

import type { Plan, RecognitionKind } from '@nutrition/domain';
import { SUBMITTED_CHANNEL } from '@nutrition/db/repositories';

export type { Plan, RecognitionKind };
export { SUBMITTED_CHANNEL };

/** A paid and a free queue per kind: workers always drain the paid one first. */
export const QUEUES: Record<RecognitionKind, Record<Plan, string>> = {
  dish: { paid: 'dish-recognition-paid', free: 'dish-recognition-free' },
  product: { paid: 'product-recognition-paid', free: 'product-recognition-free' },
};
/** Jobs whose workers kept dying: the kind's worker marks them failed so no job stays `processing` forever. */
export const DEAD_LETTER_QUEUES: Record<RecognitionKind, string> = {
  dish: 'dish-recognition-dead',
  product: 'product-recognition-dead',
};

export interface RecognitionJobData {
  jobId: string;
  kind: RecognitionKind;
  plan: Plan;
}

export const QUEUE_SCHEMA = 'pgboss';

/**
 * Retry, expiry and dead-letter settings: a worker that dies mid-job stops sending heartbeats, so after
 * `HEARTBEAT_SECONDS` the job is retried by another worker; a job that fails that way `RETRY_LIMIT` + 1 times goes to
 * the dead-letter queue. Model errors are not retried: the worker records them as a failed job.
 */
export const HEARTBEAT_SECONDS = 10;
export const RETRY_LIMIT = 2;
export const EXPIRE_SECONDS = 600;

/**
 * pg-boss's per-job statements (send, fetch, touch, complete, fail: each a single statement, given through pg-boss's
 * per-call `db` option) as named prepared statements on a postgres.js pool or transaction. pg-boss's own pool sends
 * every statement unnamed, so PostgreSQL plans it again each time: its fetch, insert and complete spent longer in
 * planning than in running (0.3-0.5 ms against 0.2-0.35 ms a call). Their texts are few (the fetch inlines its
 * queue name and batch size), so each connection keeps a handful. Supervision and maintenance stay on pg-boss's pool.
 */
export function queueDatabase(db: Queryable) {
  return {
    executeSql: async (text: string, values: unknown[] = []) => ({
      // simple: false (untyped, but postgres.js reads it): else a text without parameters (the fetch) goes as a simple
      // query, never prepared.
      rows: await db.unsafe(
        text,
        values.map(asParameter) as never[],
        { prepare: true, simple: false } as postgres.UnsafeQueryOptions,
      ),
    }),
  };
}

/** Objects go as JSON text, as node-postgres (pg-boss's own driver) sends them: a failed job's error, for one. */
const asParameter = (value: unknown) =>
  value !== null &&
  typeof value === 'object' &&
  !Array.isArray(value) &&
  !(value instanceof Date) &&
  !Buffer.isBuffer(value)
    ? JSON.stringify(value)
    : value;

export function createBoss(
  url: string,
  options: { supervise: boolean; max?: number; intervalSeconds?: number; synchronousCommit?: boolean },
) {
  const interval = options.intervalSeconds ?? 2;
  return new PgBoss({
    connectionString: url,
    schema: QUEUE_SCHEMA,
    max: options.max ?? 4,
    application_name: options.supervise ? 'nutrition-worker-queue' : 'nutrition-api-queue',
    supervise: options.supervise,
    schedule: false,
    superviseIntervalSeconds: interval,
    monitorIntervalSeconds: interval,
    ...(options.synchronousCommit === false ? { options: '-c synchronous_commit=off' } : {}),
  });
}

/** Creates the queues (idempotent). */
export async function ensureQueues(boss: PgBoss): Promise<void> {
  const existing = new Set((await boss.getQueues()).map((q) => q.name));
  for (const kind of ['dish', 'product'] as const) {
    const deadLetter = DEAD_LETTER_QUEUES[kind];
    if (!existing.has(deadLetter)) await boss.createQueue(deadLetter, { retryLimit: RETRY_LIMIT });
    for (const name of Object.values(QUEUES[kind])) {
      if (existing.has(name)) continue;
      await boss.createQueue(name, {
        retryLimit: RETRY_LIMIT,
        retryDelay: 1,
        expireInSeconds: EXPIRE_SECONDS,
        heartbeatSeconds: HEARTBEAT_SECONDS,
        deadLetter,
      });
    }
  }
}

/** Installs pg-boss's schema and the queues; run by the migrate command so every process finds them. */
export async function setupQueues(url: string): Promise<void> {
  const boss = createBoss(url, { supervise: false, max: 1 });
  boss.on('error', () => {});
  await boss.start();
  try {
    await ensureQueues(boss);
  } finally {
    await boss.stop({ graceful: false, close: true });
  }
}

/**
 * Sends the queue job inside the caller's transaction (pg-boss's `db` option), so the job row, its images and the
 * queue entry commit together or not at all. (The job row's statement NOTIFYs idle workers; see the repository.)
 */
export async function enqueueRecognition(
  boss: PgBoss,
  tx: Queryable,
  kind: RecognitionKind,
  plan: Plan,
  jobId: string,
) {
  await boss.send(QUEUES[kind][plan], { jobId, kind, plan } satisfies RecognitionJobData, { db: queueDatabase(tx) });
}
