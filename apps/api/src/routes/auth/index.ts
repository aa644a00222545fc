import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { sessionRepository, REFRESH_GRACE_SECONDS, REFRESH_TOKEN_DAYS } from '@nutrition/db/repositories';
import { errors } from '../../schemas.ts';
import { HttpError, unauthorized } from '../../errors.ts';
import { ACCESS_TOKEN_SECONDS } from '../../plugins/auth.ts';
import {
  type Identity,
  IdentityProviderUnavailable,
  InvalidIdentityToken,
  type IdentityVerifier,
} from '../../identity/verifier.ts';
import { formatRefreshToken, hashSecret, newSecret, parseRefreshToken, successorSecret } from './refresh-token.ts';
import { LoginBody, RefreshBody, TokenPair } from './schemas.ts';

/** Login with an identity-provider token, rotating refresh, logout. */
const auth: FastifyPluginAsyncTypebox<{ verifier: IdentityVerifier; secret: string }> = async (
  app,
  { verifier, secret: serverKey },
) => {
  const sessions = sessionRepository(app.sql);

  const tokenPair = (
    user: { id: string; email: string | null; is_new: boolean },
    sessionId: string,
    tokenId: string,
    secret: Buffer,
  ) => ({
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
      let identity: Identity;
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
        request.headers['user-agent']?.replace(/\p{Cc}/gu, '').slice(0, 256) ?? null,
      );
      return tokenPair(user, sessionId, tokenId, secret);
    },
  );

  app.post(
    '/auth/refresh',
    {
      schema: {
        tags: ['auth'],
        summary: 'Rotate a refresh token',
        description:
          'The presented token stops working and a new pair is issued. ' +
          `Presented again within ${REFRESH_GRACE_SECONDS} s ` +
          'of its rotation (parallel refreshes of one app, a retry after a lost response), it answers 200 with a ' +
          'pair of the same session holding the same new refresh token, and revokes nothing; later, reuse is taken ' +
          'as theft: the session is revoked and the answer is 401 `refresh_token_reused`.',
        security: [],
        body: RefreshBody,
        response: { 200: TokenPair, ...errors(400, 401) },
      },
    },
    async (request) => {
      const presented = parseRefreshToken(request.body.refresh_token);
      if (!presented) throw unauthorized('Invalid refresh token', 'invalid_refresh_token');
      const successor = successorSecret(serverKey, presented);
      const result = await app.transaction((tx) =>
        sessionRepository(tx).rotate(presented.tokenId, presented.secretHash, hashSecret(successor)),
      );
      if (result.status === 'reused') {
        // Other processes hear of it through NOTIFY; this one knows at once.
        app.forgetSession(result.sessionId);
        throw unauthorized('Refresh token reused: session revoked', 'refresh_token_reused');
      }
      if (result.status === 'invalid') throw unauthorized('Invalid refresh token', 'invalid_refresh_token');
      return tokenPair(
        { id: result.userId, email: result.email, is_new: false },
        result.sessionId,
        result.successorId,
        successor,
      );
    },
  );

  app.post(
    '/auth/logout',
    {
      schema: {
        tags: ['auth'],
        summary: 'Revoke the session: its refresh token and, on every API process within a second, its access tokens',
        description:
          'Works with the refresh token alone, without an access token (like RFC 7009 revocation): ' +
          '204 whether or not ' +
          'the token was known. With a valid access token, its session is revoked too. Open SSE streams of the ' +
          'session end within a second.',
        security: [{ bearer: [] }, {}],
        body: RefreshBody,
        response: { 204: Type.Null({ description: 'signed out' }), ...errors(400) },
      },
    },
    async (request, reply) => {
      const presented = parseRefreshToken(request.body.refresh_token);
      const revoked = presented ? await sessions.revokeByRefreshToken(presented.tokenId, presented.secretHash) : null;
      if (revoked) app.forgetSession(revoked);
      // The device signing out is the one holding this access token, whatever refresh token it sent.
      if (request.headers.authorization && app.identify(request) === null && request.user.sid !== revoked) {
        await sessions.revoke(request.user.id, request.user.sid);
        app.forgetSession(request.user.sid);
      }
      return reply.status(204).send(null);
    },
  );
};

export default auth;
