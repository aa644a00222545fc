import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '@nutrition/db';
import { createTemplate } from '@nutrition/db/testing';

/**
 * `pnpm test`: one embedded PostgreSQL 18 for the whole run, a migrated and seeded template database, then tap. Each
 * test file copies the template into a database of its own, so files run in parallel without sharing rows.
 * Extra arguments go to tap (e.g. `pnpm test apps/api/test/auth.test.ts`).
 */
const dir = await mkdtemp(join(tmpdir(), 'nutrition-test-'));
const pg = await startEmbeddedPostgres({ dataDir: join(dir, 'data'), persistent: false });
let exitCode = 1;
try {
  await createTemplate(pg.url(), pg.url);
  const tap = spawn(process.execPath, [join(import.meta.dirname, '../node_modules/tap/dist/esm/run.mjs'), ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, TEST_DATABASE_ADMIN_URL: pg.url() },
  });
  exitCode = await new Promise<number>((done) => tap.on('exit', (code, signal) => done(code ?? (signal ? 1 : 0))));
} finally {
  await pg.stop();
  await rm(dir, { recursive: true, force: true });
}
process.exit(exitCode);
