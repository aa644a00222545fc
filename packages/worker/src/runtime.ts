import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { MODEL_SETTINGS, modelProblems } from '@nutrition/ai';
import { ConfigError, connectionProblems, defaultHost, listenProblem, loadSettings } from '@nutrition/domain';
import { Type, type Static } from 'typebox';
import { createDatabase, databaseAnswers, type Sql } from '@nutrition/db';
import { recognitionRepository } from '@nutrition/db/repositories';
import { createBoss, ensureQueues, type RecognitionJobData, type RecognitionKind } from './queues.ts';
import { startWorkerLoop, type JobOutcome } from './worker-loop.ts';
import { workerMetrics } from './metrics.ts';

/** A worker's settings: its own and the model's, read through the loader every process shares. */
export const WorkerSettingsSchema = Type.Object({
  NODE_ENV: Type.Union([Type.Literal('development'), Type.Literal('production'), Type.Literal('test')], {
    default: 'development',
  }),
  DATABASE_URL: Type.String({ minLength: 1, description: 'PostgreSQL 18 connection string' }),
  WORKER_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 5,
    description: 'jobs one worker process handles at once',
  }),
  HEALTH_PORT: Type.Integer({
    minimum: 0,
    maximum: 65535,
    default: 0,
    description: 'port of /health/live, /health and /metrics',
  }),
  HOST: Type.String({
    default: '',
    description: 'address of the health server; unset: 0.0.0.0 in production, else 127.0.0.1',
  }),
  IMAGE_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 3650,
    default: 30,
    description: 'uploaded photos older than this are deleted',
  }),
  LOG_LEVEL: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    default: 'info',
    description: 'pino log level',
  }),
  QUEUE_SUPERVISE_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 2,
    description: 'how often pg-boss looks for stopped jobs',
  }),
  QUEUE_STATEMENT_TIMEOUT_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 30,
    description: 'a queue statement unanswered this long fails, and the worker reopens its queue connections',
  }),
  ...MODEL_SETTINGS,
});
export type WorkerSettings = Static<typeof WorkerSettingsSchema>;

/** Worker settings from the environment, each wrong variable named (the API's loader and error format). */
export function workerSettings(env: Record<string, string | undefined> = process.env): WorkerSettings {
  const settings = loadSettings(WorkerSettingsSchema, env, (s) => [...connectionProblems(s), ...modelProblems(s)]);
  return { ...settings, HOST: defaultHost(settings.NODE_ENV, settings.HOST) };
}

/** The settings, or the process ends with the problems named and no stack trace (as the API's main does). */
function settingsOrExit(): WorkerSettings {
  try {
    return workerSettings();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    process.exit(1);
  }
}

export type JobHandler = (data: RecognitionJobData, signal: AbortSignal) => Promise<JobOutcome>;

/**
 * Runs a recognition worker process: the paid-first fetch loop, pg-boss supervision, a small health endpoint for
 * probes, hourly purging of old photos, and graceful shutdown on SIGTERM/SIGINT (stop taking jobs, finish or release
 * the ones in hand, exit within a bound).
 */
export async function runWorker(
  kind: RecognitionKind,
  makeHandler: (sql: Sql, log: pino.Logger, settings: WorkerSettings) => JobHandler,
  settings = settingsOrExit(),
) {
  const log = pino({ name: `${kind}-worker`, level: settings.LOG_LEVEL });
  // A stray rejection (a metrics read, a timer's query during a database outage) is logged; it must not end a worker
  // whose jobs are otherwise fine.
  process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection'));
  // A worker's commits do not wait for the disk. What a database crash could take back (the last fraction of a
  // second of job states, queue completions, stub dishes) is redone: pg-boss hands the job out again and a job still
  // `processing` starts over. Submissions, in the API, stay synchronous.
  // Generic plans on both pools: the worker's statements look rows up by id or exact name, and PostgreSQL otherwise
  // planned the dish name match anew on every job (2-7 ms of planning for 0.2 ms of work).
  const { sql, close } = createDatabase(settings.DATABASE_URL, {
    max: settings.WORKER_CONCURRENCY + 2,
    applicationName: `nutrition-${kind}-worker`,
    synchronousCommit: false,
    genericPlans: true,
  });
  const boss = createBoss(settings.DATABASE_URL, {
    supervise: true,
    intervalSeconds: settings.QUEUE_SUPERVISE_SECONDS,
    synchronousCommit: false,
  });
  // The loop's fetches, heartbeats and completions: pg-boss's statements, prepared (see queueDatabase), on a pool of
  // the loop's own beside pg-boss's pool for supervision.
  const openQueuePool = () =>
    createDatabase(settings.DATABASE_URL, {
      max: 3,
      applicationName: `nutrition-${kind}-worker-queue`,
      synchronousCommit: false,
      genericPlans: true,
    });
  boss.on('error', (err) => log.error({ err }, 'queue error'));
  await boss.start();
  await ensureQueues(boss);
  const jobs = recognitionRepository(sql);

  const metrics = workerMetrics(sql, kind);
  const loop = startWorkerLoop(boss, openQueuePool, {
    kind,
    statementTimeoutMs: settings.QUEUE_STATEMENT_TIMEOUT_SECONDS * 1000,
    concurrency: settings.WORKER_CONCURRENCY,
    handle: makeHandler(sql, log, settings),
    giveUp: async (data) => {
      await jobs.finish(kind, data.jobId, {
        error: { code: 'worker_lost', message: 'The job was interrupted too many times' },
      });
    },
    onAttempt: metrics.attempt,
    log,
  });

  const purge = async () => {
    try {
      const purged = await jobs.purgeImages(settings.IMAGE_RETENTION_DAYS);
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
    if (req.url === '/health/live')
      return answer(res, 200, 'application/json', JSON.stringify({ status: 'ok', inflight: loop.inflight }));
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
    answer(
      res,
      ok ? 200 : 503,
      'application/json',
      JSON.stringify({ status: ok ? 'ok' : 'error', db: dbOk ? 'ok' : 'down', draining, inflight: loop.inflight }),
    );
  };
  const health = http.createServer((req, res) => {
    respond(req, res).catch((err: unknown) => {
      log.error({ err }, 'health request failed');
      if (!res.headersSent) answer(res, 500, 'application/json', JSON.stringify({ status: 'error' }));
    });
  });

  let stopping: Promise<void> | null = null;
  const stop = (signal: string, exitCode = 0) =>
    (stopping ??= (async () => {
      log.info({ signal }, 'stopping: finishing the jobs in hand');
      draining = true;
      const force = setTimeout(() => process.exit(1), 30_000);
      force.unref();
      clearInterval(purgeTimer);
      await loop.stop(20_000);
      await boss.stop({ graceful: false, close: true });
      health.close();
      await close();
      log.info('stopped');
      process.exit(exitCode);
    })());
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));

  // A HEALTH_PORT in use or privileged, a HOST that does not resolve: one line naming the variable (the server's
  // 'error' event had no listener, so the worker died of an uncaught exception's stack trace), then the worker stops as
  // at SIGTERM, finishing any job the loop took meanwhile, and exits 1.
  const failed = await new Promise<Error | null>((resolve) => {
    health.once('error', resolve);
    health.listen(settings.HEALTH_PORT, settings.HOST, () => {
      health.off('error', resolve);
      resolve(null);
    });
  });
  if (failed) {
    const where = { host: settings.HOST, port: settings.HEALTH_PORT, portVariable: 'HEALTH_PORT' as const };
    console.error(`cannot listen: ${listenProblem(failed, where) ?? failed.message}`);
    await stop('health server not listening', 1);
  }
  log.info(
    { port: (health.address() as AddressInfo).port, concurrency: settings.WORKER_CONCURRENCY },
    `${kind} worker ready`,
  );
  return { stop };
}
