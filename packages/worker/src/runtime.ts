import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { modelProblems } from '@nutrition/ai';
import { createDatabase, databaseAnswers, type Sql } from '@nutrition/db';
import { recognitionRepository } from '@nutrition/db/repositories';
import { createBoss, ensureQueues, type RecognitionJobData, type RecognitionKind } from './queues.ts';
import { startWorkerLoop, type JobOutcome } from './worker-loop.ts';
import { workerMetrics } from './metrics.ts';

export interface WorkerSettings {
  databaseUrl: string;
  concurrency: number;
  healthPort: number;
  /** Address of the health server: 0.0.0.0 in production, 127.0.0.1 otherwise, unless HOST says. */
  host: string;
  imageRetentionDays: number;
  logLevel: string;
  /** pg-boss supervision (expired heartbeats, retries) interval. */
  superviseSeconds: number;
}

/** Every variable a worker reads (its own settings and the model's). */
export const WORKER_ENV = [
  'DATABASE_URL', 'WORKER_CONCURRENCY', 'HEALTH_PORT', 'HOST', 'IMAGE_RETENTION_DAYS', 'LOG_LEVEL', 'QUEUE_SUPERVISE_SECONDS',
  'NODE_ENV', 'MODEL_PROVIDER', 'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_MODEL', 'OPENAI_MODEL_RECOMMENDATIONS', 'OPENAI_MODEL_MENU',
  'OPENAI_MODEL_ESTIMATE', 'OPENAI_MODEL_VISION', 'MODEL_TIMEOUT_MS',
] as const;

/** Worker settings from the environment, each checked with a clear message. */
export function workerSettings(env: Record<string, string | undefined> = process.env): WorkerSettings {
  const problems: string[] = [];
  const int = (name: string, fallback: number, min: number, max: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) problems.push(`${name}: must be an integer from ${min} to ${max}`);
    return n;
  };
  const settings = {
    databaseUrl: env.DATABASE_URL ?? '',
    concurrency: int('WORKER_CONCURRENCY', 5, 1, 100),
    healthPort: int('HEALTH_PORT', 0, 0, 65535),
    host: env.HOST || (env.NODE_ENV === 'production' ? '0.0.0.0' : '127.0.0.1'),
    imageRetentionDays: int('IMAGE_RETENTION_DAYS', 30, 1, 3650),
    logLevel: env.LOG_LEVEL ?? 'info',
    superviseSeconds: int('QUEUE_SUPERVISE_SECONDS', 2, 1, 3600),
  };
  if (!settings.databaseUrl) problems.push('DATABASE_URL: required');
  if (env.MODEL_PROVIDER && !['openai', 'offline'].includes(env.MODEL_PROVIDER)) problems.push('MODEL_PROVIDER: openai or offline');
  problems.push(...modelProblems(env));
  if (problems.length) throw new Error(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return settings;
}

export type JobHandler = (data: RecognitionJobData, signal: AbortSignal) => Promise<JobOutcome>;

/**
 * Runs a recognition worker process: the paid-first fetch loop, pg-boss supervision, a small health endpoint for
 * probes, hourly purging of old photos, and graceful shutdown on SIGTERM/SIGINT (stop taking jobs, finish or release
 * the ones in hand, exit within a bound).
 */
export async function runWorker(kind: RecognitionKind, makeHandler: (sql: Sql, log: pino.Logger) => JobHandler, settings = workerSettings()) {
  const log = pino({ name: `${kind}-worker`, level: settings.logLevel });
  // A stray rejection (a metrics read, a timer's query during a database outage) is logged; it must not end a worker
  // whose jobs are otherwise fine.
  process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection'));
  // A worker's commits do not wait for the disk. What a database crash could take back (the last fraction of a
  // second of job states, queue completions, stub dishes) is redone: pg-boss hands the job out again and a job still
  // `processing` starts over. Submissions, in the API, stay synchronous.
  const { sql, close } = createDatabase(settings.databaseUrl, {
    max: settings.concurrency + 2,
    applicationName: `nutrition-${kind}-worker`,
    synchronousCommit: false,
  });
  const boss = createBoss(settings.databaseUrl, { supervise: true, intervalSeconds: settings.superviseSeconds, synchronousCommit: false });
  // The loop's fetches, heartbeats and completions: pg-boss's statements, prepared (see queueDatabase), beside
  // pg-boss's own pool for supervision.
  const queue = createDatabase(settings.databaseUrl, { max: 3, applicationName: `nutrition-${kind}-worker-queue`, synchronousCommit: false });
  boss.on('error', (err) => log.error({ err }, 'queue error'));
  await boss.start();
  await ensureQueues(boss);
  const jobs = recognitionRepository(sql);

  const metrics = workerMetrics(sql, kind);
  const loop = startWorkerLoop(boss, queue.sql, {
    kind,
    concurrency: settings.concurrency,
    handle: makeHandler(sql, log),
    giveUp: (data) => jobs.finish(kind, data.jobId, { error: { code: 'worker_lost', message: 'The job was interrupted too many times' } }),
    onAttempt: metrics.attempt,
    log,
  });

  const purge = async () => {
    try {
      const purged = await jobs.purgeImages(settings.imageRetentionDays);
      if (purged) log.info({ purged }, 'old job images purged');
    } catch (err) {
      log.error({ err }, 'image purge failed');
    }
  };
  void purge();
  const purgeTimer = setInterval(purge, 3600_000);

  let draining = false;
  const answer = (res: http.ServerResponse, status: number, type: string, body: string) => {
    res.writeHead(status, { 'content-type': type });
    res.end(body);
  };
  // Every path answers, whatever the database does: /health/live without it (for liveness probes), /health and
  // /metrics 503 while it is down.
  const respond = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.url === '/health/live') return answer(res, 200, 'application/json', JSON.stringify({ status: 'ok', inflight: loop.inflight }));
    if (req.url === '/metrics') {
      const text = await metrics.render().catch((err: unknown) => {
        log.warn({ err }, 'metrics unavailable');
        return null;
      });
      if (text === null) return answer(res, 503, 'application/json', JSON.stringify({ status: 'error', db: 'down' }));
      return answer(res, 200, metrics.contentType, text);
    }
    const dbOk = await databaseAnswers(sql);
    const ok = dbOk && !draining;
    answer(res, ok ? 200 : 503, 'application/json', JSON.stringify({ status: ok ? 'ok' : 'error', db: dbOk ? 'ok' : 'down', draining, inflight: loop.inflight }));
  };
  const health = http.createServer((req, res) => {
    respond(req, res).catch((err: unknown) => {
      log.error({ err }, 'health request failed');
      if (!res.headersSent) answer(res, 500, 'application/json', JSON.stringify({ status: 'error' }));
    });
  });
  await new Promise<void>((resolve) => health.listen(settings.healthPort, settings.host, resolve));
  log.info({ port: (health.address() as AddressInfo).port, concurrency: settings.concurrency }, `${kind} worker ready`);

  let stopping: Promise<void> | null = null;
  const stop = (signal: string) =>
    (stopping ??= (async () => {
      log.info({ signal }, 'stopping: finishing the jobs in hand');
      draining = true;
      const force = setTimeout(() => process.exit(1), 30_000);
      force.unref();
      clearInterval(purgeTimer);
      await loop.stop(20_000);
      await boss.stop({ graceful: false, close: true });
      health.close();
      await Promise.all([close(), queue.close()]);
      log.info('stopped');
      process.exit(0);
    })());
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  return { stop };
}
