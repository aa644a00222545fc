import { createDatabase, migrate, withSetupLock } from '@nutrition/db';
import { seed } from '@nutrition/catalog';
import { setupQueues } from '@nutrition/worker';

/**
 * Brings a database to what the service needs, each step idempotent: the SQL migrations (packages/db), pg-boss's
 * schema and the recognition queues (packages/worker), then the reference data and the catalog (packages/catalog).
 * All of it under the setup lock, so setups started at once run one after another and each finds the last one's work.
 */
export async function prepareDatabase(url: string, steps: { migrate?: boolean; seed?: boolean } = {}): Promise<void> {
  await withSetupLock(url, async () => {
    if (steps.migrate ?? true) {
      await migrate(url, { lockHeld: true });
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
  });
}
