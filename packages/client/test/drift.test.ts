import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { buildTestApp } from '../../../apps/api/test/helpers.ts';
import { generateTypes } from '../scripts/generate.ts';

/**
 * The committed types are what `openapi-typescript` makes of the document the API serves now; a route change without
 * `pnpm client:generate` fails here. With UPDATE_CLIENT=1 (what that command sets) the file is rewritten instead.
 */
const TYPES = join(import.meta.dirname, '../src/api.generated.ts');

t.test('the generated client types match the served document', async (t) => {
  const { app } = await buildTestApp(t);
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const generated = await generateTypes(doc);
  if (process.env.UPDATE_CLIENT === '1') await writeFile(TYPES, generated);
  const committed = await readFile(TYPES, 'utf8').catch(() => '');
  t.ok(committed === generated, 'packages/client/src/api.generated.ts is current (run `pnpm client:generate`)');
});
