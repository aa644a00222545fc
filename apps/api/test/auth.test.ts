import t from 'tap';
import { createSigner } from 'fast-jwt';
import { as, assertError, buildTestApp, login } from './helpers.ts';
import { DEV_JWT_SECRET } from '../src/config.ts';

t.test('noop login creates a user once and returns the token pair of the contract', async (t) => {
  const { app } = await buildTestApp(t);
  const first = await app.inject({ method: 'POST', url: '/auth/login', payload: { id_token: 'alice' } });
  t.equal(first.statusCode, 200);
  const pair = first.json();
  t.match(pair, {
    access_token: /^[\w-]+\.[\w-]+\.[\w-]+$/,
    refresh_token: /^[0-9a-f-]{36}\.[\w-]{43}$/,
    token_type: 'Bearer',
    expires_in: 900,
    refresh_expires_in: 2592000,
    user: { id: String, email: 'alice@dev.local', is_new: true },
  });
  const again = (await app.inject({ method: 'POST', url: '/auth/login', payload: { id_token: 'alice' } })).json();
  t.equal(again.user.id, pair.user.id, 'the same subject is the same user');
  t.equal(again.user.is_new, false);
  const other = await login(app, 'bob');
  t.not(other.user.id, pair.user.id);

  assertError(
    t,
    await app.inject({ method: 'POST', url: '/auth/login', payload: { id_token: 'x'.repeat(129) } }),
    401,
    'invalid_id_token',
  );
  assertError(
    t,
    await app.inject({ method: 'POST', url: '/auth/login', payload: { id_token: '' } }),
    400,
    'validation_failed',
  );
  assertError(
    t,
    await app.inject({ method: 'POST', url: '/auth/login', payload: { id_token: 'a', extra: 1 } }),
    400,
    'validation_failed',
  );
});

t.test('refresh rotates; replaying a rotated token after the grace period revokes the whole session', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const session = await login(app, 'carol');
  const refresh = (token: string) =>
    app.inject({ method: 'POST', url: '/auth/refresh', payload: { refresh_token: token } });

  const rotated = await refresh(session.refresh_token);
  t.equal(rotated.statusCode, 200);
  const next = rotated.json();
  t.not(next.refresh_token, session.refresh_token);
  t.equal(next.user.id, session.user.id);
  t.equal((await as(app, next)({ method: 'GET', url: '/profile' })).statusCode, 200);

  // Reuse within the grace period gets the same successor (concurrency.test.ts); past it, it is theft.
  await sql`UPDATE refresh_tokens SET replaced_at = replaced_at - interval '1 minute' WHERE replaced_at IS NOT NULL`;
  assertError(t, await refresh(session.refresh_token), 401, 'refresh_token_reused');
  assertError(t, await refresh(next.refresh_token), 401, 'invalid_refresh_token');
  assertError(t, await as(app, next)({ method: 'GET', url: '/profile' }), 401, 'session_revoked');

  const other = await login(app, 'carol');
  t.equal((await as(app, other)({ method: 'GET', url: '/profile' })).statusCode, 200, 'other sessions live on');
  for (const bad of ['nonsense', `${session.user.id}.short`, `not-a-uuid.${'a'.repeat(43)}`]) {
    assertError(t, await refresh(bad), 401, 'invalid_refresh_token');
  }
});

t.test('logout revokes refresh and access tokens', async (t) => {
  const { app } = await buildTestApp(t);
  const session = await login(app, 'erin');
  const res = await as(
    app,
    session,
  )({ method: 'POST', url: '/auth/logout', payload: { refresh_token: session.refresh_token } });
  t.equal(res.statusCode, 204);
  t.equal(res.body, '');
  assertError(t, await as(app, session)({ method: 'GET', url: '/profile' }), 401, 'session_revoked');
  assertError(
    t,
    await app.inject({ method: 'POST', url: '/auth/refresh', payload: { refresh_token: session.refresh_token } }),
    401,
  );
  t.equal(
    (await app.inject({ method: 'POST', url: '/auth/logout', payload: { refresh_token: session.refresh_token } }))
      .statusCode,
    204,
    'signing out again is still 204',
  );
});

t.test('logout reaches another API process within a second', async (t) => {
  const first = await buildTestApp(t);
  const { buildApp } = await import('../src/app.ts');
  const { loadConfig } = await import('../src/config.ts');
  const second = await buildApp(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: first.url }));
  t.teardown(() => second.close());
  await second.ready();

  const session = await login(first.app, 'frank');
  t.equal((await as(second, session)({ method: 'GET', url: '/profile' })).statusCode, 200);
  await as(
    first.app,
    session,
  )({ method: 'POST', url: '/auth/logout', payload: { refresh_token: session.refresh_token } });
  const started = Date.now();
  let status = 200;
  while (Date.now() - started < 1000 && status === 200) {
    status = (await as(second, session)({ method: 'GET', url: '/profile' })).statusCode;
    if (status === 200) await new Promise((r) => setTimeout(r, 20));
  }
  t.equal(status, 401, `revoked on the second process after ${Date.now() - started} ms`);
});

t.test('access tokens: missing, malformed, expired, forged, alg none', async (t) => {
  const { app } = await buildTestApp(t);
  const session = await login(app, 'gina');
  const payload = JSON.parse(Buffer.from(session.access_token.split('.')[1]!, 'base64url').toString());
  const get = (authorization?: string) =>
    app.inject({ method: 'GET', url: '/profile', headers: authorization ? { authorization } : {} });

  assertError(t, await get(), 401, 'missing_token');
  assertError(t, await get('Basic abc'), 401, 'invalid_token');
  assertError(t, await get('Bearer not.a.jwt'), 401, 'invalid_token');

  const expired = createSigner({ key: DEV_JWT_SECRET, algorithm: 'HS256' })({
    sub: payload.sub,
    sid: payload.sid,
    iat: Math.floor(Date.now() / 1000) - 2000,
    exp: Math.floor(Date.now() / 1000) - 1000,
  });
  assertError(t, await get(`Bearer ${expired}`), 401, 'token_expired');

  const forged = createSigner({ key: 'another-secret-another-secret-another-secret', algorithm: 'HS256' })({
    sub: payload.sub,
    sid: payload.sid,
  });
  assertError(t, await get(`Bearer ${forged}`), 401, 'invalid_token');

  const none = createSigner({ algorithm: 'none' })({ sub: payload.sub, sid: payload.sid });
  assertError(t, await get(`Bearer ${none}`), 401, 'invalid_token');

  const withoutSession = createSigner({ key: DEV_JWT_SECRET, algorithm: 'HS256' })({ sub: payload.sub });
  assertError(t, await get(`Bearer ${withoutSession}`), 401, 'invalid_token');
  t.equal((await get(`Bearer ${session.access_token}`)).statusCode, 200);

  // Verified tokens are remembered: one accepted a moment ago is still refused once it expires.
  const shortLived = createSigner({ key: DEV_JWT_SECRET, algorithm: 'HS256' })({
    sub: payload.sub,
    sid: payload.sid,
    exp: Math.floor(Date.now() / 1000) + 1,
  });
  t.equal((await get(`Bearer ${shortLived}`)).statusCode, 200);
  t.equal((await get(`Bearer ${shortLived}`)).statusCode, 200, 'the same token again');
  await new Promise((r) => setTimeout(r, 2100));
  assertError(t, await get(`Bearer ${shortLived}`), 401, 'token_expired');
  assertError(t, await get(`Bearer ${shortLived.slice(0, -2)}xx`), 401, 'invalid_token');
});
