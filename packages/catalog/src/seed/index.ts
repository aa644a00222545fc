import type { Sql } from '@nutrition/db';
import { seedCatalog } from './catalog.ts';
import { seedReference } from './reference.ts';

/** Seeds everything the service needs: reference data, then the catalog of products and dishes. Idempotent. */
export async function seed(sql: Sql): Promise<void> {
  await seedReference(sql);
  await seedCatalog(sql);
  // Statistics for the tables no one has analysed yet (a new database): until autovacuum gets to them, the planner
  // takes just-filled tables for nearly empty. A restart, which seeds again, finds none and skips it.
  const fresh = await sql<{ name: string }[]>`
    SELECT relname AS name FROM pg_stat_user_tables
    WHERE schemaname = 'public' AND last_analyze IS NULL AND last_autoanalyze IS NULL`;
  if (fresh.length > 0) await sql`ANALYZE ${sql(fresh.map((t) => t.name))}`;
}
