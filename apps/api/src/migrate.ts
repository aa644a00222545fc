import { createDatabase, migrate, seed } from '@nutrition/db';

/**
 * The one-shot migration entrypoint of deployments (a compose service, a Kubernetes Job): applies the migrations,
 * installs the queues and loads the reference data and catalog, all idempotent, against DATABASE_URL.
 */
const url = process.env.DATABASE_URL;
if (!url) {
  console.error('DATABASE_URL is required');
  process.exit(1);
}
await migrate(url);
const { sql, close } = createDatabase(url, { max: 2, applicationName: 'nutrition-migrate' });
try {
  await seed(sql);
} finally {
  await close();
}
console.log('database migrated and seeded');
