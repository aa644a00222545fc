import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { TAGS, transformDocument, transformRoute } from '../openapi.ts';

/** OpenAPI 3.1 generated from the route schemas, served at /openapi.json and browsable at /docs. */
export default fp(
  async (app: FastifyInstance) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Nutrition and meal planning API',
          version: '0.1.0',
          license: { name: 'MIT', identifier: 'MIT' },
          description:
            'Profiles and calorie targets, a catalog of dishes, recipes and products in 12 languages, pantry, diary, ' +
            'menus and photo recognition. Errors always have the shape ' +
            '`{statusCode, error, code, message, request_id, details?}`. Translated fields follow Accept-Language.',
        },
        servers: [{ url: '/', description: 'The server that serves this document' }],
        tags: TAGS,
        components: {
          securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
        },
        security: [{ bearer: [] }],
      },
      transform: transformRoute as never,
      transformObject: (document) => transformDocument('openapiObject' in document ? document.openapiObject : {}),
      // Shared schemas keep their own names (`Error`) instead of def-0.
      refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    });
    await app.register(swaggerUi, { routePrefix: '/docs' });
    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'docs' },
);
