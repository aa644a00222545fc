import type { Queryable } from '../client.ts';

/** What the data export and account deletion need beyond the other repositories' reads. */
export function accountRepository(sql: Queryable) {
  return {
    /** Signed-in devices, without any token material. */
    async sessions(userId: string) {
      return sql<
        {
          id: string;
          created_at: Date;
          expires_at: Date;
          revoked_at: Date | null;
          revoked_reason: string | null;
          user_agent: string | null;
        }[]
      >`
        SELECT id, created_at, expires_at, revoked_at, revoked_reason, user_agent FROM sessions
        WHERE user_id = ${userId} ORDER BY created_at, id`;
    },

    async menuWeeks(userId: string): Promise<string[]> {
      const rows = await sql<{ week_start: string }[]>`
        SELECT week_start FROM menu_plans WHERE user_id = ${userId} ORDER BY week_start`;
      return rows.map((r) => r.week_start);
    },

    async shoppingWeeks(userId: string): Promise<string[]> {
      const rows = await sql<{ week_start: string }[]>`
        SELECT week_start FROM shopping_lists WHERE user_id = ${userId} ORDER BY week_start`;
      return rows.map((r) => r.week_start);
    },

    /** The dishes or recipes made for the user (stubs, recognitions, recommendations, menus). */
    async ownIds(table: 'dishes' | 'recipes', userId: string): Promise<string[]> {
      const rows = await sql<{ id: string }[]>`SELECT id FROM ${sql(table)} WHERE created_by = ${userId} ORDER BY id`;
      return rows.map((r) => r.id);
    },

    /** Recommendation sets kept for the user (per day, language and meal type). */
    async recommendations(userId: string) {
      return sql<
        {
          day: string;
          language_code: string;
          meal_type: string;
          items: unknown;
          model: string | null;
          generated_at: Date;
        }[]
      >`
        SELECT day, language_code, meal_type, items, model, generated_at FROM recommendation_sets
        WHERE user_id = ${userId} ORDER BY day, language_code, meal_type`;
    },

    /** The uploaded photos of the user's jobs: references only, never the bytes. */
    async images(userId: string) {
      return sql<
        {
          id: string;
          job_id: string;
          kind: 'dish' | 'product';
          content_type: string;
          byte_size: number;
          created_at: Date;
        }[]
      >`
        SELECT i.id, COALESCE(i.dish_job_id, i.product_job_id) AS job_id,
               CASE WHEN i.dish_job_id IS NULL THEN 'product' ELSE 'dish' END AS kind,
               i.content_type, i.byte_size, i.created_at
        FROM job_images i
        LEFT JOIN dish_recognition_jobs d ON d.id = i.dish_job_id
        LEFT JOIN product_recognition_jobs p ON p.id = i.product_job_id
        WHERE d.user_id = ${userId} OR p.user_id = ${userId}
        ORDER BY i.created_at, i.id`;
    },

    /**
     * Removes the user and everything that references them (the foreign keys cascade: rows, dishes and recipes made
     * for them, jobs and their photos, sessions and refresh tokens, the change feed). The sessions are marked
     * revoked first, so every API process hears of it (NOTIFY on commit). Returns the revoked session ids.
     */
    async deleteUser(userId: string): Promise<string[]> {
      // Locks in the order writes take them, so that one waits for the other instead of PostgreSQL ending one of them
      // (deadlock detected): the user's row first (see lockOwner), then the refresh tokens, which a refresh locks
      // before it updates their session.
      await sql`SELECT 1 FROM users WHERE id = ${userId} FOR UPDATE`;
      await sql`
        SELECT 1 FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id WHERE s.user_id = ${userId}
        FOR UPDATE OF t`;
      const revoked = await sql<{ id: string }[]>`
        UPDATE sessions SET revoked_at = COALESCE(revoked_at, now()), revoked_reason = COALESCE(revoked_reason,
          'account_deleted')
        WHERE user_id = ${userId} RETURNING id`;
      await sql`DELETE FROM users WHERE id = ${userId}`;
      return revoked.map((r) => r.id);
    },
  };
}
