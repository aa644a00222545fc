import type { MacroEstimate, ModelProvider, PlanningContext, Slot } from './provider.ts';
import type { GeneratedRecipe } from './schemas.ts';
import { offlineTexts } from './offline-texts.ts';
import { type CatalogRecipe, MEAL_SHARES } from '@nutrition/domain';

export type { CatalogRecipe };

/** What the offline model reads from the catalog. */
export interface CatalogLookup {
  /** Catalog dishes whose names resemble `name` in any language, best first, with per-serving macros. */
  similarDishes(
    name: string,
    limit: number,
  ): Promise<{ similarity: number; calories: number; protein: number; fat: number; carbs: number }[]>;
  /** Every catalog recipe, names and steps in `language` (English where missing). */
  catalogRecipes?(language: string): Promise<CatalogRecipe[]>;
}

/** A plain mixed meal, for names that resemble nothing in the catalog. */
const TYPICAL_MEAL = { calories: 400, protein: 18, fat: 15, carbs: 45 };

/** Dish categories that suit each meal. */
const MEAL_CATEGORIES: Record<string, string[]> = {
  breakfast: ['breakfast'],
  second_breakfast: ['breakfast', 'snack', 'bakery'],
  lunch: ['soup', 'main', 'salad'],
  afternoon_snack: ['snack', 'dessert', 'bakery', 'drink'],
  dinner: ['main', 'salad'],
  snack: ['snack', 'dessert', 'drink', 'bakery'],
};

const round1 = (x: number) => Math.round(x * 10) / 10;

/** A stable 32-bit hash (FNV-1a), so choices are deterministic yet differ between users and days. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * The development stand-in used when no model is configured: deterministic answers built from the catalog, labelled
 * `model: "offline"` so that nobody mistakes them for a real model's. Macro estimates are the similarity-weighted
 * mean of similar catalog dishes; recommendations and menus are catalog recipes ranked by how much of the expiring
 * pantry they use, the preferred cuisines and a per-user, per-day rotation, never with an excluded tag.
 */
export function offlineModel(catalog: CatalogLookup): ModelProvider {
  const recipesByLanguage = new Map<string, Promise<CatalogRecipe[]>>();
  const recipes = (language: string) => {
    if (!catalog.catalogRecipes) return Promise.resolve([]);
    let cached = recipesByLanguage.get(language);
    if (!cached) {
      cached = catalog.catalogRecipes(language);
      cached.catch(() => recipesByLanguage.delete(language));
      recipesByLanguage.set(language, cached);
    }
    return cached;
  };

  /** Candidates for a meal, best first, with the pantry items each uses. */
  function rank(all: CatalogRecipe[], ctx: PlanningContext, mealType: string | null, salt: string) {
    const pantryWeight = new Map<string, { name: string; weight: number }>();
    for (const p of ctx.pantry) {
      if (p.product_id)
        pantryWeight.set(p.product_id, { name: p.name, weight: 1 + 3 / (1 + Math.max(0, p.days_left)) });
    }
    const categories = mealType ? MEAL_CATEGORIES[mealType] : null;
    return all
      .filter((r) => !r.tags.some((t) => ctx.excludedTags.includes(t)))
      .filter((r) => !categories || (r.category_code !== null && categories.includes(r.category_code)))
      .map((r) => {
        const used = r.ingredients.flatMap((i) =>
          pantryWeight.has(i.product_id) ? [pantryWeight.get(i.product_id)!] : [],
        );
        const score =
          used.reduce((s, u) => s + u.weight, 0) +
          (r.cuisine_code && ctx.cuisines.includes(r.cuisine_code) ? 1 : 0) +
          (hash(`${ctx.seed}:${salt}:${r.dish_id}`) % 1000) / 1000;
        return { recipe: r, used: [...new Set(used.map((u) => u.name))], score };
      })
      .sort((a, b) => b.score - a.score);
  }

  function asGenerated(r: CatalogRecipe, mealType: string, used: string[], language: string): GeneratedRecipe {
    const texts = offlineTexts(language);
    return {
      title: r.title,
      english_title: r.english_title,
      reason: used.length ? texts.usesPantry(used.join(texts.separator)) : texts.fitsTargets,
      meal_type: mealType as GeneratedRecipe['meal_type'],
      servings: r.servings,
      prep_minutes: r.prep_minutes ?? 0,
      cook_minutes: r.cook_minutes ?? 0,
      calories_per_serving: r.calories,
      protein_per_serving: r.protein,
      fat_per_serving: r.fat,
      carbs_per_serving: r.carbs,
      ingredients: r.ingredients.map((i) => ({ ...i, unit: i.unit as GeneratedRecipe['ingredients'][number]['unit'] })),
      steps: r.steps.length ? r.steps : [texts.prepareAsUsual],
      uses_pantry: used,
    };
  }

  return {
    name: 'offline',

    async estimateDishMacros({ name }): Promise<MacroEstimate> {
      const similar = (await catalog.similarDishes(name, 5)).filter((d) => d.similarity > 0);
      if (similar.length === 0) return { ...TYPICAL_MEAL, model: 'offline' };
      const weight = similar.reduce((sum, d) => sum + d.similarity, 0);
      const mean = (key: 'calories' | 'protein' | 'fat' | 'carbs') =>
        round1(similar.reduce((sum, d) => sum + d[key] * d.similarity, 0) / weight);
      return {
        calories: mean('calories'),
        protein: mean('protein'),
        fat: mean('fat'),
        carbs: mean('carbs'),
        model: 'offline',
      };
    },

    async recommend(ctx) {
      const ranked = rank(await recipes(ctx.language.code), ctx, ctx.mealType, 'recommend');
      const mealType = ctx.mealType ?? 'lunch';
      return {
        recipes: ranked.slice(0, ctx.count).map((c) => asGenerated(c.recipe, mealType, c.used, ctx.language.code)),
        model: 'offline',
      };
    },

    async planMenu(ctx) {
      const all = await recipes(ctx.language.code);
      const usedDishes = new Set<string>();
      const days = new Map<string, GeneratedRecipe[]>();
      for (const slot of ctx.slots as Slot[]) {
        const ranked = rank(all, ctx, slot.meal_type, slot.date);
        // As a model asked for the calorie target would: a dish that 0.6-1.8 servings of brings this meal to its
        // meal type's share of the day (the menu is fitted within 0.5-2 servings), when the catalog has one.
        const wanted = ctx.calorieTarget === null ? null : ctx.calorieTarget * (MEAL_SHARES[slot.meal_type] ?? 0.25);
        const fits = (c: (typeof ranked)[number]) =>
          wanted === null || (c.recipe.calories * 0.6 <= wanted && wanted <= c.recipe.calories * 1.8);
        const fresh = ranked.filter((c) => !usedDishes.has(c.recipe.dish_id));
        const pick = fresh.find(fits) ?? ranked.find(fits) ?? fresh[0] ?? ranked[0];
        if (!pick) continue;
        usedDishes.add(pick.recipe.dish_id);
        days.set(slot.date, [
          ...(days.get(slot.date) ?? []),
          asGenerated(pick.recipe, slot.meal_type, pick.used, ctx.language.code),
        ]);
      }
      return { days: [...days].map(([date, meals]) => ({ date, meals })), model: 'offline' };
    },
  };
}
