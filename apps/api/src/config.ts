import { Type, type Static } from 'typebox';
import { MODEL_SETTINGS, modelProblems } from '@nutrition/ai';
import { ConfigError, connectionProblems, defaultHost, loadSettings } from '@nutrition/domain';

/** The development JWT secret: fine on a laptop, refused when NODE_ENV=production. */
export const DEV_JWT_SECRET = 'development-only-secret-change-me-0000000000';

export const ConfigSchema = Type.Object({
  ...MODEL_SETTINGS,
  NODE_ENV: Type.Union([Type.Literal('development'), Type.Literal('production'), Type.Literal('test')], {
    default: 'development',
    description: 'production turns on the safety checks (real JWT secret, no noop verifier)',
  }),
  HOST: Type.String({
    default: '',
    description: 'address the API listens on; unset: 0.0.0.0 in production, 127.0.0.1 (this machine only) otherwise',
  }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000, description: 'API port' }),
  DATABASE_URL: Type.String({ minLength: 1, description: 'PostgreSQL 18 connection string' }),
  DATABASE_POOL_SIZE: Type.Integer({
    minimum: 1,
    maximum: 200,
    // Four, not ten: the whole-app mix of `pnpm bench` measured 5-10 % more requests a second than with ten, likely
    // because postgres.js pipelines onto busy connections and so wakes fewer idle backends. That was with Nagle's
    // algorithm on; with TCP_NODELAY (patches/) four and ten measured alike (bench/HISTORY.md).
    default: 4,
    description: 'connections per API process; transactions take at most this minus two of them at once',
  }),
  DATABASE_CONNECT_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 3000,
    description: 'longest one database connection attempt takes: the bound on a request while the database is down',
  }),
  DATABASE_BUSY_WAIT_MS: Type.Integer({
    minimum: 10,
    maximum: 60_000,
    default: 10_000,
    description:
      'longest a request waits for a transaction slot before 503 busy (two connections stay for single statements)',
  }),
  LOG_LEVEL: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    default: 'info',
    description: 'pino log level',
  }),
  JWT_SECRET: Type.String({
    minLength: 32,
    default: DEV_JWT_SECRET,
    description: 'HS256 key for access tokens (at least 32 characters)',
  }),
  AUTH_VERIFIER: Type.Union([Type.Literal('oidc'), Type.Literal('noop')], {
    default: 'noop',
    description: 'how /auth/login checks id_token: oidc (real identity providers) or noop (local development only)',
  }),
  OIDC_PROVIDERS: Type.String({
    default: '',
    description: 'comma list of google, firebase, apple, custom: the identity providers whose tokens are accepted',
  }),
  GOOGLE_CLIENT_IDS: Type.String({ default: '', description: 'comma list of OAuth client ids accepted as aud' }),
  FIREBASE_PROJECT_ID: Type.String({ default: '', description: 'Firebase project id (aud and issuer suffix)' }),
  APPLE_CLIENT_IDS: Type.String({
    default: '',
    description: 'comma list of Apple bundle / service ids accepted as aud',
  }),
  OIDC_ISSUER: Type.String({ default: '', description: 'custom provider: issuer (iss)' }),
  OIDC_AUDIENCE: Type.String({ default: '', description: 'custom provider: comma list of accepted audiences' }),
  OIDC_JWKS_URL: Type.String({ default: '', description: 'custom provider: JWKS URL' }),
  PEXELS_API_KEY: Type.String({ default: '', description: 'stock photos for generated recipes (Pexels)' }),
  UNSPLASH_ACCESS_KEY: Type.String({
    default: '',
    description: 'stock photos for generated recipes (Unsplash), when Pexels is not set',
  }),
  PHOTO_SEARCH_BASE_URL: Type.String({
    default: '',
    description: 'override of the photo API base URL (tests, proxies)',
  }),
  PHOTO_SEARCH_BUDGET_MS: Type.Integer({
    minimum: 100,
    maximum: 30_000,
    default: 2000,
    description: 'time allowed for all photo lookups of one answer',
  }),
  DISH_WORKER_CAPACITY: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 5,
    description: 'dish jobs processed at once across all dish workers (for estimated_seconds; more when seen busy)',
  }),
  PRODUCT_WORKER_CAPACITY: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 5,
    description: 'product jobs processed at once across all product workers',
  }),
  UPLOAD_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 64,
    default: 2,
    description: 'photo uploads over 1 MiB read and decoded at once per API process (more: 503 busy)',
  }),
  RATE_LIMIT_PER_MINUTE: Type.Integer({
    minimum: 1,
    default: 600,
    description: 'requests a minute per user on authenticated routes',
  }),
  RATE_LIMIT_PUBLIC_PER_MINUTE: Type.Integer({
    minimum: 1,
    default: 120,
    description: 'requests a minute per IP on public routes',
  }),
  RATE_LIMIT_MODEL_PER_MINUTE: Type.Integer({
    minimum: 1,
    default: 30,
    description: 'requests a minute per user on model-backed routes (recommendations, menus, recognition)',
  }),
  DIARY_CACHE_MB: Type.Integer({
    minimum: 0,
    maximum: 4096,
    default: 32,
    description: 'memory per API process for days of the diary read again (0: off)',
  }),
  SEARCH_CACHE_MB: Type.Integer({
    minimum: 0,
    maximum: 4096,
    default: 16,
    description: 'memory per API process for product search answers asked again within a minute (0: off)',
  }),
  SYNC_STREAM_POLL_MS: Type.Integer({
    minimum: 10,
    maximum: 10_000,
    default: 250,
    description: "how often an API process asks the change feed which of its sync streams' users changed",
  }),
  METRICS_TOKEN: Type.String({ default: '', description: 'when set, /metrics needs Authorization: Bearer <token>' }),
  SHUTDOWN_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 120_000,
    default: 10_000,
    description: 'longest a SIGTERM waits for in-flight requests',
  }),
  CORS_ORIGINS: Type.String({
    default: '',
    description: 'comma list of extra allowed origins; http://localhost:* and http://127.0.0.1:* are always allowed',
  }),
});

export type Config = Static<typeof ConfigSchema>;

const list = (value: string) =>
  value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

export { list as splitList };
export { ConfigError };

/** The API's own checks across variables: the production rules and what each identity provider needs. */
function apiRules(config: Config): string[] {
  const problems = connectionProblems(config);
  if (config.NODE_ENV === 'production') {
    if (config.JWT_SECRET === DEV_JWT_SECRET) problems.push('JWT_SECRET: set a real secret in production');
    if (config.AUTH_VERIFIER === 'noop') problems.push('AUTH_VERIFIER: noop is for local development only');
  }
  problems.push(...modelProblems(config));
  if (config.AUTH_VERIFIER === 'oidc') {
    const providers = list(config.OIDC_PROVIDERS);
    if (providers.length === 0) problems.push('OIDC_PROVIDERS: name at least one provider for the oidc verifier');
    for (const p of providers) {
      if (!['google', 'firebase', 'apple', 'custom'].includes(p))
        problems.push(`OIDC_PROVIDERS: unknown provider ${p}`);
    }
    if (providers.includes('google') && !config.GOOGLE_CLIENT_IDS)
      problems.push('GOOGLE_CLIENT_IDS: required for google');
    if (providers.includes('firebase') && !config.FIREBASE_PROJECT_ID)
      problems.push('FIREBASE_PROJECT_ID: required for firebase');
    if (providers.includes('apple') && !config.APPLE_CLIENT_IDS) problems.push('APPLE_CLIENT_IDS: required for apple');
    if (providers.includes('custom') && !(config.OIDC_ISSUER && config.OIDC_AUDIENCE && config.OIDC_JWKS_URL))
      problems.push('OIDC_ISSUER, OIDC_AUDIENCE, OIDC_JWKS_URL: all required for custom');
  }
  return problems;
}

/**
 * Reads the API's configuration from environment variables through the loader every process shares: defaults
 * applied, numbers converted, every wrong variable named with what it should be, and the production rules enforced.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const config = loadSettings(ConfigSchema, env, apiRules);
  return { ...config, HOST: defaultHost(config.NODE_ENV, config.HOST) };
}
