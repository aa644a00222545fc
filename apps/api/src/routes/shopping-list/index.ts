import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { shoppingRepository, type ShoppingItemRow } from '@nutrition/db/repositories';
import { isMonday, shoppingLines, weekStart as mondayOf } from '@nutrition/domain';
import { named, DateString, errors, IdParams, Nullable, Timestamp, Uuid } from '../../schemas.ts';
import { notFound, validationFailed } from '../../errors.ts';

const Item = named(
  'ShoppingListItem',
  Type.Object({
    id: Uuid,
    product_id: Nullable(Uuid),
    name: Type.String(),
    quantity: Nullable(Type.Number()),
    unit_code: Nullable(Type.String()),
    unit_name: Nullable(Type.String()),
    checked: Type.Boolean(),
  }),
);

const List = named(
  'ShoppingList',
  Type.Object({
    id: Nullable(Uuid),
    week_start: DateString,
    generated_at: Nullable(Timestamp),
    groups: Type.Array(
      Type.Object({ category_code: Type.String(), category_name: Type.String(), items: Type.Array(Item) }),
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

type Line = Omit<ShoppingItemRow, 'category_code' | 'category_name' | 'shop_order'>;

/** Items (already in shop order) grouped by category. */
function group(items: ShoppingItemRow[]) {
  const groups: { category_code: string; category_name: string; items: Line[] }[] = [];
  for (const { category_code, category_name, shop_order: _, ...item } of items) {
    const last = groups.at(-1);
    const g = last?.category_code === category_code ? last : { category_code, category_name, items: [] as Line[] };
    if (g !== last) groups.push(g);
    g.items.push(item);
  }
  return groups;
}

/** The week's shopping list: generated from the menu minus the pantry, plus manual items, grouped in shop order. */
const shoppingList: FastifyPluginAsyncTypebox = async (app) => {
  const shopping = shoppingRepository(app.sql);
  app.addHook('onRequest', app.authenticate);

  /** The week asked for, else the user's current one (in their time zone). */
  const week = async (request: FastifyRequest, value: string | undefined, path: string) => {
    const w = value ?? mondayOf((await app.userTime(request)).today);
    if (!isMonday(w)) throw validationFailed(path, 'must be a Monday (YYYY-MM-DD)');
    return w;
  };
  const render = async (userId: string, weekStart: string, language: string) => {
    const list = await shopping.list(userId, weekStart);
    if (!list) return { id: null, week_start: weekStart, generated_at: null, groups: [] };
    return { ...list, groups: group(await shopping.items(list.id, language)) };
  };
  const itemById = async (userId: string, id: string, language: string) => {
    const weekStart = await shopping.itemWeek(userId, id);
    if (!weekStart) throw notFound('Shopping list item');
    const list = (await shopping.list(userId, weekStart))!;
    const {
      category_code: _c,
      category_name: _n,
      shop_order: _o,
      ...item
    } = (await shopping.items(list.id, language)).find((i) => i.id === id)!;
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
        response: { 200: Item, ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      if (!(await shopping.setChecked(request.user.id, request.params.id, request.body.checked)))
        throw notFound('Shopping list item');
      return itemById(request.user.id, request.params.id, request.language);
    },
  );

  app.post(
    '/shopping-list/items',
    {
      schema: {
        tags: ['shopping list'],
        summary: 'Add a manual item',
        body: NewItem,
        response: { 201: Item, ...errors(400, 401, 404) },
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
      const listId = await shopping.ensureList(request.user.id, weekStart);
      const id = await shopping.addManual(listId, {
        productId: body.product_id ?? null,
        name: body.name.trim(),
        quantity: body.quantity ?? null,
        unitCode: body.unit_code ?? null,
        categoryCode: category,
      });
      return reply.status(201).send(await itemById(request.user.id, id, request.language));
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
