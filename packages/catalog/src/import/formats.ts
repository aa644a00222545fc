import type { FoodRecord } from '@nutrition/domain';

const number = (value: unknown): number | null => {
  if (value === null || value === undefined || value === '') return null;
  const n = typeof value === 'number' ? value : Number(String(value).replace(',', '.'));
  return Number.isFinite(n) ? n : null;
};

/**
 * The Open Food Facts CSV export: tab-separated, UTF-8, never quoted, a header of ~210 columns. It has no
 * per-language name columns, so a row's name has no known language.
 */
export function csvReader(header: string) {
  const columns = header.split('\t');
  const at = (name: string) => columns.indexOf(name);
  const i = {
    code: at('code'),
    name: at('product_name'),
    brands: at('brands'),
    categories: at('categories_tags'),
    kj: at('energy-kj_100g'),
    kcal: at('energy-kcal_100g'),
    fat: at('fat_100g'),
    carbs: at('carbohydrates_100g'),
    protein: at('proteins_100g'),
    fiber: at('fiber_100g'),
    sugars: at('sugars_100g'),
    saturatedFat: at('saturated-fat_100g'),
    salt: at('salt_100g'),
    sodium: at('sodium_100g'),
  };
  if (i.code < 0 || i.name < 0) throw new Error('not an Open Food Facts CSV export: no code or product_name column');
  // Splitting stops after the last column read: a real export's line runs on for another fifty.
  const columnsRead = Math.max(...Object.values(i)) + 1;
  return (line: string): FoodRecord => {
    const f = line.split('\t', columnsRead);
    const get = (index: number) => (index >= 0 ? (f[index] ?? '') : '');
    return {
      code: get(i.code),
      name: get(i.name),
      language: null,
      names: {},
      brand: get(i.brands) || null,
      categoryTags: get(i.categories).split(',').filter(Boolean),
      kcal: number(get(i.kcal)),
      kj: number(get(i.kj)),
      fat: number(get(i.fat)),
      carbs: number(get(i.carbs)),
      protein: number(get(i.protein)),
      fiber: number(get(i.fiber)),
      sugars: number(get(i.sugars)),
      saturatedFat: number(get(i.saturatedFat)),
      salt: number(get(i.salt)),
      sodium: number(get(i.sodium)),
      // The CSV does not say what its `_100g` values are for (a bottle of oil may be entered per 100 g or per 100 ml),
      // and guessing from the package size turns right values wrong: they are kept as given.
      per: '100g',
    };
  };
}

interface OffNutrient {
  value?: unknown;
  unit?: string;
}

/**
 * One document of the JSONL export. Older documents carry `nutriments` (`energy-kcal_100g`, …); newer ones
 * (schema_version 1003 and later) carry `nutrition.aggregated_set.nutrients` with `{value, unit}` per nutrient.
 */
export function jsonRecord(doc: Record<string, unknown>): FoodRecord {
  const names: Record<string, string> = {};
  for (const [key, value] of Object.entries(doc)) {
    const m = /^product_name_([a-z]{2})$/.exec(key);
    if (m && typeof value === 'string') names[m[1]!] = value;
  }
  const nutriments = (doc.nutriments ?? {}) as Record<string, unknown>;
  const aggregated =
    (doc.nutrition as { aggregated_set?: { per?: string; nutrients?: Record<string, OffNutrient> } } | undefined)
      ?.aggregated_set ?? {};
  const per100g = !aggregated.per || aggregated.per === '100g' || aggregated.per === '100ml';
  const nutrient = (name: string, unit: string) => {
    const n = aggregated.nutrients?.[name];
    if (n && per100g && (!n.unit || n.unit.toLowerCase() === unit.toLowerCase())) return number(n.value);
    return number(nutriments[`${name}_100g`]);
  };
  const tags = Array.isArray(doc.categories_tags)
    ? (doc.categories_tags as unknown[]).filter((t): t is string => typeof t === 'string')
    : [];
  return {
    code: String(doc.code ?? doc._id ?? ''),
    name: typeof doc.product_name === 'string' ? doc.product_name : null,
    language: typeof doc.lang === 'string' ? doc.lang : null,
    names,
    brand: typeof doc.brands === 'string' ? doc.brands : null,
    categoryTags: tags,
    kcal: nutrient('energy-kcal', 'kcal'),
    kj: nutrient('energy-kj', 'kJ') ?? nutrient('energy', 'kJ'),
    fat: nutrient('fat', 'g'),
    carbs: nutrient('carbohydrates', 'g'),
    protein: nutrient('proteins', 'g'),
    fiber: nutrient('fiber', 'g'),
    sugars: nutrient('sugars', 'g'),
    saturatedFat: nutrient('saturated-fat', 'g'),
    salt: nutrient('salt', 'g'),
    sodium: nutrient('sodium', 'g'),
    // Only the nutrition set says which basis its values have.
    per: aggregated.per === '100ml' ? '100ml' : '100g',
  };
}
