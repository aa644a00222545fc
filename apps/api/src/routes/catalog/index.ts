import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { catalogRepository } from '@nutrition/db/repositories';
import { isRestrictedCirculation, normalizeBarcode } from '@nutrition/domain';
import { errors, IdParams } from '../../schemas.ts';
import { badRequest, HttpError, notFound } from '../../errors.ts';
import { callerScope, isUuid } from '../../cursor.ts';
import { httpCache } from '../../http-cache.ts';
import { TextCache } from '../../text-cache.ts';
import {
  BarcodeParams,
  Dish,
  DishListQuery,
  DishPage,
  DishSearchQuery,
  DishSearchResult,
  Product,
  ProductPage,
  ProductSearchQuery,
  Recipe,
} from './schemas.ts';

const DEFAULT_LIMIT = 20;
const isKeyset = (v: unknown): v is { score: number; id: string } =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as { score?: unknown }).score === 'number' &&
  isUuid((v as { id?: unknown }).id);

const SEARCH_MAX_AGE_MS = 60_000;

/** Dishes, recipes and products of the catalog, localised by Accept-Language. */
const catalog: FastifyPluginAsyncTypebox<{ searchCacheMegabytes: number }> = async (app, opts) => {
  const repo = catalogRepository(app.sql, app.searchSql, app.productSearchSql);
  // A product search answers the same for every caller, and a search box sends the same few queries over and over
  // (a letter, two, the commonest words): answers are kept per process for a minute, and dropped at once when the
  // catalog changes (the same notification the diary's day cache follows).
  const searches = new TextCache(opts.searchCacheMegabytes * 1024 * 1024, SEARCH_MAX_AGE_MS);
  await app.notifications.subscribe(
    'catalog_changed',
    () => searches.invalidate(),
    () => searches.invalidate(),
  );
  app.addHook('onRequest', app.authenticate);
  // A dish, recipe or product changes rarely: reused for 5 minutes. Lists and searches may gain the caller's own
  // dishes at any time, so they are revalidated (a 304 when unchanged).
  await app.register(httpCache);

  app.get(
    '/dishes',
    {
      config: { cacheSeconds: 0 },
      schema: {
        tags: ['catalog'],
        summary: 'Catalog dishes, filtered',
        querystring: DishListQuery,
        response: { 200: DishPage, ...errors(400, 401) },
      },
    },
    async (request) => {
      const { limit = DEFAULT_LIMIT, cursor, ...filters } = request.query;
      const after = app.cursors.after(callerScope(request), cursor, isUuid);
      const rows = await repo.listDishes(filters, request.language, limit + 1, after);
      const items = rows.slice(0, limit);
      return {
        items,
        next_cursor: rows.length > limit ? app.cursors.next(callerScope(request), items.at(-1)!.id) : null,
      };
    },
  );

  app.get(
    '/dishes/search',
    {
      config: { cacheSeconds: 0 },
      schema: {
        tags: ['catalog'],
        summary: "Hybrid search over the names of catalog dishes and the caller's own, in every language, best first",
        description: 'Paged by `cursor` (stable for the same query).',
        querystring: DishSearchQuery,
        response: { 200: DishSearchResult, ...errors(400, 401) },
      },
    },
    async (request) => {
      const q = request.query.q.trim();
      if (!q) throw badRequest('q must not be blank', 'validation_failed');
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const after = app.cursors.after(callerScope(request), request.query.cursor, isKeyset);
      const rows = await repo.searchDishes(request.user.id, q, request.language, limit + 1, after);
      const items = rows.slice(0, limit);
      const last = items.at(-1);
      return {
        items,
        next_cursor:
          rows.length > limit && last
            ? app.cursors.next(callerScope(request), { score: last.score, id: last.id })
            : null,
      };
    },
  );

  app.get(
    '/dishes/:id',
    {
      config: { cacheSeconds: 300 },
      schema: {
        tags: ['catalog'],
        summary: "A catalog dish or one made for the caller, with its recipes (another user's is 404)",
        params: IdParams,
        response: { 200: Dish, ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const dish = await repo.dishById(request.user.id, request.params.id, request.language);
      if (!dish) throw notFound('Dish');
      return dish;
    },
  );

  app.get(
    '/recipes/:id',
    {
      config: { cacheSeconds: 300 },
      schema: {
        tags: ['catalog'],
        summary: "A full catalog recipe or one made for the caller (another user's is 404)",
        params: IdParams,
        response: { 200: Recipe, ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const recipe = await repo.recipeById(request.user.id, request.params.id, request.language);
      if (!recipe) throw notFound('Recipe');
      return recipe;
    },
  );

  const productSearch =
    (ingredientsOnly: boolean) =>
    async (
      request: { query: { q: string; limit?: number; cursor?: string; category?: string }; language: string },
      reply: FastifyReply,
    ) => {
      const q = request.query.q.trim();
      if (!q) throw badRequest('q must not be blank', 'validation_failed');
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const { cursor, category } = request.query;
      // Every user's page of a search is the same (products are everyone's): its cursor is the search's, so that
      // answers stay shared.
      const scope = JSON.stringify(['products', ingredientsOnly, category, q.toLowerCase()]);
      const after = app.cursors.after(scope, cursor, isKeyset);
      // Search folds case, so `Milk` and `milk` share an answer.
      const key = JSON.stringify([ingredientsOnly, request.language, limit, category, cursor, q.toLowerCase()]);
      const generation = searches.generation;
      let text = searches.get(key)?.json;
      if (text === undefined) {
        // The items come as PostgreSQL wrote them (`searchProductsPage`): the page's text is put together, not
        // serialised, and its shape is the response schema's (a test compares it with the rows it is made of).
        const page = await repo.searchProductsPage({
          q,
          language: request.language,
          limit,
          after,
          category,
          ingredientsOnly,
        });
        const next = page.last ? JSON.stringify(app.cursors.next(scope, page.last)) : 'null';
        text = `{"items":${page.items},"next_cursor":${next}}`;
        searches.set(key, generation, '', text);
      }
      return reply.type('application/json; charset=utf-8').send(text);
    };

  app.get(
    '/products/search',
    {
      config: { cacheSeconds: 0 },
      schema: {
        tags: ['catalog'],
        summary:
          'Products by canonical name and aliases in every language, ranked by greatest(text rank, trigram similarity)',
        description:
          'Queries of 1-2 characters match names starting with them. The cursor is stable for the same query.',
        querystring: ProductSearchQuery,
        response: { 200: ProductPage, ...errors(400, 401) },
      },
    },
    productSearch(false),
  );

  app.get(
    '/ingredients/search',
    {
      config: { cacheSeconds: 0 },
      schema: {
        tags: ['catalog'],
        summary: 'Products usable as recipe ingredients (curated, not bulk-imported packaged goods)',
        querystring: ProductSearchQuery,
        response: { 200: ProductPage, ...errors(400, 401) },
      },
    },
    productSearch(true),
  );

  app.get(
    '/products/barcode/:barcode',
    {
      config: { cacheSeconds: 300 },
      schema: {
        tags: ['catalog'],
        summary: 'A product by EAN-13, UPC-A, EAN-8 or GTIN-14 barcode',
        description:
          'Any GTIN form finds the product: an EAN-8 or UPC-A zero-padded to 10-14 digits, EAN-13, GTIN-14. A code ' +
          'whose check digit is wrong is 400 unless a food database stored it so. Codes from the in-store ranges ' +
          '(GS1 prefixes 020-029, 040-049, 200-299; EAN-8 starting 0 or 2) are printed by shops on their own ' +
          'labels, often with a weight or price inside: one that no food database stored is 404 with code ' +
          '`restricted_barcode`, so an app can ask for the product by name instead.',
        params: BarcodeParams,
        response: { 200: Product, ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const { barcode } = request.params;
      if (!/^\d{8,14}$/.test(barcode)) throw badRequest('barcode must be 8-14 digits', 'invalid_barcode');
      // A code whose check digit is wrong can still be stored as a food database gave it (a typo there).
      const normalized = normalizeBarcode(barcode);
      const product = await repo.productByBarcode(normalized ?? barcode, request.language);
      if (product) return product;
      if (!normalized) throw badRequest('barcode check digit is wrong', 'invalid_barcode');
      if (isRestrictedCirculation(normalized)) {
        throw new HttpError(404, 'restricted_barcode', 'this is an in-store label code; search the product by name');
      }
      throw notFound('Product');
    },
  );

  app.get(
    '/products/:id',
    {
      config: { cacheSeconds: 300 },
      schema: {
        tags: ['catalog'],
        summary: 'One product',
        params: IdParams,
        response: { 200: Product, ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const product = await repo.productById(request.params.id, request.language);
      if (!product) throw notFound('Product');
      return product;
    },
  );
};

export default catalog;
