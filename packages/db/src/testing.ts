import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { startEmbeddedPostgres } from './embedded.ts';
import { migrate } from './migrate.ts';
import { createDatabase, type DatabaseOptions } from './client.ts';
import { seed } from './seed/index.ts';

export const TEMPLATE_DATABASE = 'nutrition_template';

/** Creates the migrated, seeded template database that every test database is copied from. */
export async function createTemplate(adminUrl: string, databaseUrl: (name: string) => string): Promise<void> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE} WITH (FORCE)`);
    await admin.unsafe(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  } finally {
    await admin.end();
  }
  await migrate(databaseUrl(TEMPLATE_DATABASE));
  const { sql, close } = createDatabase(databaseUrl(TEMPLATE_DATABASE), { max: 1 });
  try {
    await seed(sql);
  } finally {
    await close();
  }
}

let server: Promise<{ adminUrl: string; url: (db: string) => string }> | undefined;

/**
 * The test server: the one `pnpm test` started (TEST_DATABASE_ADMIN_URL), or, when a test file is run on its own, an
 * embedded server started for this process with its own template.
 */
function testServer() {
  server ??= (async () => {
    const adminUrl = process.env.TEST_DATABASE_ADMIN_URL;
    if (adminUrl) return { adminUrl, url: (db: string) => adminUrl.replace(/\/[^/]*$/, `/${db}`) };
    const pg = await startEmbeddedPostgres({ dataDir: join(await mkdtemp(join(tmpdir(), 'nutrition-pg-')), 'data'), persistent: false });
    process.once('exit', () => void pg.stop());
    await createTemplate(pg.url(), pg.url);
    return { adminUrl: pg.url(), url: pg.url };
  })();
  return server;
}

/** A fresh database copied from the template; dropped by the returned function. */
export async function createTestDatabase(): Promise<{ url: string; adminUrl: string; drop: () => Promise<void> }> {
  const { adminUrl, url } = await testServer();
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
export async function openTestDatabase(t: { teardown: (cleanup: () => Promise<void>) => void }, options: DatabaseOptions = {}) {
  const db = await createTestDatabase();
  const database = createDatabase(db.url, options);
  t.teardown(async () => {
    await database.close();
    await db.drop();
  });
  return { sql: database.sql, url: db.url };
}
