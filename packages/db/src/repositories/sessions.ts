import type { Sql } from '../client.ts';

export const REFRESH_TOKEN_DAYS = 30;

export interface SignedInUser {
  id: string;
  email: string | null;
  is_new: boolean;
}

export type Rotation =
  | { status: 'rotated'; userId: string; sessionId: string; tokenId: string; email: string | null }
  | { status: 'reused' }
  | { status: 'invalid' };

/** Users, sessions and refresh tokens. Only SHA-256 hashes of refresh-token secrets are stored. */
export function sessionRepository(sql: Sql) {
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
     * Rotates a refresh token: the presented one stops working and a new one is issued in the same transaction.
     * Presenting a token that was already rotated is theft (or a lost race of two clients): the session is revoked.
     */
    async rotate(tokenId: string, secretHash: Buffer, newSecretHash: Buffer): Promise<Rotation> {
      return sql.begin(async (tx) => {
        const [used] = await tx<{ session_id: string; user_id: string; email: string | null }[]>`
          UPDATE refresh_tokens t SET replaced_at = now()
          FROM sessions s JOIN users u ON u.id = s.user_id
          WHERE t.id = ${tokenId} AND t.secret_hash = ${secretHash} AND t.replaced_at IS NULL
            AND t.expires_at > now() AND s.id = t.session_id AND s.revoked_at IS NULL AND s.expires_at > now()
          RETURNING t.session_id, s.user_id, u.email`;
        if (used) {
          const [fresh] = await tx<{ id: string }[]>`
            WITH s AS (
              UPDATE sessions SET expires_at = now() + make_interval(days => ${REFRESH_TOKEN_DAYS})
              WHERE id = ${used.session_id} RETURNING id, expires_at
            )
            INSERT INTO refresh_tokens (session_id, secret_hash, expires_at)
            SELECT s.id, ${newSecretHash}, s.expires_at FROM s RETURNING id`;
          return { status: 'rotated', userId: used.user_id, sessionId: used.session_id, tokenId: fresh!.id, email: used.email };
        }
        const [stale] = await tx<{ session_id: string }[]>`
          SELECT session_id FROM refresh_tokens
          WHERE id = ${tokenId} AND secret_hash = ${secretHash} AND replaced_at IS NOT NULL`;
        if (!stale) return { status: 'invalid' };
        await tx`
          UPDATE sessions SET revoked_at = now(), revoked_reason = 'refresh_token_reused'
          WHERE id = ${stale.session_id} AND revoked_at IS NULL`;
        return { status: 'reused' };
      });
    },

    /** Revokes the session of a refresh token, if it belongs to this user. Returns the session id revoked. */
    async revokeByRefreshToken(userId: string, tokenId: string, secretHash: Buffer): Promise<string | null> {
      const [row] = await sql<{ id: string }[]>`
        UPDATE sessions s SET revoked_at = COALESCE(s.revoked_at, now()), revoked_reason = COALESCE(s.revoked_reason, 'logout')
        FROM refresh_tokens t
        WHERE t.id = ${tokenId} AND t.secret_hash = ${secretHash} AND s.id = t.session_id AND s.user_id = ${userId}
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
