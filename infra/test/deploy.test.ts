import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from '@nutrition/db/testing';
import { startService } from '../../apps/api/test/processes.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * What the Dockerfiles do, without Docker: build the packages, `pnpm deploy` the API alone, run its migration
 * entrypoint and then the API from the deployed folder with the production export condition.
 */
t.test('the API deployed as the image deploys it migrates a database and serves', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'nutrition-deploy-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const out = join(dir, 'api');
  // tap adds its loaders to NODE_OPTIONS of every child process; `env -u` keeps them away from pnpm and tsc.
  const { NODE_OPTIONS: _, ...cleanEnv } = process.env;
  const run = (args: string[]) =>
    spawnSync('env', ['-u', 'NODE_OPTIONS', 'pnpm', ...args], { cwd: root, env: cleanEnv, encoding: 'utf8' });
  const build = run(['--filter', './packages/*', 'build']);
  t.equal(build.status, 0, build.stdout + build.stderr);
  const deploy = run(['--filter', '@nutrition/api', 'deploy', '--legacy', '--prod', out]);
  t.equal(deploy.status, 0, deploy.stdout + deploy.stderr);

  const db = await createTestDatabase();
  t.teardown(db.drop);
  const env = {
    ...cleanEnv,
    DATABASE_URL: db.url,
    NODE_OPTIONS: '--conditions=production',
    MIGRATIONS_DIR: join(root, 'drizzle'),
  };
  const migrate = spawnSync(process.execPath, ['src/migrate.ts'], { cwd: out, env, encoding: 'utf8' });
  t.equal(migrate.status, 0, migrate.stderr);
  t.match(migrate.stdout, /migrated and seeded/);

  const api = await startService(t, 'api', { DATABASE_URL: db.url, NODE_OPTIONS: '--conditions=production' }, out);
  const health = await fetch(`${api.url}/health`);
  t.equal(health.status, 200);
  t.match(await health.json(), { db: 'ok' });
  t.notMatch(api.output(), /src\/index\.ts/, 'workspace packages ran from dist');
});
