import type { FastifyInstance } from 'fastify';
import { findPhotos, type GeneratedRecipe, type PlanningContext } from '@nutrition/ai';
import type { Queryable } from '@nutrition/db';
import { energyInputs, generatedRecipeRepository, pantryRepository } from '@nutrition/db/repositories';
import { energyProfile } from '@nutrition/domain';
import type { UserTime } from './plugins/clock.ts';

/** What every planning prompt is built from: the profile's targets and preferences, the pantry (expiring first). */
export async function planningContext(
  app: FastifyInstance,
  userId: string,
  language: string,
  seed: string,
  time: UserTime,
): Promise<PlanningContext & { pantryIds: Map<string, string> }> {
  const [profile, pantry] = await Promise.all([
    app.profileReads.load(userId),
    pantryRepository(app.sql).list(userId, language, time, { limit: 100 }),
  ]);
  const energy = profile ? energyProfile(energyInputs(profile), time.today) : null;
  const lang = app.languages.byCode.get(language);
  return {
    language: { code: language, english_name: lang?.english_name ?? 'English' },
    calorieTarget: energy?.calorie_target ?? null,
    macroTargets: energy?.macro_targets ?? null,
    cuisines: profile?.preferences.cuisines ?? [],
    excludedTags: profile?.preferences.excluded_tags ?? [],
    pantry: pantry.map((p) => ({
      product_id: p.product_id,
      name: p.name,
      quantity: p.quantity,
      unit: p.unit_code,
      days_left: p.days_left,
    })),
    seed: `${userId}:${seed}`,
    pantryIds: new Map(pantry.filter((p) => p.product_id).map((p) => [p.name.toLowerCase(), p.product_id!])),
  };
}

/** Looks the photos up (English queries, concurrently, within the budget) before any transaction is open. */
export async function photosFor(
  app: FastifyInstance,
  recipes: GeneratedRecipe[],
  budgetMs: number,
): Promise<(string | null)[]> {
  const photos = await findPhotos(
    app.photos,
    recipes.map((r) => r.english_title),
    budgetMs,
  );
  return photos.map((p) => p?.url ?? null);
}

/** Saves generated recipes as dishes + recipes of this source, in the caller's transaction. */
export async function saveRecipes(
  tx: Queryable,
  recipes: GeneratedRecipe[],
  images: (string | null)[],
  source: 'ai' | 'menu',
  userId: string,
  language: string,
) {
  const repo = generatedRecipeRepository(tx);
  const saved = [];
  for (const [i, r] of recipes.entries()) {
    saved.push(
      await repo.save({
        source,
        userId,
        language,
        imageUrl: images[i] ?? null,
        recipe: {
          title: r.title,
          englishTitle: r.english_title,
          servings: r.servings,
          prepMinutes: r.prep_minutes,
          cookMinutes: r.cook_minutes,
          macros: {
            calories: r.calories_per_serving,
            protein: r.protein_per_serving,
            fat: r.fat_per_serving,
            carbs: r.carbs_per_serving,
          },
          ingredients: r.ingredients.map((ing) => ({
            name: ing.name,
            quantity: ing.quantity,
            unit: ing.unit,
            productId: ing.product_id,
          })),
          steps: r.steps,
        },
      }),
    );
  }
  return saved;
}
