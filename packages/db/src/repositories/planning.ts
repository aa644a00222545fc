import { plausibleServing, UNKNOWN_NUTRIENTS } from '@nutrition/domain';
import type { Queryable } from '../client.ts';
import { computePerServing, writeRecipeBody, type Macros } from './recipe-writer.ts';

export interface GeneratedRecipeInput {
  title: string;
  englishTitle: string;
  servings: number;
  prepMinutes: number;
  cookMinutes: number;
  /** The model's own figures, kept when the ingredients cannot all be weighed. */
  macros: Macros;
  ingredients: { name: string; quantity: number; unit: string; productId?: string }[];
  steps: string[];
}

/** Generated recipes: matched to catalog products and saved as dishes + recipes with their source. */
export function generatedRecipeRepository(sql: Queryable) {
  /**
   * Curated (not imported) products for ingredient names: an exact name in any language first, else the closest
   * name (trigram similarity >= 0.6). Unmatched names stay null and are kept with their text. The query is the
   * database function `match_curated_products` (drizzle/0024), which raises the trigram threshold for itself alone.
   */
  async function matchProducts(names: string[]): Promise<(string | null)[]> {
    if (names.length === 0) return [];
    const rows = await sql<{ product_id: string | null }[]>`
      SELECT product_id FROM match_curated_products(${names.map((n) => n.trim())}::text[]) ORDER BY i`;
    return rows.map((r) => r.product_id);
  }

  return {
    matchProducts,

    async save(input: {
      recipe: GeneratedRecipeInput;
      source: 'ai' | 'menu';
      userId: string;
      language: string;
      imageUrl: string | null;
    }): Promise<{ dishId: string; recipeId: string; caloriesPerServing: number }> {
      const { recipe } = input;
      const matched = await matchProducts(recipe.ingredients.filter((i) => !i.productId).map((i) => i.name));
      let next = 0;
      const ingredients = recipe.ingredients.map((i) => ({
        productId: i.productId ?? matched[next++] ?? null,
        name: i.name,
        quantity: i.quantity,
        unitCode: i.unit,
      }));
      const computed = await computePerServing(sql, ingredients, recipe.servings);
      // Nutrition computed from amounts no serving holds (20 kg of oil for one: 179,800 kcal) is not trusted over
      // the model's own figures, which the schema bounds alike (MAX_PER_SERVING): the recipe counts as not weighed.
      const weighed = computed && computed.unmeasured === 0 && plausibleServing(computed) ? computed : null;
      const macros = weighed ?? recipe.macros;
      // The model's estimate covers the macros only.
      const nutrients = weighed?.nutrients ?? UNKNOWN_NUTRIENTS;

      const [dish] = await sql<{ id: string }[]>`
        INSERT INTO dishes (source, created_by, image_url) VALUES (${input.source}, ${input.userId}, ${input.imageUrl})
          RETURNING id`;
      const names = [{ dish_id: dish!.id, language_code: input.language, name: recipe.title }];
      if (input.language !== 'en') names.push({ dish_id: dish!.id, language_code: 'en', name: recipe.englishTitle });
      await sql`INSERT INTO dish_translations ${sql(names)}`;
      const [row] = await sql<{ id: string }[]>`
        INSERT INTO recipes (dish_id, is_default, source, servings, prep_minutes, cook_minutes, calories_per_serving,
                             protein_per_serving, fat_per_serving, carbs_per_serving, fiber_per_serving,
                             sugars_per_serving, saturated_fat_per_serving, salt_per_serving, serving_g, image_url,
                             created_by)
        VALUES (${dish!.id}, true, ${input.source}, ${recipe.servings}, ${recipe.prepMinutes}, ${recipe.cookMinutes},
                ${macros.calories}, ${macros.protein}, ${macros.fat}, ${macros.carbs}, ${nutrients.fiber},
                ${nutrients.sugars}, ${nutrients.saturated_fat}, ${nutrients.salt}, ${weighed?.servingG ?? null},
                ${input.imageUrl}, ${input.userId})
        RETURNING id`;
      await writeRecipeBody(
        sql,
        row!.id,
        ingredients,
        recipe.steps.map((text) => ({ text: { [input.language]: text }, durationMinutes: null })),
      );
      return { dishId: dish!.id, recipeId: row!.id, caloriesPerServing: macros.calories };
    },
  };
}
