import { fileURLToPath } from 'node:url';
import { migrate as runMigrations } from 'drizzle-orm/postgres-js/migrator';
import { createDatabase } from './client.ts';

/** drizzle/ at the repository root; images copy it elsewhere and say where in MIGRATIONS_DIR. */
export const migrationsFolder =
  process.env.MIGRATIONS_DIR || fileURLToPath(new URL('../../../drizzle', import.meta.url));

/** Applies the drizzle/ migrations not yet applied. Running it again changes nothing. */
export async function migrate(url: string): Promise<void> {
  const { db, close } = createDatabase(url, { max: 1, applicationName: 'nutrition-migrate' });
  try {
    await runMigrations(db, { migrationsFolder });
  } finally {
    await close();
  }
}
