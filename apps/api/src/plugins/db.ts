import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { createDatabase, type Db, type Sql } from '@nutrition/db';

declare module 'fastify' {
  interface FastifyInstance {
    sql: Sql;
    db: Db;
  }
}

/** The process's connection pool, closed when the app closes. */
export default fp(
  async (app: FastifyInstance, opts: { url: string; poolSize: number }) => {
    const database = createDatabase(opts.url, { max: opts.poolSize, applicationName: 'nutrition-api' });
    app.decorate('sql', database.sql);
    app.decorate('db', database.db);
    app.addHook('onClose', async () => {
      await database.close();
    });
  },
  { name: 'db' },
);
