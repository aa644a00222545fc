import type { Queryable } from '../client.ts';

/**
 * Rows with a maker (the dishes and recipes made for a user: stubs, recommendations, menus) are their maker's alone;
 * catalog rows have none and are everyone's. Every read of a dish or recipe goes through one of these conditions.
 */
export const visibleDish = (sql: Queryable, userId: string, alias = 'd') =>
  sql`(${sql(alias)}.source = 'catalog' OR ${sql(alias)}.created_by = ${userId})`;

export const visibleRecipe = (sql: Queryable, userId: string, alias = 'r') =>
  sql`(${sql(alias)}.source = 'catalog' OR ${sql(alias)}.created_by = ${userId})`;

/**
 * Locks the user's row FOR KEY SHARE: the first lock of a transaction that then locks another row of the user's (an
 * existing list, plan or job) before writing rows that reference the user. An account deletion locks the user's row
 * first and then, by its cascade, every row of theirs; a write that had locked one of those first deadlocked with it
 * (one of the two answered 500). In the same order, one waits for the other: a write after the deletion then fails
 * on its foreign key to users (401 session_revoked) or finds nothing (404).
 */
export async function lockOwner(sql: Queryable, userId: string): Promise<void> {
  await sql`SELECT 1 FROM users WHERE id = ${userId} FOR KEY SHARE`;
}
