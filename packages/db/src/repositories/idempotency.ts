import type { Sql } from '../client.ts';

export type Claim =
  | { state: 'claimed' }
  | { state: 'replay'; statusCode: number; response: unknown }
  | { state: 'mismatch' }
  | { state: 'in_progress' };

/** Idempotency keys: the first request with a key claims it; later ones replay its stored response. */
export function idempotencyRepository(sql: Sql) {
  return {
    async claim(userId: string, route: string, key: string, requestHash: string): Promise<Claim> {
      const [claimed] = await sql`
        INSERT INTO idempotency_keys (user_id, route, key, request_hash) VALUES (${userId}, ${route}, ${key}, ${requestHash})
        ON CONFLICT (user_id, route, key) DO UPDATE SET request_hash = excluded.request_hash, status_code = NULL,
          response = NULL, created_at = now()
          WHERE idempotency_keys.created_at < now() - interval '24 hours'
        RETURNING 1`;
      if (claimed) return { state: 'claimed' };
      const [row] = await sql<{ request_hash: string; status_code: number | null; response: unknown }[]>`
        SELECT request_hash, status_code, response FROM idempotency_keys WHERE user_id = ${userId} AND route = ${route} AND key = ${key}`;
      if (!row) return this.claim(userId, route, key, requestHash);
      if (row.request_hash !== requestHash) return { state: 'mismatch' };
      if (row.status_code === null) return { state: 'in_progress' };
      return { state: 'replay', statusCode: row.status_code, response: row.response };
    },

    async complete(userId: string, route: string, key: string, statusCode: number, response: unknown) {
      await sql`
        UPDATE idempotency_keys SET status_code = ${statusCode}, response = ${JSON.stringify(response)}::jsonb
        WHERE user_id = ${userId} AND route = ${route} AND key = ${key}`;
    },

    /** A failed first attempt frees its key, so the client's retry runs again. */
    async release(userId: string, route: string, key: string) {
      await sql`DELETE FROM idempotency_keys WHERE user_id = ${userId} AND route = ${route} AND key = ${key} AND status_code IS NULL`;
    },
  };
}
