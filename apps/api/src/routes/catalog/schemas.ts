import { Type } from 'typebox';
import { named, Cursor, Limit, Nullable, NutrientsPer100g, NutrientsPerServing, Page, Uuid } from '../../schemas.ts';

const Code = Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9_]+$' });
export const SearchText = Type.String({ minLength: 1, maxLength: 100, description: '1-100 characters' });

export const DishSummary = named(
  'DishSummary',
  Type.Object({
    id: Uuid,
    name: Type.String({ description: 'in the request language' }),
    description: Nullable(Type.String()),
    category_code: Nullable(Type.String()),
    cuisine_code: Nullable(Type.String()),
    tags: Type.Array(Type.String()),
    image_url: Nullable(Type.String()),
    default_recipe_id: Nullable(Uuid),
    calories_per_serving: Nullable(Type.Number()),
  }),
);

export const RecipeSource = Type.Enum(['catalog', 'ai', 'menu', 'user', 'stub']);

export const RecipeSummary = named(
  'RecipeSummary',
  Type.Object({
    id: Uuid,
    source: RecipeSource,
    servings: Type.Number(),
    prep_minutes: Nullable(Type.Integer()),
    cook_minutes: Nullable(Type.Integer()),
    is_default: Type.Boolean(),
    calories_per_serving: Nullable(Type.Number()),
    protein_per_serving: Nullable(Type.Number()),
    fat_per_serving: Nullable(Type.Number()),
    carbs_per_serving: Nullable(Type.Number()),
    ...NutrientsPerServing,
    image_url: Nullable(Type.String()),
  }),
);

export const Dish = named('Dish', Type.Intersect([DishSummary, Type.Object({ recipes: Type.Array(RecipeSummary) })]));

export const Ingredient = named(
  'RecipeIngredient',
  Type.Object({
    id: Uuid,
    product_id: Nullable(Uuid),
    name: Type.String(),
    quantity: Type.Number(),
    unit_code: Type.String(),
    unit: Type.String({ description: 'localised name of the unit' }),
    note: Nullable(Type.String()),
    yield_factor: Type.Number({
      minimum: 0,
      maximum: 1,
      description: 'the share that ends up in the dish: below 1 for what is strained out (coffee grounds, tea leaves)',
    }),
  }),
);

export const Step = named(
  'RecipeStep',
  Type.Object({
    position: Type.Integer({ minimum: 1 }),
    text: Type.String(),
    duration_minutes: Nullable(Type.Integer()),
  }),
);

export const Recipe = named(
  'Recipe',
  Type.Object({
    id: Uuid,
    dish_id: Uuid,
    name: Type.String({ description: "the dish's name in the request language" }),
    source: RecipeSource,
    servings: Type.Number(),
    prep_minutes: Nullable(Type.Integer()),
    cook_minutes: Nullable(Type.Integer()),
    calories_per_serving: Nullable(Type.Number()),
    protein_per_serving: Nullable(Type.Number()),
    fat_per_serving: Nullable(Type.Number()),
    carbs_per_serving: Nullable(Type.Number()),
    ...NutrientsPerServing,
    notes: Nullable(Type.String()),
    image_url: Nullable(Type.String()),
    ingredients: Type.Array(Ingredient),
    steps: Type.Array(Step),
  }),
);

export const Product = named(
  'Product',
  Type.Object({
    id: Uuid,
    canonical_name: Type.String(),
    name: Type.String({ description: 'display name in the request language (extension)' }),
    barcode: Nullable(Type.String()),
    brand: Nullable(Type.String()),
    category_code: Nullable(Type.String()),
    category_name: Nullable(Type.String()),
    calories_per_100g: Nullable(Type.Number()),
    protein_per_100g: Nullable(Type.Number()),
    fat_per_100g: Nullable(Type.Number()),
    carbs_per_100g: Nullable(Type.Number()),
    ...NutrientsPer100g,
    edible_portion: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1,
      description: 'the share of a piece as bought that is eaten (an egg without its shell: 0.88)',
    }),
    default_unit_code: Type.String(),
    default_unit_name: Nullable(Type.String()),
    storage_days: Nullable(Type.Integer()),
  }),
);

export const ScoredProduct = named('ScoredProduct', Type.Intersect([Product, Type.Object({ score: Type.Number() })]));

export const DishListQuery = Type.Object(
  {
    category: Type.Optional(Code),
    cuisine: Type.Optional(Code),
    tag: Type.Optional(Code),
    limit: Type.Optional(Limit),
    cursor: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);
export const DishSearchQuery = Type.Object(
  { q: SearchText, limit: Type.Optional(Limit), cursor: Type.Optional(Cursor) },
  { additionalProperties: false },
);
export const ProductSearchQuery = Type.Object(
  { q: SearchText, category: Type.Optional(Code), limit: Type.Optional(Limit), cursor: Type.Optional(Cursor) },
  { additionalProperties: false },
);
export const BarcodeParams = Type.Object({ barcode: Type.String({ maxLength: 64 }) }, { additionalProperties: false });

export const DishPage = named('DishPage', Page(DishSummary));
export const ProductPage = named('ProductPage', Page(ScoredProduct));
export const DishSearchResult = named(
  'DishSearchResult',
  Type.Object({
    items: Type.Array(Type.Intersect([DishSummary, Type.Object({ score: Type.Number() })])),
    next_cursor: Nullable(Type.String({ description: 'always null: search answers one ranked page' })),
  }),
);
