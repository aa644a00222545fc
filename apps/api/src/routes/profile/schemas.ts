import { Type } from 'typebox';
import { named, DateString, Nullable, Uuid, Version } from '../../schemas.ts';

const Sex = Type.Union([Type.Literal('male'), Type.Literal('female')]);
const ActivityLevel = Type.Enum(['sedentary', 'light', 'moderate', 'active', 'very_active'], {
  description: 'activity factors 1.2, 1.375, 1.55, 1.725, 1.9',
});
const Goal = Type.Union([Type.Literal('lose'), Type.Literal('maintain'), Type.Literal('gain')], {
  description: '-500, 0, +300 kcal a day',
});
const Code = Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9_]+$' });

const PreferencesIn = Type.Object(
  {
    language: Type.Optional(
      Nullable(Type.String({ minLength: 2, maxLength: 16, description: 'a loaded language code; null clears it' })),
    ),
    cuisines: Type.Optional(Type.Array(Code, { maxItems: 50, uniqueItems: true })),
    excluded_tags: Type.Optional(Type.Array(Code, { maxItems: 50, uniqueItems: true })),
    meals_per_day: Type.Optional(Type.Integer({ minimum: 3, maximum: 6 })),
  },
  { additionalProperties: false },
);

export const ProfileUpdate = named(
  'ProfileUpdate',
  Type.Object(
    {
      name: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
      date_of_birth: Type.Optional(
        Nullable(Type.String({ format: 'date', description: '10 to 120 years before today' })),
      ),
      sex: Type.Optional(Nullable(Sex)),
      height_cm: Type.Optional(Nullable(Type.Number({ minimum: 50, maximum: 272 }))),
      weight_kg: Type.Optional(Nullable(Type.Number({ minimum: 20, maximum: 500 }))),
      activity_level: Type.Optional(Nullable(ActivityLevel)),
      goal: Type.Optional(Nullable(Goal)),
      preferences: Type.Optional(PreferencesIn),
      timezone: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 64,
          description: 'IANA time zone of the device (`Europe/Kyiv`); every "today" of the user is computed in it',
        }),
      ),
    },
    { additionalProperties: false, description: 'partial update: only sent fields change' },
  ),
);

export const Profile = named(
  'Profile',
  Type.Object({
    id: Uuid,
    email: Nullable(Type.String()),
    name: Nullable(Type.String()),
    date_of_birth: Nullable(DateString),
    age: Nullable(Type.Integer()),
    sex: Nullable(Sex),
    height_cm: Nullable(Type.Number()),
    weight_kg: Nullable(Type.Number()),
    activity_level: Nullable(ActivityLevel),
    goal: Nullable(Goal),
    plan: Type.Union([Type.Literal('free'), Type.Literal('paid')]),
    timezone: Type.String({ description: 'IANA time zone, default UTC' }),
    preferences: Type.Object({
      language: Nullable(Type.String()),
      cuisines: Type.Array(Type.String()),
      excluded_tags: Type.Array(Type.String()),
      meals_per_day: Type.Integer(),
    }),
    bmr: Nullable(Type.Number({ description: 'Mifflin-St Jeor, kcal a day' })),
    calorie_target: Nullable(Type.Integer({ description: 'null while any input is missing; never below 1200' })),
    macro_targets: Nullable(
      Type.Object(
        { protein_g: Type.Integer(), fat_g: Type.Integer(), carbs_g: Type.Integer() },
        {
          description: '25 % protein, 30 % fat, 45 % carbohydrates of the calorie target',
        },
      ),
    ),
    version: Version,
  }),
);
