import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { createDatabase, type Db, type Sql } from '@nutrition/db';

declare module 'fastify' {
  interface FastifyInstance {
    sql: Sql;
    /** Unprepared statements for dish search: a prepared LIKE or trigram query drifts to a generic plan after five runs. */
    searchSql: Sql;
    db: Db;
  }
}

/** The process's connection pool, closed when the app closes. */
export default fp(
  async (app: FastifyInstance, opts: { url: string; poolSize: number }) => {
    const database = createDatabase(opts.url, { max: opts.poolSize, applicationName: 'nutrition-api' });
    const search = createDatabase(opts.url, { max: 4, prepare: false, applicationName: 'nutrition-api-search' });
    app.decorate('sql', database.sql);
    app.decorate('searchSql', search.sql);
    app.decorate('db', database.db);
    app.addHook('onClose', async () => {
      await Promise.all([database.close(), search.close()]);
    });
  },
  { name: 'db' },
);
