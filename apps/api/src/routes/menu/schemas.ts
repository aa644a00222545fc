import { Type } from 'typebox';
import {
  named,
  ClientId,
  DateString,
  MealType,
  NutrientGrams,
  NutrientTotals,
  Nullable,
  Uuid,
  Version,
} from '../../schemas.ts';

export const MenuItem = named(
  'MenuItem',
  Type.Object({
    id: Uuid,
    date: DateString,
    meal_type: MealType,
    dish_id: Uuid,
    recipe_id: Uuid,
    name: Type.String(),
    servings: Type.Number(),
    calories: Nullable(Type.Number()),
    protein_g: Nullable(Type.Number()),
    fat_g: Nullable(Type.Number()),
    carbs_g: Nullable(Type.Number()),
    ...NutrientGrams,
    image_url: Nullable(Type.String()),
    version: Version,
  }),
);

const Totals = Type.Object({
  calories: Type.Number(),
  protein_g: Type.Number(),
  fat_g: Type.Number(),
  carbs_g: Type.Number(),
  ...NutrientTotals,
});

export const Plan = named(
  'MenuPlan',
  Type.Object({
    id: Nullable(Uuid),
    week_start: DateString,
    model: Nullable(
      Type.String({
        description: 'the model of the latest generation (`offline`: the stand-in); null if planned by hand',
      }),
    ),
    days: Type.Array(Type.Object({ date: DateString, items: Type.Array(MenuItem), totals: Totals })),
    totals: Totals,
  }),
);

export const WeekQuery = Type.Object({ week_start: Type.Optional(DateString) }, { additionalProperties: false });
export const RequiredWeekQuery = Type.Object({ week_start: DateString }, { additionalProperties: false });

export const Servings = Type.Number({ exclusiveMinimum: 0, maximum: 20 });

export const PutMenu = named(
  'MenuInput',
  Type.Object(
    {
      week_start: DateString,
      items: Type.Array(
        Type.Object(
          {
            id: Type.Optional(ClientId),
            date: DateString,
            meal_type: MealType,
            dish_id: Type.Optional(Uuid),
            recipe_id: Type.Optional(Uuid),
            servings: Type.Optional(Servings),
          },
          { additionalProperties: false },
        ),
        { maxItems: 42 },
      ),
    },
    {
      additionalProperties: false,
      description:
        "upserts the named slots; every other slot is kept. An item `id` made by the client names the slot's item: " +
        'a slot held by an item of another id gets the new one (the old id is deleted); an id that names another ' +
        'slot or user is 409 `id_conflict`. Sending the same body again changes nothing.',
    },
  ),
);

export const GenerateMenu = named(
  'GenerateMenuRequest',
  Type.Object(
    {
      week_start: Type.Optional(DateString),
      dates: Type.Optional(Type.Array(DateString, { minItems: 1, maxItems: 31, uniqueItems: true })),
      meal_types: Type.Optional(Type.Array(MealType, { minItems: 1, maxItems: 6, uniqueItems: true })),
    },
    {
      additionalProperties: false,
      description:
        'week mode: {week_start?} fills breakfast, lunch and dinner of 7 days; ' +
        'dates mode: {dates, meal_types} fills only those slots',
    },
  ),
);
