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
  /** false: commits return before the WAL is on disk (for writes that are redone if lost; see the workers). */
  synchronousCommit?: boolean;
  /**
   * true: prepared statements use their generic plan from the first run (`plan_cache_mode`), for statements that plan
   * the same whatever their parameters and cost more to plan than to run.
   */
  genericPlans?: boolean;
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
    connection: {
      application_name: options.applicationName ?? 'nutrition',
      ...(options.synchronousCommit === false ? { synchronous_commit: 'off' } : {}),
      ...(options.genericPlans ? { plan_cache_mode: 'force_generic_plan' } : {}),
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
  return { sql, db, close: () => sql.end({ timeout: 5 }) };
}

export type Database = ReturnType<typeof createDatabase>;
export type Sql = Database['sql'];
/** A pool or a transaction: repository methods take either, so the caller owns the transaction boundary. */
export type Queryable = Sql | postgres.TransactionSql<Sql extends postgres.Sql<infer T> ? T : never>;
export type Db = Database['db'];
