import OpenAI, { APIError } from 'openai';
import { implausibleRecipeQuantity, scriptProblem, withCleanText } from '@nutrition/domain';
import { Type, type Static, type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import {
  DISH_VISION_TASK,
  macroPrompt,
  menuPrompt,
  PRODUCT_VISION_TASK,
  recommendationPrompt,
  visionPrompt,
  type ChatMessage,
} from './prompts.ts';
import { ModelOutputInvalid, ModelUnavailable, type ModelProvider } from './provider.ts';
import {
  DishVisionOutput,
  MacroOutput,
  MenuOutput,
  ProductVisionOutput,
  RecommendationsOutput,
  type DishVision,
  type GeneratedRecipe,
  type ProductVision,
} from './schemas.ts';
import type { VisionModel } from './vision.ts';

export type ModelTask = 'recommendations' | 'menu' | 'estimate' | 'vision';

/**
 * The text of generated recipes must be wholly in the request language: a recipe whose title, reason or steps are in
 * another script (an English reason for a Russian reader, say) is named, so the answer is asked for again.
 */
function languageProblem(recipes: GeneratedRecipe[], language: { code: string; english_name: string }): string | null {
  for (const [i, r] of recipes.entries()) {
    for (const [field, text] of [
      ['title', r.title],
      ['reason', r.reason],
      ['steps', r.steps.join(' ')],
    ] as const) {
      const problem = text ? scriptProblem(text, language.code) : null;
      if (problem) return `recipe ${i + 1}: the ${field} ${problem}; write all of it in ${language.english_name}`;
    }
  }
  return null;
}

/** An ingredient amount no recipe uses (100000 kg of oil) is named, so the answer is asked for again. */
function quantityProblem(recipes: GeneratedRecipe[]): string | null {
  for (const [i, r] of recipes.entries()) {
    for (const ing of r.ingredients) {
      const problem = implausibleRecipeQuantity(ing.quantity, ing.unit);
      if (problem) return `recipe ${i + 1}: ${ing.name}: ${problem}`;
    }
  }
  return null;
}

/** What a recipe answer must also be: wholly in the request language, with amounts a recipe uses. */
function recipesProblem(recipes: GeneratedRecipe[], language: { code: string; english_name: string }) {
  return languageProblem(recipes, language) ?? quantityProblem(recipes);
}

export interface OpenAiConfig {
  apiKey: string;
  /** Any OpenAI-compatible endpoint: OpenAI, Azure-style gateways, OpenRouter, Ollama, vLLM, llama.cpp. */
  baseUrl?: string;
  /** Model name per task. */
  models: Record<ModelTask, string>;
  /** The whole of one call, retries of invalid output included; below the API's 120 s write timeout. */
  timeoutMs: number;
  log?: { info: (obj: object, msg: string) => void; warn: (obj: object, msg: string) => void };
}

/** Parse or validation failures get this many more tries, each told what was wrong. */
export const OUTPUT_RETRIES = 2;

/**
 * Structured output over the chat-completions API: the JSON schema of each task comes from its TypeBox schema and
 * every answer is validated against it. Invalid output is retried with the error fed back, within the one deadline
 * of the call (`timeoutMs`); upstream failures (network, 4xx/5xx, that deadline) are never retried and surface as
 * ModelUnavailable.
 */
export function openAiProvider(config: OpenAiConfig): ModelProvider &
  VisionModel & {
    complete<T>(
      task: ModelTask,
      name: string,
      schema: TSchema,
      messages: ChatMessage[],
      signal?: AbortSignal,
    ): Promise<T>;
  } {
  const client = new OpenAI({
    apiKey: config.apiKey,
    baseURL: config.baseUrl,
    timeout: config.timeoutMs,
    maxRetries: 0,
  });

  async function complete<T>(
    task: ModelTask,
    name: string,
    schema: TSchema,
    messages: ChatMessage[],
    signal?: AbortSignal,
    /** A check beyond the schema (the language of the text); a problem it names is retried like a schema error. */
    check: (output: T) => string | null = () => null,
  ): Promise<T> {
    const conversation = [...messages];
    // One deadline for the call, retries included: each retry with a timeout of its own made one request wait three
    // times MODEL_TIMEOUT_MS (150 s for answers of invalid JSON taking 50 s each), past the 120 s write timeout.
    const deadline = AbortSignal.timeout(config.timeoutMs);
    const callSignal = signal ? AbortSignal.any([signal, deadline]) : deadline;
    const timedOut = () => {
      config.log?.warn({ task, timeout_ms: config.timeoutMs }, 'model call timed out');
      return new ModelUnavailable(`${task} model call timed out after ${config.timeoutMs} ms`);
    };
    for (let attempt = 0; attempt <= OUTPUT_RETRIES; attempt++) {
      if (deadline.aborted) throw timedOut();
      let content: string;
      try {
        const response = await client.chat.completions.create(
          {
            model: config.models[task],
            messages: conversation as OpenAI.Chat.ChatCompletionMessageParam[],
            response_format: {
              type: 'json_schema',
              json_schema: { name, schema: schema as Record<string, unknown>, strict: false },
            },
          },
          { signal: callSignal },
        );
        config.log?.info({ task, model: response.model, attempt, usage: response.usage ?? null }, 'model call');
        content = response.choices[0]?.message?.content ?? '';
      } catch (err) {
        // Network errors, HTTP errors and timeouts alike: a retry would only double the wait or the bill.
        if (deadline.aborted) throw timedOut();
        const status = err instanceof APIError ? err.status : undefined;
        config.log?.warn({ task, status, err: (err as Error).message }, 'model call failed');
        throw new ModelUnavailable(`${task} model call failed${status ? ` (${status})` : ''}`);
      }
      let problem: string;
      try {
        // A stray NUL or other control character in the text is dropped, as the input rule would refuse it (and
        // PostgreSQL cannot store a NUL); a string left empty fails the schema and is asked for again.
        const parsed = withCleanText(JSON.parse(content));
        const errors = Value.Errors(schema, parsed);
        const checked = errors.length === 0 ? check(parsed as T) : null;
        if (errors.length === 0 && checked === null) return parsed as T;
        problem =
          checked ??
          errors
            .slice(0, 5)
            .map((e) => `${e.instancePath || '/'} ${e.message}`)
            .join('; ');
      } catch (err) {
        problem = `not valid JSON (${(err as Error).message})`;
      }
      config.log?.warn({ task, attempt, problem }, 'model output rejected');
      conversation.push(
        { role: 'assistant', content },
        {
          role: 'user',
          content: `That answer is not right: ${problem}. Answer again with corrected JSON only.`,
        },
      );
    }
    throw new ModelOutputInvalid(`${task}: no valid output after ${OUTPUT_RETRIES + 1} tries`);
  }

  return {
    name: 'openai',
    complete,
    async estimateDishMacros(input) {
      const out = await complete<{ calories: number; protein: number; fat: number; carbs: number }>(
        'estimate',
        'macro_estimate',
        MacroOutput,
        macroPrompt(input),
      );
      return { ...out, model: config.models.estimate };
    },
    async recommend(input) {
      const out = await complete<{ recipes: GeneratedRecipe[] }>(
        'recommendations',
        'recommendations',
        RecommendationsOutput,
        recommendationPrompt(input),
        undefined,
        (o) => recipesProblem(o.recipes, input.language),
      );
      return { recipes: out.recipes.slice(0, input.count), model: config.models.recommendations };
    },
    async recognizeDish(images, signal) {
      const out = await complete<DishVision>(
        'vision',
        'dish_recognition',
        DishVisionOutput,
        visionPrompt(DISH_VISION_TASK, images),
        signal,
      );
      return { ...out, model: config.models.vision };
    },
    async recognizeProducts(image, jobType, signal) {
      const out = await complete<ProductVision>(
        'vision',
        'product_recognition',
        ProductVisionOutput,
        visionPrompt(PRODUCT_VISION_TASK[jobType], [image]),
        signal,
      );
      return { ...out, model: config.models.vision };
    },
    async planMenu(input, signal) {
      const out = await complete<MenuOutput>('menu', 'menu', MenuOutput, menuPrompt(input), signal, (o) =>
        recipesProblem(
          o.days.flatMap((d) => d.meals),
          input.language,
        ),
      );
      return { days: out.days, model: config.models.menu };
    },
  };
}

/** The model settings every process reads (through the shared loader of `@nutrition/domain`). */
export const MODEL_SETTINGS = {
  OPENAI_API_KEY: Type.String({
    default: '',
    description: 'key of an OpenAI-compatible endpoint; unset: the offline development model',
  }),
  MODEL_PROVIDER: Type.Union([Type.Literal(''), Type.Literal('openai'), Type.Literal('offline')], {
    default: '',
    description: 'openai or offline; unset: openai when OPENAI_API_KEY is set, else offline (refused in production)',
  }),
  OPENAI_BASE_URL: Type.String({
    default: '',
    description: 'OpenAI-compatible base URL (OpenRouter, Ollama, vLLM, llama.cpp, gateways); unset: OpenAI',
  }),
  OPENAI_MODEL: Type.String({ default: 'gpt-4o-mini', description: 'model for every task without its own' }),
  OPENAI_MODEL_RECOMMENDATIONS: Type.String({ default: '', description: 'model for recommendations' }),
  OPENAI_MODEL_MENU: Type.String({ default: '', description: 'model for menus' }),
  OPENAI_MODEL_ESTIMATE: Type.String({ default: '', description: 'model for macro estimates of named dishes' }),
  OPENAI_MODEL_VISION: Type.String({ default: '', description: 'vision model for photo recognition' }),
  MODEL_TIMEOUT_MS: Type.Integer({
    minimum: 1000,
    maximum: 115_000,
    default: 100_000,
    description: 'longest one model call takes, retries of invalid output included; below the 120 s write timeout',
  }),
};

export type ModelSettings = { NODE_ENV: string } & {
  [K in keyof typeof MODEL_SETTINGS]: Static<(typeof MODEL_SETTINGS)[K]>;
};

/**
 * The model rule every process shares: a production process without a model key would silently answer with the
 * offline stand-ins, so it refuses to start unless MODEL_PROVIDER=offline says that is meant.
 */
export function modelProblems(
  settings: Pick<ModelSettings, 'NODE_ENV' | 'OPENAI_API_KEY' | 'MODEL_PROVIDER'>,
): string[] {
  if (settings.MODEL_PROVIDER === 'openai' && !settings.OPENAI_API_KEY)
    return ['OPENAI_API_KEY: required with MODEL_PROVIDER=openai'];
  if (settings.NODE_ENV === 'production' && !settings.OPENAI_API_KEY && settings.MODEL_PROVIDER !== 'offline') {
    return [
      'OPENAI_API_KEY: required in production (set MODEL_PROVIDER=offline to serve the offline development model)',
    ];
  }
  return [];
}

/** The OpenAI-compatible provider the settings configure, or null for the offline development model. */
export function modelFromSettings(settings: ModelSettings, log?: OpenAiConfig['log']) {
  if (!settings.OPENAI_API_KEY || settings.MODEL_PROVIDER === 'offline') return null;
  const pick = (specific: string) => specific || settings.OPENAI_MODEL;
  return openAiProvider({
    apiKey: settings.OPENAI_API_KEY,
    baseUrl: settings.OPENAI_BASE_URL || undefined,
    timeoutMs: settings.MODEL_TIMEOUT_MS,
    models: {
      recommendations: pick(settings.OPENAI_MODEL_RECOMMENDATIONS),
      menu: pick(settings.OPENAI_MODEL_MENU),
      estimate: pick(settings.OPENAI_MODEL_ESTIMATE),
      vision: pick(settings.OPENAI_MODEL_VISION),
    },
    log,
  });
}
