import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { createDatabase, type DatabaseOptions } from './client.ts';

/** The migrated, seeded template every test database is copied from; `pnpm test` builds it (scripts/test.ts). */
export const TEMPLATE_DATABASE = 'nutrition_template';

/** The server `pnpm test` started and its URLs. */
function testServer() {
  const adminUrl = process.env.TEST_DATABASE_ADMIN_URL;
  if (!adminUrl) throw new Error('no test database server: run the tests through `pnpm test` (or `pnpm test <file>`)');
  return { adminUrl, url: (db: string) => adminUrl.replace(/\/[^/]*$/, `/${db}`) };
}

/** A fresh database copied from the template; dropped by the returned function. */
export async function createTestDatabase(): Promise<{ url: string; adminUrl: string; drop: () => Promise<void> }> {
  const { adminUrl, url } = testServer();
  const name = `test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DATABASE}`);
  } finally {
    await admin.end();
  }
  return {
    url: url(name),
    adminUrl,
    drop: async () => {
      const a = postgres(adminUrl, { max: 1, onnotice: () => {} });
      try {
        await a.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await a.end();
      }
    },
  };
}

/**
 * A fresh test database with a pool on it, for a test (tap's `t`) whose teardown closes the pool, then drops the
 * database.
 */
export async function openTestDatabase(
  t: { teardown: (cleanup: () => Promise<void>) => void },
  options: DatabaseOptions = {},
) {
  const db = await createTestDatabase();
  const database = createDatabase(db.url, options);
  t.teardown(async () => {
    await database.close();
    await db.drop();
  });
  return { sql: database.sql, url: db.url };
}
