import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { shoppingRepository } from '@nutrition/db/repositories';
import { renderList } from './present.ts';
import { isWeekStart, shoppingLines, WEEK_START_RULE, weekStart as mondayOf } from '@nutrition/domain';
import { named, ClientId, DateString, errors, IdParams, Nullable, Timestamp, Uuid, Version } from '../../schemas.ts';
import { notFound, validationFailed } from '../../errors.ts';
import { createOnce } from '../../client-ids.ts';
import { ifMatchVersion, IfMatchHeader, preconditionFailed } from '../../if-match.ts';

export const ShoppingItem = named(
  'ShoppingListItem',
  Type.Object({
    id: Uuid,
    product_id: Nullable(Uuid),
    name: Type.String(),
    quantity: Nullable(Type.Number()),
    unit_code: Nullable(Type.String()),
    unit_name: Nullable(Type.String()),
    checked: Type.Boolean(),
    week_start: DateString,
    version: Version,
  }),
);

const List = named(
  'ShoppingList',
  Type.Object({
    id: Nullable(Uuid),
    week_start: DateString,
    generated_at: Nullable(Timestamp),
    groups: Type.Array(
      Type.Object({ category_code: Type.String(), category_name: Type.String(), items: Type.Array(ShoppingItem) }),
      {
        description: 'product categories in shop order',
      },
    ),
  }),
);

const NewItem = named(
  'NewShoppingListItem',
  Type.Object(
    {
      id: Type.Optional(ClientId),
      week_start: Type.Optional(DateString),
      name: Type.String({ minLength: 1, maxLength: 200 }),
      product_id: Type.Optional(Uuid),
      quantity: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000 })),
      unit_code: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
    },
    {
      additionalProperties: false,
      description: 'a manual item (kept when the list is regenerated); week_start defaults to the current week',
    },
  ),
);

/** The week's shopping list: generated from the menu minus the pantry, plus manual items, grouped in shop order. */
const shoppingList: FastifyPluginAsyncTypebox = async (app) => {
  const shopping = shoppingRepository(app.sql);
  app.addHook('onRequest', app.authenticate);

  /** The week asked for, else the user's current one (in their time zone). */
  const week = async (request: FastifyRequest, value: string | undefined, path: string) => {
    const w = value ?? mondayOf((await app.userTime(request)).today);
    if (!isWeekStart(w)) throw validationFailed(path, WEEK_START_RULE);
    return w;
  };
  const render = (userId: string, weekStart: string, language: string) =>
    renderList(shopping, userId, weekStart, language);
  const itemById = async (userId: string, id: string, language: string, repository = shopping) => {
    const [row] = await repository.itemsByIds(userId, [id], language);
    if (!row) throw notFound('Shopping list item');
    const { category_code: _c, category_name: _n, shop_order: _o, ...item } = row;
    return item;
  };

  app.get(
    '/shopping-list',
    {
      schema: {
        tags: ['shopping list'],
        summary: "A week's shopping list",
        querystring: Type.Object({ week_start: Type.Optional(DateString) }, { additionalProperties: false }),
        response: { 200: List, ...errors(400, 401) },
      },
    },
    async (request) =>
      render(
        request.user.id,
        await week(request, request.query.week_start, '/querystring/week_start'),
        request.language,
      ),
  );

  app.post(
    '/shopping-list/generate',
    {
      schema: {
        tags: ['shopping list'],
        summary: "Generate from the week's recipes × servings, minus pantry stock, units converted and summed",
        description:
          'Manual items stay; generated items that remain keep their checked state. Quantities are what a shop ' +
          'sells: whole pieces, bunches, cans, cloves and leaves; grams and millilitres rounded up to a readable ' +
          'step. Tap water is left off unless `include_tap_items`.',
        body: Type.Object(
          {
            week_start: DateString,
            include_tap_items: Type.Optional(Type.Boolean({ default: false, description: 'list tap water too' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: List, ...errors(400, 401) },
      },
    },
    async (request) => {
      const weekStart = await week(request, request.body.week_start, '/body/week_start');
      const [needs, stock] = await Promise.all([
        shopping.needs(request.user.id, weekStart, request.language),
        shopping.stock(request.user.id, await app.userTime(request)),
      ]);
      const lines = shoppingLines(needs, stock, { includeTap: request.body.include_tap_items === true });
      await app.transaction((tx) => shoppingRepository(tx).replaceGenerated(request.user.id, weekStart, lines));
      return render(request.user.id, weekStart, request.language);
    },
  );

  app.patch(
    '/shopping-list/items/:id',
    {
      schema: {
        tags: ['shopping list'],
        summary: 'Check or uncheck an item',
        params: IdParams,
        body: Type.Object({ checked: Type.Boolean() }, { additionalProperties: false }),
        headers: IfMatchHeader,
        response: { 200: ShoppingItem, ...errors(400, 401, 404, 412) },
      },
    },
    async (request) => {
      const { id } = request.params;
      if (!(await shopping.setChecked(request.user.id, id, request.body.checked, ifMatchVersion(request)))) {
        await itemById(request.user.id, id, request.language); // 404 when it is not the user's
        throw preconditionFailed('The item');
      }
      return itemById(request.user.id, id, request.language);
    },
  );

  app.post(
    '/shopping-list/items',
    {
      schema: {
        tags: ['shopping list'],
        summary: 'Add a manual item (201; 200 when a client-made `id` repeats its create)',
        body: NewItem,
        response: { 200: ShoppingItem, 201: ShoppingItem, ...errors(400, 401, 404, 409) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const weekStart = await week(request, body.week_start, '/body/week_start');
      if (!body.name.trim()) throw validationFailed('/body/name', 'must not be blank');
      if (
        body.unit_code !== undefined &&
        (await app.sql`SELECT 1 FROM units WHERE code = ${body.unit_code}`).length === 0
      ) {
        throw validationFailed('/body/unit_code', `unknown unit ${body.unit_code}`);
      }
      let category: string | null = null;
      if (body.product_id) {
        const product = await shopping.categoryOf(body.product_id);
        if (!product.exists) throw notFound('Product');
        category = product.category;
      }
      return createOnce(app, request, reply, {
        kind: 'shopping_items',
        id: body.id,
        body,
        read: (id) => itemById(request.user.id, id, request.language),
        create: async (tx, client) => {
          const lists = shoppingRepository(tx);
          const listId = await lists.ensureList(request.user.id, weekStart);
          const id = await lists.addManual(listId, {
            productId: body.product_id ?? null,
            name: body.name.trim(),
            quantity: body.quantity ?? null,
            unitCode: body.unit_code ?? null,
            categoryCode: category,
            id: client?.id,
            clientHash: client?.hash,
          });
          return { status: 201, body: await itemById(request.user.id, id, request.language, lists) };
        },
      });
    },
  );

  app.delete(
    '/shopping-list/items/:id',
    {
      schema: {
        tags: ['shopping list'],
        summary: 'Remove an item',
        params: IdParams,
        response: { 204: Type.Null(), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      if (!(await shopping.deleteItem(request.user.id, request.params.id))) throw notFound('Shopping list item');
      return reply.status(204).send(null);
    },
  );
};

export default shoppingList;
