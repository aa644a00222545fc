import type { Sql } from '../client.ts';
import { seedCatalog } from './catalog.ts';
import { seedReference } from './reference.ts';

/** Seeds everything the service needs: reference data, then the catalog of products and dishes. Idempotent. */
export async function seed(sql: Sql): Promise<void> {
  await seedReference(sql);
  await seedCatalog(sql);
  // Fresh statistics: until autovacuum gets to them, the planner takes the just-filled tables for nearly empty.
  await sql`ANALYZE`;
}
