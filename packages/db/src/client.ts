import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as schema from './schema/index.ts';

export interface DatabaseOptions {
  /** Connections in the pool. */
  max?: number;
  /** Name shown in pg_stat_activity, so an operator can tell the API from the workers. */
  applicationName?: string;
  onnotice?: (notice: postgres.Notice) => void;
  /** Named prepared statements (default true); search turns them off so every run gets a custom plan. */
  prepare?: boolean;
  /**
   * false: a connection runs one statement at a time, and the others wait in one queue for the first free connection.
   * By default postgres.js queues statements on busy connections in turn, so a short statement can wait behind a long
   * one while another connection is free: the tail of a pool whose statements vary in cost.
   */
  pipeline?: boolean;
  /** false: commits return before the WAL is on disk (for writes that are redone if lost; see the workers). */
  synchronousCommit?: boolean;
  /**
   * true: prepared statements use their generic plan from the first run (`plan_cache_mode`), for statements that plan
   * the same whatever their parameters and cost more to plan than to run.
   */
  genericPlans?: boolean;
  /**
   * The planner's cost of a random page read (PostgreSQL's default 4 is for spinning disks). Set lower where the data
   * read is in memory, so index probes win over scanning a small table row by row.
   */
  randomPageCost?: number;
  /** Transactions at once (default: the pool less two, at least one); the rest of the pool serves single statements. */
  maxTransactions?: number;
  /** How long a transaction waits for its turn before `DatabaseBusy` (default 10 s). */
  transactionWaitMs?: number;
  /** How long one connection attempt may take (default 3 s): while the server is unreachable, the bound on a query. */
  connectTimeoutMs?: number;
}

/** Seconds between connection attempts while the server is down. */
const RECONNECT_DELAY_S = 0.2;

/** No transaction slot became free within the wait: the pool is saturated; the caller should answer `503 busy`. */
export class DatabaseBusy extends Error {
  constructor() {
    super('The database is busy, try again shortly');
    this.name = 'DatabaseBusy';
  }
}

/**
 * Transactions with a bounded wait. Each holds a connection for its whole length, so only `max` run at once and the
 * other connections stay free for single statements: a saturated pool answers `DatabaseBusy` after `waitMs` instead
 * of queueing without end, and recovers as soon as transactions finish. Turns are handed out first come, first served.
 */
function transactionRunner<Types extends Record<string, unknown>>(
  sql: postgres.Sql<Types>,
  max: number,
  waitMs: number,
) {
  let running = 0;
  const waiting: (() => void)[] = [];
  const turn = () =>
    new Promise<void>((resolve, reject) => {
      const take = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(take), 1);
        reject(new DatabaseBusy());
      }, waitMs);
      waiting.push(take);
    });
  return async function transaction<T>(fn: (tx: postgres.TransactionSql<Types>) => Promise<T>): Promise<T> {
    if (running < max) running++;
    else await turn();
    try {
      return (await sql.begin((tx) => fn(tx))) as T;
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

/**
 * One postgres.js pool and the Drizzle instance on top of it. `date` values stay `YYYY-MM-DD` strings and `numeric`
 * values become numbers, timestamps Dates, so raw SQL hands back the shapes the API sends.
 * With custom types `sql.json()` loses its serializer: send JSON as text with a `::jsonb` cast instead.
 */
export function createDatabase(url: string, options: DatabaseOptions = {}) {
  const sql = postgres(url, {
    max: options.max ?? 10,
    prepare: options.prepare ?? true,
    // postgres.js sends a statement to a busy connection only while its pipeline has room: with room for none, the
    // statements wait in the pool's queue.
    ...(options.pipeline === false ? { max_pipeline: 0 } : {}),
    // A query waits for one connection attempt, not for the server's return: postgres.js's default backoff grows to
    // 20 s between attempts, which held requests for up to a minute during an outage. With a short fixed delay and a
    // bounded attempt, a query fails within about `connectTimeoutMs` and the API answers 503 database_unavailable.
    connect_timeout: (options.connectTimeoutMs ?? 3000) / 1000,
    backoff: () => RECONNECT_DELAY_S,
    connection: {
      application_name: options.applicationName ?? 'nutrition',
      ...(options.synchronousCommit === false ? { synchronous_commit: 'off' } : {}),
      ...(options.genericPlans ? { plan_cache_mode: 'force_generic_plan' } : {}),
      ...(options.randomPageCost ? { random_page_cost: String(options.randomPageCost) } : {}),
    },
    onnotice: options.onnotice ?? (() => {}),
    types: {
      calendarDate: { to: 1082, from: [1082], serialize: (x: string) => x, parse: (x: string) => x },
      decimal: { to: 1700, from: [1700], serialize: (x: number) => String(x), parse: (x: string) => Number(x) },
    },
  });
  const db = drizzle(sql, { schema, casing: 'snake_case' });
  // drizzle-orm turns postgres.js's timestamp parsing off, leaving PostgreSQL's text ('2026-11-22 10:15:00.123456+00'),
  // which is not the contract's format. Raw queries read timestamptz as Dates again, sent as RFC 3339 in UTC, and
  // take Dates as parameters (text passes as it is, microseconds and all).
  sql.options.parsers[1184] = (x: string) => new Date(x);
  sql.options.serializers[1184] = (x: Date | string) => (x instanceof Date ? x.toISOString() : x);
  const max = options.max ?? 10;
  const transaction = transactionRunner(
    sql,
    options.maxTransactions ?? Math.max(1, max - 2),
    options.transactionWaitMs ?? 10_000,
  );
  return { sql, db, transaction, close: () => sql.end({ timeout: 5 }) };
}

export type Database = ReturnType<typeof createDatabase>;
export type Sql = Database['sql'];
/** A pool or a transaction: a repository is built for one of them, so the caller owns the transaction boundary. */
export type Queryable = Sql | postgres.TransactionSql<Sql extends postgres.Sql<infer T> ? T : never>;
/** Runs a function in a transaction with a bounded wait for its turn (see `transactionRunner`). */
export type Transaction = Database['transaction'];
export type Db = Database['db'];

/** Failures of a pooled connection the server had closed before it was used: the server was never asked. */
const CLOSED_BEFORE_ASKED = new Set(['CONNECTION_CLOSED', 'ECONNRESET', 'EPIPE', '57P01']);

/**
 * True when the database answers a round trip within the time (so a hung database cannot hang a health probe). After
 * a restart or a failover the pool still holds connections the server has closed, and a statement sent on one fails
 * without the server being asked: the probe then asks again, on another connection, while time is left.
 */
export async function databaseAnswers(sql: Sql, timeoutMs = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('database timeout')), timeoutMs);
  });
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await Promise.race([sql`SELECT 1`.execute(), timeout]);
        return true;
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        if (attempt > sql.options.max || typeof code !== 'string' || !CLOSED_BEFORE_ASKED.has(code)) return false;
      }
    }
  } finally {
    clearTimeout(timer);
  }
}
