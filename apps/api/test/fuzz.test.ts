import t from 'tap';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { buildTestApp, login, type Session, inlinedDocument } from './helpers.ts';

type Schema = Record<string, any>;

const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype', '$where', 'toString'];
/** Text with a NUL, another control character or a lone surrogate somewhere in it. */
const controlled = fc
  .tuple(
    fc.string({ maxLength: 10 }),
    fc.constantFrom('\u0000', '\u0007', '\u001b', '\u007f', '\u0085', '\ud800', '\udfff', '\t'),
    fc.string({ maxLength: 10 }),
  )
  .map(([a, c, b]) => a + c + b);
/** Numbers as text in every notation a parser might take for an integer. */
const numericText = fc.constantFrom(
  '1.5',
  '0x10',
  '1e1',
  '+5',
  '010',
  ' 5',
  '5 ',
  '٣',
  'Infinity',
  '-0',
  '9'.repeat(30),
  '1_000',
);
const edgeDates = fc.constantFrom(
  '1899-12-31',
  '1900-01-01',
  '2100-12-31',
  '2101-01-01',
  '9999-12-31',
  '0001-01-01',
  '2026-02-30',
  '2026-13-01',
  '0000-00-00',
);
const edgeTimestamps = fc.constantFrom(
  '9999-12-31T23:59:59Z',
  '0001-01-01T00:00:00Z',
  '1900-01-01T00:00:00Z',
  '2100-12-31T23:59:59Z',
  '+010009-12-28T23:59:59.000Z',
  '2026-02-30T10:00:00Z',
);
const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** Cursors no page of this API handed out: of the wrong shape, of impossible values, or not base64 JSON at all. */
const tamperedCursor = fc.oneof(
  fc.constantFrom(
    cursorOf({ expires_at: '2026-02-30T00:00:00.000Z', id: '01900000-0000-7000-8000-000000000000' }),
    cursorOf({ expires_at: '+010009-12-28T23:59:59.000Z', id: '01900000-0000-7000-8000-000000000000' }),
    cursorOf({ score: 'x', id: 'y' }),
    cursorOf({ score: 1e308, id: '01900000-0000-7000-8000-000000000000' }),
    cursorOf('not-a-uuid'),
    cursorOf(null),
    cursorOf([1, 2]),
    '!!!',
    'e30',
    '%00',
  ),
  fc.base64String({ maxLength: 40 }),
);
const nasty = fc.oneof(
  controlled,
  numericText,
  edgeDates,
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '%',
    '_%',
    "'; DROP TABLE users; --",
    '../../etc/passwd',
    '<script>',
    '𝕏'.repeat(50),
    '2026-02-30',
    '-1',
    'NaN',
    '1e309',
    'null',
  ),
  fc.constant('x'.repeat(100_000)),
  fc.integer(),
  fc.double(),
  fc.constantFrom(-1e308, 1e308, Number.MAX_SAFE_INTEGER + 2, -0),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom(...HOSTILE_KEYS), fc.string(), { maxKeys: 2 }),
);

/** Values shaped by a JSON schema most of the time, hostile values the rest. */
function fromSchema(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return nasty;
  const shaped = ((): fc.Arbitrary<unknown> => {
    if (schema.anyOf || schema.oneOf)
      return fc.oneof(...(schema.anyOf ?? schema.oneOf).map((s: Schema) => fromSchema(s, depth + 1)));
    if (schema.enum) return fc.constantFrom(...schema.enum);
    if (schema.const !== undefined) return fc.constant(schema.const);
    switch (schema.type) {
      case 'string':
        if (schema.format === 'date')
          return fc.oneof(
            fc
              .date({ noInvalidDate: true, min: new Date('1900-01-01'), max: new Date('2100-01-01') })
              .map((d) => d.toISOString().slice(0, 10)),
            edgeDates,
          );
        if (schema.format === 'date-time')
          return fc.oneof(
            fc
              .date({ noInvalidDate: true, min: new Date('1900-01-01'), max: new Date('2100-01-01') })
              .map((d) => d.toISOString()),
            edgeTimestamps,
          );
        if (schema.format === 'uuid') return fc.oneof(fc.uuid(), fc.constant('01900000-0000-7000-8000-000000000000'));
        return fc.oneof(
          {
            arbitrary: fc.string({
              minLength: schema.minLength ?? 0,
              maxLength: Math.min(schema.maxLength ?? 30, 200),
            }),
            weight: 4,
          },
          { arbitrary: controlled, weight: 1 },
        );
      case 'integer':
        return fc.oneof(
          {
            arbitrary: fc.integer({ min: (schema.minimum ?? -1000) - 2, max: (schema.maximum ?? 1000) + 2 }),
            weight: 4,
          },
          { arbitrary: numericText, weight: 1 },
        );
      case 'number':
        return fc.double({ min: (schema.minimum ?? -1000) - 1, max: (schema.maximum ?? 1e6) + 1, noNaN: true });
      case 'boolean':
        return fc.boolean();
      case 'array':
        return fc.array(fromSchema(schema.items, depth + 1), { maxLength: Math.min(schema.maxItems ?? 4, 12) });
      case 'object': {
        const props = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
        const record = fc.record(Object.fromEntries(props.map(([k, s]) => [k, fromSchema(s, depth + 1)])), {
          requiredKeys: (schema.required ?? []).filter((k: string) => props.some(([p]) => p === k)),
        });
        return fc
          .tuple(record, fc.dictionary(fc.constantFrom(...HOSTILE_KEYS, 'extra'), nasty, { maxKeys: 1 }), fc.boolean())
          .map(([r, extra, addExtra]) => (addExtra ? { ...r, ...extra } : r));
      }
      default:
        return nasty;
    }
  })();
  return fc.oneof({ arbitrary: shaped, weight: 4 }, { arbitrary: nasty, weight: 1 });
}

/**
 * Any generated value as text (objects without a prototype cannot go through String()). A URL cannot carry a lone
 * surrogate (it has no UTF-8 form): there it becomes U+FFFD, as a client's encoder would make it; bodies keep it.
 */
const text = (v: unknown) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
const urlText = (v: unknown) => encodeURIComponent(text(v).toWellFormed());

const toQuery = (value: unknown) =>
  value && typeof value === 'object' && !Array.isArray(value)
    ? Object.entries(value as Record<string, unknown>)
        .map(([k, v]) => `${urlText(k)}=${urlText(v)}`)
        .join('&')
    : '';

/**
 * Schema-driven fuzzing: for every operation of the OpenAPI document, seeded requests built from its schemas plus
 * hostile values (wrong types, huge and unicode strings, NUL and other control characters, lone surrogates,
 * prototype-pollution keys, out-of-range numbers, numbers as text in every notation, dates and timestamps at and
 * beyond the bounds, tampered cursors, malformed JSON). No answer may be a 5xx; every 4xx has the contract's error
 * shape; a rejected request changes no stored data.
 */
t.test('every operation survives generated and hostile requests', async (t) => {
  const { app, sql } = await buildTestApp(t, {
    RATE_LIMIT_PER_MINUTE: '1000000000',
    RATE_LIMIT_MODEL_PER_MINUTE: '1000000000',
    RATE_LIMIT_PUBLIC_PER_MINUTE: '1000000000',
  });
  let session: Session = await login(app, 'fuzzer');
  const doc = await inlinedDocument(app);
  const operations = Object.entries(doc.paths as Record<string, Record<string, Schema>>).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([, op]) => !String(op.summary ?? '').includes('Server-sent'))
      .filter(() => path !== '/auth/logout')
      .map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
  const snapshot = async () =>
    JSON.stringify(
      await sql`
        SELECT (SELECT count(*) FROM meal_diary) AS diary, (SELECT count(*) FROM user_products) AS pantry,
               (SELECT count(*) FROM user_saved_recipes) AS saved, (SELECT count(*) FROM menu_items) AS menu,
               (SELECT count(*) FROM shopping_list_items) AS shopping, (SELECT count(*) FROM dish_recognition_jobs) AS
                 dish_jobs,
               (SELECT count(*) FROM product_recognition_jobs) AS product_jobs, (SELECT count(*) FROM dishes) AS dishes,
               (SELECT md5(string_agg(u::text, ',' ORDER BY u.id)) FROM users u) AS users`,
    );

  let cases = 0;
  const statuses = new Map<number, number>();
  const failures: string[] = [];
  const runs = Math.max(40, Math.ceil(3000 / operations.length));
  for (const { method, path, op } of operations) {
    const params = (op.parameters ?? []) as { in: string; name: string; schema: Schema }[];
    const bodySchema = op.requestBody?.content?.['application/json']?.schema as Schema | undefined;
    const arbitrary = fc.record({
      pathParams: fc.record(
        Object.fromEntries(params.filter((p) => p.in === 'path').map((p) => [p.name, fromSchema(p.schema)])),
      ),
      query: fc.record(
        Object.fromEntries(
          params
            .filter((p) => p.in === 'query')
            .map((p) => [p.name, p.name === 'cursor' ? tamperedCursor : fromSchema(p.schema)]),
        ),
        { requiredKeys: [] },
      ),
      body: fc.oneof(
        { arbitrary: fromSchema(bodySchema), weight: 5 },
        { arbitrary: fc.constantFrom('{"broken":', '[1,2', '\u0000', 'null'), weight: 1 },
      ),
      raw: fc.boolean(),
    });
    const check = async ({
      pathParams,
      query,
      body,
      raw,
    }: {
      pathParams: Record<string, unknown>;
      query: Record<string, unknown>;
      body: unknown;
      raw: boolean;
    }) => {
      cases++;
      let url = path.replace(/\{(\w+)\}/g, (_, name) => urlText(pathParams[name] ?? 'x'));
      const qs = toQuery(query);
      if (qs) url += `?${qs}`;
      const before = await snapshot();
      const request: InjectOptions = {
        method: method as InjectOptions['method'],
        url,
        headers: { authorization: `Bearer ${session.access_token}`, 'content-type': 'application/json' },
        ...(method === 'GET' || method === 'DELETE'
          ? {}
          : { payload: raw && typeof body === 'string' ? body : JSON.stringify(body ?? {}) }),
      };
      const res = await app.inject(request);
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      const label = `${method} ${url.slice(0, 120)} -> ${res.statusCode}`;
      if (res.statusCode >= 500) failures.push(`${label} ${res.body.slice(0, 200)}`);
      if (res.statusCode >= 400) {
        const err = res.json();
        if (
          typeof err.code !== 'string' ||
          typeof err.message !== 'string' ||
          err.request_id !== res.headers['x-request-id'] ||
          err.statusCode !== res.statusCode
        ) {
          failures.push(`${label}: not the contract's error shape: ${res.body.slice(0, 200)}`);
        }
        if (res.statusCode !== 401 && (await snapshot()) !== before)
          failures.push(`${label}: a rejected request changed stored data`);
        if (err.code === 'session_revoked') session = await login(app, 'fuzzer');
      }
      return failures.length === 0;
    };
    await fc
      .assert(
        fc.asyncProperty(arbitrary, async (input) => {
          try {
            return await check(input);
          } catch (err) {
            failures.push(`${method} ${path}: ${(err as Error).stack?.slice(0, 500)}`);
            return false;
          }
        }),
        { seed: 20261122, numRuns: runs, endOnFailure: true },
      )
      .catch((err: Error) => {
        // A property that failed another way carries fast-check's counterexample.
        if (failures.length === 0) failures.push(`${method} ${path}: ${err.message.slice(0, 600)}`);
      });
    if (failures.length) break;
  }

  t.same(failures, [], 'no 5xx, every 4xx in the contract shape, no change from a rejected request');
  t.ok(cases >= 2000, `${cases} generated requests over ${operations.length} operations`);
  t.comment(`statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
  t.ok((statuses.get(200) ?? 0) + (statuses.get(201) ?? 0) > 100, 'a good share of generated requests were valid');
});
