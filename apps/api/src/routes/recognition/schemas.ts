import { Type } from 'typebox';
import { JOB_STATUSES, PRODUCT_JOB_TYPES } from '@nutrition/domain';
import { named, DateString, MealType, Nullable, Timestamp, Uuid } from '../../schemas.ts';

export const MAX_IMAGE_BYTES = 8 * 1024 * 1024;
export const MAX_IMAGES = 10;
const BASE64_CHARS = Math.ceil(MAX_IMAGE_BYTES / 3) * 4 + 4;
/**
 * Base64 of 8 MiB as a JSON string: padding, and a line break every 76 characters (MIME; Android's Base64.DEFAULT),
 * each written `\r\n` in JSON (four characters). Without that room a wrapped photo of 8 MiB was refused as too large.
 */
export const MAX_BASE64 = BASE64_CHARS + Math.ceil(BASE64_CHARS / 76) * 4;

export const ImageJson = Type.Object(
  {
    content_type: Type.String({ maxLength: 100, description: 'informative: the type is decided by the magic bytes' }),
    data_base64: Type.String({ minLength: 1, description: 'at most 8 MiB once decoded (else 413)' }),
  },
  { additionalProperties: false },
);

export const DishSubmission = Type.Object(
  {
    image: ImageJson,
    target_date: Type.Optional(DateString),
    target_meal_type: Type.Optional(MealType),
  },
  {
    additionalProperties: false,
    description: 'JSON form; the same as multipart/form-data with a file field `image` and text fields',
  },
);

export const ProductSubmission = Type.Object(
  { images: Type.Array(ImageJson, { minItems: 1, maxItems: MAX_IMAGES }) },
  {
    additionalProperties: false,
    description: 'JSON form; the same as multipart/form-data with 1-10 file fields `images`',
  },
);

export const Accepted = named(
  'JobAccepted',
  Type.Object({
    job_id: Uuid,
    status: Type.Literal('queued'),
    queue_position: Type.Integer({ description: 'jobs that will be taken before this one (paid first)' }),
    estimated_seconds: Type.Integer({ description: 'from recent processing times and the number of workers' }),
  }),
);

const JobError = Nullable(Type.Object({ code: Type.String(), message: Type.String() }));
const Status = Type.Enum([...JOB_STATUSES]);

export const DishResult = named(
  'DishResult',
  Type.Object({
    dishes: Type.Array(
      Type.Object({
        name: Type.String(),
        dish_id: Uuid,
        recipe_id: Uuid,
        portion_g: Type.Number(),
        portions: Type.Number(),
        confidence: Type.Number(),
        calories: Type.Number(),
        protein_g: Type.Number(),
        fat_g: Type.Number(),
        carbs_g: Type.Number(),
      }),
    ),
    model: Type.String({ description: '`offline` for the development stand-in' }),
  }),
);

export const ProductResult = named(
  'ProductResult',
  Type.Object({
    items: Type.Array(
      Type.Object({
        name: Type.String(),
        product_id: Nullable(Uuid),
        quantity: Type.Number(),
        unit_code: Type.String(),
        storage_days: Type.Integer(),
        confidence: Type.Number(),
        price: Nullable(Type.Number()),
      }),
    ),
    model: Type.String(),
  }),
);

export const DishJob = named(
  'DishJob',
  Type.Object({
    id: Uuid,
    status: Status,
    target_date: Nullable(DateString),
    target_meal_type: Nullable(MealType),
    result: Nullable(DishResult),
    error: JobError,
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);

export const ProductJob = named(
  'ProductJob',
  Type.Object({
    id: Uuid,
    status: Status,
    job_type: Type.Enum([...PRODUCT_JOB_TYPES]),
    result: Nullable(ProductResult),
    error: JobError,
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);

export const ApplyBody = named(
  'ApplyRequest',
  Type.Object(
    {
      item_indexes: Type.Optional(
        Type.Array(Type.Integer({ minimum: 0, maximum: 99 }), { minItems: 1, maxItems: 100, uniqueItems: true }),
      ),
    },
    { additionalProperties: false },
  ),
);
