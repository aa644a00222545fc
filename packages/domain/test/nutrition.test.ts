import t from 'tap';
import {
  edibleGramsOf,
  gramsOf,
  plausibleServing,
  portionsOfGrams,
  recipePerServing,
  scaleMacros,
  type ProductMeasures,
  type Unit,
} from '../src/nutrition.ts';

const g: Unit = { code: 'g', kind: 'mass', factor: 1 };
const kg: Unit = { code: 'kg', kind: 'mass', factor: 1000 };
const tbsp: Unit = { code: 'tbsp', kind: 'volume', factor: 15 };
const glass: Unit = { code: 'glass', kind: 'volume', factor: 250 };
const piece: Unit = { code: 'piece', kind: 'count', factor: null };
const clove: Unit = { code: 'clove', kind: 'count', factor: null };
const pack: Unit = { code: 'pack', kind: 'count', factor: null };
const plain: ProductMeasures = { densityGPerMl: null, pieceG: null, unitGrams: {} };

t.test('grams of a quantity in each kind of unit', async (t) => {
  t.equal(gramsOf(250, g, plain), 250);
  t.equal(gramsOf(0.5, kg, plain), 500);
  t.equal(gramsOf(2, tbsp, { ...plain, densityGPerMl: 0.92 }), 27.6); // 2 × 15 ml × 0.92 g/ml of oil
  t.equal(gramsOf(1, glass, plain), 250, 'a liquid without density weighs as water');
  t.equal(gramsOf(3, piece, { ...plain, pieceG: 55 }), 165);
  t.equal(gramsOf(2, clove, { ...plain, pieceG: 45, unitGrams: { clove: 5 } }), 10);
  t.equal(gramsOf(1, pack, plain), null, 'a pack of unknown size cannot be weighed');
  t.equal(gramsOf(1, piece, plain), null);
});

t.test('per-serving nutrition of a hand-worked recipe', async (t) => {
  // Syrniki for 4: 500 g tvorog 5% (121 kcal, 17.2 P, 5 F, 1.8 C per 100 g), 2 eggs of 55 g (157, 12.7, 11.5, 0.7),
  // 4 tbsp flour at 0.55 g/ml = 33 g (364, 10.3, 1, 76.1), 2 tbsp sugar at 0.85 g/ml = 25.5 g (398, 0, 0, 99.7),
  // 2 tbsp sunflower oil at 0.92 g/ml = 27.6 g (899, 0, 99.9, 0), a pinch of salt (0.4 g, 0).
  // calories: 605 + 172.7 + 120.12 + 101.49 + 248.124 + 0 = 1247.434 → / 4 = 311.9
  // protein:  86 + 13.97 + 3.399 + 0 + 0 = 103.369 → 25.8
  // fat:      25 + 12.65 + 0.33 + 0 + 27.5724 = 65.5524 → 16.4
  // carbs:    9 + 0.77 + 25.113 + 25.4235 + 0 = 60.3065 → 15.1
  const amounts = [
    { grams: gramsOf(500, g, plain), per100g: { calories: 121, protein: 17.2, fat: 5, carbs: 1.8 } },
    {
      grams: gramsOf(2, piece, { ...plain, pieceG: 55 }),
      per100g: { calories: 157, protein: 12.7, fat: 11.5, carbs: 0.7 },
    },
    {
      grams: gramsOf(4, tbsp, { ...plain, densityGPerMl: 0.55 }),
      per100g: { calories: 364, protein: 10.3, fat: 1, carbs: 76.1 },
    },
    {
      grams: gramsOf(2, tbsp, { ...plain, densityGPerMl: 0.85 }),
      per100g: { calories: 398, protein: 0, fat: 0, carbs: 99.7 },
    },
    {
      grams: gramsOf(2, tbsp, { ...plain, densityGPerMl: 0.92 }),
      per100g: { calories: 899, protein: 0, fat: 99.9, carbs: 0 },
    },
    { grams: 0.4, per100g: { calories: 0, protein: 0, fat: 0, carbs: 0 } },
  ];
  const grams = amounts.reduce((sum, a) => sum + a.grams!, 0);
  t.same(recipePerServing(amounts, 4), {
    calories: 311.9,
    protein: 25.8,
    fat: 16.4,
    carbs: 15.1,
    unmeasured: 0,
    servingG: Math.round((grams / 4) * 10) / 10,
    nutrients: { fiber: null, sugars: null, saturated_fat: null, salt: null },
  });
  const partly = recipePerServing([...amounts, { grams: null, per100g: null }], 4);
  t.equal(partly.unmeasured, 1);
  t.equal(partly.servingG, null, 'an ingredient that cannot be weighed leaves the serving weight unknown');
});

t.test('a serving lighter than 0.05 g has no serving weight, not 0 g', async (t) => {
  // A recipe of 0.04 g of salt for one serving rounded to a 0 g serving, which recipes refuse (serving_g > 0):
  // saving a generated one answered 500.
  const salt = { calories: 0, protein: 0, fat: 0, carbs: 0 };
  const pinch = recipePerServing([{ grams: 0.04, per100g: salt }], 1);
  t.equal(pinch.servingG, null);
  t.match(pinch, { calories: 0, unmeasured: 0 }, 'its nutrition is still computed');
  t.equal(recipePerServing([{ grams: 0.05, per100g: salt }], 1).servingG, 0.1, 'what rounds to 0.1 g is kept');
});

t.test(
  'fibre, sugars, saturated fat and salt per serving: known only when every weighed ingredient states them',
  async (t) => {
    const oats = { calories: 379, protein: 13, fat: 6.5, carbs: 68 };
    const nutrients = { fiber: 10.1, sugars: 1, saturated_fat: 1.1, salt: 0.01 };
    const milk = { fiber: 0, sugars: 4.8, saturated_fat: 1.6, salt: 0.11 };
    const per = recipePerServing(
      [
        { grams: 80, per100g: oats, nutrients },
        { grams: 250, per100g: { calories: 52, protein: 3, fat: 2.5, carbs: 4.8 }, nutrients: milk },
        { grams: null, per100g: null },
      ],
      2,
    );
    // fibre 80 × 10.1 % = 8.08 g; sugars 0.8 + 12 = 12.8 g; saturates 0.88 + 4 = 4.88 g; salt 0.008 + 0.275 g.
    t.same(per.nutrients, { fiber: 4, sugars: 6.4, saturated_fat: 2.4, salt: 0.14 });
    const partly = recipePerServing(
      [
        { grams: 80, per100g: oats, nutrients },
        { grams: 250, per100g: oats, nutrients: { ...milk, fiber: null } },
      ],
      2,
    );
    t.same(partly.nutrients, { fiber: null, sugars: 6.4, saturated_fat: 2.4, salt: 0.14 }, 'an unknown stays unknown');
  },
);

t.test('pieces become grams of food: the edible share of what was bought', async (t) => {
  const egg = { ...plain, pieceG: 55, ediblePortion: 0.88 };
  t.equal(edibleGramsOf(2, piece, egg), 96.8, 'two eggs without their shells');
  t.equal(gramsOf(2, piece, egg), 110, 'what the shop sells stays as bought');
  t.equal(edibleGramsOf(100, g, egg), 100, 'a weight in a recipe is of the food itself');
  // 157 kcal per 100 g of egg: one egg is 76 kcal, not the 86 its whole weight would give.
  t.equal(Math.round((157 * edibleGramsOf(1, piece, egg)!) / 100), 76);
});

t.test('portions of a weighed plate follow the serving weight', async (t) => {
  t.equal(portionsOfGrams(350, 250), 1.4);
  t.equal(portionsOfGrams(100, 400), 0.25);
  t.equal(portionsOfGrams(1000, 400), 2.5, 'ten times the grams, ten times the food');
  t.equal(portionsOfGrams(300, null), null, 'unknown serving weight: the grams say nothing of portions');
  t.equal(portionsOfGrams(2358, 39.3), 60, 'not capped: more than the diary takes is the caller to refuse');
  t.equal(portionsOfGrams(100, 647.8), 0.154, 'to 0.001: 100 g of a 648 g serving');
});

t.test('portions scale per-serving values', async (t) => {
  t.same(scaleMacros({ calories: 311.9, protein: 25.8, fat: 16.4, carbs: 15.1 }, 1.5), {
    calories: 467.9,
    protein: 38.7,
    fat: 24.6,
    carbs: 22.7,
  });
});

t.test('a serving holds at most the bounds of a model estimate', async (t) => {
  t.ok(plausibleServing({ calories: 3000, protein: 300, fat: 300, carbs: 500 }), 'at the bounds');
  // 20 kg of sunflower oil for one serving.
  t.notOk(plausibleServing({ calories: 179800, protein: 0, fat: 19980, carbs: 0 }));
  t.notOk(plausibleServing({ calories: 2500, protein: 0, fat: 0, carbs: 625 }), 'too much of one macro');
});
