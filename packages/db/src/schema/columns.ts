import { sql } from 'drizzle-orm';
import { customType, numeric, timestamp, uuid } from 'drizzle-orm/pg-core';

/** Identifier primary key made by PostgreSQL 18's native uuidv7(): time-ordered, so inserts stay index-friendly. */
export const id = () => uuid().primaryKey().default(sql`uuidv7()`);

/** Timestamps are stored with time zone and serialised as RFC 3339 in UTC. */
export const timestamptz = () => timestamp({ withTimezone: true, mode: 'date' });

export const createdAt = () => timestamptz().notNull().defaultNow();

/** Nutrition and quantities: exact decimals in the database, numbers in TypeScript. */
export const decimal = (name?: string) => (name ? numeric(name, { mode: 'number' }) : numeric({ mode: 'number' }));

export { JOB_STATUSES, MEAL_TYPES, PLANS, PRODUCT_JOB_TYPES, RECIPE_SOURCES } from '@nutrition/domain';

/** `col IN ('a','b')` for a check constraint over a fixed list of codes. */
export const oneOf = (column: string, values: readonly string[]) =>
  sql.raw(`${column} IN (${values.map((v) => `'${v}'`).join(', ')})`);

export const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' });
