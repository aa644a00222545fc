import t, { type Test } from 'tap';
import http from 'node:http';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createSigner } from 'fast-jwt';
import { assertError, buildTestApp } from './helpers.ts';
import { JwksCache } from '../src/identity/jwks.ts';

/** A real identity provider's key endpoint on loopback: JWKS over HTTP, keys rotatable, able to go down. */
async function jwksServer(t: Test) {
  const keys = new Map<string, { privateKey: KeyObject; publicKey: KeyObject }>();
  let down = false;
  let fetches = 0;
  const server = http.createServer((req, res) => {
    fetches++;
    if (down || req.url !== '/jwks') {
      res.writeHead(down ? 503 : 404).end();
      return;
    }
    const body = {
      keys: [...keys].map(([kid, k]) => ({ ...k.publicKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' })),
    };
    res
      .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=3600' })
      .end(JSON.stringify(body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((done) => server.close(() => done())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  const addKey = (kid: string) => keys.set(kid, generateKeyPairSync('rsa', { modulusLength: 2048 }));
  const sign = (kid: string, claims: Record<string, unknown>, key = keys.get(kid)!.privateKey) =>
    createSigner({ key: key.export({ format: 'pem', type: 'pkcs8' }).toString(), algorithm: 'RS256', kid })(claims);
  return { url, addKey, sign, setDown: (v: boolean) => (down = v), fetches: () => fetches };
}

const ISSUER = 'https://issuer.example.test';
const AUDIENCE = 'mobile-app';

/** The API configured for one custom OIDC provider whose keys the given JWKS URL serves; returns a login call. */
async function customProviderLogin(t: Test, jwksUrl: string) {
  const { app } = await buildTestApp(t, {
    AUTH_VERIFIER: 'oidc',
    OIDC_PROVIDERS: 'custom',
    OIDC_ISSUER: ISSUER,
    OIDC_AUDIENCE: AUDIENCE,
    OIDC_JWKS_URL: jwksUrl,
  });
  return (id_token: string) => app.inject({ method: 'POST', url: '/auth/login', payload: { id_token } });
}

t.test('oidc verifier checks signature, iss, aud and exp against a real JWKS endpoint', async (t) => {
  const idp = await jwksServer(t);
  idp.addKey('k1');
  const loginWith = await customProviderLogin(t, idp.url);
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    iss: ISSUER,
    aud: AUDIENCE,
    sub: 'user-123',
    email: 'u@example.test',
    email_verified: true,
    iat: now,
    exp: now + 600,
  };

  const ok = await loginWith(idp.sign('k1', claims));
  t.equal(ok.statusCode, 200);
  t.match(ok.json().user, { email: 'u@example.test', is_new: true });
  const again = await loginWith(idp.sign('k1', claims));
  t.equal(again.json().user.id, ok.json().user.id, 'same issuer and subject, same user');
  t.equal(idp.fetches(), 1, 'keys are cached between logins');

  assertError(t, await loginWith(idp.sign('k1', { ...claims, aud: 'someone-else' })), 401, 'invalid_id_token');
  assertError(t, await loginWith(idp.sign('k1', { ...claims, iss: 'https://evil.test' })), 401, 'invalid_id_token');
  assertError(
    t,
    await loginWith(idp.sign('k1', { ...claims, iat: now - 7200, exp: now - 3600 })),
    401,
    'invalid_id_token',
  );
  const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  assertError(t, await loginWith(idp.sign('k1', claims, stranger)), 401, 'invalid_id_token');
  const none = createSigner({ algorithm: 'none' })(claims);
  assertError(t, await loginWith(none), 401, 'invalid_id_token');
  const hs = createSigner({ key: 'shared-secret', algorithm: 'HS256' })(claims);
  assertError(t, await loginWith(hs), 401, 'invalid_id_token');
  assertError(t, await loginWith('garbage'), 401, 'invalid_id_token');

  const unverified = await loginWith(idp.sign('k1', { ...claims, sub: 'user-456', email_verified: false }));
  t.equal(unverified.json().user.email, null, 'an unverified email is not taken');
});

t.test('an unreachable provider is 503, not 401, and logins work once it is back', async (t) => {
  const idp = await jwksServer(t);
  idp.addKey('k1');
  const loginWith = await customProviderLogin(t, idp.url);
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: ISSUER, aud: AUDIENCE, sub: 'rotating', iat: now, exp: now + 600 };

  idp.setDown(true);
  assertError(t, await loginWith(idp.sign('k1', claims)), 503, 'identity_provider_unavailable');
  idp.setDown(false);
  t.equal((await loginWith(idp.sign('k1', claims))).statusCode, 200);
});

t.test('signed claims that are no identifier are 401, never stored (were 500s and "[object Object]")', async (t) => {
  const idp = await jwksServer(t);
  idp.addKey('k1');
  const loginWith = await customProviderLogin(t, idp.url);
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: ISSUER, aud: AUDIENCE, iat: now, exp: now + 600 };
  for (const sub of ['abc\u0000def', null, 'x'.repeat(4000), '', { x: 1 }, ['a'], 42])
    assertError(t, await loginWith(idp.sign('k1', { ...claims, sub })), 401, 'invalid_id_token');
  for (const email of ['a\u0000b@example.test', { x: 1 }, ['a@b.c'], 42, `${'x'.repeat(320)}@e.test`]) {
    const res = await loginWith(idp.sign('k1', { ...claims, sub: `odd-email-${JSON.stringify(email).length}`, email }));
    t.equal(res.statusCode, 200, `email ${JSON.stringify(email).slice(0, 30)}: signed in`);
    t.equal(res.json().user.email, null, 'without that email');
  }
  const fine = await loginWith(idp.sign('k1', { ...claims, sub: 'fine', email: 'fine@example.test' }));
  t.equal(fine.json().user.email, 'fine@example.test');
});

t.test('a key endpoint that sends its body a byte at a time fails within the deadline', async (t) => {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const timer = setInterval(() => res.write(' '), 50);
    res.on('close', () => clearInterval(timer));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise<void>((done) => server.close(() => done()));
  });
  const jwks = new JwksCache(300);
  const started = Date.now();
  await t.rejects(jwks.key(`http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`, 'k1'));
  t.ok(Date.now() - started < 2000, `gave up after ${Date.now() - started} ms (bodyTimeout alone: never)`);
});
