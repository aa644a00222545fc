import { createDatabase } from '@nutrition/db';
import pino from 'pino';

/**
 * The dish recognition worker. Until the recognition pipeline lands it only holds a database connection and waits, so
 * that operators can already deploy and scale it on its own.
 */
const log = pino({ name: 'dish-worker', level: process.env.LOG_LEVEL ?? 'info' });
const url = process.env.DATABASE_URL;
if (!url) {
  log.fatal('DATABASE_URL is required');
  process.exit(1);
}
const { sql, close } = createDatabase(url, { max: 2, applicationName: 'nutrition-dish-worker' });
await sql`SELECT 1`;
log.info('dish worker ready (idle: no recognition queue yet)');

const keepAlive = setInterval(() => {}, 60_000);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    log.info({ signal }, 'stopping');
    clearInterval(keepAlive);
    await close();
    process.exit(0);
  });
}
