import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '@nutrition/db';
import postgres from 'postgres';
import { TEMPLATE_DATABASE } from '@nutrition/db/testing';
import { prepareDatabase } from '../apps/api/src/setup.ts';

/**
 * `pnpm test`: one embedded PostgreSQL 18 for the whole run, a migrated and seeded template database, then tap. Each
 * test file copies the template into a database of its own, so files run in parallel without sharing rows.
 * Extra arguments go to tap (e.g. `pnpm test apps/api/test/auth.test.ts`).
 */
const tapBin = join(import.meta.dirname, '../node_modules/tap/dist/esm/run.mjs');
// tap compiles its plugin list (package.json "tap.plugin") into .tap/plugins; a fresh checkout has none and would
// fall back to the default set, whose TypeScript loader cannot run here (Node strips the types itself).
if (!existsSync(join(import.meta.dirname, '../.tap/plugins'))) {
  const build = spawnSync(process.execPath, [tapBin, 'build'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const dir = await mkdtemp(join(tmpdir(), 'nutrition-test-'));
const pg = await startEmbeddedPostgres({ dataDir: join(dir, 'data'), persistent: false });
let exitCode = 1;
try {
  // The migrated, seeded template database every test file copies.
  const admin = postgres(pg.url(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  await admin.end();
  await prepareDatabase(pg.url(TEMPLATE_DATABASE));
  const tap = spawn(process.execPath, [tapBin, ...process.argv.slice(2)], {
    stdio: ['inherit', 'pipe', 'inherit'],
    env: { ...process.env, TEST_DATABASE_ADMIN_URL: pg.url() },
  });
  // tap's closing line is `# { total: N, pass: N, fail: N }`; it is restated plainly for tools that read test counts.
  let summary: { total: number; pass: number; fail: number } | undefined;
  let pending = '';
  tap.stdout.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk);
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const m = /^# \{ total: (\d+)(?:, pass: (\d+))?(?:, fail: (\d+))?/.exec(line);
      if (m) summary = { total: Number(m[1]), pass: Number(m[2] ?? 0), fail: Number(m[3] ?? 0) };
    }
  });
  exitCode = await new Promise<number>((done) => tap.on('exit', (code, signal) => done(code ?? (signal ? 1 : 0))));
  // Known defects (tap `todo`) and skips are neither passed nor failed: counted apart so a reader sees them.
  if (summary) {
    const known = summary.total - summary.pass - summary.fail;
    console.log(`\n${summary.pass} passed, ${summary.fail} failed${known ? `, ${known} todo or skipped` : ''}`);
  }
} finally {
  await pg.stop();
  await rm(dir, { recursive: true, force: true });
}
process.exit(exitCode);
