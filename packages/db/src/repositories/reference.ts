import type { Queryable } from '../client.ts';

export type ReferenceList = 'cuisines' | 'tags' | 'dish_categories' | 'product_categories' | 'units';

const TABLES: Record<ReferenceList, { translations: string; key: string; order: string }> = {
  cuisines: { translations: 'cuisine_translations', key: 'cuisine_code', order: 'sort_order' },
  tags: { translations: 'tag_translations', key: 'tag_code', order: 'sort_order' },
  dish_categories: { translations: 'dish_category_translations', key: 'category_code', order: 'sort_order' },
  product_categories: { translations: 'product_category_translations', key: 'category_code', order: 'shop_order' },
  units: { translations: 'unit_translations', key: 'unit_code', order: 'sort_order' },
};

/** Reference lists with names in one language, falling back to English where a translation is missing. */
export function referenceRepository(sql: Queryable) {
  return {
    async list(list: ReferenceList, language: string): Promise<{ code: string; name: string; short: string }[]> {
      const { translations, key, order } = TABLES[list];
      // `short` only exists for units; other lists leave it out of the response.
      const extra = list === 'units' ? sql`, COALESCE(t.short, e.short) AS short` : sql``;
      return sql`
        SELECT r.code, COALESCE(t.name, e.name, r.code) AS name ${extra}
        FROM ${sql(list)} r
        LEFT JOIN ${sql(translations)} t ON t.${sql(key)} = r.code AND t.language_code = ${language}
        LEFT JOIN ${sql(translations)} e ON e.${sql(key)} = r.code AND e.language_code = 'en'
        ORDER BY r.${sql(order)}, r.code`;
    },
  };
}
