import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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
    /**
     * The `lang` query parameter (each value, in order, when it is repeated), taken out of the query before the
     * route's own parameters are checked.
     */
    languageAsked: string[] | undefined;
    /** On a route with `deferLanguage`: the language once known (see there); null when known before the handler. */
    languageReady: Promise<string> | null;
  }
  interface FastifyContextConfig {
    /**
     * The handler starts before the profile language is read, and awaits `request.languageReady` when it needs it:
     * for a route whose first statement does not depend on the language, the two reads then overlap.
     */
    deferLanguage?: boolean;
  }
}

export const DEFAULT_LANGUAGE = 'en';

/**
 * Language negotiation over the loaded languages: `?lang=` first, then Accept-Language (q-values, regions, POSIX
 * forms); without either, an authenticated request uses the profile language, else English. Every response says which
 * in Content-Language, and that it varies with Accept-Language.
 */
export default fp(
  async (app: FastifyInstance) => {
    const list = await app.sql<Language[]>`
      SELECT code, native_name, english_name, sort_order, search_config
      FROM languages WHERE is_active ORDER BY sort_order`;
    const codes = list.map((l) => l.code);
    app.decorate('languages', { list, byCode: new Map(list.map((l) => [l.code, l])) });
    app.decorateRequest('language', DEFAULT_LANGUAGE);
    app.decorateRequest('languageAsked', undefined);
    app.decorateRequest('languageReady', null);

    const fallback = codes.includes(DEFAULT_LANGUAGE) ? DEFAULT_LANGUAGE : (codes[0] ?? DEFAULT_LANGUAGE);
    // Apps send the same few headers over and over: each one is negotiated once (a bounded number of them).
    const negotiated = new Map<string, string | null>();
    const fromHeader = (header: string | undefined) => {
      if (!header) return null;
      let language = negotiated.get(header);
      if (language === undefined) {
        language = negotiateLanguage(header, codes);
        if (negotiated.size >= 1000) negotiated.clear();
        negotiated.set(header, language);
      }
      return language;
    };
    // The first `lang` value that names a language served; none, and the header and profile decide.
    const fromQuery = (values: string[] | undefined) => {
      for (const value of values ?? []) {
        const language = negotiateLanguage(value, codes);
        if (language) return language;
      }
      return null;
    };
    const profileLanguage = async (request: FastifyRequest) => {
      // A public route called with a token: the profile language still applies when the token is valid.
      if (!request.user?.id) app.identify(request);
      if (!request.user?.id) return null;
      const language = (await app.profileReads.own(request))?.preferences.language;
      return language && codes.includes(language) ? language : null;
    };
    const answer = (request: FastifyRequest, reply: FastifyReply, language: string | null) => {
      request.language = language ?? fallback;
      reply.header('content-language', request.language);
      const vary = reply.getHeader('vary');
      if (typeof vary === 'string' && vary.includes('Accept-Language')) return;
      reply.header('vary', vary ? `${vary}, Accept-Language` : 'Accept-Language');
    };

    // `?lang=` on any route: iOS always sends Accept-Language, so an app that wants the profile's (or another)
    // language asks for it here. It is taken out before the route's query schema sees it.
    app.addHook('preValidation', (request, _reply, done) => {
      const query = request.query as Record<string, unknown> | undefined;
      // `?lang=de&lang=fr` arrives as a list: it is asked for as well, not left for the schema to refuse.
      if (query && query.lang !== undefined) {
        request.languageAsked = [query.lang].flat().filter((value) => typeof value === 'string');
        delete query.lang;
      }
      done();
    });

    // A callback hook: the usual request names its language in the header and needs no promise.
    app.addHook('preHandler', (request, reply, done) => {
      const language = fromQuery(request.languageAsked) ?? fromHeader(request.headers['accept-language']);
      if (language || (!request.user?.id && !request.headers.authorization)) {
        answer(request, reply, language);
        return done();
      }
      if (reply.routeOptions.config.deferLanguage) {
        // The fallback until the profile answers, so that an answer sent before it still names its language.
        answer(request, reply, null);
        const ready = profileLanguage(request).then((profiled) => {
          answer(request, reply, profiled);
          return request.language;
        });
        // Awaited by the handler; one that fails first (a bad cursor) leaves it unawaited.
        ready.catch(() => {});
        request.languageReady = ready;
        return done();
      }
      profileLanguage(request).then((profiled) => {
        answer(request, reply, profiled);
        done();
      }, done);
    });
  },
  { name: 'i18n', dependencies: ['profile-reads', 'auth'] },
);
