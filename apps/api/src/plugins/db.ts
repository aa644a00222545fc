import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { createDatabase, type Db, type Sql } from '@nutrition/db';

declare module 'fastify' {
  interface FastifyInstance {
    sql: Sql;
    /** Unprepared statements for dish search: a prepared LIKE or trigram query drifts to a generic plan after five runs. */
    searchSql: Sql;
    /** Generic plans for product search: its index ranges and full text plan the same for any query. */
    productSearchSql: Sql;
    db: Db;
  }
}

/** The process's connection pool, closed when the app closes. */
export default fp(
  async (app: FastifyInstance, opts: { url: string; poolSize: number }) => {
    const database = createDatabase(opts.url, { max: opts.poolSize, applicationName: 'nutrition-api' });
    const search = createDatabase(opts.url, { max: 4, prepare: false, applicationName: 'nutrition-api-search' });
    const productSearch = createDatabase(opts.url, { max: 4, genericPlans: true, applicationName: 'nutrition-api-product-search' });
    app.decorate('sql', database.sql);
    app.decorate('searchSql', search.sql);
    app.decorate('productSearchSql', productSearch.sql);
    app.decorate('db', database.db);
    app.addHook('onClose', async () => {
      await Promise.all([database.close(), search.close(), productSearch.close()]);
    });
  },
  { name: 'db' },
);
