import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { referenceRepository, type ReferenceList } from '@nutrition/db/repositories';
import { named, errors } from '../../schemas.ts';
import { httpCache } from '../../http-cache.ts';

const Language = named(
  'Language',
  Type.Object({
    code: Type.String(),
    native_name: Type.String(),
    english_name: Type.String(),
    sort_order: Type.Integer(),
  }),
);
const Named = named(
  'NamedCode',
  Type.Object({ code: Type.String(), name: Type.String({ description: 'in the request language' }) }),
);
const Unit = named(
  'Unit',
  Type.Object({
    code: Type.String(),
    name: Type.String({ description: 'in the request language' }),
    short: Type.String({ description: 'abbreviation in the request language' }),
    kind: Type.Enum(['mass', 'volume', 'count']),
    base_unit: Type.Union([Type.Enum(['g', 'ml']), Type.Null()], {
      description: 'null for counted units, whose weight depends on the product',
    }),
    factor: Type.Union([Type.Number(), Type.Null()], {
      description: 'base units in one of this unit (a US cup 240 ml, a Japanese cup 200 ml)',
    }),
  }),
);

/** Small, unpaginated reference lists (plain arrays), names in the request language. */
const reference: FastifyPluginAsyncTypebox = async (app) => {
  const repo = referenceRepository(app.sql);
  // Reference lists change with a deployment: reused for an hour.
  await app.register(httpCache);
  const config = { cacheSeconds: 3600 };

  app.get(
    '/languages',
    {
      config,
      schema: {
        tags: ['reference'],
        summary: 'Active languages',
        security: [],
        response: { 200: Type.Array(Language) },
      },
    },
    async () => app.languages.list.map(({ search_config: _, ...l }) => l),
  );

  app.get(
    '/units',
    {
      config,
      onRequest: app.authenticate,
      schema: { tags: ['reference'], summary: 'Units of measure', response: { 200: Type.Array(Unit), ...errors(401) } },
    },
    async (request) => repo.units(request.language),
  );

  const publicLists: [string, Exclude<ReferenceList, 'units'>, string][] = [
    ['/cuisines', 'cuisines', 'Cuisines'],
    ['/tags', 'tags', 'Dish tags (diets, allergens, occasions)'],
    ['/dish-categories', 'dish_categories', 'Dish categories'],
    ['/product-categories', 'product_categories', 'Product categories, in shop order'],
  ];
  for (const [path, list, summary] of publicLists) {
    app.get(
      path,
      { config, schema: { tags: ['reference'], summary, security: [], response: { 200: Type.Array(Named) } } },
      async (request) => repo.list(list, request.language),
    );
  }
};

export default reference;
