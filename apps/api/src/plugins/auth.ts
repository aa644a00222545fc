import fp from 'fastify-plugin';
import fastifyJwt from '@fastify/jwt';
import { createVerifier, TokenError } from 'fast-jwt';
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { sessionRepository } from '@nutrition/db/repositories';
import { unauthorized, type HttpError } from '../errors.ts';

export const ACCESS_TOKEN_SECONDS = 15 * 60;

/** Verified access tokens each API process remembers (a few hundred bytes each); as many session owners. */
const VERIFIED_TOKENS = 10_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type AccessClaims = { sub?: unknown; sid?: unknown; exp?: unknown };

declare module '@fastify/jwt' {
  interface FastifyJWT {
    payload: { sub: string; sid: string };
    user: { id: string; sid: string };
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** onRequest hook for protected routes: a valid access token of a live session of its `sub`, else 401. */
    authenticate: onRequestHookHandler;
    /**
     * Sets `request.user` from a valid access token and returns null, or returns the 401 to answer (the user is set
     * even for a revoked session: public routes may still use it for the profile language).
     */
    identify: (request: FastifyRequest) => HttpError | null;
    /** Marks a session revoked in this process at once (other processes hear the NOTIFY). */
    forgetSession: (sessionId: string) => void;
  }
}

/**
 * Access tokens are HS256 JWTs checked without a database round trip. Revocation reaches every API process within a
 * second: a trigger NOTIFYs `session_revoked` and each process keeps the sessions revoked in the last access-token
 * lifetime in memory, re-read whenever its LISTEN connection (re)connects.
 */
export default fp(
  async (app: FastifyInstance, opts: { secret: string; onRevoked?: (sessionId: string) => void }) => {
    await app.register(fastifyJwt, {
      secret: opts.secret,
      sign: { algorithm: 'HS256', expiresIn: `${ACCESS_TOKEN_SECONDS}s` },
    });
    const verifier = createVerifier({ key: opts.secret, algorithms: ['HS256'] }) as (token: string) => AccessClaims;
    // A token seen before is taken from memory until it expires (an app sends the same token for 15 minutes), keyed by
    // its own text, least recently used first out; bench/HISTORY.md (**api**) has the figures.
    const verified = new Map<string, { claims: AccessClaims; expiresAt: number }>();
    const verifyAccessToken = (token: string): AccessClaims => {
      const known = verified.get(token);
      if (known && known.expiresAt > Date.now()) {
        verified.delete(token);
        verified.set(token, known);
        return known.claims;
      }
      verified.delete(token);
      const claims = verifier(token);
      if (typeof claims.exp === 'number') {
        if (verified.size >= VERIFIED_TOKENS) verified.delete(verified.keys().next().value!);
        verified.set(token, { claims, expiresAt: claims.exp * 1000 });
      }
      return claims;
    };

    // session id -> when it can be forgotten (its access tokens have all expired by then)
    const revoked = new Map<string, number>();
    const keepMs = (ACCESS_TOKEN_SECONDS + 60) * 1000;
    const remember = (sid: string) => {
      revoked.set(sid, Date.now() + keepMs);
      opts.onRevoked?.(sid);
    };

    // session id -> its user, learnt once per session: a token whose `sub` is not the user of its `sid` is refused.
    const owners = new Map<string, string>();
    const reload = async () => {
      // Sessions deleted while this process was not listening (an account deleted) leave no revoked row behind:
      // every session's owner is looked up again.
      owners.clear();
      try {
        const rows = await app.sql<{ id: string }[]>`
          SELECT id FROM sessions WHERE revoked_at > now() - make_interval(secs => ${keepMs / 1000})`;
        for (const row of rows) remember(row.id);
      } catch (err) {
        app.log.error({ err }, 'could not reload revoked sessions');
      }
    };
    await app.notifications.subscribe('session_revoked', remember, () => void reload());
    await reload();

    const sweep = setInterval(() => {
      const now = Date.now();
      for (const [sid, until] of revoked) if (until < now) revoked.delete(sid);
    }, 60_000);
    sweep.unref();
    app.addHook('onClose', async () => clearInterval(sweep));

    app.decorate('forgetSession', remember);
    const identify = (request: FastifyRequest) => {
      const header = request.headers.authorization;
      if (!header) return unauthorized('Missing bearer token', 'missing_token');
      if (!/^Bearer [A-Za-z0-9._~+/-]+=*$/.test(header))
        return unauthorized('Malformed Authorization header', 'invalid_token');
      let payload: AccessClaims;
      try {
        payload = verifyAccessToken(header.slice('Bearer '.length));
      } catch (err) {
        if ((err as { code?: string }).code === TokenError.codes.expired)
          return unauthorized('Access token expired', 'token_expired');
        return unauthorized('Invalid access token', 'invalid_token');
      }
      const { sub: id, sid } = payload;
      if (typeof id !== 'string' || typeof sid !== 'string' || !UUID.test(id) || !UUID.test(sid))
        return unauthorized('Invalid access token', 'invalid_token');
      request.user = { id, sid };
      if (revoked.has(sid)) return unauthorized('Session revoked', 'session_revoked');
      return null;
    };
    app.decorate('identify', identify);

    const sessions = sessionRepository(app.sql);
    const checkOwner = async (id: string, sid: string) => {
      const owner = await sessions.sessionUser(sid);
      if (owner === null) return unauthorized('Invalid access token', 'invalid_token');
      if (owners.size >= VERIFIED_TOKENS) owners.delete(owners.keys().next().value!);
      owners.set(sid, owner);
      return owner === id ? null : unauthorized('Invalid access token', 'invalid_token');
    };
    // A callback hook, not an async one: it runs on every protected request and waits only for a session's first one.
    app.decorate('authenticate', ((request, _reply, done) => {
      const error = identify(request);
      if (error) return done(error);
      const { id, sid } = request.user;
      const owner = owners.get(sid);
      if (owner !== undefined)
        return done(owner === id ? undefined : unauthorized('Invalid access token', 'invalid_token'));
      checkOwner(id, sid).then((err) => done(err ?? undefined), done);
    }) as onRequestHookHandler);
  },
  { name: 'auth', dependencies: ['db', 'notifications'] },
);
