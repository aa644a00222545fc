import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { pantryRepository } from '@nutrition/db/repositories';
import {
  named,
  Cursor,
  errors,
  IdParams,
  Limit,
  Nullable,
  Page,
  Timestamp,
  TimestampInput,
  Uuid,
  ClientId,
  Version,
} from '../../schemas.ts';
import { notFound, validationFailed } from '../../errors.ts';
import { callerScope, isTimestamp, isUuid } from '../../cursor.ts';
import { createOnce } from '../../client-ids.ts';
import { ifMatchVersion, IfMatchHeader, preconditionFailed } from '../../if-match.ts';

export const PantryItem = named(
  'PantryItem',
  Type.Object({
    id: Uuid,
    product_id: Nullable(Uuid),
    name: Type.String(),
    quantity: Type.Number(),
    unit_code: Type.String(),
    unit_name: Type.String(),
    storage_days: Type.Integer(),
    added_at: Timestamp,
    expires_at: Timestamp,
    days_left: Type.Integer({ description: 'calendar days (UTC) until expiry; negative once expired' }),
    version: Version,
  }),
);

const Quantity = Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000 });
const UnitCode = Type.String({ minLength: 1, maxLength: 32 });
const StorageDays = Type.Integer({ minimum: 1, maximum: 3650 });
const ItemName = Type.String({ minLength: 1, maxLength: 200 });

const NewItem = named(
  'NewPantryItem',
  Type.Object(
    {
      id: Type.Optional(ClientId),
      product_id: Type.Optional(Uuid),
      name: Type.Optional(ItemName),
      quantity: Quantity,
      unit_code: UnitCode,
      storage_days: Type.Optional(StorageDays),
      added_at: Type.Optional(TimestampInput),
    },
    {
      additionalProperties: false,
      description: 'product_id or name (found in the catalog, else kept as your own item)',
    },
  ),
);

const ItemPatch = named(
  'PantryItemPatch',
  Type.Object(
    {
      quantity: Type.Optional(Quantity),
      unit_code: Type.Optional(UnitCode),
      storage_days: Type.Optional(StorageDays),
      added_at: Type.Optional(TimestampInput),
      name: Type.Optional(ItemName),
    },
    { additionalProperties: false },
  ),
);

const ListQuery = Type.Object(
  {
    expiring_within_days: Type.Optional(Type.Integer({ minimum: 0, maximum: 3650 })),
    limit: Type.Optional(Limit),
    cursor: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);

/** Storage days for a free-named item that matches nothing in the catalog. */
const DEFAULT_STORAGE_DAYS = 7;

const isKeyset = (v: unknown): v is { expires_at: string; id: string } =>
  typeof v === 'object' &&
  v !== null &&
  isTimestamp((v as { expires_at?: unknown }).expires_at) &&
  isUuid((v as { id?: unknown }).id);

/** The pantry: what the user has at home, with expiry computed in SQL from added_at + storage_days. */
const userProducts: FastifyPluginAsyncTypebox = async (app) => {
  const pantry = pantryRepository(app.sql);
  app.addHook('onRequest', app.authenticate);

  /** A purchase is in the past (a day of slack for clocks and zones), not in the future. */
  const checkAddedAt = (addedAt: string | undefined) => {
    if (addedAt !== undefined && Date.parse(addedAt) > app.now().getTime() + 24 * 3600_000) {
      throw validationFailed('/body/added_at', 'must not be more than a day in the future');
    }
  };
  const checkUnit = async (code: string | undefined) => {
    if (code !== undefined && !(await pantry.unitExists(code)))
      throw validationFailed('/body/unit_code', `unknown unit ${code}`);
  };

  app.get(
    '/user-products',
    {
      schema: {
        tags: ['pantry'],
        summary: 'Pantry items, soonest expiry first',
        querystring: ListQuery,
        response: { 200: Page(PantryItem), ...errors(400, 401) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? 20;
      const rows = await pantry.list(request.user.id, request.language, await app.userTime(request), {
        expiringWithinDays: request.query.expiring_within_days,
        limit: limit + 1,
        after: app.cursors.after(callerScope(request), request.query.cursor, isKeyset),
      });
      const items = rows.slice(0, limit);
      const last = items.at(-1);
      return {
        items,
        next_cursor:
          rows.length > limit && last
            ? app.cursors.next(callerScope(request), { expires_at: last.expires_at.toISOString(), id: last.id })
            : null,
      };
    },
  );

  app.post(
    '/user-products',
    {
      schema: {
        tags: ['pantry'],
        summary: 'Add an item (201; 200 when a client-made `id` repeats its create)',
        body: NewItem,
        headers: Type.Object({
          'idempotency-key': Type.Optional(
            Type.String({ description: 'retries with the same key and body create one item' }),
          ),
        }),
        response: { 200: PantryItem, 201: PantryItem, ...errors(400, 401, 404, 409) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      if ((body.product_id === undefined) === (body.name === undefined))
        throw validationFailed('/body', 'give exactly one of product_id, name');
      const name = body.name?.trim();
      if (body.name !== undefined && !name) throw validationFailed('/body/name', 'must not be blank');
      await checkUnit(body.unit_code);
      checkAddedAt(body.added_at);
      const time = await app.userTime(request);
      return createOnce(app, request, reply, {
        kind: 'user_products',
        id: body.id,
        body,
        read: (id) => pantry.get(request.user.id, id, request.language, time),
        create: async (tx, client) => {
          const items = pantryRepository(tx);
          const productId = body.product_id ?? (name ? await items.productByName(name) : null);
          let storageDays = body.storage_days;
          if (productId) {
            const defaults = await items.productDefaults(productId);
            if (!defaults) throw notFound('Product');
            storageDays ??= defaults.storage_days ?? DEFAULT_STORAGE_DAYS;
          }
          const id = await items.insert(request.user.id, {
            productId,
            name: productId ? null : name!,
            quantity: body.quantity,
            unitCode: body.unit_code,
            storageDays: storageDays ?? DEFAULT_STORAGE_DAYS,
            addedAt: body.added_at ?? time.now,
            id: client?.id,
            clientHash: client?.hash,
          });
          return { status: 201, body: (await items.get(request.user.id, id, request.language, time))! };
        },
      });
    },
  );

  app.get(
    '/user-products/:id',
    {
      schema: {
        tags: ['pantry'],
        summary: 'One pantry item',
        params: IdParams,
        response: { 200: PantryItem, ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const item = await pantry.get(request.user.id, request.params.id, request.language, await app.userTime(request));
      if (!item) throw notFound('Pantry item');
      return item;
    },
  );

  app.patch(
    '/user-products/:id',
    {
      schema: {
        tags: ['pantry'],
        summary: 'Change an item (only sent fields)',
        params: IdParams,
        body: ItemPatch,
        headers: IfMatchHeader,
        response: { 200: PantryItem, ...errors(400, 401, 404, 412) },
      },
    },
    async (request) => {
      const body = request.body;
      await checkUnit(body.unit_code);
      checkAddedAt(body.added_at);
      if (body.name !== undefined && !body.name.trim()) throw validationFailed('/body/name', 'must not be blank');
      const time = await app.userTime(request);
      const { id } = request.params;
      const patch = { ...body, name: body.name?.trim() };
      if (!(await pantry.update(request.user.id, id, patch, ifMatchVersion(request)))) {
        throw (await pantry.get(request.user.id, id, request.language, time))
          ? preconditionFailed('The item')
          : notFound('Pantry item');
      }
      // Deleted by another device since the update: as if the deletion came first.
      const item = await pantry.get(request.user.id, id, request.language, time);
      if (!item) throw notFound('Pantry item');
      return item;
    },
  );

  app.delete(
    '/user-products/:id',
    {
      schema: {
        tags: ['pantry'],
        summary: 'Remove an item',
        params: IdParams,
        response: { 204: Type.Null(), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      if (!(await pantry.delete(request.user.id, request.params.id))) throw notFound('Pantry item');
      return reply.status(204).send(null);
    },
  );
};

export default userProducts;
