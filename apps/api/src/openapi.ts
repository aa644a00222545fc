/**
 * What turns the route schemas into a document code generators read well: operation ids, the statuses every route
 * can answer, documented headers, named component schemas, typed enums, binary upload fields and SSE responses.
 * Validation and serialization use the route schemas as they are; only the served document is shaped here.
 */

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is untyped JSON, read by its shape.
type Json = Record<string, any>;

/** The names generated clients give the operations: one table, so they stay consistent. */
const OPERATION_IDS: Record<string, string> = {
  'GET /health/live': 'getLiveness',
  'GET /health': 'getHealth',
  'GET /ready': 'getReadiness',
  'POST /auth/login': 'login',
  'POST /auth/refresh': 'refreshSession',
  'POST /auth/logout': 'logout',
  'GET /profile': 'getProfile',
  'PUT /profile': 'updateProfile',
  'GET /languages': 'listLanguages',
  'GET /units': 'listUnits',
  'GET /cuisines': 'listCuisines',
  'GET /tags': 'listTags',
  'GET /dish-categories': 'listDishCategories',
  'GET /product-categories': 'listProductCategories',
  'GET /dishes': 'listDishes',
  'GET /dishes/search': 'searchDishes',
  'GET /dishes/{id}': 'getDish',
  'GET /recipes/{id}': 'getRecipe',
  'GET /products/search': 'searchProducts',
  'GET /ingredients/search': 'searchIngredients',
  'GET /products/barcode/{barcode}': 'getProductByBarcode',
  'GET /products/{id}': 'getProduct',
  'GET /diary': 'getDiaryDay',
  'POST /diary': 'createDiaryEntry',
  'PATCH /diary/{id}': 'updateDiaryEntry',
  'DELETE /diary/{id}': 'deleteDiaryEntry',
  'GET /diary/recent': 'listRecentDiaryItems',
  'GET /user-products': 'listPantryItems',
  'POST /user-products': 'createPantryItem',
  'GET /user-products/{id}': 'getPantryItem',
  'PATCH /user-products/{id}': 'updatePantryItem',
  'DELETE /user-products/{id}': 'deletePantryItem',
  'POST /saved-recipes': 'saveRecipe',
  'GET /saved-recipes': 'listSavedRecipes',
  'DELETE /saved-recipes': 'deleteSavedRecipeByRecipe',
  'GET /saved-recipes/{id}': 'getSavedRecipe',
  'DELETE /saved-recipes/{id}': 'deleteSavedRecipe',
  'GET /recommendations': 'getRecommendations',
  'GET /menu': 'getMenu',
  'PUT /menu': 'replaceMenu',
  'DELETE /menu': 'deleteMenu',
  'DELETE /menu/items/{id}': 'deleteMenuItem',
  'POST /ai/generate-menu': 'generateMenu',
  'GET /shopping-list': 'getShoppingList',
  'POST /shopping-list/generate': 'generateShoppingList',
  'POST /shopping-list/items': 'addShoppingListItem',
  'PATCH /shopping-list/items/{id}': 'updateShoppingListItem',
  'DELETE /shopping-list/items/{id}': 'deleteShoppingListItem',
  'POST /ai/recognize-dish': 'recognizeDish',
  'POST /ai/recognize-receipt': 'recognizeReceipt',
  'POST /ai/recognize-products': 'recognizeProducts',
  'GET /ai/jobs': 'listDishJobs',
  'GET /ai/jobs/{id}': 'getDishJob',
  'GET /ai/jobs/{id}/stream': 'streamDishJob',
  'GET /ai/product-jobs': 'listProductJobs',
  'GET /ai/product-jobs/history': 'listProductJobHistory',
  'GET /ai/product-jobs/{id}': 'getProductJob',
  'GET /ai/product-jobs/{id}/stream': 'streamProductJob',
  'POST /ai/product-jobs/{id}/apply': 'applyProductJob',
  'GET /sync': 'getSyncChanges',
  'GET /sync/stream': 'streamSyncChanges',
  'GET /me/export': 'exportMyData',
  'DELETE /me': 'deleteAccount',
};

export const TAGS = [
  { name: 'system', description: 'Liveness, health and readiness probes' },
  { name: 'auth', description: 'Sign-in with an identity-provider token, session refresh and logout' },
  { name: 'profile', description: "The user's body data, preferences and daily calorie target" },
  { name: 'reference', description: 'Languages, units, cuisines, tags and categories, localised' },
  { name: 'catalog', description: 'Dishes, recipes and food products, localised, with search and barcodes' },
  { name: 'diary', description: 'What the user ate, day by day, with nutrition totals in their time zone' },
  { name: 'pantry', description: "The user's products at home, with quantities and expiry dates" },
  { name: 'saved recipes', description: "The user's bookmarked recipes" },
  { name: 'recommendations', description: 'Recipes suggested for the rest of the day' },
  { name: 'menu', description: 'Weekly menus, by hand or planned by the model' },
  { name: 'shopping list', description: 'What to buy for the menu, less what the pantry holds, and own lines' },
  { name: 'recognition', description: 'Dishes, receipts and products recognised from photos: jobs and SSE streams' },
  { name: 'sync', description: "Offline-first apps: the change feed of the user's rows and its live hint" },
  { name: 'account', description: "The user's data rights: export everything, delete the account" },
];

const ERROR_REF = { $ref: '#/components/schemas/Error' };
/** Answers any route may give, whatever it does. */
const COMMON_RESPONSES: Record<string, string> = {
  '429': 'Too many requests: wait for Retry-After seconds',
  '431': 'Request headers too large',
  '503': 'Busy, shutting down or the database unreachable: retry after Retry-After seconds',
};
/** Answers of any route that reads a body. */
const BODY_RESPONSES: Record<string, string> = {
  '400': 'Invalid JSON or a field out of its rules (details name each by JSON Pointer)',
  '413': 'Body too large',
  '415': 'Unsupported content type',
};

const ACCEPT_LANGUAGE = {
  in: 'header',
  name: 'Accept-Language',
  required: false,
  description:
    'Language of translated fields (RFC 9110 list with q-values; POSIX tags such as pt_BR.UTF-8 accepted). ' +
    'The query parameter `lang` wins over it, then the profile language, then English.',
  schema: { type: 'string', maxLength: 200, example: 'de-DE,de;q=0.9,en;q=0.5' },
};
const IDEMPOTENCY_KEY = {
  in: 'header',
  name: 'Idempotency-Key',
  required: false,
  description:
    'Makes a retry safe: the same key with the same body answers the first response again (for 24 hours, per user ' +
    'and route) without repeating the effect; the same key with another body is 409 idempotency_key_reused.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
};
const IDEMPOTENT = new Set([
  'createDiaryEntry',
  'createPantryItem',
  'recognizeDish',
  'recognizeReceipt',
  'recognizeProducts',
]);

const SSE_DESCRIPTION =
  'A text/event-stream of `event: status` messages whose `data` is the job (the shape of the job read) and whose ' +
  '`id` is `<updated_at ms>-<status>`; the stream ends after the final state (done or failed). Comments (`:`) keep ' +
  'the connection alive. Send Last-Event-ID to resume without the states already seen. Errors before the stream ' +
  'starts are JSON.';

const SYNC_SSE_DESCRIPTION =
  "A text/event-stream that sends `event: changed` whenever any of the caller's synced rows change, with `data: " +
  '{"cursor": "..."}` (the feed position after the change, also the event `id`). It carries no rows: pull ' +
  '`GET /sync` with your own stored cursor. Reconnecting with Last-Event-ID sends an event at once if anything ' +
  'changed since. Comments (`:`) keep the connection alive. Errors before the stream starts are JSON.';

const NOT_MODIFIED = {
  description: 'Not modified: the If-None-Match tag still matches; reuse the cached answer',
  type: 'null',
};

const PATH_PARAM = /:([A-Za-z_]+)/g;

/** Per route (@fastify/swagger's `transform`): operation id, shared answers, headers. */
export function transformRoute({ schema, url, route }: { schema: Json; url: string; route: Json }) {
  if (schema?.hide) return { schema, url };
  const path = url.replace(PATH_PARAM, '{$1}');
  const methods: string[] = Array.isArray(route.method) ? route.method : [route.method];
  const key = `${methods.find((m) => m !== 'HEAD')} ${path}`;
  const operationId = OPERATION_IDS[key];
  if (!operationId) throw new Error(`no operationId for ${key}: add it to OPERATION_IDS`);
  const responses = { ...(schema.response ?? {}) };
  const add = (codes: Record<string, string>) => {
    for (const [code, description] of Object.entries(codes))
      if (!(code in responses)) responses[code] = { $ref: 'Error', description };
  };
  const { '429': limited, ...always } = COMMON_RESPONSES;
  add(route.config?.rateLimit === false ? always : { ...always, '429': limited! });
  if (schema.body) add(BODY_RESPONSES);
  if (route.config?.cacheSeconds !== undefined) responses['304'] = NOT_MODIFIED;
  return { url, schema: { ...schema, operationId, response: responses } };
}

/** The whole document (@fastify/swagger's `transformObject`). */
export function transformDocument(doc: Json): Json {
  const components: Json = doc.components.schemas ?? {};
  for (const operations of Object.values<Json>(doc.paths)) {
    for (const operation of Object.values<Json>(operations)) {
      const documented = (p: Json) => p.in === 'header' && /^(accept-language|idempotency-key)$/i.test(p.name);
      operation.parameters = [
        ...(operation.parameters ?? []).filter((p: Json) => !documented(p)),
        ACCEPT_LANGUAGE,
        ...(IDEMPOTENT.has(operation.operationId) ? [IDEMPOTENCY_KEY] : []),
      ];
      // @fastify/swagger gives every content type one shared media object: the multipart one gets its own.
      const content = operation.requestBody?.content;
      const multipart = content?.['multipart/form-data'];
      if (multipart) content['multipart/form-data'] = { ...multipart, schema: binaryFiles(multipart.schema) };
      if (operation.operationId?.startsWith('stream')) sseResponses(operation);
      if (operation.responses?.['304']) cacheHeaders(operation);
      for (const response of Object.values<Json>(operation.responses ?? {})) {
        // The error shape is the same whatever the route produces (SSE routes answer errors as JSON too).
        if (response.content?.['text/event-stream']?.schema?.$ref === ERROR_REF.$ref)
          response.content = { 'application/json': { schema: ERROR_REF } };
      }
    }
  }
  const named = extractNamed(normalise(doc.paths), components) as Json;
  return { ...doc, paths: named, components: { ...doc.components, schemas: components } };
}

function sseResponses(operation: Json) {
  const description = operation.operationId === 'streamSyncChanges' ? SYNC_SSE_DESCRIPTION : SSE_DESCRIPTION;
  operation.responses['200'] = {
    description,
    content: { 'text/event-stream': { schema: { type: 'string', description } } },
  };
  operation.parameters.push({
    in: 'header',
    name: 'Last-Event-ID',
    required: false,
    description: 'The id of the last event received, to resume after a reconnect',
    schema: { type: 'string', maxLength: 100 },
  });
}

function cacheHeaders(operation: Json) {
  operation.parameters.push({
    in: 'header',
    name: 'If-None-Match',
    required: false,
    description: 'The ETag of a cached answer: 304 without a body while it is still current',
    schema: { type: 'string', maxLength: 200 },
  });
  operation.responses['200'].headers = {
    ETag: { description: 'The tag of this answer, for If-None-Match', schema: { type: 'string' } },
    'Cache-Control': {
      description: '`max-age` in seconds (or `no-cache`: revalidate first); `private` when the request carried a token',
      schema: { type: 'string' },
    },
  };
}

/** Multipart bodies carry photos as file fields, not as the JSON form's base64 objects. */
function binaryFiles(schema: Json): Json {
  const file = { type: 'string', format: 'binary', description: 'JPEG, PNG or WebP, at most 8 MiB' };
  const isImage = (s: Json) => s?.properties?.data_base64 !== undefined;
  const properties = Object.fromEntries(
    Object.entries<Json>(schema.properties ?? {}).map(([name, s]) => [
      name,
      isImage(s) ? file : isImage(s.items) ? { ...s, items: file } : s,
    ]),
  );
  return { ...schema, properties, description: undefined };
}

const scalarType = (value: unknown) =>
  typeof value === 'string'
    ? 'string'
    : typeof value === 'boolean'
      ? 'boolean'
      : Number.isInteger(value)
        ? 'integer'
        : 'number';

/** Enums get their `type`; unions of single values become one enum (generators make a union type of them). */
function normalise(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normalise);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, normalise(v)]));
  if ('const' in out && !('enum' in out)) {
    out.enum = [out.const];
    delete out.const;
  }
  if (Array.isArray(out.enum) && out.type === undefined) {
    const types = [...new Set(out.enum.map(scalarType))];
    if (types.length === 1) out.type = types[0];
  }
  const members: Json[] | undefined = out.anyOf;
  if (
    members?.length &&
    members.every((m) => Array.isArray(m.enum) && Object.keys(m).every((k) => k === 'enum' || k === 'type')) &&
    new Set(members.map((m) => m.type)).size === 1
  ) {
    delete out.anyOf;
    out.type = members[0]!.type;
    out.enum = members.flatMap((m) => m.enum);
  }
  return out;
}

/**
 * Schemas with a `title` (the shared shapes: Recipe, DiaryEntry, ...) move to components and are referenced, so
 * generated types have those names. One title, one shape: a clash is a mistake in the route schemas.
 */
function extractNamed(node: unknown, components: Json): unknown {
  if (Array.isArray(node)) return node.map((n) => extractNamed(n, components));
  if (node === null || typeof node !== 'object') return node;
  const out: Json = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, extractNamed(v, components)]));
  const title = out.title;
  if (typeof title !== 'string' || !(out.type || out.allOf || out.anyOf || out.properties)) return out;
  const { title: _, ...shape } = out;
  const known = components[title];
  if (known && JSON.stringify(known) !== JSON.stringify(shape))
    throw new Error(`two different schemas are named ${title}`);
  components[title] = shape;
  return { $ref: `#/components/schemas/${title}` };
}
