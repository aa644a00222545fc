import type { Queryable } from '../client.ts';

export type ReferenceList = 'cuisines' | 'tags' | 'dish_categories' | 'product_categories' | 'units';

const TABLES: Record<ReferenceList, { translations: string; key: string; order: string }> = {
  cuisines: { translations: 'cuisine_translations', key: 'cuisine_code', order: 'sort_order' },
  tags: { translations: 'tag_translations', key: 'tag_code', order: 'sort_order' },
  dish_categories: { translations: 'dish_category_translations', key: 'category_code', order: 'sort_order' },
  product_categories: { translations: 'product_category_translations', key: 'category_code', order: 'shop_order' },
  units: { translations: 'unit_translations', key: 'unit_code', order: 'sort_order' },
};

export interface UnitRow {
  code: string;
  name: string;
  short: string;
  kind: 'mass' | 'volume' | 'count';
  base_unit: 'g' | 'ml' | null;
  factor: number | null;
}

/** Reference lists with names in one language, falling back to English where a translation is missing. */
export function referenceRepository(sql: Queryable) {
  function list<T = { code: string; name: string }>(list: ReferenceList, language: string): Promise<T[]> {
    const { translations, key, order } = TABLES[list];
    // `short` and the size only exist for units; other lists leave them out of the response.
    const extra =
      list === 'units'
        ? sql`, COALESCE(t.short, e.short) AS short, r.kind, r.base_unit, r.factor::float8 AS factor`
        : sql``;
    return sql`
      SELECT r.code, COALESCE(t.name, e.name, r.code) AS name ${extra}
      FROM ${sql(list)} r
      LEFT JOIN ${sql(translations)} t ON t.${sql(key)} = r.code AND t.language_code = ${language}
      LEFT JOIN ${sql(translations)} e ON e.${sql(key)} = r.code AND e.language_code = 'en'
      ORDER BY r.${sql(order)}, r.code` as unknown as Promise<T[]>;
  }
  return {
    list: (name: Exclude<ReferenceList, 'units'>, language: string) => list(name, language),
    units: (language: string) => list<UnitRow>('units', language),
  };
}
