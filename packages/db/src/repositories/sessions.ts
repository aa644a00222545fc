import type { Queryable } from '../client.ts';

export const REFRESH_TOKEN_DAYS = 30;

export interface SignedInUser {
  id: string;
  email: string | null;
  is_new: boolean;
}

/** A rotated refresh token presented again within this many seconds gets its successor again, not a revocation. */
export const REFRESH_GRACE_SECONDS = 30;

export type Rotation =
  | { status: 'rotated'; userId: string; sessionId: string; successorId: string; email: string | null }
  | { status: 'reused'; sessionId: string }
  | { status: 'invalid' };

/**
 * Users, sessions and refresh tokens. Only SHA-256 hashes of refresh-token secrets are stored. Built for one executor;
 * `rotate` needs a transaction.
 */
export function sessionRepository(sql: Queryable) {
  return {
    /** Finds or creates the user of an identity, in one statement. */
    async upsertUser(provider: string, subject: string, email: string | null): Promise<SignedInUser> {
      const [user] = await sql<SignedInUser[]>`
        INSERT INTO users (identity_provider, external_subject, email)
        VALUES (${provider}, ${subject}, ${email})
        ON CONFLICT (identity_provider, external_subject)
          DO UPDATE SET email = COALESCE(excluded.email, users.email)
        RETURNING id, email, (xmax = 0) AS is_new`;
      return user!;
    },

    /** A new session and its first refresh token; returns the token's row id (its public half). */
    async createSession(userId: string, secretHash: Buffer, userAgent: string | null) {
      const [row] = await sql<{ token_id: string; session_id: string }[]>`
        WITH s AS (
          INSERT INTO sessions (user_id, expires_at, user_agent)
          VALUES (${userId}, now() + make_interval(days => ${REFRESH_TOKEN_DAYS}), ${userAgent})
          RETURNING id, expires_at
        )
        INSERT INTO refresh_tokens (session_id, secret_hash, expires_at)
        SELECT s.id, ${secretHash}, s.expires_at FROM s
        RETURNING id AS token_id, session_id`;
      return { tokenId: row!.token_id, sessionId: row!.session_id };
    },

    /**
     * Rotates a refresh token into its successor, whose secret the caller derives from the presented token (so the
     * same token always has the same successor). Presented again within the grace period (two requests of one app
     * refreshing at once, a retry after a lost response), it answers with that successor again and revokes nothing;
     * later, it is theft and the session is revoked. The presented row is locked, so parallel refreshes take turns.
     * Run it in a transaction.
     */
    async rotate(tokenId: string, secretHash: Buffer, successorHash: Buffer): Promise<Rotation> {
      const [token] = await sql<
        {
          session_id: string;
          user_id: string;
          email: string | null;
          replaced_by: string | null;
          usable: boolean;
          in_grace: boolean;
        }[]
      >`
        SELECT t.session_id, s.user_id, u.email, t.replaced_by,
               t.expires_at > now() AND s.revoked_at IS NULL AND s.expires_at > now() AS usable,
               t.replaced_at > now() - make_interval(secs => ${REFRESH_GRACE_SECONDS}) AS in_grace
        FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id JOIN users u ON u.id = s.user_id
        WHERE t.id = ${tokenId} AND t.secret_hash = ${secretHash}
        FOR UPDATE OF t`;
      if (!token?.usable) return { status: 'invalid' };
      const rotated = (successorId: string) =>
        ({
          status: 'rotated',
          userId: token.user_id,
          sessionId: token.session_id,
          successorId,
          email: token.email,
        }) as const;
      if (token.replaced_by === null) {
        const [successor] = await sql<{ id: string }[]>`
          WITH s AS (
            UPDATE sessions SET expires_at = now() + make_interval(days => ${REFRESH_TOKEN_DAYS})
            WHERE id = ${token.session_id} RETURNING id, expires_at
          ),
          successor AS (
            INSERT INTO refresh_tokens (session_id, secret_hash, expires_at)
            SELECT s.id, ${successorHash}, s.expires_at FROM s RETURNING id
          )
          UPDATE refresh_tokens SET replaced_at = now(), replaced_by = successor.id
          FROM successor WHERE refresh_tokens.id = ${tokenId}
          RETURNING successor.id`;
        return rotated(successor!.id);
      }
      if (token.in_grace) return rotated(token.replaced_by);
      await sql`
        UPDATE sessions SET revoked_at = now(), revoked_reason = 'refresh_token_reused'
        WHERE id = ${token.session_id} AND revoked_at IS NULL`;
      return { status: 'reused', sessionId: token.session_id };
    },

    /** The user a session belongs to, or null for no such session: an access token's `sub` must be it. */
    async sessionUser(sessionId: string): Promise<string | null> {
      const [row] = await sql<{ user_id: string }[]>`SELECT user_id FROM sessions WHERE id = ${sessionId}`;
      return row?.user_id ?? null;
    },

    /** Revokes the session of a refresh token (rotated or not: it still proves the device had it). Returns its id. */
    async revokeByRefreshToken(tokenId: string, secretHash: Buffer): Promise<string | null> {
      const [row] = await sql<{ id: string }[]>`
        UPDATE sessions s SET revoked_at = COALESCE(s.revoked_at, now()), revoked_reason = COALESCE(s.revoked_reason,
          'logout')
        FROM refresh_tokens t
        WHERE t.id = ${tokenId} AND t.secret_hash = ${secretHash} AND s.id = t.session_id
        RETURNING s.id`;
      return row?.id ?? null;
    },

    async revoke(userId: string, sessionId: string): Promise<void> {
      await sql`
        UPDATE sessions SET revoked_at = now(), revoked_reason = 'logout'
        WHERE id = ${sessionId} AND user_id = ${userId} AND revoked_at IS NULL`;
    },
  };
}
