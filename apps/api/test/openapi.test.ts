import t from 'tap';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { buildTestApp } from './helpers.ts';

t.test(
  'the served document: Redocly recommended lint with no error and no warning, and what generators need',
  async (t) => {
    const { app } = await buildTestApp(t);
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();

    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config });
    t.same(
      problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
      [],
      'no lint problem',
    );

    const operations = Object.entries<Record<string, any>>(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, ...op })),
    );
    const ids = operations.map((o) => o.operationId);
    t.equal(new Set(ids).size, ids.length, 'operation ids are unique');
    t.ok(
      ids.every((id) => /^[a-z][A-Za-z]+$/.test(id)),
      'operation ids are camelCase',
    );

    const schemas = doc.components.schemas;
    for (const name of [
      'Error',
      'Recipe',
      'DiaryEntry',
      'PantryItem',
      'MenuPlan',
      'ShoppingList',
      'DishJob',
      'ProductJob',
      'Profile',
      'Product',
    ])
      t.ok(schemas[name], `${name} is a named component`);
    t.notOk(
      Object.keys(schemas).some((n) => n.startsWith('def-')),
      'no made-up component names',
    );
    t.same(
      doc.paths['/diary'].get.responses['200'].content['application/json'].schema,
      { $ref: '#/components/schemas/DiaryDay' },
      'a response refers to its named shape',
    );

    // Enums carry their type; single-value unions are one enum.
    const untyped: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (Array.isArray(node)) for (const [i, n] of node.entries()) walk(n, `${at}/${i}`);
      else if (node && typeof node === 'object') {
        const o = node as Record<string, unknown>;
        if (Array.isArray(o.enum) && o.type === undefined) untyped.push(at);
        for (const [k, v] of Object.entries(o)) walk(v, `${at}/${k}`);
      }
    };
    walk(doc, '');
    t.same(untyped, [], 'every enum has a type');
    t.same(schemas.Profile.properties.sex.anyOf[0], { type: 'string', enum: ['male', 'female'] }, 'sex is one enum');

    // Every operation declares 431 and 503 (and 429 unless exempt from rate limits), every 4xx in the error shape.
    const problemsOf = (check: (op: (typeof operations)[number]) => boolean) =>
      operations.filter((op) => !check(op)).map((op) => op.key);
    const exempt = new Set(['GET /health/live', 'GET /health', 'GET /ready']);
    t.same(
      problemsOf((op) => ['431', '503', ...(exempt.has(op.key) ? [] : ['429'])].every((s) => s in op.responses)),
      [],
      'every operation declares 431, 503 and 429',
    );
    const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
    t.same(
      problemsOf((op) =>
        Object.entries<any>(op.responses).every(
          ([status, r]) => !status.startsWith('4') || JSON.stringify(r.content) === JSON.stringify(errorContent),
        ),
      ),
      [],
      'every 4xx has the error shape',
    );
    t.same(
      problemsOf((op) => op.parameters.some((p: { name: string }) => p.name === 'Accept-Language')),
      [],
      'every operation documents Accept-Language',
    );
    const diaryPost = operations.find((o) => o.key === 'POST /diary');
    t.match(
      diaryPost.parameters.find((p: { name: string }) => p.name === 'Idempotency-Key'),
      { in: 'header', schema: { maxLength: 255 } },
      'Idempotency-Key is a documented header where it is honoured',
    );

    // Multipart uploads are binary file fields; SSE answers 200 as text/event-stream.
    const dish = doc.paths['/ai/recognize-dish'].post.requestBody.content['multipart/form-data'].schema;
    t.match(dish.properties.image, { type: 'string', format: 'binary' }, 'the dish photo is a file field');
    const json = doc.paths['/ai/recognize-dish'].post.requestBody.content['application/json'].schema;
    t.match(json.properties.image, { properties: { data_base64: {} } }, 'the JSON form keeps its base64 object');
    const products = doc.paths['/ai/recognize-products'].post.requestBody.content['multipart/form-data'].schema;
    t.match(products.properties.images, { type: 'array', items: { type: 'string', format: 'binary' } }, 'photo files');
    const stream = doc.paths['/ai/jobs/{id}/stream'].get.responses;
    t.ok(stream['200'].content['text/event-stream'], 'the stream is a 200 text/event-stream');
    t.ok(stream['404'].content['application/json'], 'its errors are JSON');
    t.match(doc, { servers: [{ url: '/' }], info: { license: { identifier: 'MIT' } } });
    t.ok(
      doc.tags.every((tag: { description?: string }) => tag.description),
      'every tag is described',
    );
  },
);
