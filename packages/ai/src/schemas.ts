import { Type, type Static } from 'typebox';
import { MAX_PER_SERVING, MEAL_TYPES, UNIT_CODES } from '@nutrition/domain';

/** The unit codes a model may use: the service's own (the units table holds the same). */
export { UNIT_CODES };
export { MEAL_TYPES } from '@nutrition/domain';

const Macro = (max: number) => Type.Number({ minimum: 0, maximum: max });

export const GeneratedIngredient = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 120, description: 'ingredient name in the target language' }),
    // Bounded per unit by the provider's check (implausibleRecipeQuantity): 25 kg, not 100000 kg, of oil.
    quantity: Type.Number({ exclusiveMinimum: 0, maximum: 100000 }),
    unit: Type.Enum([...UNIT_CODES]),
  },
  { additionalProperties: false },
);

export const GeneratedRecipe = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 120, description: 'dish name in the target language' }),
    english_title: Type.String({ minLength: 1, maxLength: 120, description: 'the same name in English' }),
    reason: Type.String({ maxLength: 400, description: 'why it suits the user, in the target language' }),
    meal_type: Type.Enum([...MEAL_TYPES]),
    servings: Type.Integer({ minimum: 1, maximum: 12 }),
    prep_minutes: Type.Integer({ minimum: 0, maximum: 600 }),
    cook_minutes: Type.Integer({ minimum: 0, maximum: 1440 }),
    calories_per_serving: Macro(MAX_PER_SERVING.calories),
    protein_per_serving: Macro(MAX_PER_SERVING.protein),
    fat_per_serving: Macro(MAX_PER_SERVING.fat),
    carbs_per_serving: Macro(MAX_PER_SERVING.carbs),
    ingredients: Type.Array(GeneratedIngredient, { minItems: 1, maxItems: 30 }),
    steps: Type.Array(Type.String({ minLength: 1, maxLength: 800 }), { minItems: 1, maxItems: 20 }),
    uses_pantry: Type.Array(Type.String({ maxLength: 120 }), {
      maxItems: 30,
      description: 'names of pantry items used',
    }),
  },
  { additionalProperties: false },
);

export const RecommendationsOutput = Type.Object(
  { recipes: Type.Array(GeneratedRecipe, { minItems: 1, maxItems: 10 }) },
  { additionalProperties: false },
);

export const MenuOutput = Type.Object(
  {
    days: Type.Array(
      Type.Object(
        {
          date: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }),
          meals: Type.Array(GeneratedRecipe, { minItems: 1, maxItems: 6 }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 31 },
    ),
  },
  { additionalProperties: false },
);

export const MacroOutput = Type.Object(
  {
    calories: Macro(MAX_PER_SERVING.calories),
    protein: Macro(MAX_PER_SERVING.protein),
    fat: Macro(MAX_PER_SERVING.fat),
    carbs: Macro(MAX_PER_SERVING.carbs),
  },
  { additionalProperties: false },
);

export type GeneratedRecipe = Omit<Static<typeof GeneratedRecipe>, 'ingredients'> & {
  /** Set by the offline model, which builds recipes from catalog products. */
  ingredients: (Static<typeof GeneratedIngredient> & { product_id?: string })[];
};
export type MenuOutput = { days: { date: string; meals: GeneratedRecipe[] }[] };

const Confidence = Type.Number({ minimum: 0, maximum: 1 });

export const DishVisionOutput = Type.Object(
  {
    dishes: Type.Array(
      Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: 120, description: 'dish name in English' }),
          portion_g: Type.Number({ exclusiveMinimum: 0, maximum: 5000 }),
          portions: Type.Number({ exclusiveMinimum: 0, maximum: 20 }),
          confidence: Confidence,
        },
        { additionalProperties: false },
      ),
      { maxItems: 10 },
    ),
  },
  { additionalProperties: false },
);

export const ProductVisionOutput = Type.Object(
  {
    items: Type.Array(
      Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: 160, description: 'product name as printed or seen' }),
          quantity: Type.Number({ exclusiveMinimum: 0, maximum: 100000 }),
          unit: Type.Enum([...UNIT_CODES]),
          price: Type.Union([Type.Number({ minimum: 0 }), Type.Null()], {
            description: 'line price on a receipt, else null',
          }),
          confidence: Confidence,
        },
        { additionalProperties: false },
      ),
      { maxItems: 100 },
    ),
  },
  { additionalProperties: false },
);

export type DishVision = Static<typeof DishVisionOutput>;
export type ProductVision = Static<typeof ProductVisionOutput>;
