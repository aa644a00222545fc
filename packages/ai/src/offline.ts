import type { MacroEstimate, ModelProvider } from './provider.ts';

/** What the offline model reads from the catalog. */
export interface CatalogLookup {
  /** Catalog dishes whose names resemble `name` in any language, best first, with per-serving macros. */
  similarDishes(name: string, limit: number): Promise<{ similarity: number; calories: number; protein: number; fat: number; carbs: number }[]>;
}

/** A plain mixed meal, for names that resemble nothing in the catalog. */
const TYPICAL_MEAL = { calories: 400, protein: 18, fat: 15, carbs: 45 };

const round1 = (x: number) => Math.round(x * 10) / 10;

/**
 * The development stand-in used when no model is configured: deterministic answers built from the catalog. A macro
 * estimate is the similarity-weighted mean of the most similar catalog dishes. Results say `model: "offline"`.
 */
export function offlineModel(catalog: CatalogLookup): ModelProvider {
  return {
    name: 'offline',
    async estimateDishMacros({ name }): Promise<MacroEstimate> {
      const similar = (await catalog.similarDishes(name, 5)).filter((d) => d.similarity > 0);
      if (similar.length === 0) return { ...TYPICAL_MEAL, model: 'offline' };
      const weight = similar.reduce((sum, d) => sum + d.similarity, 0);
      const mean = (key: 'calories' | 'protein' | 'fat' | 'carbs') =>
        round1(similar.reduce((sum, d) => sum + d[key] * d.similarity, 0) / weight);
      return { calories: mean('calories'), protein: mean('protein'), fat: mean('fat'), carbs: mean('carbs'), model: 'offline' };
    },
  };
}
