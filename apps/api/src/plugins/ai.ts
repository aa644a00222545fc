import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { modelFromSettings, offlineModel, pexels, unsplash, type ModelProvider, type PhotoSearch } from '@nutrition/ai';
import { offlineModelFeedRepository } from '@nutrition/db/repositories';
import type { Config } from '../config.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The model behind estimates, recommendations and menus: the offline development model unless a key is set. */
    model: ModelProvider;
    /** Stock photos for generated recipes; null when no provider is configured (image_url stays null). */
    photos: PhotoSearch | null;
  }
}

export function photosFromConfig(config: Config): PhotoSearch | null {
  const base = config.PHOTO_SEARCH_BASE_URL || undefined;
  if (config.PEXELS_API_KEY) return pexels(config.PEXELS_API_KEY, base);
  if (config.UNSPLASH_ACCESS_KEY) return unsplash(config.UNSPLASH_ACCESS_KEY, base);
  return null;
}

export default fp(
  async (app: FastifyInstance, opts: { config: Config; model?: ModelProvider; photos?: PhotoSearch | null }) => {
    const catalog = offlineModelFeedRepository(app.sql, app.searchSql);
    app.decorate('model', opts.model ?? modelFromSettings(opts.config, app.log) ?? offlineModel(catalog));
    app.decorate('photos', opts.photos !== undefined ? opts.photos : photosFromConfig(opts.config));
  },
  { name: 'ai', dependencies: ['db'] },
);
