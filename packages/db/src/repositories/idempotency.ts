import type { Queryable } from '../client.ts';

export interface StoredResponse {
  request_hash: string;
  status_code: number;
  response: unknown;
}

/**
 * Idempotency keys, used inside the transaction of the request's own effect: the response is stored with the effect
 * or not at all, so no failure leaves one without the other, and a crash leaves no key behind. Keys live a day.
 */
export function idempotencyRepository(sql: Queryable) {
  return {
    /**
     * Holds the key until the transaction ends: a retry arriving meanwhile waits for the first attempt to commit (and
     * then replays it) or roll back (and then runs itself). Waits at most `waitMs`, then fails with `55P03`.
     */
    async lock(userId: string, route: string, key: string, waitMs: number) {
      await sql`SELECT set_config('lock_timeout', ${`${waitMs}ms`}, true)`;
      await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`idempotency:${userId}:${route}:${key}`}, 0))`;
      await sql`SELECT set_config('lock_timeout', '0', true)`;
    },

    async find(userId: string, route: string, key: string): Promise<StoredResponse | null> {
      const [row] = await sql<StoredResponse[]>`
        SELECT request_hash, status_code, response FROM idempotency_keys
        WHERE user_id = ${userId} AND route = ${route} AND key = ${key} AND status_code IS NOT NULL
          AND created_at > now() - interval '24 hours'`;
      return row ?? null;
    },

    /** Stores the response of the key's first request; a key older than a day is taken over. */
    async store(
      userId: string,
      route: string,
      key: string,
      requestHash: string,
      statusCode: number,
      response: unknown,
    ) {
      await sql`
        INSERT INTO idempotency_keys (user_id, route, key, request_hash, status_code, response)
        VALUES (${userId}, ${route}, ${key}, ${requestHash}, ${statusCode}, ${JSON.stringify(response)}::jsonb)
        ON CONFLICT (user_id, route, key) DO UPDATE SET request_hash = excluded.request_hash,
          status_code = excluded.status_code, response = excluded.response, created_at = now()`;
    },
  };
}
