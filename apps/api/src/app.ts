import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifySchemaCompiler, type FastifyServerOptions } from 'fastify';
import cors from '@fastify/cors';
import sensible from '@fastify/sensible';
import { TypeBoxValidatorCompiler, registerAjvFormats, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Compile } from 'typebox/compile';
import type { TSchema } from 'typebox';
import { splitList, type Config } from './config.ts';
import { ErrorSchema } from './schemas.ts';
import { clientErrorHandler, HttpError } from './errors.ts';
import { pageCursors } from './cursor.ts';
import { noopVerifier } from './identity/noop.ts';
import { oidcVerifier, wellKnownProviders, type OidcProvider } from './identity/oidc.ts';
import type { IdentityVerifier } from './identity/verifier.ts';
import errorsPlugin from './plugins/errors.ts';
import inputPlugin from './plugins/input.ts';
import dbPlugin from './plugins/db.ts';
import profileReadsPlugin from './plugins/profile-reads.ts';
import clockPlugin from './plugins/clock.ts';
import notificationsPlugin from './plugins/notifications.ts';
import authPlugin from './plugins/auth.ts';
import i18nPlugin from './plugins/i18n.ts';
import docsPlugin from './plugins/docs.ts';
import systemRoutes from './routes/system/index.ts';
import authRoutes from './routes/auth/index.ts';
import profileRoutes from './routes/profile/index.ts';
import referenceRoutes from './routes/reference/index.ts';
import catalogRoutes from './routes/catalog/index.ts';
import diaryRoutes from './routes/diary/index.ts';
import userProductRoutes from './routes/user-products/index.ts';
import savedRecipeRoutes from './routes/saved-recipes/index.ts';
import recommendationRoutes from './routes/recommendations/index.ts';
import menuRoutes from './routes/menu/index.ts';
import shoppingListRoutes from './routes/shopping-list/index.ts';
import recognitionRoutes from './routes/recognition/index.ts';
import syncRoutes from './routes/sync/index.ts';
import accountRoutes from './routes/account/index.ts';
import queuePlugin from './plugins/queue.ts';
import eventsPlugin from './plugins/events.ts';
import multipart from '@fastify/multipart';
import { closeAllStreams, closeSessionStreams } from './sse.ts';
import metricsPlugin from './plugins/metrics.ts';
import rateLimitPlugin, { type RateLimits } from './plugins/rate-limit.ts';
import aiPlugin from './plugins/ai.ts';
import type { ModelProvider, PhotoSearch } from '@nutrition/ai';

export const VERSION = '0.1.0';

declare module 'fastify' {
  interface FastifyInstance {
    /** Set on SIGTERM: readiness fails so load balancers stop sending traffic while requests finish. */
    draining: boolean;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const LOCAL_ORIGIN = /^http:\/\/(localhost|127\.0\.0\.1)(:\d{1,5})?$/;

export interface AppOptions {
  /** Replaces the verifier chosen by configuration (tests hand in an OIDC verifier for their own JWKS server). */
  verifier?: IdentityVerifier;
  /** Replaces the model chosen by configuration. */
  model?: ModelProvider;
  photos?: PhotoSearch | null;
  logger?: FastifyServerOptions['logger'];
  /** The current instant, for tests that set the clock (default: the system clock). */
  clock?: () => Date;
}

/** Pino options shared by every process: secrets and tokens never reach the logs. */
export function loggerOptions(level: string) {
  return {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        '*.refresh_token',
        '*.access_token',
        '*.id_token',
        '*.password',
        '*.secret',
      ],
      censor: '[redacted]',
    },
  };
}

export function identityVerifier(config: Config): IdentityVerifier {
  if (config.AUTH_VERIFIER === 'noop') return noopVerifier();
  const providers: OidcProvider[] = splitList(config.OIDC_PROVIDERS).map((name) => {
    switch (name) {
      case 'google':
        return wellKnownProviders.google(splitList(config.GOOGLE_CLIENT_IDS));
      case 'firebase':
        return wellKnownProviders.firebase(config.FIREBASE_PROJECT_ID);
      case 'apple':
        return wellKnownProviders.apple(splitList(config.APPLE_CLIENT_IDS));
      default:
        return {
          name: 'custom',
          issuers: [config.OIDC_ISSUER],
          audiences: splitList(config.OIDC_AUDIENCE),
          jwksUrl: config.OIDC_JWKS_URL,
        };
    }
  });
  return oidcVerifier(providers);
}

/** The properties of an object schema that hold integers (a query string carries them as text). */
function integerProperties(schema: TSchema): string[] {
  const properties =
    (schema as { properties?: Record<string, { type?: string; anyOf?: { type?: string }[] }> }).properties ?? {};
  return Object.keys(properties).filter((key) => {
    const p = properties[key]!;
    return p.type === 'integer' || (p.anyOf ?? []).some((s) => s.type === 'integer');
  });
}
const INTEGER_LITERAL = /^[+-]?\d{1,15}$/;

/**
 * TypeBox's compiler converts every querystring, params and headers value (strings to numbers and the like) before
 * checking it, walking the schema on each request. A value that passes as it is (the usual query of strings) is taken
 * as it is; only one that fails is converted and checked again. Integers must be written as integers: `1.5`, `0x10`
 * and `1e1` are not (a conversion would take the last two).
 */
const validatorCompiler: FastifySchemaCompiler<TSchema> = (route) => {
  const convertAndCheck = TypeBoxValidatorCompiler(route);
  if (route.httpPart === 'body') return convertAndCheck;
  const check = Compile(route.schema);
  const integers = integerProperties(route.schema);
  return (value) => {
    for (const key of integers) {
      const raw = (value as Record<string, unknown> | undefined)?.[key];
      if (raw !== undefined && (typeof raw !== 'string' || !INTEGER_LITERAL.test(raw))) {
        return {
          error: [
            {
              keyword: 'type',
              instancePath: `/${key}`,
              schemaPath: '',
              params: {},
              message: 'must be an integer literal',
            },
          ],
        };
      }
    }
    return check.Check(value) ? { value } : convertAndCheck(value);
  };
};

/** Builds the API without listening: main.ts listens, tests inject. */
export async function buildApp(config: Config, options: AppOptions = {}) {
  registerAjvFormats();
  const app = Fastify({
    logger: options.logger ?? loggerOptions(config.LOG_LEVEL),
    genReqId: (req) => {
      const sent = req.headers['x-request-id'];
      return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID();
    },
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
    // JSON bodies are small; routes that take images raise their own limit.
    bodyLimit: 256 * 1024,
    // Long model calls answer within this; proxies should allow as much.
    connectionTimeout: 0,
    requestTimeout: 120_000,
    routerOptions: { maxParamLength: 500 },
    ajv: { customOptions: { removeAdditional: false } },
    // Requests that arrive while the server closes get the contract's 503 from the hook below, not Fastify's.
    return503OnClosing: false,
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.addSchema(ErrorSchema);

  await app.register(errorsPlugin);
  await app.register(inputPlugin);
  await app.register(sensible);
  const extraOrigins = new Set(splitList(config.CORS_ORIGINS));
  await app.register(cors, {
    origin: (origin, cb) => cb(null, !origin ? false : LOCAL_ORIGIN.test(origin) || extraOrigins.has(origin)),
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: [
      'Authorization',
      'Content-Type',
      'Accept-Language',
      'Cache-Control',
      'X-Request-Id',
      'Idempotency-Key',
      'Last-Event-ID',
    ],
    exposedHeaders: ['X-Request-Id', 'Content-Language', 'Retry-After'],
    maxAge: 600,
  });
  await app.register(docsPlugin);
  await app.register(dbPlugin, {
    url: config.DATABASE_URL,
    poolSize: config.DATABASE_POOL_SIZE,
    transactionWaitMs: config.DATABASE_BUSY_WAIT_MS,
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
  });
  await app.register(profileReadsPlugin);
  await app.register(clockPlugin, { clock: options.clock });
  await app.register(notificationsPlugin);
  await app.register(authPlugin, { secret: config.JWT_SECRET, onRevoked: closeSessionStreams });
  await app.register(i18nPlugin);
  await app.register(aiPlugin, { config, model: options.model, photos: options.photos });
  await app.register(queuePlugin, { url: config.DATABASE_URL });
  await app.register(eventsPlugin);
  await app.register(multipart, { limits: { fileSize: 8 * 1024 * 1024, files: 11 } });
  await app.register(metricsPlugin, { token: config.METRICS_TOKEN });
  const limits: RateLimits = {
    perUser: config.RATE_LIMIT_PER_MINUTE,
    perIp: config.RATE_LIMIT_PUBLIC_PER_MINUTE,
    model: config.RATE_LIMIT_MODEL_PER_MINUTE,
  };
  await app.register(rateLimitPlugin, limits);
  app.decorate('draining', false);
  app.decorate('cursors', pageCursors(config.JWT_SECRET));
  // While draining, every response closes its connection: a keep-alive client would otherwise hold shutdown open.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (app.draining) reply.header('connection', 'close');
    done(null, payload);
  });
  // Open streams are told to reconnect (elsewhere) before the server waits for connections to end, and a request that
  // arrives on a kept-alive connection meanwhile is answered in the contract's shape and told to close it.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    closeAllStreams();
  });
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    reply.header('connection', 'close');
    done(new HttpError(503, 'shutting_down', 'The server is shutting down, retry shortly', undefined, 1));
  });

  await app.register(systemRoutes, { version: VERSION });
  await app.register(authRoutes, { verifier: options.verifier ?? identityVerifier(config), secret: config.JWT_SECRET });
  await app.register(profileRoutes);
  await app.register(referenceRoutes);
  await app.register(catalogRoutes, { searchCacheMegabytes: config.SEARCH_CACHE_MB });
  await app.register(diaryRoutes, { cacheMegabytes: config.DIARY_CACHE_MB });
  await app.register(userProductRoutes);
  await app.register(savedRecipeRoutes);
  await app.register(recommendationRoutes, { config });
  await app.register(menuRoutes, { config });
  await app.register(shoppingListRoutes);
  await app.register(recognitionRoutes, { config });
  await app.register(syncRoutes, { secret: config.JWT_SECRET, pollMs: config.SYNC_STREAM_POLL_MS });
  await app.register(accountRoutes);
  return app;
}

export type App = Awaited<ReturnType<typeof buildApp>>;
