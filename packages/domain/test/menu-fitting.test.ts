import t from 'tap';
import { dayWithinTarget, fitDayServings, mealsTarget } from '../src/menu-fitting.ts';

t.test('a day far from the target is scaled into ±10 %', async (t) => {
  const meals = [
    { caloriesPerServing: 350, servings: 1 },
    { caloriesPerServing: 600, servings: 1 },
    { caloriesPerServing: 550, servings: 1 },
  ]; // 1500 kcal
  const servings = fitDayServings(meals, 2000);
  // factor 4/3: 1.333 → 1.35 each: 1.35 × 1500 = 2025
  t.same(servings, [1.35, 1.35, 1.35]);
  t.ok(
    dayWithinTarget(
      meals.map((m, i) => ({ ...m, servings: servings[i]! })),
      2000,
    ),
  );
  const down = fitDayServings(meals, 1200);
  t.ok(
    dayWithinTarget(
      meals.map((m, i) => ({ ...m, servings: down[i]! })),
      1200,
    ),
    `${down}`,
  );
});

t.test('rounding that leaves the band is corrected on the biggest meal', async (t) => {
  // A single meal of 2000 kcal a serving and a target of 1250: 0.625 → 0.6 or 0.65 serving, both inside;
  // with two tiny meals the step still lands inside the band.
  const meals = [
    { caloriesPerServing: 2000, servings: 1 },
    { caloriesPerServing: 30, servings: 1 },
  ];
  const servings = fitDayServings(meals, 1250);
  t.ok(
    dayWithinTarget(
      meals.map((m, i) => ({ ...m, servings: servings[i]! })),
      1250,
    ),
    `${servings}`,
  );
});

t.test('nothing to fit without a target or calories', async (t) => {
  t.same(fitDayServings([{ caloriesPerServing: 500, servings: 2 }], null), [2]);
  t.same(fitDayServings([{ caloriesPerServing: 0, servings: 1 }], 2000), [1]);
});

t.test('any day of random meals lands within the band', async (t) => {
  let seed = 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  let reachable = 0;
  for (let day = 0; day < 200; day++) {
    const meals = [1, 2, 3].map(() => ({ caloriesPerServing: 150 + random() * 700, servings: 1 }));
    const target = 1200 + Math.round(random() * 2400);
    const servings = fitDayServings(meals, target);
    if (servings.some((s) => s < 0.5 || s > 2)) t.fail(`day ${day}: servings ${servings} outside 0.5-2`);
    const base = meals.reduce((sum, m) => sum + m.caloriesPerServing, 0);
    // Within the band whenever 0.6-1.8 servings of every meal could reach it (room for the 0.05 steps).
    if (target < base * 0.6 || target > base * 1.8) continue;
    reachable++;
    if (
      !dayWithinTarget(
        meals.map((m, i) => ({ ...m, servings: servings[i]! })),
        target,
      )
    )
      t.fail(`day ${day} out of band`);
  }
  t.ok(reachable > 100, `${reachable} reachable random days within ±10 %, every day within 0.5-2 servings`);
});

t.test('servings stay within 0.5-2 however far the target', async (t) => {
  t.same(fitDayServings([{ caloriesPerServing: 780, servings: 1 }], 1836 * 2), [2], 'a huge target: two servings');
  t.same(fitDayServings([{ caloriesPerServing: 900, servings: 1 }], 100), [0.5], 'a tiny one: half a serving');
  // Nothing left of the day (its kept meals reached the target): as small as the bounds allow, not left at 1.
  t.same(
    fitDayServings(
      [
        { caloriesPerServing: 420, servings: 1 },
        { caloriesPerServing: 150, servings: 1 },
      ],
      0,
    ),
    [0.5, 0.5],
    'no calories left: half a serving each',
  );
});

t.test("requested meals get their meal types' share of the day", async (t) => {
  t.equal(mealsTarget(2000, ['snack', 'dinner']), 700);
  t.equal(mealsTarget(2000, ['lunch']), 700);
  t.equal(mealsTarget(2000, ['breakfast', 'lunch', 'dinner', 'snack', 'afternoon_snack', 'second_breakfast']), 2000);
});
