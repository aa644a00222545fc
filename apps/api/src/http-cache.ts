import etag from '@fastify/etag';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Marks a GET whose answer clients may cache: how long they may reuse it without asking (0: revalidate every
     * time). Needs `httpCache` registered in the route's plugin.
     */
    cacheSeconds?: number;
  }
}

/**
 * HTTP caching where it is free, for the routes of the plugin that registers it: an `ETag` on every answer and `304`
 * to a conditional GET whose `If-None-Match` still matches (@fastify/etag), and `Cache-Control`. An answer to a
 * request with a token may hold the caller's own rows or profile language, so shared caches must not keep it
 * (`private`); the language is in `Vary` (i18n plugin).
 */
export const httpCache = fp(async (app) => {
  await app.register(etag);
  app.addHook('onSend', (request, reply, payload, done) => {
    const maxAge = reply.routeOptions.config.cacheSeconds;
    if (maxAge !== undefined && (reply.statusCode === 200 || reply.statusCode === 304)) {
      const scope = request.headers.authorization ? 'private' : 'public';
      reply.header('cache-control', maxAge > 0 ? `${scope}, max-age=${maxAge}` : `${scope}, no-cache`);
    }
    done(null, payload);
  });
});
