import t from 'tap';
import { ConfigError, DEV_JWT_SECRET, loadConfig } from '../src/config.ts';

const base = { DATABASE_URL: 'postgres://localhost/x' };

t.test('defaults and conversions', async (t) => {
  const config = loadConfig(base);
  t.match(config, {
    PORT: 3000,
    NODE_ENV: 'development',
    AUTH_VERIFIER: 'noop',
    JWT_SECRET: DEV_JWT_SECRET,
    DATABASE_POOL_SIZE: 4,
  });
  t.equal(loadConfig({ ...base, PORT: '8080' }).PORT, 8080);
});

t.test('each wrong variable is named', async (t) => {
  const err = t.throws(() => loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', JWT_SECRET: 'short' })) as ConfigError;
  t.ok(err instanceof ConfigError);
  const text = err.problems.join('\n');
  for (const name of ['DATABASE_URL', 'PORT', 'LOG_LEVEL', 'JWT_SECRET']) t.match(text, name);
});

t.test('production refuses the development secret and the noop verifier', async (t) => {
  const err = t.throws(() => loadConfig({ ...base, NODE_ENV: 'production' })) as ConfigError;
  t.match(err.problems.join('\n'), /JWT_SECRET[\s\S]*AUTH_VERIFIER/);
  t.throws(() => loadConfig({ ...base, NODE_ENV: 'production', JWT_SECRET: 'a'.repeat(40) }), /noop/);
  t.ok(
    loadConfig({
      ...base,
      NODE_ENV: 'production',
      JWT_SECRET: 'a'.repeat(40),
      AUTH_VERIFIER: 'oidc',
      OIDC_PROVIDERS: 'google,apple',
      GOOGLE_CLIENT_IDS: 'x.apps.googleusercontent.com',
      APPLE_CLIENT_IDS: 'com.example.app',
      OPENAI_API_KEY: 'sk-test',
    }),
  );
  t.throws(() => loadConfig({ ...base, AUTH_VERIFIER: 'oidc', OIDC_PROVIDERS: 'firebase' }), /FIREBASE_PROJECT_ID/);
  t.throws(() => loadConfig({ ...base, AUTH_VERIFIER: 'oidc', OIDC_PROVIDERS: 'myspace' }), /unknown provider/);
});

t.test(
  'outside production the API listens on this machine only; production refuses to serve the offline model unasked',
  async (t) => {
    const production = {
      ...base,
      NODE_ENV: 'production',
      JWT_SECRET: 'a'.repeat(40),
      AUTH_VERIFIER: 'oidc',
      OIDC_PROVIDERS: 'apple',
      APPLE_CLIENT_IDS: 'com.example.app',
    };
    t.equal(loadConfig(base).HOST, '127.0.0.1', 'development: loopback');
    t.equal(loadConfig({ ...base, NODE_ENV: 'test' }).HOST, '127.0.0.1');
    t.equal(loadConfig({ ...base, HOST: '0.0.0.0' }).HOST, '0.0.0.0', 'unless HOST says otherwise');
    t.equal(loadConfig({ ...production, OPENAI_API_KEY: 'sk-test' }).HOST, '0.0.0.0', 'production: every interface');
    t.throws(() => loadConfig(production), /OPENAI_API_KEY: required in production/);
    t.equal(
      loadConfig({ ...production, MODEL_PROVIDER: 'offline' }).MODEL_PROVIDER,
      'offline',
      'unless the offline model is asked for',
    );
    t.throws(
      () => loadConfig({ ...base, MODEL_PROVIDER: 'openai' }),
      /OPENAI_API_KEY: required with MODEL_PROVIDER=openai/,
    );
    t.throws(() => loadConfig({ ...base, MODEL_PROVIDER: 'llama' }), /MODEL_PROVIDER/);
  },
);
