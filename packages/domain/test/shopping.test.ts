import t from 'tap';
import { shoppingLines, type ShoppingNeed } from '../src/shopping.ts';
import type { Unit } from '../src/nutrition.ts';

const u = (code: string, kind: Unit['kind'], factor: number | null): Unit => ({ code, kind, factor });
const g = u('g', 'mass', 1);
const kg = u('kg', 'mass', 1000);
const ml = u('ml', 'volume', 1);
const l = u('l', 'volume', 1000);
const tbsp = u('tbsp', 'volume', 15);
const piece = u('piece', 'count', null);
const pack = u('pack', 'count', null);
const plain = { densityGPerMl: null, pieceG: null, unitGrams: {} };

const need = (over: Partial<ShoppingNeed>): ShoppingNeed => ({
  productId: 'p',
  name: 'Flour',
  quantity: 1,
  unit: g,
  productUnit: g,
  measures: plain,
  categoryCode: 'grains_cereals',
  ...over,
});

t.test('500 g in stock, 750 g needed: 250 g to buy', async (t) => {
  const lines = shoppingLines([need({ quantity: 750 })], [{ productId: 'p', quantity: 500, unit: g }]);
  t.same(lines, [{ productId: 'p', name: 'Flour', categoryCode: 'grains_cereals', quantity: 250, unitCode: 'g' }]);
});

t.test('the same product sums across recipes and units', async (t) => {
  const lines = shoppingLines(
    [
      need({ quantity: 0.5, unit: kg }),
      need({ quantity: 300 }),
      need({ quantity: 4, unit: tbsp, measures: { ...plain, densityGPerMl: 0.55 } }),
    ],
    [],
  );
  // 500 + 300 + 4 × 15 ml × 0.55 g/ml = 833 g → 840 g (10 g steps above 100 g)
  t.same(
    lines.map((l) => [l.quantity, l.unitCode]),
    [[840, 'g']],
  );
  const big = shoppingLines([need({ quantity: 1.2, unit: kg }), need({ quantity: 600 })], []);
  t.same(
    big.map((l) => [l.quantity, l.unitCode]),
    [[1.8, 'kg']],
  );
});

t.test('liquids in ml and l; pieces through piece weights', async (t) => {
  const milk = shoppingLines(
    [
      need({ name: 'Milk', productUnit: ml, unit: l, quantity: 0.75 }),
      need({ name: 'Milk', productUnit: ml, unit: ml, quantity: 500 }),
    ],
    [{ productId: 'p', quantity: 250, unit: ml }],
  );
  t.same(
    milk.map((l) => [l.quantity, l.unitCode]),
    [[1, 'l']],
  );
  const eggs = shoppingLines(
    [
      need({ name: 'Egg', productUnit: piece, unit: piece, quantity: 3, measures: { ...plain, pieceG: 55 } }),
      need({ name: 'Egg', productUnit: piece, unit: g, quantity: 110, measures: { ...plain, pieceG: 55 } }),
    ],
    [{ productId: 'p', quantity: 2, unit: piece }],
  );
  t.same(
    eggs.map((l) => [l.quantity, l.unitCode]),
    [[3, 'piece']],
  );
});

// A recipe weighs the food itself (florets, flesh, meat off the bone); a shop sells it whole, of which
// `ediblePortion` is food. Pieces, in a recipe or the pantry, are as bought already.
t.test('grams of food are bought with their inedible share, pieces as they are', async (t) => {
  const broccoli = { ...plain, pieceG: 400, ediblePortion: 0.61 };
  const shown = (needs: ShoppingNeed[], stock: Parameters<typeof shoppingLines>[1] = []) =>
    shoppingLines(needs, stock).map((l) => `${l.quantity} ${l.unitCode}`);
  const florets = need({ name: 'Broccoli', productUnit: piece, unit: g, quantity: 300, measures: broccoli });
  t.same(shown([florets]), ['2 piece'], '300 g of florets: 300 / (400 × 0.61) = 1.2 heads, so 2');
  t.same(shown([florets], [{ productId: 'p', quantity: 1, unit: piece }]), ['1 piece'], 'a head in the pantry: 1 more');
  t.same(
    shown([florets], [{ productId: 'p', quantity: 400, unit: g }]),
    ['1 piece'],
    'the pantry weighs what was bought: 400 g is one head',
  );
  t.same(
    shown([need({ name: 'Broccoli', productUnit: piece, unit: piece, quantity: 2, measures: broccoli })]),
    ['2 piece'],
    'heads asked for are heads bought',
  );
  const pumpkin = { ...plain, pieceG: 3000, ediblePortion: 0.7 };
  t.same(shown([need({ name: 'Pumpkin', quantity: 300, measures: pumpkin })]), ['430 g'], '300 g of flesh: 429 g');
  t.same(shown([need({ name: 'Pumpkin', quantity: 1, unit: kg, measures: pumpkin })]), ['1.45 kg'], '1 kg: 1.43 kg');
  t.same(
    shown([need({ name: 'Pumpkin', unit: piece, quantity: 0.1, measures: pumpkin })]),
    ['300 g'],
    'a tenth of a pumpkin is 300 g as bought',
  );
  const egg = { ...plain, pieceG: 55, unitGrams: { pack: 550 }, ediblePortion: 0.88 };
  t.same(
    shown([need({ name: 'Egg', productUnit: piece, unit: pack, quantity: 0.2, measures: egg })]),
    ['2 piece'],
    'a fifth of a pack of ten is 2 eggs, counted as bought on both sides',
  );
  t.same(
    shown([need({ name: 'Egg', productUnit: piece, unit: g, quantity: 100, measures: { ...egg, pieceG: null } })]),
    ['120 g'],
    'no piece weight to count by: 100 g of egg is bought as 114 g',
  );
});

t.test('stock covering the need leaves the product out; unconvertible needs stay as they are', async (t) => {
  t.same(shoppingLines([need({ quantity: 200 })], [{ productId: 'p', quantity: 1, unit: kg }]), []);
  const packs = shoppingLines([need({ name: 'Yeast', productUnit: g, unit: pack, quantity: 2 })], []);
  t.same(
    packs.map((l) => [l.quantity, l.unitCode]),
    [[2, 'pack']],
  );
  const unmatched = shoppingLines(
    [
      need({ productId: null, name: 'Lemongrass', unit: piece, quantity: 2 }),
      need({ productId: null, name: 'lemongrass', unit: piece, quantity: 1 }),
    ],
    [],
  );
  t.same(
    unmatched.map((l) => [l.name, l.quantity, l.unitCode]),
    [['Lemongrass', 3, 'piece']],
  );
});

t.test('what a shop sells: no fraction of a counted unit, readable grams, no tap water', async (t) => {
  const bunch = u('bunch', 'count', null);
  const leaf = u('leaf', 'count', null);
  const shown = (needs: ShoppingNeed[], options?: { includeTap?: boolean }) =>
    shoppingLines(needs, [], options).map((l) => `${l.name} ${l.quantity} ${l.unitCode}`);
  t.same(shown([need({ name: 'Basil', productUnit: bunch, unit: bunch, quantity: 0.49 })]), ['Basil 1 bunch']);
  t.same(
    shown([need({ name: 'Bay leaf', productUnit: g, unit: leaf, quantity: 0.51 })]),
    ['Bay leaf 1 leaf'],
    'a counted unit the product cannot weigh: still whole',
  );
  t.same(
    shown([
      need({
        name: 'Basil',
        productUnit: bunch,
        unit: g,
        quantity: 45,
        measures: { ...plain, unitGrams: { bunch: 30 } },
      }),
    ]),
    ['Basil 2 bunch'],
    'grams of a product sold by the bunch: whole bunches',
  );
  t.same(shown([need({ name: 'Allspice', quantity: 0.2 })]), ['Allspice 1 g']);
  t.same(shown([need({ name: 'Garlic', productUnit: piece, unit: piece, quantity: 2.3 })]), ['Garlic 3 piece']);
  t.same(shown([need({ name: 'Rice', quantity: 1234 })]), ['Rice 1.25 kg']);
  t.same(shown([need({ name: 'Cream', productUnit: ml, unit: ml, quantity: 37 })]), ['Cream 40 ml']);
  const water = need({ name: 'Water', productCode: 'water', productUnit: ml, unit: l, quantity: 1.26 });
  t.same(shown([water]), [], 'tap water is not shopping');
  t.same(shown([water], { includeTap: true }), ['Water 1.3 l'], 'unless asked for');
});
