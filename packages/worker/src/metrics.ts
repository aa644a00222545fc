import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Sql } from '@nutrition/db';
import { DEAD_LETTER_QUEUES, QUEUE_SCHEMA, QUEUES, type RecognitionJobData, type RecognitionKind } from './queues.ts';
import type { JobOutcome } from './worker-loop.ts';

/**
 * Longest the queue-depth read may take. A lock on pgboss.job (VACUUM FULL, REINDEX, a pg-boss schema migration) held
 * a scrape of /metrics, and one statement per scrape, without end; past it the statement is cancelled and the scrape
 * answers 503, as while the database is down (as long as /health's round trip may take).
 */
export const QUEUE_DEPTH_TIMEOUT_MS = 2000;

/** A worker's Prometheus metrics: jobs by kind, plan and outcome, processing time, and the depth of its queues. */
export function workerMetrics(sql: Sql, kind: RecognitionKind) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const processed = new Counter({
    name: 'recognition_jobs_total',
    help: 'Job attempts by kind, plan and outcome (done, failed, skipped, retried)',
    labelNames: ['kind', 'plan', 'outcome'] as const,
    registers: [registry],
  });
  const seconds = new Histogram({
    name: 'recognition_job_seconds',
    help: 'Time to process a job attempt',
    labelNames: ['kind', 'outcome'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 40, 90],
    registers: [registry],
  });
  const names = [...Object.values(QUEUES[kind]), DEAD_LETTER_QUEUES[kind]];
  new Gauge({
    name: 'recognition_queue_depth',
    help: 'Jobs waiting in each queue (created or awaiting retry)',
    labelNames: ['queue'] as const,
    registers: [registry],
    async collect() {
      const query = sql<{ name: string; n: number }[]>`
        SELECT name, count(*)::int AS n FROM ${sql(QUEUE_SCHEMA)}.job
        WHERE name = ANY(${names}) AND state IN ('created', 'retry') GROUP BY name`;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          // Cancelled on the server too, so no statement is left waiting on the lock (or queued for a connection).
          Promise.resolve(query.cancel() as unknown).catch(() => {});
          reject(new Error(`queue depth not read within ${QUEUE_DEPTH_TIMEOUT_MS} ms`));
        }, QUEUE_DEPTH_TIMEOUT_MS);
      });
      let rows: { name: string; n: number }[];
      try {
        rows = await Promise.race([query, late]);
      } finally {
        clearTimeout(timer);
      }
      for (const name of names) this.set({ queue: name }, rows.find((r) => r.name === name)?.n ?? 0);
    },
  });
  return {
    contentType: registry.contentType,
    render: () => registry.metrics(),
    attempt(data: RecognitionJobData, outcome: JobOutcome | 'retried', elapsed: number) {
      processed.inc({ kind: data.kind, plan: data.plan ?? 'free', outcome });
      seconds.observe({ kind: data.kind, outcome }, elapsed);
    },
  };
}
