import { edibleGramsOf, type Nutrients, recipePerServing, type Unit } from '@nutrition/domain';
import type { Queryable } from '../client.ts';

export interface IngredientInput {
  productId: string | null;
  /** Kept when no catalog product matched. */
  name: string | null;
  quantity: number;
  unitCode: string;
  note?: Record<string, string> | null;
  /** The share that ends up in the dish (1 when absent): see `recipe_ingredients.yield_factor`. */
  yieldFactor?: number;
}

export interface StepInput {
  /** Text per language. */
  text: Record<string, string>;
  durationMinutes: number | null;
}

export interface Macros {
  calories: number;
  protein: number;
  fat: number;
  carbs: number;
}

const scaled = (grams: number | null, factor: number) => (grams === null ? null : grams * factor);

/**
 * Per-serving macros from the ingredients (grams through unit factors, densities and piece weights), with how many
 * ingredients could not be weighed; null when an ingredient has no catalog product at all.
 */
export async function computePerServing(
  tx: Queryable,
  ingredients: IngredientInput[],
  servings: number,
): Promise<(Macros & { unmeasured: number; servingG: number | null; nutrients: Nutrients }) | null> {
  if (ingredients.length === 0 || ingredients.some((i) => !i.productId)) return null;
  const ids = [...new Set(ingredients.map((i) => i.productId!))];
  const [units, products] = await Promise.all([
    tx<
      Unit[]
    >`SELECT code, kind, factor FROM units WHERE code = ANY(${[...new Set(ingredients.map((i) => i.unitCode))]})`,
    tx<
      {
        id: string;
        calories: number | null;
        protein: number | null;
        fat: number | null;
        carbs: number | null;
        nutrients: Nutrients;
        density: number | null;
        piece_g: number | null;
        edible_portion: number;
        unit_grams: Record<string, number>;
      }[]
    >`
      SELECT id, calories_per_100g AS calories, protein_per_100g AS protein, fat_per_100g AS fat,
             carbs_per_100g AS carbs,
             json_build_object('fiber', fiber_per_100g, 'sugars', sugars_per_100g,
               'saturated_fat', saturated_fat_per_100g, 'salt', salt_per_100g) AS nutrients,
             density_g_per_ml AS density, piece_g, edible_portion, unit_grams
      FROM products WHERE id = ANY(${ids}::uuid[])`,
  ]);
  const unitByCode = new Map(units.map((u) => [u.code, u]));
  const productById = new Map(products.map((p) => [p.id, p]));
  const amounts = ingredients.map((i) => {
    const p = productById.get(i.productId!);
    const unit = unitByCode.get(i.unitCode);
    if (!p || !unit || p.calories === null) return { grams: null, per100g: null };
    return {
      grams: scaled(
        edibleGramsOf(i.quantity, unit, {
          densityGPerMl: p.density,
          pieceG: p.piece_g,
          unitGrams: p.unit_grams,
          ediblePortion: p.edible_portion,
        }),
        i.yieldFactor ?? 1,
      ),
      per100g: { calories: p.calories, protein: p.protein ?? 0, fat: p.fat ?? 0, carbs: p.carbs ?? 0 },
      nutrients: p.nutrients,
    };
  });
  return recipePerServing(amounts, servings);
}

/** Replaces a recipe's ingredients and steps (ids of both change; nothing references them). */
export async function writeRecipeBody(
  tx: Queryable,
  recipeId: string,
  ingredients: IngredientInput[],
  steps: StepInput[],
) {
  await tx`DELETE FROM recipe_ingredients WHERE recipe_id = ${recipeId}`;
  if (ingredients.length > 0) {
    await tx`INSERT INTO recipe_ingredients ${tx(
      ingredients.map((ing, i) => ({
        recipe_id: recipeId,
        position: i + 1,
        product_id: ing.productId,
        name: ing.productId ? null : ing.name,
        quantity: ing.quantity,
        unit_code: ing.unitCode,
        note: ing.note ? JSON.stringify(ing.note) : null,
        yield_factor: ing.yieldFactor ?? 1,
      })),
    )}`;
  }
  await tx`DELETE FROM recipe_steps WHERE recipe_id = ${recipeId}`;
  if (steps.length === 0) return;
  const saved = await tx<{ id: string; position: number }[]>`
    INSERT INTO recipe_steps ${tx(
      steps.map((s, i) => ({ recipe_id: recipeId, position: i + 1, duration_minutes: s.durationMinutes })),
    )}
    RETURNING id, position`;
  const texts = saved.flatMap((step) =>
    Object.entries(steps[step.position - 1]!.text).map(([language_code, text]) => ({
      step_id: step.id,
      language_code,
      text,
    })),
  );
  if (texts.length > 0) await tx`INSERT INTO recipe_step_translations ${tx(texts)}`;
}
