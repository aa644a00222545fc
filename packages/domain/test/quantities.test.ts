import t from 'tap';
import { implausibleQuantity } from '../src/quantities.ts';

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
