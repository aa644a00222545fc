import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { createDatabase, type Sql, type Transaction } from '@nutrition/db';

declare module 'fastify' {
  interface FastifyInstance {
    /** The pool, for single statements outside a transaction. */
    sql: Sql;
    /**
     * A transaction with a bounded wait for its turn (`503 busy` past it). Inside, build repositories on `tx` only:
     * a statement sent to the pool while a transaction holds a connection can wait for ever under load.
     */
    transaction: Transaction;
    /**
     * Unprepared statements for dish search: a prepared LIKE or trigram query drifts to a generic plan after five runs.
     */
    searchSql: Sql;
    /** Generic plans for product search: its index ranges and full text plan the same for any query. */
    productSearchSql: Sql;
    /**
     * Generic plans for reads by key (profiles, rows by id) that plan the same for any key. PostgreSQL keeps planning
     * them anew, since a custom plan for one key looks cheaper than the generic one: 0.3-1 ms of planning for 0.1 ms
     * of work. Not for statements whose plan depends on their values (ranges of time or transaction ids).
     */
    keyedSql: Sql;
  }
}

/** The process's connection pools, closed when the app closes. */
export default fp(
  async (
    app: FastifyInstance,
    opts: { url: string; poolSize: number; transactionWaitMs: number; connectTimeoutMs: number },
  ) => {
    const database = createDatabase(opts.url, {
      max: opts.poolSize,
      applicationName: 'nutrition-api',
      transactionWaitMs: opts.transactionWaitMs,
      connectTimeoutMs: opts.connectTimeoutMs,
    });
    const search = createDatabase(opts.url, {
      max: 4,
      prepare: false,
      applicationName: 'nutrition-api-search',
      connectTimeoutMs: opts.connectTimeoutMs,
    });
    const productSearch = createDatabase(opts.url, {
      max: 4,
      connectTimeoutMs: opts.connectTimeoutMs,
      genericPlans: true,
      // Queued on busy connections in turn, a search waited for all those queued before it on its connection, even
      // with another one free: p99 of the cache-off typing mix was 108-129 ms, and 48-53 ms with one queue.
      pipeline: false,
      // The page's category names are probes of a 300-row table that the default cost of 4 scans whole per row
      // instead (1.5 ms of a 7 ms query at a million products).
      randomPageCost: 1.1,
      applicationName: 'nutrition-api-product-search',
    });
    const keyed = createDatabase(opts.url, {
      max: 4,
      connectTimeoutMs: opts.connectTimeoutMs,
      genericPlans: true,
      applicationName: 'nutrition-api-keyed',
    });
    app.decorate('sql', database.sql);
    app.decorate('transaction', database.transaction);
    app.decorate('searchSql', search.sql);
    app.decorate('productSearchSql', productSearch.sql);
    app.decorate('keyedSql', keyed.sql);
    app.addHook('onClose', async () => {
      await Promise.all([database.close(), search.close(), productSearch.close(), keyed.close()]);
    });
  },
  { name: 'db' },
);
