import type { ModelProvider, VisionModel } from '@nutrition/ai';
import type { Sql } from '@nutrition/db';
import { runRecognitionJob, type JobHandler } from '@nutrition/worker';
import { diaryRepository, recognitionRepository } from '@nutrition/db/repositories';
import { round1 } from '@nutrition/domain';

/**
 * A dish job: the photo goes to the vision model; each recognised dish is matched to a catalog dish (or the user's
 * own), or created with a recipe stub whose macros the model estimates; nutrition is per-serving × portions.
 */
export function dishRecognizer(sql: Sql, vision: VisionModel, model: ModelProvider): JobHandler {
  const jobs = recognitionRepository(sql);
  const diary = diaryRepository(sql);
  /**
   * For a name no dish matched: the macros are estimated first (a model call must not hold a connection and a lock),
   * then, under a lock per user and name, the dish another job may have made meanwhile, else a new one.
   */
  const findOrCreate = async (userId: string, name: string) => {
    const estimate = await model.estimateDishMacros({ name, language: 'en' });
    return sql.begin(async (tx) => {
      const dishes = diaryRepository(tx);
      await dishes.lockDishName(userId, name);
      const found = await dishes.findDishWithRecipe(userId, name);
      if (found) return found;
      await dishes.createStubDish(userId, name, 'en', estimate);
      return (await dishes.findDishWithRecipe(userId, name))!;
    });
  };
  return ({ jobId }, signal) =>
    runRecognitionJob(
      jobs,
      'dish',
      jobId,
      {
        expiredMessage: 'The photo is no longer stored',
        recognise: (job) => vision.recognizeDish(job.images, signal),
        result: async (job, seen) => {
          const dishes = [];
          for (const d of seen.dishes) {
            // Usually a dish that exists: one read. Otherwise, under a lock per user and name, look again or create it.
            const r =
              (await diary.findDishWithRecipe(job.user_id, d.name)) ?? (await findOrCreate(job.user_id, d.name));
            dishes.push({
              name: d.name,
              dish_id: r.dish_id,
              recipe_id: r.recipe_id,
              portion_g: d.portion_g,
              portions: d.portions,
              confidence: d.confidence,
              calories: round1((r.calories ?? 0) * d.portions),
              protein_g: round1((r.protein ?? 0) * d.portions),
              fat_g: round1((r.fat ?? 0) * d.portions),
              carbs_g: round1((r.carbs ?? 0) * d.portions),
            });
          }
          return { dishes, model: seen.model };
        },
      },
      signal,
    );
}
