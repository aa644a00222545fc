import t from 'tap';
import { mapCategory, normalizeFoodRecord, type FoodRecord } from '../src/food-import.ts';

const languages = ['en', 'ru', 'de'];
const base: FoodRecord = {
  code: '4006381333931',
  name: '  Vollmilch  3,5 % ',
  language: 'de',
  names: { en: 'Whole milk', ru: 'Молоко' },
  brand: 'Alpenland, Other',
  categoryTags: ['en:dairies', 'en:milks'],
  kcal: 64,
  kj: 268,
  fat: 3.5,
  carbs: 4.8,
  protein: 3.3,
  fiber: 0,
  sugars: 4.8,
  saturatedFat: 2.3,
  salt: 0.1,
  sodium: 0.04,
};

t.test(
  'fibre, sugars, saturated fat and salt come along; salt from sodium where missing; a wrong one is dropped',
  async (t) => {
    t.match(normalizeFoodRecord(base, languages), {
      nutrients: { fiber: 0, sugars: 4.8, saturated_fat: 2.3, salt: 0.1 },
    });
    t.match(normalizeFoodRecord({ ...base, salt: null, sodium: 0.4 }, languages), { nutrients: { salt: 1 } });
    t.match(normalizeFoodRecord({ ...base, salt: null, sodium: null }, languages), { nutrients: { salt: null } });
    t.match(normalizeFoodRecord({ ...base, sugars: 40, saturatedFat: 9, fiber: 140 }, languages), {
      calories: 64,
      nutrients: { sugars: null, saturated_fat: null, fiber: null, salt: 0.1 },
    });
    t.match(normalizeFoodRecord({ ...base, per: '100ml', categoryTags: ['en:milks'], sugars: 5.15 }, languages), {
      nutrients: { sugars: 5 },
    });
  },
);

t.test('NUL and other control characters leave names and brands: PostgreSQL text cannot hold NUL', async (t) => {
  const product = normalizeFoodRecord(
    { ...base, name: 'Voll\u0000milch', names: { en: 'Whole \u0000 milk\u007f' }, brand: 'Alpen\u0000land\u0085' },
    languages,
  );
  t.match(product, {
    canonicalName: 'Vollmilch',
    brand: 'Alpenland',
    aliases: [
      { language: 'en', name: 'Whole milk' },
      { language: 'de', name: 'Vollmilch' },
    ],
  });
  t.equal(normalizeFoodRecord({ ...base, name: '\u0000', names: {} }, languages), 'no_name');
});

t.test('a good row becomes a product with aliases per language', async (t) => {
  const p = normalizeFoodRecord(base, languages);
  t.match(p, {
    barcode: '4006381333931',
    canonicalName: 'Vollmilch 3,5 %',
    brand: 'Alpenland',
    categoryCode: 'dairy',
    calories: 64,
  });
  t.same(typeof p === 'object' && p.aliases, [
    { language: 'en', name: 'Whole milk', primary: true },
    { language: 'ru', name: 'Молоко', primary: true },
    { language: 'de', name: 'Vollmilch 3,5 %', primary: true },
  ]);
});

t.test('kcal from kJ, UPC-A normalised, nutrition checks', async (t) => {
  t.match(normalizeFoodRecord({ ...base, kcal: null, kj: 1000 }, languages), { calories: 239 });
  t.match(normalizeFoodRecord({ ...base, code: '036000291452' }, languages), { barcode: '0036000291452' });
  t.match(normalizeFoodRecord({ ...base, kcal: null, kj: null, fat: null, carbs: null, protein: null }, languages), {
    calories: null,
  });
  t.match(
    normalizeFoodRecord({ ...base, code: '4006381333932' }, languages),
    { barcode: '4006381333932', barcodeChecked: false },
    'a wrong check digit is a typo in the source: imported, the code kept as given',
  );
  t.equal(normalizeFoodRecord({ ...base, code: 'abc' }, languages), 'invalid_barcode');
  t.equal(normalizeFoodRecord({ ...base, name: '   ', names: {} }, languages), 'no_name');
  t.equal(normalizeFoodRecord({ ...base, kcal: 901 }, languages), 'impossible_nutrition');
  t.equal(normalizeFoodRecord({ ...base, fat: -1 }, languages), 'impossible_nutrition');
  t.equal(normalizeFoodRecord({ ...base, fat: 50, carbs: 40, protein: 20 }, languages), 'impossible_nutrition');
});

t.test('categories map from the most specific tag', async (t) => {
  t.equal(mapCategory(['en:snacks', 'en:sweet-snacks', 'en:chocolates']), 'sweets');
  t.equal(mapCategory(['en:beverages', 'en:fruit-juices']), 'beverages');
  t.equal(mapCategory(['en:plant-based-foods', 'en:legumes', 'en:lentils']), 'legumes');
  t.equal(mapCategory([]), null);
});

t.test('values labelled per 100 ml become per 100 g through the category density', async (t) => {
  const milk = normalizeFoodRecord({ ...base, per: '100ml' }, languages);
  t.match(milk, { categoryCode: 'dairy', calories: 62.1, fat: 3.4, carbs: 4.7, protein: 3.2 }, 'milk: 1.03 g/ml');
  const oil = normalizeFoodRecord(
    { ...base, per: '100ml', categoryTags: ['en:vegetable-oils'], kcal: 828, kj: null, fat: 92, carbs: 0, protein: 0 },
    languages,
  );
  t.match(oil, { categoryCode: 'oils_fats', calories: 900, fat: 100 }, 'oil: 0.92 g/ml');
  const juice = normalizeFoodRecord({ ...base, per: '100ml', categoryTags: ['en:orange-juices'], kcal: 45 }, languages);
  t.match(juice, { calories: 45 }, 'water-based drinks: 1 g/ml');
  t.match(normalizeFoodRecord(base, languages), { calories: 64 }, 'per 100 g: unchanged');
});
