import type { VisionModel } from '@nutrition/ai';
import type { Sql } from '@nutrition/db';
import { runRecognitionJob, type JobHandler } from '@nutrition/worker';
import { generatedRecipeRepository, pantryRepository, recognitionRepository } from '@nutrition/db/repositories';

const DEFAULT_STORAGE_DAYS = 7;

export interface RecognisedItem {
  name: string;
  product_id: string | null;
  quantity: number;
  unit_code: string;
  storage_days: number;
  confidence: number;
  price: number | null;
}

/**
 * A receipt or product-photo job: every image goes to the vision model at the same time, the answers are merged
 * (the same product and unit summed), and each line is matched to a catalog product with its storage days.
 */
export function productRecognizer(sql: Sql, vision: VisionModel): JobHandler {
  const jobs = recognitionRepository(sql);
  const pantry = pantryRepository(sql);
  const recipes = generatedRecipeRepository(sql);
  return ({ jobId }, signal) =>
    runRecognitionJob(
      jobs,
      'product',
      jobId,
      {
        expiredMessage: 'The photos are no longer stored',
        recognise: (job) =>
          Promise.all(job.images.map((image) => vision.recognizeProducts(image, job.job_type!, signal))),
        result: async (_job, answers) => {
          // A line without a name (a model may answer blanks) could be neither matched nor shown: left out.
          const lines = answers.flatMap((a) => a.items).filter((line) => line.name.trim() !== '');
          const matched = await recipes.matchProducts(lines.map((l) => l.name));
          const merged = new Map<string, RecognisedItem>();
          for (const [i, line] of lines.entries()) {
            const productId = (await pantry.productByName(line.name)) ?? matched[i] ?? null;
            const key = `${productId ?? line.name.trim().toLowerCase()}|${line.unit}`;
            const existing = merged.get(key);
            if (existing) {
              // Summed in binary floating point, 0.1 + 0.2 kg would read 0.30000000000000004.
              existing.quantity = Math.round((existing.quantity + line.quantity) * 1000) / 1000;
              existing.confidence = Math.max(existing.confidence, line.confidence);
              existing.price =
                existing.price === null && line.price === null
                  ? null
                  : Math.round(((existing.price ?? 0) + (line.price ?? 0)) * 100) / 100;
              continue;
            }
            const storage = productId
              ? ((await pantry.productDefaults(productId))?.storage_days ?? DEFAULT_STORAGE_DAYS)
              : DEFAULT_STORAGE_DAYS;
            merged.set(key, {
              name: line.name.trim(),
              product_id: productId,
              quantity: line.quantity,
              unit_code: line.unit,
              storage_days: storage,
              confidence: line.confidence,
              price: line.price,
            });
          }
          return { items: [...merged.values()], model: answers[0]?.model ?? 'offline' };
        },
      },
      signal,
    );
}
