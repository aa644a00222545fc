import type { Queryable } from '../client.ts';
import { visibleRecipe } from './ownership.ts';
import { type NutrientsPerServing, RECIPE_NUTRIENTS } from './nutrients.ts';

export interface BookmarkRow extends NutrientsPerServing {
  id: string;
  recipe_id: string;
  dish_id: string;
  name: string;
  image_url: string | null;
  calories_per_serving: number | null;
  protein_per_serving: number | null;
  fat_per_serving: number | null;
  carbs_per_serving: number | null;
  saved_at: Date;
  version: number;
}

/** Name and nutrition come from the recipe at read time, so a bookmark never shows stale figures. */
const BOOKMARK = (sql: Queryable, language: string) => sql`
  s.id, s.recipe_id, r.dish_id, COALESCE(tl.name, te.name) AS name, COALESCE(r.image_url, d.image_url) AS image_url,
  r.calories_per_serving::float8 AS calories_per_serving, r.protein_per_serving::float8 AS protein_per_serving,
  r.fat_per_serving::float8 AS fat_per_serving, r.carbs_per_serving::float8 AS carbs_per_serving,
  ${RECIPE_NUTRIENTS(sql)}, s.saved_at, s.version
  FROM user_saved_recipes s JOIN recipes r ON r.id = s.recipe_id JOIN dishes d ON d.id = r.dish_id
  LEFT JOIN dish_translations tl ON tl.dish_id = d.id AND tl.language_code = ${language}
  LEFT JOIN dish_translations te ON te.dish_id = d.id AND te.language_code = 'en'`;

export function savedRecipeRepository(sql: Queryable) {
  return {
    /** Idempotent: returns the bookmark and whether this call created it; null for a recipe the user may not see. */
    async save(
      userId: string,
      recipeId: string,
      client?: { id: string; hash: string },
    ): Promise<{ id: string; created: boolean } | null> {
      const [row] = await sql<{ id: string; created: boolean }[]>`
        WITH ins AS (
          INSERT INTO user_saved_recipes (id, user_id, recipe_id, client_hash)
          SELECT COALESCE(${client?.id ?? null}::uuid, uuidv7()), ${userId}, r.id, ${client?.hash ?? null}
          FROM recipes r WHERE r.id = ${recipeId} AND ${visibleRecipe(sql, userId)}
          ON CONFLICT (user_id, recipe_id) DO NOTHING
          RETURNING id
        )
        SELECT id, true AS created FROM ins
        UNION ALL
        SELECT id, false FROM user_saved_recipes WHERE user_id = ${userId} AND recipe_id = ${recipeId}
        LIMIT 1`;
      if (row) return row;
      // A parallel save of the same recipe committed while this one waited on it: a new statement sees its row.
      const [saved] = await sql<{ id: string; created: boolean }[]>`
        SELECT id, false AS created FROM user_saved_recipes WHERE user_id = ${userId} AND recipe_id = ${recipeId}`;
      return saved ?? null;
    },

    /** The user's bookmarks among `ids` (the change feed's read); every bookmark without `ids`. */
    async byIds(userId: string, ids: string[] | null, language: string): Promise<BookmarkRow[]> {
      return sql<BookmarkRow[]>`
        SELECT ${BOOKMARK(sql, language)}
        WHERE s.user_id = ${userId} ${ids ? sql`AND s.id = ANY(${ids}::uuid[])` : sql``} ORDER BY s.id`;
    },

    async get(userId: string, id: string, language: string): Promise<BookmarkRow | null> {
      const [row] = await sql<
        BookmarkRow[]
      >`SELECT ${BOOKMARK(sql, language)} WHERE s.user_id = ${userId} AND s.id = ${id}`;
      return row ?? null;
    },

    /** Newest first; the id (uuid v7) orders by save time and serves as the cursor. `recipeId` narrows to one. */
    async list(
      userId: string,
      language: string,
      limit: number,
      beforeId?: string,
      recipeId?: string,
    ): Promise<BookmarkRow[]> {
      return sql<BookmarkRow[]>`
        SELECT ${BOOKMARK(sql, language)}
        WHERE s.user_id = ${userId} ${beforeId ? sql`AND s.id < ${beforeId}` : sql``}
          ${recipeId ? sql`AND s.recipe_id = ${recipeId}` : sql``}
        ORDER BY s.id DESC LIMIT ${limit}`;
    },

    async deleteByRecipe(userId: string, recipeId: string): Promise<boolean> {
      const rows = await sql`
        DELETE FROM user_saved_recipes WHERE user_id = ${userId} AND recipe_id = ${recipeId} RETURNING id`;
      return rows.length > 0;
    },

    async delete(userId: string, id: string): Promise<boolean> {
      return (
        (await sql`DELETE FROM user_saved_recipes WHERE user_id = ${userId} AND id = ${id} RETURNING id`).length > 0
      );
    },
  };
}
