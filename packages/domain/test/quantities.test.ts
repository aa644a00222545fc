import t from 'tap';
import { implausibleQuantity, implausibleRecipeQuantity } from '../src/quantities.ts';

t.test('a purchase holds a plausible quantity for its unit', async (t) => {
  t.equal(implausibleQuantity(800, 'can'), '800 can is more than one purchase holds (at most 24)');
  t.match(implausibleQuantity(600, 'bunch'), /at most 10/);
  t.equal(implausibleQuantity(6, 'can'), null);
  t.equal(implausibleQuantity(2, 'bunch'), null);
  t.equal(implausibleQuantity(800, 'g'), null, '800 g is a normal pack');
  t.equal(implausibleQuantity(1.5, 'kg'), null);
  t.match(implausibleQuantity(120, 'kg'), /at most 25/);
  t.match(implausibleQuantity(0, 'piece'), /more than 0/);
  t.match(implausibleQuantity(Number.NaN, 'piece'), /more than 0/);
  t.match(implausibleQuantity(200, 'sachet'), /at most 30/, 'an unlisted counted unit');
});

t.test('a recipe line uses no more than one purchase holds, mass and volume units by their weight', async (t) => {
  // 100000 kg of sunflower oil passed the model's schema and was stored as 899,000,000 kcal a serving.
  t.equal(implausibleRecipeQuantity(100000, 'kg'), '100000 kg is more than a recipe uses (at most 25 kg)');
  t.match(implausibleRecipeQuantity(30000, 'g'), /at most 25000 g/);
  t.match(implausibleRecipeQuantity(900, 'oz'), /at most 881 oz/, 'ounces by their weight, not as counted');
  t.match(implausibleRecipeQuantity(200, 'cup'), /at most 104 cup/);
  t.match(implausibleRecipeQuantity(100, 'piece'), /at most 60 piece/);
  t.equal(implausibleRecipeQuantity(500, 'mg'), null, '500 mg is a pinch, not 500 counted things');
  t.equal(implausibleRecipeQuantity(40, 'oz'), null);
  t.equal(implausibleRecipeQuantity(3, 'tbsp'), null);
  t.equal(implausibleRecipeQuantity(2.5, 'kg'), null);
  t.match(implausibleRecipeQuantity(0, 'g'), /more than 0/);
});
