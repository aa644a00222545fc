import { readFile } from 'node:fs/promises';
import t from 'tap';
import { openTestDatabase } from '../src/testing.ts';

const migration = new URL('../../../drizzle/0032_stub_dish_english_name.sql', import.meta.url);

t.test('migration 0032 gives dishes logged by a new name that name in English, once', async (t) => {
  const { sql } = await openTestDatabase(t, { max: 1 });
  const [user] = await sql<{ id: string }[]>`
    INSERT INTO users (identity_provider, external_subject) VALUES ('dev', 'stub-names') RETURNING id`;
  const dish = async (source: string, names: Record<string, string>) => {
    const [row] = await sql<{ id: string }[]>`
      INSERT INTO dishes (source, created_by) VALUES (${source}, ${user!.id}) RETURNING id`;
    for (const [language, name] of Object.entries(names))
      await sql`INSERT INTO dish_translations (dish_id, language_code, name) VALUES (${row!.id}, ${language}, ${name})`;
    return row!.id;
  };
  // As diary stubs were stored before: the typed name in the request language only.
  const german = await dish('stub', { de: 'Omas Pflaumenkuchen' });
  const english = await dish('stub', { en: 'Midnight noodles' });
  const modelMade = await dish('ai', { fr: 'Tarte du modèle' });
  const names = async (id: string) =>
    Object.fromEntries(
      (
        await sql<{ language_code: string; name: string }[]>`
        SELECT language_code, name FROM dish_translations WHERE dish_id = ${id}`
      ).map((r) => [r.language_code, r.name]),
    );

  const text = await readFile(migration, 'utf8');
  await sql.unsafe(text);
  await sql.unsafe(text);
  t.same(await names(german), { de: 'Omas Pflaumenkuchen', en: 'Omas Pflaumenkuchen' }, 'the German name in English');
  t.same(await names(english), { en: 'Midnight noodles' }, 'an English stub unchanged');
  t.same(await names(modelMade), { fr: 'Tarte du modèle' }, 'only stubs: a model-made dish keeps its own names');
});
