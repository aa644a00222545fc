import type { GeneratedRecipe } from './schemas.ts';

/** Per-serving macros a model estimated for a dish it knows only by name. */
export interface MacroEstimate {
  calories: number;
  protein: number;
  fat: number;
  carbs: number;
  /** `offline` for the development stand-in, else the model's name: nobody mistakes one for the other. */
  model: string;
}

export interface PantryItem {
  product_id: string | null;
  name: string;
  quantity: number;
  unit: string;
  days_left: number;
}

/** Everything a planning prompt is built from. */
export interface PlanningContext {
  /** Target language: its code and English name (the prompt names it in English). */
  language: { code: string; english_name: string };
  calorieTarget: number | null;
  macroTargets: { protein_g: number; fat_g: number; carbs_g: number } | null;
  cuisines: string[];
  excludedTags: string[];
  /** Expiring first. */
  pantry: PantryItem[];
  /** Varies deterministic choices between users and days. */
  seed: string;
}

export interface Slot {
  date: string;
  meal_type: typeof import('./schemas.ts').MEAL_TYPES[number];
}

/** The model work the service asks for. Each task has its own output schema and may use its own model. */
export interface ModelProvider {
  readonly name: string;
  estimateDishMacros(input: { name: string; language: string }): Promise<MacroEstimate>;
  recommend(
    input: PlanningContext & { count: number; mealType: string | null },
  ): Promise<{ recipes: GeneratedRecipe[]; model: string }>;
  /** `signal`: a deadline shared with the caller's other calls (one request's menu asks twice at most). */
  planMenu(
    input: PlanningContext & { slots: Slot[] },
    signal?: AbortSignal,
  ): Promise<{ days: { date: string; meals: GeneratedRecipe[] }[]; model: string }>;
}

/** An upstream failure (network, 4xx/5xx, timeout): surfaced as 502 `model_unavailable`, never retried. */
export class ModelUnavailable extends Error {
  override name = 'ModelUnavailable';
}

/** The model kept answering with output that does not fit the task's schema. */
export class ModelOutputInvalid extends ModelUnavailable {
  override name = 'ModelOutputInvalid';
}

/** How a model failure is recorded on a recognition job; null for errors that are not the model's. */
export function modelJobError(err: unknown): { code: string; message: string } | null {
  if (err instanceof ModelOutputInvalid)
    return { code: 'recognition_failed', message: 'The model answer could not be read' };
  if (err instanceof ModelUnavailable)
    return { code: 'model_unavailable', message: 'The recognition model is unavailable' };
  return null;
}
