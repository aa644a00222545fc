import type { Queryable } from '../client.ts';

/**
 * Rows with a maker (the dishes and recipes made for a user: stubs, recommendations, menus) are their maker's alone;
 * catalog rows have none and are everyone's. Every read of a dish or recipe goes through one of these conditions.
 */
export const visibleDish = (sql: Queryable, userId: string, alias = 'd') =>
  sql`(${sql(alias)}.source = 'catalog' OR ${sql(alias)}.created_by = ${userId})`;

export const visibleRecipe = (sql: Queryable, userId: string, alias = 'r') =>
  sql`(${sql(alias)}.source = 'catalog' OR ${sql(alias)}.created_by = ${userId})`;
