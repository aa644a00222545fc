import { importedBarcode } from './barcode.ts';
import type { Nutrients } from './nutrition.ts';
import { withoutControlCharacters } from './text.ts';

/** One row of a food-database dump, in the shape every format is read into. */
export interface FoodRecord {
  code: string;
  /** The main name, in `language` when the dump says which. */
  name: string | null;
  language: string | null;
  /** Names per language (`product_name_<lang>`). */
  names: Record<string, string>;
  brand: string | null;
  categoryTags: string[];
  kcal: number | null;
  kj: number | null;
  fat: number | null;
  carbs: number | null;
  protein: number | null;
  fiber: number | null;
  sugars: number | null;
  saturatedFat: number | null;
  salt: number | null;
  /** Used for salt (× 2.5) where salt is missing. */
  sodium: number | null;
  /** What the nutrition values are given for; drinks and oils are labelled per 100 ml. Default `100g`. */
  per?: '100g' | '100ml';
}

/**
 * Grams per millilitre by product category, to turn values labelled per 100 ml into the catalog's per 100 g. Water-
 * based drinks are taken as 1.0; the rest are typical values (oil 0.92, milk 1.03).
 */
const DENSITY_G_PER_ML: Record<string, number> = { oils_fats: 0.92, dairy: 1.03, sauces_condiments: 1.05 };

export function densityFor(categoryCode: string | null): number {
  return (categoryCode && DENSITY_G_PER_ML[categoryCode]) || 1;
}

export interface ImportedProduct {
  barcode: string;
  /** False when the code's check digit is wrong: kept as given, found by name. */
  barcodeChecked: boolean;
  canonicalName: string;
  brand: string | null;
  categoryCode: string | null;
  calories: number | null;
  protein: number | null;
  fat: number | null;
  carbs: number | null;
  /** Fibre, sugars, saturated fat and salt per 100 g; an impossible one (above 100 g, sugars above the carbohydrate,
   * saturates above the fat) is left unknown rather than losing the product. */
  nutrients: Nutrients;
  /** Names by language; `null` language for a name whose language is unknown. */
  aliases: { language: string | null; name: string; primary: boolean }[];
}

export type SkipReason = 'invalid_barcode' | 'no_name' | 'impossible_nutrition';

export const KJ_PER_KCAL = 4.184;
const MAX_NAME = 300;

/** Open Food Facts category tags (most specific last) onto our product categories, first match from the end wins. */
const CATEGORY_RULES: [RegExp, string][] = [
  [/frozen/, 'frozen'],
  [/canned|conserve|tinned/, 'canned'],
  [/cheese/, 'cheese'],
  [/eggs?$/, 'eggs'],
  [/milk|dair|yogh?urt|kefir|cream|butter|curd|quark/, 'dairy'],
  [/poultr|chicken|turkey|duck/, 'poultry'],
  [/meat|sausage|ham|bacon|beef|pork|salami/, 'meat'],
  [/fish|seafood|salmon|tuna|shrimp|prawn/, 'fish_seafood'],
  [/bread|bakery|biscuit-and-cake|pastr|viennoiser/, 'bakery'],
  [/pasta|noodle|spaghetti/, 'pasta'],
  [/cereal|rice|grain|flour|oat|muesli|granola/, 'grains_cereals'],
  [/legume|bean|lentil|chickpea|pea/, 'legumes'],
  [/nut|seed/, 'nuts_seeds'],
  [/oil|fat|margarine/, 'oils_fats'],
  [/sauce|condiment|ketchup|mayonnaise|mustard|vinegar|dressing/, 'sauces_condiments'],
  [/chocolate|candy|candies|confectioner|sweet|sugar|jam|honey|dessert|ice-cream/, 'sweets'],
  [/snack|chip|crisp|cracker|popcorn/, 'snacks'],
  [/beverage|drink|juice|water|soda|tea|coffee|beer|wine/, 'beverages'],
  [/berr/, 'berries'],
  [/fruit/, 'fruits'],
  [/mushroom/, 'mushrooms'],
  [/vegetable|salad|tomato|potato|carrot|onion/, 'vegetables'],
  [/spice|herb|salt|pepper/, 'herbs_spices'],
];

export function mapCategory(tags: string[]): string | null {
  for (const tag of [...tags].reverse()) {
    const name = tag.replace(/^[a-z]{2}:/, '').toLowerCase();
    for (const [pattern, code] of CATEGORY_RULES) if (pattern.test(name)) return code;
  }
  return null;
}

/** Control characters go (NUL among them, which PostgreSQL text cannot hold); whitespace runs become one space. */
const cleanName = (name: string | null | undefined) => {
  const trimmed = name ? withoutControlCharacters(name).replace(/\s+/g, ' ').trim() : '';
  return trimmed.length > 0 ? trimmed.slice(0, MAX_NAME) : null;
};

/**
 * Validates and normalises a dump row: barcode to its stored form, names trimmed, kcal from kJ where missing, and
 * nutrition no food can have (over 900 kcal, negative, macros over 100 g) rejected. Missing nutrition is kept as null.
 */
export function normalizeFoodRecord(record: FoodRecord, languages: readonly string[]): ImportedProduct | SkipReason {
  const code = importedBarcode(record.code);
  if (!code) return 'invalid_barcode';

  const aliases: ImportedProduct['aliases'] = [];
  const seen = new Set<string>();
  const add = (language: string | null, raw: string | null | undefined, primary: boolean) => {
    const name = cleanName(raw);
    const key = `${language}\u0000${name?.toLowerCase()}`;
    if (!name || seen.has(key)) return;
    seen.add(key);
    aliases.push({ language, name, primary });
  };
  for (const [language, name] of Object.entries(record.names))
    if (languages.includes(language)) add(language, name, true);
  const mainLanguage = record.language && languages.includes(record.language) ? record.language : null;
  add(mainLanguage, record.name, mainLanguage !== null && !aliases.some((a) => a.language === mainLanguage));
  const canonicalName = cleanName(record.name) ?? cleanName(record.names.en) ?? aliases[0]?.name ?? null;
  if (!canonicalName) return 'no_name';

  const categoryCode = mapCategory(record.categoryTags);
  // The catalog is per 100 g: values per 100 ml are divided by the category's density.
  const density = record.per === '100ml' ? densityFor(categoryCode) : 1;
  const per100g = (v: number | null) => (v === null || density === 1 ? v : Math.round((v / density) * 10) / 10);
  const kcal = record.kcal ?? (record.kj !== null ? Math.round((record.kj / KJ_PER_KCAL) * 10) / 10 : null);
  const [calories, protein, fat, carbs] = [kcal, record.protein, record.fat, record.carbs].map(per100g) as (
    | number
    | null
  )[];
  const values = [calories, protein, fat, carbs];
  if (values.some((v) => v !== null && v !== undefined && (!Number.isFinite(v) || v < 0)))
    return 'impossible_nutrition';
  if (calories != null && calories > 900) return 'impossible_nutrition';
  if ((protein ?? 0) + (fat ?? 0) + (carbs ?? 0) > 100) return 'impossible_nutrition';

  // Secondary values: a wrong one is dropped, not the product.
  const part = (v: number | null, whole?: number | null) => {
    const x = per100g(v);
    if (x === null || !Number.isFinite(x) || x < 0 || x > 100) return null;
    return whole != null && x > whole + 0.5 ? null : x;
  };
  const salt = record.salt ?? (record.sodium !== null ? Math.round(record.sodium * 2.5 * 1000) / 1000 : null);
  const nutrients: Nutrients = {
    fiber: part(record.fiber),
    sugars: part(record.sugars, carbs),
    saturated_fat: part(record.saturatedFat, fat),
    salt: part(salt),
  };

  return {
    barcode: code.barcode,
    barcodeChecked: code.checked,
    canonicalName,
    brand: cleanName(record.brand?.split(',')[0]),
    categoryCode,
    calories: calories ?? null,
    protein: protein ?? null,
    fat: fat ?? null,
    carbs: carbs ?? null,
    nutrients,
    aliases,
  };
}
