/** Per-serving macros a model estimated for a dish it knows only by name. */
export interface MacroEstimate {
  calories: number;
  protein: number;
  fat: number;
  carbs: number;
  /** `offline` for the development stand-in, else the model's name: nobody mistakes one for the other. */
  model: string;
}

/** The model work the service asks for. Each task has its own output schema and may use its own model. */
export interface ModelProvider {
  readonly name: string;
  estimateDishMacros(input: { name: string; language: string }): Promise<MacroEstimate>;
}

/** An upstream failure (network, 4xx/5xx, timeout): surfaced as 502 `model_unavailable`, never retried. */
export class ModelUnavailable extends Error {}
