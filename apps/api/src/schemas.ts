import { Type, type TSchema } from 'typebox';
import { MEAL_TYPES } from '@nutrition/domain';

/** The contract's error body, used as the response schema of every 4xx/5xx. */
export const ErrorSchema = Type.Object(
  {
    statusCode: Type.Integer(),
    error: Type.String(),
    code: Type.String({ description: 'stable machine-readable snake_case code' }),
    message: Type.String(),
    request_id: Type.String(),
    details: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
  },
  { $id: 'Error' },
);

/** Response schemas for the error statuses a route can answer. */
export function errors(...statuses: number[]) {
  return Object.fromEntries(statuses.map((s) => [s, Type.Ref('Error')])) as Record<number, TSchema>;
}

/** A shape with a name of its own in the OpenAPI document (components.schemas), which generated types take. */
export const named = <T extends TSchema>(title: string, schema: T): T => ({ ...schema, title });

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Years the service takes in any date or timestamp it is sent: 1900 to 2100. */
const YEAR = '(?:19\\d{2}|20\\d{2}|2100)';
export const DateString = Type.String({
  format: 'date',
  pattern: `^${YEAR}-\\d{2}-\\d{2}$`,
  description: 'YYYY-MM-DD, 1900-01-01 to 2100-12-31',
});
/** Rows carry Date objects; the serializer writes them as RFC 3339 strings in UTC. */
export const Timestamp = Type.Unsafe<Date | string>({
  type: 'string',
  format: 'date-time',
  description: 'RFC 3339, UTC',
});
/**
 * A timestamp sent by a client. Narrower than RFC 3339 where PostgreSQL is: no leap second (PostgreSQL rolls `:60`
 * over to the next minute, past every check made on the text) and offsets within ±15:59 (beyond, it refuses the
 * value).
 */
export const TimestampInput = Type.String({
  format: 'date-time',
  // the offset's minutes and colon as PostgreSQL takes them too (+0200, +02: Android's SimpleDateFormat writes +0200)
  pattern: `^${YEAR}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}:[0-5]\\d(?:\\.\\d+)?(?:[Zz]|[+-](?:0\\d|1[0-5])(?::?[0-5]\\d)?)$`,
  description: 'RFC 3339, years 1900 to 2100, no leap second, offsets within ±15:59',
});
// A pattern besides the format: the format also takes `urn:uuid:…`, which PostgreSQL refuses (was a 500).
export const Uuid = Type.String({
  format: 'uuid',
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
});
export const IdParams = Type.Object({ id: Uuid }, { additionalProperties: false });

/** A row id an app made itself, so that a create made offline can be sent again safely. */
export const ClientId = Type.String({
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[47][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$',
  description:
    'a UUID (version 4 or 7) made by the client: the same id and body again answer 200 with the stored row and ' +
    'create nothing; another body (or a deleted row of that id) is 409 `id_conflict`. Stored and returned in ' +
    'lowercase.',
});

/** The row's version: bumped on every change; send it as `If-Match` to update only an unchanged row. */
export const Version = Type.Integer({
  minimum: 1,
  description: 'bumped on every change; `If-Match` with it makes an update conditional (412 when stale)',
});

export const MealType = Type.Enum([...MEAL_TYPES]);

export const Limit = Type.Integer({ minimum: 1, maximum: 100, default: 20 });
// No length limit here: a cursor too long to be one is a malformed cursor (invalid_cursor), not a validation error.
export const Cursor = Type.String({ minLength: 1 });

export const Page = <T extends TSchema>(item: T) =>
  Type.Object({ items: Type.Array(item), next_cursor: Nullable(Type.String()) });

/** Label nutrients beyond the macros (fibre, sugars, saturated fat, salt): null where a source does not state them. */
const nutrient = (description: string) => Nullable(Type.Number({ description }));
const SALT = '; sodium × 2.5 where only sodium is known';
const PER_100G = 'grams per 100 g; null where unknown';
export const NutrientsPer100g = {
  fiber_per_100g: nutrient(PER_100G),
  sugars_per_100g: nutrient(PER_100G),
  saturated_fat_per_100g: nutrient(PER_100G),
  salt_per_100g: nutrient(PER_100G + SALT),
};
const PER_SERVING = 'grams per serving; null unless every weighed ingredient states it';
export const NutrientsPerServing = {
  fiber_per_serving: nutrient(PER_SERVING),
  sugars_per_serving: nutrient(PER_SERVING),
  saturated_fat_per_serving: nutrient(PER_SERVING),
  salt_per_serving: nutrient(PER_SERVING),
};
const GRAMS = 'grams; null where unknown';
export const NutrientGrams = {
  fiber_g: nutrient(GRAMS),
  sugars_g: nutrient(GRAMS),
  saturated_fat_g: nutrient(GRAMS),
  salt_g: nutrient(GRAMS),
};
const TOTAL = 'grams, the known values summed: 0 when empty, null when nothing in it states the nutrient';
export const NutrientTotals = {
  fiber_g: nutrient(TOTAL),
  sugars_g: nutrient(TOTAL),
  saturated_fat_g: nutrient(TOTAL),
  salt_g: nutrient(TOTAL),
};
