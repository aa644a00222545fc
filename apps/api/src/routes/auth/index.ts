import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { sessionRepository, REFRESH_TOKEN_DAYS } from '@nutrition/db/repositories';
import { errors } from '../../schemas.ts';
import { HttpError, unauthorized } from '../../errors.ts';
import { ACCESS_TOKEN_SECONDS } from '../../plugins/auth.ts';
import { IdentityProviderUnavailable, InvalidIdentityToken, type IdentityVerifier } from '../../identity/verifier.ts';
import { formatRefreshToken, hashSecret, newSecret, parseRefreshToken } from './refresh-token.ts';
import { LoginBody, RefreshBody, TokenPair } from './schemas.ts';

/** Login with an identity-provider token, rotating refresh, logout. */
const auth: FastifyPluginAsyncTypebox<{ verifier: IdentityVerifier }> = async (app, { verifier }) => {
  const sessions = sessionRepository(app.sql);

  const tokenPair = (user: { id: string; email: string | null; is_new: boolean }, sessionId: string, tokenId: string, secret: Buffer) => ({
    access_token: app.jwt.sign({ sub: user.id, sid: sessionId }),
    refresh_token: formatRefreshToken(tokenId, secret),
    token_type: 'Bearer' as const,
    expires_in: ACCESS_TOKEN_SECONDS,
    refresh_expires_in: REFRESH_TOKEN_DAYS * 24 * 3600,
    user,
  });

  app.post(
    '/auth/login',
    {
      schema: {
        tags: ['auth'],
        summary: 'Exchange an identity-provider id_token for a token pair',
        security: [],
        body: LoginBody,
        response: { 200: TokenPair, ...errors(400, 401, 503) },
      },
    },
    async (request) => {
      let identity;
      try {
        identity = await verifier.verify(request.body.id_token);
      } catch (err) {
        if (err instanceof InvalidIdentityToken) throw unauthorized(err.message, 'invalid_id_token');
        if (err instanceof IdentityProviderUnavailable) {
          request.log.warn({ err }, 'identity provider unavailable');
          throw new HttpError(503, 'identity_provider_unavailable', 'The identity provider could not be reached');
        }
        throw err;
      }
      const user = await sessions.upsertUser(identity.provider, identity.subject, identity.email);
      const secret = newSecret();
      const { sessionId, tokenId } = await sessions.createSession(
        user.id,
        hashSecret(secret),
        request.headers['user-agent']?.slice(0, 256) ?? null,
      );
      return tokenPair(user, sessionId, tokenId, secret);
    },
  );

  app.post(
    '/auth/refresh',
    {
      schema: {
        tags: ['auth'],
        summary: 'Rotate a refresh token; an already-rotated token revokes its session',
        security: [],
        body: RefreshBody,
        response: { 200: TokenPair, ...errors(400, 401) },
      },
    },
    async (request) => {
      const parsed = parseRefreshToken(request.body.refresh_token);
      if (!parsed) throw unauthorized('Invalid refresh token', 'invalid_refresh_token');
      const secret = newSecret();
      const result = await sessions.rotate(parsed.tokenId, parsed.secretHash, hashSecret(secret));
      if (result.status === 'reused') throw unauthorized('Refresh token reused: session revoked', 'refresh_token_reused');
      if (result.status === 'invalid') throw unauthorized('Invalid refresh token', 'invalid_refresh_token');
      return tokenPair({ id: result.userId, email: result.email, is_new: false }, result.sessionId, result.tokenId, secret);
    },
  );

  app.post(
    '/auth/logout',
    {
      onRequest: app.authenticate,
      schema: {
        tags: ['auth'],
        summary: 'Revoke the session: its refresh token and, on every API process within a second, its access tokens',
        body: RefreshBody,
        response: { 204: Type.Null({ description: 'signed out' }), ...errors(400, 401) },
      },
    },
    async (request, reply) => {
      const { id, sid } = request.user;
      const parsed = parseRefreshToken(request.body.refresh_token);
      const revoked = parsed ? await sessions.revokeByRefreshToken(id, parsed.tokenId, parsed.secretHash) : null;
      // The device signing out is the one holding this access token, whatever refresh token it sent.
      if (revoked !== sid) await sessions.revoke(id, sid);
      app.forgetSession(sid);
      if (revoked) app.forgetSession(revoked);
      return reply.status(204).send(null);
    },
  );
};

export default auth;
