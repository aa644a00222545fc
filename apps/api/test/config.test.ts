import t from 'tap';
import net from 'node:net';
import { freePort } from '@nutrition/db';
import { createTestDatabase } from '@nutrition/db/testing';
import { workerSettings } from '@nutrition/worker';
import { ConfigError, DEV_JWT_SECRET, loadConfig } from '../src/config.ts';
import { runUntilReady } from './processes.ts';

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

t.test('a number variable is a whole number, all of it, or refused by name: never converted', async (t) => {
  // What the loader used to turn quietly into another number: spaces into 0 (PORT and HEALTH_PORT 0 listen on a random
  // port, a cache of 0 MB is off), 2.9 into 2, true into 1; and notations an operator would not expect to work.
  const refused = ['  ', '2.9', '1.5', 'true', '3e3', '0x10', '3000ms', '1_000', '99999999999999999999'];
  const apiNumbers = ['PORT', 'DATABASE_POOL_SIZE', 'UPLOAD_CONCURRENCY', 'RATE_LIMIT_PER_MINUTE', 'DIARY_CACHE_MB'];
  for (const name of [...apiNumbers, 'SEARCH_CACHE_MB', 'MODEL_TIMEOUT_MS', 'SHUTDOWN_TIMEOUT_MS'])
    for (const value of refused) {
      const err = t.throws(() => loadConfig({ ...base, [name]: value }), `${name}=${JSON.stringify(value)}`);
      t.match((err as ConfigError).problems, [new RegExp(`^${name}: `)], `${name}=${JSON.stringify(value)} named`);
    }
  for (const name of ['WORKER_CONCURRENCY', 'HEALTH_PORT', 'IMAGE_RETENTION_DAYS', 'QUEUE_SUPERVISE_SECONDS'])
    for (const value of refused)
      t.throws(() => workerSettings({ ...base, [name]: value }), new RegExp(`${name}: `), `${name}=${value}`);
  t.throws(() => loadConfig({ ...base, PORT: ' ' }), /PORT: is only spaces: leave it empty or unset for the default/);
  t.throws(() => loadConfig({ ...base, PORT: '2.9' }), /PORT: "2.9" is not a whole number \(API port\)/);
  // What is a number stays one: spaces around it (a hand-edited env file) and a sign; empty is unset.
  t.equal(loadConfig({ ...base, PORT: ' 8080 ' }).PORT, 8080);
  t.equal(loadConfig({ ...base, DIARY_CACHE_MB: '0' }).DIARY_CACHE_MB, 0, 'the cache can still be turned off');
  t.equal(loadConfig({ ...base, DIARY_CACHE_MB: '' }).DIARY_CACHE_MB, 32, 'empty: the default');
  t.equal(workerSettings({ ...base, WORKER_CONCURRENCY: '+3' }).WORKER_CONCURRENCY, 3);
  t.equal(workerSettings({ ...base, HEALTH_PORT: '' }).HEALTH_PORT, 0);
});

t.test('a wrong PORT or HEALTH_PORT stops the process, named, instead of a random port', async (t) => {
  // No database is reached: the configuration is checked first.
  const env = { DATABASE_URL: 'postgres://127.0.0.1:1/none', HOST: '127.0.0.1' };
  const [apiRun, workerRun] = await Promise.all([
    runUntilReady('api', { ...env, PORT: ' ' }),
    runUntilReady('dish-worker', { ...env, HEALTH_PORT: '2.9' }),
  ]);
  t.notOk(apiRun.ready, 'the API does not listen');
  t.equal(apiRun.code, 1);
  t.match(apiRun.output, /PORT: is only spaces/);
  t.notOk(workerRun.ready, 'the worker does not start');
  t.equal(workerRun.code, 1);
  t.match(workerRun.output, /HEALTH_PORT: "2.9" is not a whole number/);
  t.notMatch(workerRun.output, /\n\s+at /, 'the message alone, no stack trace');
});

t.test('HOST and DATABASE_URL are checked at start, in the API and the workers', async (t) => {
  for (const load of [loadConfig, workerSettings]) {
    // HOST=" " used to pass and end the API at listen with getaddrinfo ENOTFOUND's stack trace.
    t.throws(() => load({ ...base, HOST: ' ' }), /HOST: is only spaces/);
    t.throws(() => load({ ...base, HOST: 'api host' }), /HOST: "api host" is not a host name or an address/);
    for (const host of ['0.0.0.0', '::', 'localhost', 'api.internal'])
      t.equal(load({ ...base, HOST: host }).HOST, host);
    // These passed the check and failed only at the first query.
    for (const url of [' ', 'localhost:5432/db', 'http://db/x', 'db.internal'])
      t.throws(() => load({ DATABASE_URL: url }), /DATABASE_URL: /, `DATABASE_URL=${JSON.stringify(url)}`);
    const err = t.throws(() => load({ DATABASE_URL: 'mysql://app:s3cret@db/x' })) as ConfigError;
    t.notMatch(err.message, /s3cret/, 'the password in a wrong URL is not printed');
    t.ok(load({ DATABASE_URL: 'postgresql://app:s3cret@db:5432/x?sslmode=require' }));
  }
});

t.test('an address the API or a worker cannot listen on ends it with one line naming the variable', async (t) => {
  const db = await createTestDatabase();
  t.teardown(db.drop);
  const taken = net.createServer();
  const port = await freePort();
  await new Promise<void>((resolve) => taken.listen(port, '127.0.0.1', resolve));
  t.teardown(() => taken.close());
  const env = { DATABASE_URL: db.url, HOST: '127.0.0.1' };
  const [inUse, unknownHost, workerInUse] = await Promise.all([
    runUntilReady('api', { ...env, PORT: String(port) }),
    runUntilReady('api', { ...env, HOST: 'no-such-host.invalid' }),
    runUntilReady('dish-worker', { ...env, HEALTH_PORT: String(port) }),
  ]);
  // Each ended with an uncaught error's stack trace before (EADDRINUSE, getaddrinfo ENOTFOUND).
  t.equal(inUse.code, 1);
  t.match(inUse.output, `cannot listen: PORT: port ${port} on 127.0.0.1 is in use by another process`);
  t.equal(unknownHost.code, 1);
  t.match(unknownHost.output, 'cannot listen: HOST: no-such-host.invalid does not resolve to an address');
  t.equal(workerInUse.code, 1);
  t.match(workerInUse.output, `cannot listen: HEALTH_PORT: port ${port} on 127.0.0.1 is in use by another process`);
  for (const run of [inUse, unknownHost, workerInUse]) t.notMatch(run.output, /\n\s+at /, 'no stack trace');
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
