import { fileURLToPath } from 'node:url';
import { migrate as runMigrations } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { createDatabase } from './client.ts';

/** drizzle/ at the repository root; images copy it elsewhere and say where in MIGRATIONS_DIR. */
export const migrationsFolder =
  process.env.MIGRATIONS_DIR || fileURLToPath(new URL('../../../drizzle', import.meta.url));

/** The advisory lock key of database setup: "nutritio" in ASCII, a bigint no other lock of this database uses. */
const SETUP_LOCK = '7959390389040769391';

/**
 * Runs `fn` while holding the database's setup lock, a session-level advisory lock on a connection of its own: setups
 * started at once (several `migrate.ts setup`, a Job and `pnpm migrate`) take turns instead of creating the same
 * tables at once, where all but one failed with `pg_type_typname_nsp_index`. The one after finds the work done. The
 * lock goes with its session, so a setup that dies mid-way frees it.
 */
export async function withSetupLock<T>(url: string, fn: () => Promise<T>): Promise<T> {
  // No lifetime: postgres.js otherwise closes a connection after 30-60 minutes, and the lock with it.
  const sql = postgres(url, {
    max: 1,
    max_lifetime: 0,
    connect_timeout: 10,
    onnotice: () => {},
    connection: { application_name: 'nutrition-setup-lock' },
  });
  try {
    await sql`SELECT pg_advisory_lock(${SETUP_LOCK}::bigint)`;
    try {
      return await fn();
    } finally {
      await sql`SELECT pg_advisory_unlock(${SETUP_LOCK}::bigint)`.catch(() => {});
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * Applies the drizzle/ migrations not yet applied, under the setup lock (`lockHeld`: the caller holds it already).
 * Running it again changes nothing.
 */
export async function migrate(url: string, { lockHeld = false } = {}): Promise<void> {
  if (!lockHeld) return withSetupLock(url, () => migrate(url, { lockHeld: true }));
  const { db, close } = createDatabase(url, { max: 1, applicationName: 'nutrition-migrate' });
  try {
    await runMigrations(db, { migrationsFolder });
  } finally {
    await close();
  }
}
