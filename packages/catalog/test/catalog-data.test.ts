import t from 'tap';
import { readJson } from '../src/seed/reference.ts';
import { readDishes, type SeedProduct } from '../src/seed/catalog.ts';

/**
 * Seed values against reference tables (USDA FoodData Central, SR Legacy: raw or as sold, per 100 g, carbohydrate by
 * difference, i.e. total carbohydrate with fibre). Each row is a product a review found wrong, with the kind of error
 * it had: cooked values for raw food, one style for a whole family, another basis for carbohydrate.
 */
const REFERENCE: Record<string, { kcal: number; protein: number; carbs: number; source: string }> = {
  pork: { kcal: 198, protein: 19.7, carbs: 0, source: 'Pork, fresh, composite of retail cuts, lean and fat, raw' },
  cocoa_powder: { kcal: 228, protein: 19.6, carbs: 57.9, source: 'Cocoa, dry powder, unsweetened' },
  puff_pastry: { kcal: 551, protein: 7.4, carbs: 45.1, source: 'Puff pastry, frozen, ready-to-bake' },
  blackcurrant: { kcal: 63, protein: 1.4, carbs: 15.4, source: 'Currants, european black, raw' },
  red_currant: { kcal: 56, protein: 1.4, carbs: 13.8, source: 'Currants, red and white, raw' },
  rye_bread: { kcal: 259, protein: 8.5, carbs: 48.3, source: 'Bread, rye' },
  black_beans: { kcal: 341, protein: 21.6, carbs: 62.4, source: 'Beans, black, mature seeds, raw' },
  chickpeas: { kcal: 378, protein: 20.5, carbs: 63, source: 'Chickpeas, mature seeds, raw' },
  red_beans: { kcal: 333, protein: 23.6, carbs: 60, source: 'Beans, kidney, red, mature seeds, raw' },
  cherry: { kcal: 63, protein: 1.1, carbs: 16, source: 'Cherries, sweet, raw' },
  sour_cherry: { kcal: 50, protein: 1, carbs: 12.2, source: 'Cherries, sour, red, raw' },
};

async function products(): Promise<SeedProduct[]> {
  const [ingredients, packaged] = await Promise.all([
    readJson<SeedProduct[]>('products/ingredients.json'),
    readJson<SeedProduct[]>('products/packaged.json'),
  ]);
  return [...ingredients, ...packaged];
}

t.test('reviewed products match the reference tables', async (t) => {
  const byCode = new Map((await products()).map((p) => [p.code, p]));
  for (const [code, ref] of Object.entries(REFERENCE)) {
    const p = byCode.get(code);
    if (!p) {
      t.fail(`${code} is missing`);
      continue;
    }
    t.ok(
      Math.abs(p.kcal - ref.kcal) <= ref.kcal * 0.05,
      `${code}: ${p.kcal} kcal, reference ${ref.kcal} (${ref.source})`,
    );
    t.ok(Math.abs(p.protein - ref.protein) <= Math.max(1, ref.protein * 0.1), `${code}: protein ${p.protein} g`);
    t.ok(Math.abs(p.carbs - ref.carbs) <= Math.max(1, ref.carbs * 0.1), `${code}: carbohydrate ${p.carbs} g`);
  }
});

t.test('carbohydrate is total carbohydrate everywhere: dry legumes state 45-70 g, not net of fibre', async (t) => {
  // Dry beans, lentils and peas (not protein isolates such as textured soy).
  const dry = (await products()).filter((p) => p.category === 'legumes' && p.kcal > 250 && p.protein < 30);
  t.ok(dry.length >= 4, `${dry.length} dry legumes`);
  t.same(
    dry.filter((p) => p.carbs < 45 || p.carbs > 70).map((p) => `${p.code}: ${p.carbs} g`),
    [],
  );
});

t.test("an alias never names another product: not another product's name, not another fat grade", async (t) => {
  const all = await products();
  const nameOf = new Map<string, string>();
  for (const p of all)
    for (const [lang, name] of Object.entries(p.names)) nameOf.set(`${lang}|${name.toLowerCase()}`, p.code);
  const percent = /(\d+(?:[.,]\d+)?)\s*%/g;
  const percents = (text: string) => [...text.matchAll(percent)].map((m) => m[1]!.replace(',', '.'));
  const wrong: string[] = [];
  for (const p of all) {
    const own = new Set(Object.values(p.names).flatMap(percents));
    for (const [lang, aliases] of Object.entries(p.aliases ?? {})) {
      for (const alias of aliases) {
        const other = nameOf.get(`${lang}|${alias.toLowerCase()}`);
        if (other && other !== p.code) wrong.push(`${p.code} ${lang} "${alias}" is ${other}`);
        if (own.size > 0 && percents(alias).some((x) => !own.has(x)))
          wrong.push(`${p.code} ${lang} "${alias}": another fat grade`);
      }
    }
  }
  t.same(wrong, []);
});

t.test('an alias names one product: a word that means several is kept on the one people mean by it', async (t) => {
  const owners = new Map<string, Set<string>>();
  for (const p of await products())
    for (const [lang, aliases] of Object.entries(p.aliases ?? {}))
      for (const alias of aliases) {
        const key = `${lang} "${alias.toLowerCase()}"`;
        owners.set(key, (owners.get(key) ?? new Set()).add(p.code));
      }
  t.same(
    [...owners].filter(([, codes]) => codes.size > 1).map(([key, codes]) => `${key}: ${[...codes].join(', ')}`),
    [],
  );
});

t.test(
  'no seed barcode can be a shop label: generic ingredients have none, packaged ones use the GS1 demo prefix',
  async (t) => {
    const ingredients = await readJson<SeedProduct[]>('products/ingredients.json');
    t.same(
      ingredients.filter((p) => p.barcode).map((p) => p.code),
      [],
      'ingredients',
    );
    const coded = (await products()).filter((p) => p.barcode);
    t.ok(coded.length >= 250);
    t.same(
      coded.filter((p) => !p.barcode!.startsWith('952')).map((p) => `${p.code} ${p.barcode}`),
      [],
    );
  },
);

t.test('sweet and sour cherries are two products, each named for what the word means in every language', async (t) => {
  const byCode = new Map((await products()).map((p) => [p.code, p]));
  // "Вишня", "Wiśnia", "Vişne" are sour cherries; "Cherry", "Kirsche", "Cerise" sweet ones.
  t.match(byCode.get('sour_cherry')?.names, {
    ru: 'Вишня',
    uk: 'Вишня',
    pl: 'Wiśnia',
    tr: 'Vişne',
    de: 'Sauerkirsche',
  });
  t.match(byCode.get('cherry')?.names, {
    en: 'Sweet cherry',
    ru: 'Черешня',
    pl: 'Czereśnia',
    tr: 'Kiraz',
    fr: 'Cerise',
  });
  const dishes =
    await readJson<{ code: string; recipe: { ingredients: { product: string }[] } }[]>('dishes/eastern-european.json');
  const uses = (code: string) =>
    dishes.filter((d) => d.recipe.ingredients.some((i) => i.product === code)).map((d) => d.code);
  t.same(uses('sour_cherry').sort(), ['kompot', 'vareniki_cherries']);
});

t.test('every seed product states fibre, sugars, saturated fat and salt, within what its macros allow', async (t) => {
  const wrong = (await products())
    .filter(
      (p) =>
        [p.fiber, p.sugars, p.saturated_fat, p.salt].some((v) => typeof v !== 'number' || v < 0 || v > 100) ||
        p.sugars > p.carbs + 0.5 ||
        p.saturated_fat > p.fat + 0.5,
    )
    .map((p) => `${p.code}: ${p.fiber}/${p.sugars}/${p.saturated_fat}/${p.salt}`);
  t.same(wrong, []);
  const byCode = new Map((await products()).map((p) => [p.code, p]));
  t.match(byCode.get('salt'), { salt: 99 }, 'salt is salt');
  t.match(byCode.get('butter'), { saturated_fat: 53 });
});

t.test('at least 240 dishes, and the kitchens of the languages served have at least 8 each', async (t) => {
  const dishes = await readDishes();
  t.ok(dishes.length >= 240, `${dishes.length} dishes`);
  const perCuisine = new Map<string, number>();
  for (const dish of dishes) perCuisine.set(dish.cuisine, (perCuisine.get(dish.cuisine) ?? 0) + 1);
  const kitchens = ['russian', 'ukrainian', 'german', 'french', 'spanish', 'mexican', 'italian', 'brazilian', 'polish'];
  kitchens.push('turkish', 'chinese', 'japanese', 'korean');
  t.same(
    kitchens.filter((cuisine) => (perCuisine.get(cuisine) ?? 0) < 8).map((c) => `${c}: ${perCuisine.get(c) ?? 0}`),
    [],
  );
});
