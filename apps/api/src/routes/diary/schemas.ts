import { Type } from 'typebox';
import {
  named,
  Cursor,
  DateString,
  Limit,
  MealType,
  NutrientGrams,
  NutrientTotals,
  Nullable,
  Timestamp,
  Uuid,
  ClientId,
  Version,
} from '../../schemas.ts';

export const DiaryEntry = named(
  'DiaryEntry',
  Type.Object({
    id: Uuid,
    date: DateString,
    meal_type: MealType,
    dish_id: Nullable(Uuid),
    product_id: Nullable(Uuid),
    recipe_id: Nullable(Uuid),
    name: Type.String({ description: 'in the request language' }),
    portions: Nullable(Type.Number()),
    portion_g: Nullable(Type.Number()),
    calories: Nullable(Type.Number()),
    protein_g: Nullable(Type.Number()),
    fat_g: Nullable(Type.Number()),
    carbs_g: Nullable(Type.Number()),
    ...NutrientGrams,
    job_id: Nullable(Uuid),
    created_at: Timestamp,
    version: Version,
  }),
);

export const Totals = named(
  'NutritionTotals',
  Type.Object({
    calories: Type.Number(),
    protein_g: Type.Number(),
    fat_g: Type.Number(),
    carbs_g: Type.Number(),
    ...NutrientTotals,
  }),
);

export const DiaryDay = named(
  'DiaryDay',
  Type.Object({
    date: DateString,
    entries: Type.Array(DiaryEntry),
    totals: Totals,
    calorie_target: Nullable(Type.Integer()),
  }),
);

export const DiaryQuery = Type.Object({ date: DateString }, { additionalProperties: false });

export const NewEntry = named(
  'NewDiaryEntry',
  Type.Object(
    {
      id: Type.Optional(ClientId),
      date: DateString,
      meal_type: MealType,
      dish_id: Type.Optional(Uuid),
      name: Type.Optional(
        Type.String({ minLength: 1, maxLength: 200, description: 'finds the dish in any language, or creates it' }),
      ),
      product_id: Type.Optional(Uuid),
      portions: Type.Optional(
        Type.Number({ exclusiveMinimum: 0, maximum: 50, description: 'dish entries; default 1' }),
      ),
      portion_g: Type.Optional(
        Type.Number({
          exclusiveMinimum: 0,
          maximum: 10000,
          description:
            "required for product entries; on a dish entry without `portions`, sets them from the recipe's " +
            'serving weight (350 g of a 250 g serving is 1.4 portions)',
        }),
      ),
      job_id: Type.Optional(Uuid),
    },
    { additionalProperties: false, description: 'exactly one of dish_id, name, product_id; no macro values' },
  ),
);

export const EntryPatch = named(
  'DiaryEntryPatch',
  Type.Object(
    {
      date: Type.Optional(DateString),
      meal_type: Type.Optional(MealType),
      portions: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 50, description: 'dish entries only' })),
      portion_g: Type.Optional(
        Nullable(
          Type.Number({
            exclusiveMinimum: 0,
            maximum: 10000,
            description: 'a product entry needs one; null clears it on a dish entry',
          }),
        ),
      ),
    },
    { additionalProperties: false, minProperties: 1, description: 'the fields to change; at least one' },
  ),
);

export const RecentQuery = Type.Object(
  { limit: Type.Optional(Limit), cursor: Type.Optional(Cursor) },
  { additionalProperties: false },
);

export const RecentItem = named(
  'RecentDiaryItem',
  Type.Object({
    kind: Type.Enum(['dish', 'product']),
    dish_id: Nullable(Uuid),
    product_id: Nullable(Uuid),
    recipe_id: Nullable(Uuid),
    name: Type.String(),
    last_used_at: Timestamp,
    use_count: Type.Integer(),
  }),
);
