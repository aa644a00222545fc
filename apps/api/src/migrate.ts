import { openDatabaseTarget } from '@nutrition/db';
import { prepareDatabase } from './setup.ts';

/**
 * The one-shot database setup: `node src/migrate.ts [migrate|seed|setup]` (default setup: both). Deployments run it
 * as a compose service or a Kubernetes Job against DATABASE_URL; locally, without DATABASE_URL, it works on the
 * embedded server under .data/ (`pnpm migrate`, `pnpm seed`).
 */
const command = process.argv[2] ?? 'setup';
if (!['migrate', 'seed', 'setup'].includes(command)) {
  console.error('usage: migrate.ts [migrate|seed|setup]');
  process.exit(2);
}
const target = await openDatabaseTarget();
try {
  await prepareDatabase(target.url, { migrate: command !== 'seed', seed: command !== 'migrate' });
  console.log(
    command === 'migrate'
      ? 'database migrated'
      : command === 'seed'
        ? 'seed data loaded'
        : 'database migrated and seeded',
  );
} finally {
  await target.stop();
}
