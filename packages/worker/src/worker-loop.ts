import type { Job, PgBoss } from 'pg-boss';
import type { Database } from '@nutrition/db';
import {
  DEAD_LETTER_QUEUES,
  HEARTBEAT_SECONDS,
  QUEUES,
  SUBMITTED_CHANNEL,
  queueDatabase,
  type RecognitionJobData,
  type RecognitionKind,
} from './queues.ts';

const DEAD_LETTER_CHECK_MS = 1000;

/** What became of a job: stored done or failed, or nothing stored (already finished, or started again since). */
export type JobOutcome = 'done' | 'failed' | 'skipped';

export interface WorkerLoopOptions {
  kind: RecognitionKind;
  concurrency: number;
  /** Processes one job; resolves with the outcome stored. Throwing asks pg-boss to retry it. */
  handle: (data: RecognitionJobData, signal: AbortSignal) => Promise<JobOutcome>;
  /** Called after every attempt, for metrics. */
  onAttempt?: (data: RecognitionJobData, outcome: JobOutcome | 'retried', seconds: number) => void;
  /** Marks a job that kept failing as failed in the job table. */
  giveUp: (data: RecognitionJobData) => Promise<void>;
  /** Backstop polling interval; NOTIFY normally wakes the loop first. */
  pollMs?: number;
  /**
   * How long a queue statement (fetch, heartbeat, completion) may take before its connection is presumed lost. A
   * connection whose peer vanished without closing it never answers, and neither do its queued statements: past
   * this, the statement fails and the loop reopens its pool.
   */
  statementTimeoutMs?: number;
  log: { info: (o: object, m: string) => void; error: (o: object, m: string) => void };
}

/**
 * The recognition worker loop: whenever a slot is free it fetches from the paid queue, and only when that is empty
 * from the free one, so a paid job is taken before every waiting free job. A NOTIFY from the submitting transaction
 * wakes it at once; polling is the backstop. Each job in hand sends pg-boss heartbeats, so a worker that dies loses
 * its jobs to another worker after the heartbeat interval. `stop()` stops fetching and waits for the jobs in hand.
 *
 * Fetches, heartbeats and completions run as prepared statements (see queueDatabase) on a pool the loop opens with
 * `openPool` and owns: one that stops answering is replaced (see `statementTimeoutMs`).
 */
export function startWorkerLoop(boss: PgBoss, openPool: () => Database, options: WorkerLoopOptions) {
  const queues = QUEUES[options.kind];
  const deadLetter = DEAD_LETTER_QUEUES[options.kind];
  const timeoutMs = options.statementTimeoutMs ?? 30_000;
  let pool = openPool();
  let listening = listen(pool);
  const inflight = new Map<string, Promise<void>>();
  const controller = new AbortController();
  let running = true;
  let wake: (() => void) | null = null;
  const poke = () => {
    wake?.();
    wake = null;
  };

  function listen(on: Database) {
    const subscription = on.sql.listen(SUBMITTED_CHANNEL, (kind) => {
      if (kind === options.kind) poke();
    });
    subscription.catch((err) => options.log.error({ err }, 'LISTEN failed; polling only'));
    return subscription;
  }

  /** Runs a queue statement on the pool, failing it past the deadline and then replacing the pool. */
  async function onQueue<T>(statement: (db: ReturnType<typeof queueDatabase>) => Promise<T>): Promise<T> {
    const used = pool;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reopen(used);
        reject(new Error(`queue statement unanswered after ${timeoutMs} ms`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([statement(queueDatabase(used.sql)), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  function reopen(stale: Database) {
    if (pool !== stale) return;
    options.log.error({ timeoutMs }, 'a queue statement went unanswered; reopening the queue pool');
    pool = openPool();
    listening = listen(pool);
    // Ending the stale pool settles what still waits on it (after 5 s, by destroying its connections).
    void stale.close().catch(() => {});
    poke();
  }

  async function run(queue: string, job: Job<RecognitionJobData>) {
    const heartbeat = setInterval(
      () => void onQueue((db) => boss.touch(queue, job, { db })).catch(() => {}),
      (HEARTBEAT_SECONDS * 1000) / 3,
    );
    const started = performance.now();
    try {
      let outcome: JobOutcome = 'failed';
      if (queue === deadLetter) await options.giveUp(job.data);
      else outcome = await options.handle(job.data, controller.signal);
      await onQueue((db) => boss.complete(queue, job, undefined, { db }));
      options.onAttempt?.(job.data, outcome, (performance.now() - started) / 1000);
    } catch (err) {
      options.log.error({ err, jobId: job.data.jobId }, 'job attempt failed; pg-boss will retry it');
      await onQueue((db) => boss.fail(queue, job, { message: (err as Error).message }, { db })).catch((failed) => {
        options.log.error(
          { err: failed, jobId: job.data.jobId },
          'could not record the failed attempt; it is retried when its heartbeat expires',
        );
      });
      options.onAttempt?.(job.data, 'retried', (performance.now() - started) / 1000);
    } finally {
      clearInterval(heartbeat);
    }
  }

  // Jobs reach the dead-letter queue only after their retries (minutes apart): looking there once a second is enough,
  // and spares a fetch per job.
  let deadLetterCheckedAt = 0;
  async function fetchSome(): Promise<number> {
    let free = options.concurrency - inflight.size;
    let fetched = 0;
    const checkDeadLetter = Date.now() - deadLetterCheckedAt >= DEAD_LETTER_CHECK_MS;
    for (const queue of checkDeadLetter ? [queues.paid, queues.free, deadLetter] : [queues.paid, queues.free]) {
      if (free <= 0) break;
      if (queue === deadLetter) deadLetterCheckedAt = Date.now();
      const jobs = await onQueue((db) => boss.fetch<RecognitionJobData>(queue, { batchSize: free, db }));
      for (const job of jobs) {
        const p = run(queue, job).finally(() => {
          inflight.delete(job.id);
          poke();
        });
        inflight.set(job.id, p);
        free--;
        fetched++;
      }
    }
    return fetched;
  }

  const loop = (async () => {
    await listening.catch(() => {});
    while (running) {
      let fetched = 0;
      try {
        if (inflight.size < options.concurrency) fetched = await fetchSome();
      } catch (err) {
        options.log.error({ err }, 'fetch failed');
      }
      if (fetched > 0 && inflight.size < options.concurrency) continue;
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, options.pollMs ?? 1000).unref();
      });
    }
  })();

  return {
    get inflight() {
      return inflight.size;
    },
    /** Stops taking jobs and waits for the ones in hand (at most `timeoutMs`, then aborts them). */
    async stop(timeoutMs = 20_000) {
      running = false;
      poke();
      await loop;
      const done = Promise.allSettled([...inflight.values()]);
      const timer = setTimeout(() => controller.abort(), timeoutMs);
      await done;
      clearTimeout(timer);
      await (await listening.catch(() => null))?.unlisten().catch(() => {});
      await pool.close();
    },
  };
}
