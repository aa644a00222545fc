import fp from 'fastify-plugin';
import fastifyJwt from '@fastify/jwt';
import { TokenError } from 'fast-jwt';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { unauthorized } from '../errors.ts';

export const ACCESS_TOKEN_SECONDS = 15 * 60;

/** Verified access tokens each API process remembers (a few hundred bytes each). */
const VERIFIED_TOKENS = 10_000;

declare module '@fastify/jwt' {
  interface FastifyJWT {
    payload: { sub: string; sid: string };
    user: { id: string; sid: string };
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** onRequest hook for protected routes: a valid access token of a live session, else 401. */
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
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
  async (app: FastifyInstance, opts: { secret: string }) => {
    await app.register(fastifyJwt, {
      secret: opts.secret,
      sign: { algorithm: 'HS256', expiresIn: `${ACCESS_TOKEN_SECONDS}s` },
      // A token seen before is checked again from memory until it expires (fast-jwt keys its cache by a SHA-256 of
      // the whole token): the app sends the same token for 15 minutes, and HMAC plus two decodes were a fifth of a
      // request.
      verify: { algorithms: ['HS256'], cache: VERIFIED_TOKENS },
      formatUser: (payload) => ({ id: payload.sub, sid: payload.sid }),
    });

    // session id -> when it can be forgotten (its access tokens have all expired by then)
    const revoked = new Map<string, number>();
    const keepMs = (ACCESS_TOKEN_SECONDS + 60) * 1000;
    const remember = (sid: string) => revoked.set(sid, Date.now() + keepMs);

    const reload = async () => {
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
    app.decorate('authenticate', async (request: FastifyRequest) => {
      const header = request.headers.authorization;
      if (!header) throw unauthorized('Missing bearer token', 'missing_token');
      if (!/^Bearer [A-Za-z0-9._~+/-]+=*$/.test(header)) throw unauthorized('Malformed Authorization header', 'invalid_token');
      let payload: { sub?: unknown; sid?: unknown };
      try {
        payload = app.jwt.verify(header.slice('Bearer '.length));
      } catch (err) {
        if ((err as { code?: string }).code === TokenError.codes.expired) throw unauthorized('Access token expired', 'token_expired');
        throw unauthorized('Invalid access token', 'invalid_token');
      }
      const { sub: id, sid } = payload;
      if (typeof id !== 'string' || typeof sid !== 'string') throw unauthorized('Invalid access token', 'invalid_token');
      request.user = { id, sid };
      if (revoked.has(sid)) throw unauthorized('Session revoked', 'session_revoked');
    });
  },
  { name: 'auth', dependencies: ['db', 'notifications'] },
);
