import type { CatalogRecipe } from '@nutrition/domain';
import type { Sql } from '../client.ts';

/**
 * What the offline development model and vision stand-in read from the catalog (they answer from it instead of asking
 * a model). `searchSql` is the unprepared pool: the trigram conditions go wrong in a generic plan.
 */
export function offlineModelFeedRepository(sql: Sql, searchSql: Sql = sql) {
  return {
    /** Catalog dishes whose name in any language resembles `name`, best first, with per-serving macros. */
    async similarDishes(name: string, limit: number) {
      const text = name.trim().toLowerCase();
      return searchSql<{ similarity: number; calories: number; protein: number; fat: number; carbs: number }[]>`
        SELECT max(greatest(similarity(lower(t.name), ${text}), word_similarity(${text}, lower(t.name))))::float8 AS
          similarity,
               r.calories_per_serving::float8 AS calories, r.protein_per_serving::float8 AS protein,
               r.fat_per_serving::float8 AS fat, r.carbs_per_serving::float8 AS carbs
        FROM dish_translations t
        JOIN dishes d ON d.id = t.dish_id AND d.source = 'catalog'
        JOIN recipes r ON r.dish_id = d.id AND r.is_default
        WHERE lower(t.name) % ${text} OR ${text} <% lower(t.name)
        GROUP BY d.id, r.id
        ORDER BY 1 DESC LIMIT ${limit}`;
    },

    /**
     * Every catalog recipe with ingredients and steps in `language` (English where missing): the offline model's menu.
     */
    async catalogRecipes(language: string) {
      return sql<CatalogRecipe[]>`
        SELECT d.id AS dish_id, d.category_code, d.cuisine_code,
               COALESCE((SELECT array_agg(x.tag_code) FROM dish_tags x WHERE x.dish_id = d.id), '{}') AS tags,
               COALESCE(tl.name, te.name) AS title, te.name AS english_title,
               r.servings::float8 AS servings, r.prep_minutes, r.cook_minutes,
               r.calories_per_serving::float8 AS calories, r.protein_per_serving::float8 AS protein,
               r.fat_per_serving::float8 AS fat, r.carbs_per_serving::float8 AS carbs,
               (SELECT json_agg(json_build_object('product_id', i.product_id,
                         'name', COALESCE(pl.name, pe.name, p.canonical_name), 'quantity', i.quantity::float8, 'unit',
                           i.unit_code)
                       ORDER BY i.position)
                FROM recipe_ingredients i JOIN products p ON p.id = i.product_id
                LEFT JOIN product_aliases pl ON pl.product_id = p.id AND pl.language_code = ${language} AND
                  pl.is_primary
                LEFT JOIN product_aliases pe ON pe.product_id = p.id AND pe.language_code = 'en' AND pe.is_primary
                WHERE i.recipe_id = r.id) AS ingredients,
               COALESCE((SELECT json_agg(COALESCE(sl.text, se.text) ORDER BY s.position)
                FROM recipe_steps s
                LEFT JOIN recipe_step_translations sl ON sl.step_id = s.id AND sl.language_code = ${language}
                LEFT JOIN recipe_step_translations se ON se.step_id = s.id AND se.language_code = 'en'
                WHERE s.recipe_id = r.id), '[]') AS steps
        FROM dishes d JOIN recipes r ON r.dish_id = d.id AND r.is_default
        LEFT JOIN dish_translations tl ON tl.dish_id = d.id AND tl.language_code = ${language}
        LEFT JOIN dish_translations te ON te.dish_id = d.id AND te.language_code = 'en'
        WHERE d.source = 'catalog'
        ORDER BY d.id`;
    },

    /**
     * English names of catalog dishes, and curated products with their default unit: what offline vision picks from.
     */
    async visionCatalog() {
      const [dishes, products] = await Promise.all([
        sql<{ name: string }[]>`
          SELECT t.name FROM dishes d JOIN dish_translations t ON t.dish_id = d.id AND t.language_code = 'en'
          WHERE d.source = 'catalog' ORDER BY d.code`,
        sql<{ name: string; unit: string }[]>`
          SELECT canonical_name AS name, default_unit_code AS unit FROM products WHERE source = 'seed' ORDER BY code`,
      ]);
      return { dishes: dishes.map((d) => d.name), products };
    },
  };
}
