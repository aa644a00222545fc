import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { negotiateLanguage } from '@nutrition/domain';

export interface Language {
  code: string;
  native_name: string;
  english_name: string;
  sort_order: number;
  search_config: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Active languages, loaded once at start; a code not here is not supported. */
    languages: { list: Language[]; byCode: Map<string, Language> };
  }
  interface FastifyRequest {
    /** The language of every translated field in this response. */
    language: string;
  }
}

export const DEFAULT_LANGUAGE = 'en';

/**
 * Accept-Language negotiation (q-values, regions) over the loaded languages. Without a usable header an
 * authenticated request uses the profile language, else English. Every response says which in Content-Language.
 */
export default fp(
  async (app: FastifyInstance) => {
    const list = await app.sql<Language[]>`
      SELECT code, native_name, english_name, sort_order, search_config
      FROM languages WHERE is_active ORDER BY sort_order`;
    const codes = list.map((l) => l.code);
    app.decorate('languages', { list, byCode: new Map(list.map((l) => [l.code, l])) });
    app.decorateRequest('language', DEFAULT_LANGUAGE);

    app.addHook('preHandler', async (request, reply) => {
      let language = negotiateLanguage(request.headers['accept-language'], codes);
      if (!language && !request.user?.id && request.headers.authorization) {
        // A public route called with a token: the profile language still applies when the token is valid.
        await request.jwtVerify().catch(() => undefined);
      }
      if (!language && request.user?.id) {
        const [row] = await app.sql<{ language: string | null }[]>`
          SELECT preferences->>'language' AS language FROM users WHERE id = ${request.user.id}`;
        if (row?.language && codes.includes(row.language)) language = row.language;
      }
      request.language = language ?? (codes.includes(DEFAULT_LANGUAGE) ? DEFAULT_LANGUAGE : (codes[0] ?? DEFAULT_LANGUAGE));
      reply.header('content-language', request.language);
    });
  },
  { name: 'i18n', dependencies: ['db', 'auth'] },
);
