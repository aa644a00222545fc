import { createDatabase, migrate } from '@nutrition/db';
import { seed } from '@nutrition/catalog';
import { setupQueues } from '@nutrition/worker';

/**
 * Brings a database to what the service needs, each step idempotent: the SQL migrations (packages/db), pg-boss's
 * schema and the recognition queues (packages/worker), then the reference data and the catalog (packages/catalog).
 */
export async function prepareDatabase(url: string, steps: { migrate?: boolean; seed?: boolean } = {}): Promise<void> {
  if (steps.migrate ?? true) {
    await migrate(url);
    await setupQueues(url);
  }
  if (steps.seed ?? true) {
    const { sql, close } = createDatabase(url, { max: 2, applicationName: 'nutrition-seed' });
    try {
      await seed(sql);
    } finally {
      await close();
    }
  }
}
