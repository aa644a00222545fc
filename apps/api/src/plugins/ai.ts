import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { offlineModel, type ModelProvider } from '@nutrition/ai';
import { catalogRepository } from '@nutrition/db/repositories';

declare module 'fastify' {
  interface FastifyInstance {
    /** The model behind estimates, recommendations and menus: the offline development model unless configured. */
    model: ModelProvider;
  }
}

export default fp(
  async (app: FastifyInstance, opts: { model?: ModelProvider }) => {
    const catalog = catalogRepository(app.sql, app.searchSql);
    app.decorate('model', opts.model ?? offlineModel({ similarDishes: (name, limit) => catalog.similarDishes(name, limit) }));
  },
  { name: 'ai', dependencies: ['db'] },
);
