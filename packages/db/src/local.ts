import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { startEmbeddedPostgres } from './embedded.ts';

/** Where `pnpm start` keeps the embedded server's data, so a restart keeps users' data. */
export const LOCAL_DATA_DIR =
  process.env.EMBEDDED_POSTGRES_DIR ?? fileURLToPath(new URL('../../../.data/postgres', import.meta.url));
export const LOCAL_PORT = Number(process.env.EMBEDDED_POSTGRES_PORT ?? 54329);
const LOCAL_URL = `postgres://postgres:postgres@127.0.0.1:${LOCAL_PORT}/nutrition`;

export interface DatabaseTarget {
  url: string;
  /** True when this process started the embedded server (and so must stop it). */
  started: boolean;
  stop: () => Promise<void>;
}

async function answers(url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {} });
  try {
    await sql`SELECT 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/**
 * The database every command uses: `DATABASE_URL` when set; otherwise the embedded PostgreSQL under `.data/`, reused
 * when `pnpm start` already runs it (so the import command works alongside the service), else started here.
 */
export async function openDatabaseTarget(log: (line: string) => void = () => {}): Promise<DatabaseTarget> {
  const configured = process.env.DATABASE_URL;
  if (configured) return { url: configured, started: false, stop: async () => {} };
  if (await answers(LOCAL_URL)) return { url: LOCAL_URL, started: false, stop: async () => {} };

  // In a process group of its own, so a terminal's Ctrl-C lets `pnpm start` stop the apps before the database.
  const server = await startEmbeddedPostgres({ dataDir: LOCAL_DATA_DIR, port: LOCAL_PORT, ownProcessGroup: true, log });
  const admin = postgres(server.url(), { max: 1, onnotice: () => {} });
  try {
    const [exists] = await admin`SELECT 1 FROM pg_database WHERE datname = 'nutrition'`;
    if (!exists) await admin`CREATE DATABASE nutrition`;
  } finally {
    await admin.end();
  }
  return { url: LOCAL_URL, started: true, stop: server.stop };
}
