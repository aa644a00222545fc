import { readFile } from 'node:fs/promises';
import type { Queryable, Sql } from '@nutrition/db';

export type Translations = Record<string, string>;

export interface ReferenceData {
  languages: { code: string; native_name: string; english_name: string; sort_order: number }[];
  units: {
    code: string;
    kind: 'mass' | 'volume' | 'count';
    base_unit: string | null;
    factor: number | null;
    names: Translations;
    short: Translations;
  }[];
  product_categories: { code: string; shop_order: number; default_storage_days: number; names: Translations }[];
  dish_categories: { code: string; sort_order: number; names: Translations }[];
  cuisines: { code: string; names: Translations }[];
  tags: { code: string; names: Translations }[];
}

/** PostgreSQL's own text search configurations; languages without one search with `simple`. */
const SEARCH_CONFIGS: Record<string, string> = {
  en: 'english',
  ru: 'russian',
  de: 'german',
  fr: 'french',
  es: 'spanish',
  it: 'italian',
  pt: 'portuguese',
  tr: 'turkish',
};

export const seedDataDir = new URL('../../seed-data/', import.meta.url);

export async function readJson<T>(relativePath: string): Promise<T> {
  return JSON.parse(await readFile(new URL(relativePath, seedDataDir), 'utf8')) as T;
}

/** Rows of `(code, language_code, name)` for every translation of a list of coded items. */
function translationRows(items: { code: string; names: Translations }[]) {
  return items.flatMap((item) =>
    Object.entries(item.names).map(([language_code, name]) => ({ code: item.code, language_code, name })),
  );
}

/**
 * Upserts every reference table from seed-data/reference.json in one transaction. Safe to run any number of times:
 * rows are matched by code, so a second run changes nothing and an edited translation is updated in place.
 */
export async function seedReference(sql: Sql, data?: ReferenceData): Promise<void> {
  const ref = data ?? (await readJson<ReferenceData>('reference.json'));
  await sql.begin(async (tx) => {
    const languages = ref.languages.map((l) => ({ ...l, search_config: SEARCH_CONFIGS[l.code] ?? 'simple' }));
    await tx`
      INSERT INTO languages ${tx(languages, 'code', 'native_name', 'english_name', 'sort_order', 'search_config')}
      ON CONFLICT (code) DO UPDATE SET native_name = excluded.native_name, english_name = excluded.english_name,
        sort_order = excluded.sort_order, search_config = excluded.search_config`;

    const units = ref.units.map((u, i) => ({ ...u, sort_order: i + 1 }));
    await tx`
      INSERT INTO units ${tx(units, 'code', 'kind', 'base_unit', 'factor', 'sort_order')}
      ON CONFLICT (code) DO UPDATE SET kind = excluded.kind, base_unit = excluded.base_unit,
        factor = excluded.factor, sort_order = excluded.sort_order`;
    const unitNames = ref.units.flatMap((u) =>
      Object.keys(u.names).map((language_code) => ({
        unit_code: u.code,
        language_code,
        name: u.names[language_code]!,
        short: u.short[language_code] ?? u.names[language_code]!,
      })),
    );
    await tx`
      INSERT INTO unit_translations ${tx(unitNames, 'unit_code', 'language_code', 'name', 'short')}
      ON CONFLICT (unit_code, language_code) DO UPDATE SET name = excluded.name, short = excluded.short`;

    await tx`
      INSERT INTO product_categories ${tx(ref.product_categories, 'code', 'shop_order', 'default_storage_days')}
      ON CONFLICT (code) DO UPDATE SET shop_order = excluded.shop_order,
        default_storage_days = excluded.default_storage_days`;
    await upsertTranslations(tx, 'product_category_translations', 'category_code', ref.product_categories);

    await tx`
      INSERT INTO dish_categories ${tx(ref.dish_categories, 'code', 'sort_order')}
      ON CONFLICT (code) DO UPDATE SET sort_order = excluded.sort_order`;
    await upsertTranslations(tx, 'dish_category_translations', 'category_code', ref.dish_categories);

    for (const [table, items, translations, key] of [
      ['cuisines', ref.cuisines, 'cuisine_translations', 'cuisine_code'],
      ['tags', ref.tags, 'tag_translations', 'tag_code'],
    ] as const) {
      const rows = items.map((item, i) => ({ code: item.code, sort_order: i + 1 }));
      await tx`
        INSERT INTO ${tx(table)} ${tx(rows, 'code', 'sort_order')}
        ON CONFLICT (code) DO UPDATE SET sort_order = excluded.sort_order`;
      await upsertTranslations(tx, translations, key, items);
    }
  });
}

async function upsertTranslations(
  tx: Queryable,
  table: string,
  keyColumn: string,
  items: { code: string; names: Translations }[],
) {
  const rows = translationRows(items).map((r) => ({
    [keyColumn]: r.code,
    language_code: r.language_code,
    name: r.name,
  }));
  await tx`
    INSERT INTO ${tx(table)} ${tx(rows, keyColumn, 'language_code', 'name')}
    ON CONFLICT (${tx(keyColumn)}, language_code) DO UPDATE SET name = excluded.name`;
}
