import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Sql } from '@nutrition/db';
import { DEAD_LETTER_QUEUES, QUEUE_SCHEMA, QUEUES, type RecognitionJobData, type RecognitionKind } from './queues.ts';
import type { JobOutcome } from './worker-loop.ts';

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
      const rows = await sql<{ name: string; n: number }[]>`
        SELECT name, count(*)::int AS n FROM ${sql(QUEUE_SCHEMA)}.job
        WHERE name = ANY(${names}) AND state IN ('created', 'retry') GROUP BY name`;
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
