import type { Sql } from '../client.ts';
import { seedReference } from './reference.ts';

/** Seeds everything the service needs to start: reference data (and, once present, the catalog). Idempotent. */
export async function seed(sql: Sql): Promise<void> {
  await seedReference(sql);
}
