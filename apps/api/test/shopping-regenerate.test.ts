import t, { type Test } from 'tap';
import { addDays, todayUtc, weekStart } from '@nutrition/domain';
import { as, buildTestApp, login } from './helpers.ts';

interface Item {
  id: string;
  product_id: string | null;
  name: string;
  quantity: number | null;
  unit_code: string;
  checked: boolean;
}
const itemsOf = (list: { groups: { items: Item[] }[] }) => list.groups.flatMap((g) => g.items);
const keyOf = (i: Item) => i.product_id ?? i.name.toLowerCase();

t.test('regenerating a shopping list keeps the ids (and ticks) of the lines that remain', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const alice = as(app, await login(app, 'alice'));
  const bob = as(app, await login(app, 'bob'));
  const week = addDays(weekStart(todayUtc()), 7);
  const recipes = await sql<{ id: string }[]>`
    SELECT r.id FROM recipes r JOIN dishes d ON d.id = r.dish_id
    WHERE d.code IN ('borscht', 'shakshuka') AND r.is_default ORDER BY d.code`;
  t.equal(recipes.length, 2);
  const [borscht, shakshuka] = recipes.map((r) => r.id);
  const plan = (user: typeof alice, ids: string[], servings = 2) =>
    user({
      method: 'PUT',
      url: '/menu',
      payload: {
        week_start: week,
        items: ids.map((id, day) => ({ date: addDays(week, day), meal_type: 'lunch', recipe_id: id, servings })),
      },
    });
  const generate = async (user: typeof alice) => {
    const res = await user({ method: 'POST', url: '/shopping-list/generate', payload: { week_start: week } });
    t.equal(res.statusCode, 200, res.body);
    return itemsOf(res.json());
  };

  await plan(bob, [borscht!]);
  const bobs = await generate(bob);
  await plan(alice, [borscht!]);
  const first = await generate(alice);
  t.ok(first.length > 3, 'a list to work with');
  const again = await generate(alice);
  t.same(again.map((i) => i.id).sort(), first.map((i) => i.id).sort(), 'an unchanged menu: the same ids');

  const ticked = first[0]!;
  await alice({ method: 'PATCH', url: `/shopping-list/items/${ticked.id}`, payload: { checked: true } });
  await plan(alice, [borscht!, shakshuka!]);
  const both = await generate(alice);
  const byKey = new Map(both.map((i) => [keyOf(i), i]));
  for (const item of first) t.equal(byKey.get(keyOf(item))?.id, item.id, `${item.name}: same id with shakshuka added`);
  t.equal(byKey.get(keyOf(ticked))?.checked, true, 'a ticked line stays ticked');
  const added = both.filter((i) => !first.some((f) => f.id === i.id));
  t.ok(added.length > 0, 'the shakshuka ingredients are new lines');

  await plan(alice, [shakshuka!]);
  const onlyShakshuka = await generate(alice);
  const bothIds = new Set(both.map((i) => i.id));
  t.ok(
    onlyShakshuka.every((i) => bothIds.has(i.id)),
    'the lines still needed keep their ids',
  );
  const borschtOnly = first.filter((f) => !onlyShakshuka.some((i) => keyOf(i) === keyOf(f)));
  t.ok(borschtOnly.length > 0, 'lines only borscht needed are gone');

  // Double taps: parallel regenerations take turns; no line twice, no error.
  await plan(alice, [borscht!, shakshuka!], 3);
  const parallel = await Promise.all(
    Array.from({ length: 5 }, () =>
      alice({ method: 'POST', url: '/shopping-list/generate', payload: { week_start: week } }),
    ),
  );
  t.same(
    parallel.map((r) => r.statusCode),
    [200, 200, 200, 200, 200],
  );
  const final = itemsOf(parallel.at(-1)!.json());
  t.equal(new Set(final.map(keyOf)).size, final.length, 'each ingredient once');
  for (const item of onlyShakshuka)
    t.equal(final.find((i) => keyOf(i) === keyOf(item))?.id, item.id, `${item.name}: same id after more servings`);

  const bobsNow = itemsOf((await bob({ method: 'GET', url: `/shopping-list?week_start=${week}` })).json());
  t.same(
    bobsNow.map((i) => [i.id, i.quantity]),
    bobs.map((i) => [i.id, i.quantity]),
    "another user's list is untouched",
  );
});

/**
 * A user's own recipe (its ingredients for the test to add) on the breakfast of this week's menu, and the week's list
 * generated from it.
 */
async function ownRecipeOnMenu(t: Test, subject: string) {
  const { app, sql } = await buildTestApp(t);
  const session = await login(app, subject);
  const a = as(app, session);
  const week = weekStart(todayUtc());
  const [dish] = await sql`INSERT INTO dishes (source, created_by) VALUES ('user', ${session.user.id}) RETURNING id`;
  await sql`INSERT INTO dish_translations (dish_id, language_code, name) VALUES (${dish!.id}, 'en', ${subject})`;
  const [recipe] = await sql<{ id: string }[]>`
    INSERT INTO recipes (dish_id, is_default, source, servings, calories_per_serving, created_by)
    VALUES (${dish!.id}, true, 'user', 1, 500, ${session.user.id}) RETURNING id`;
  const put = await a({
    method: 'PUT',
    url: '/menu',
    payload: { week_start: week, items: [{ date: week, meal_type: 'breakfast', recipe_id: recipe!.id, servings: 1 }] },
  });
  t.equal(put.statusCode, 200);
  const generate = async () => {
    const res = await a({ method: 'POST', url: '/shopping-list/generate', payload: { week_start: week } });
    t.equal(res.statusCode, 200);
    return itemsOf(res.json());
  };
  return { a, sql, week, recipeId: recipe!.id, generate };
}

t.test('a product or name on two lines (units that do not convert): regenerated, the same lines and ids', async (t) => {
  const { a, sql, week, recipeId, generate } = await ownRecipeOnMenu(t, 'two-units');
  const [egg] = await sql`SELECT id FROM products WHERE code = 'egg'`;
  await sql`
    INSERT INTO recipe_ingredients (recipe_id, position, product_id, name, quantity, unit_code) VALUES
      (${recipeId}, 1, ${egg!.id}, NULL, 2, 'piece'), (${recipeId}, 2, ${egg!.id}, NULL, 1, 'pack'),
      (${recipeId}, 3, NULL, 'Magic dust', 1, 'tsp'), (${recipeId}, 4, NULL, 'Magic dust', 1, 'pinch')`;
  const first = await generate();
  t.equal(first.filter((i) => i.name === 'Magic dust').length, 2, 'a name in two units: two lines');
  for (let i = 0; i < 2; i++) {
    // Each regeneration added one more copy of such a line, kept beside the old one.
    const again = await generate();
    t.same(again.map((i) => i.id).sort(), first.map((i) => i.id).sort(), 'the same lines, with their ids');
  }
  const read = itemsOf((await a({ method: 'GET', url: `/shopping-list?week_start=${week}` })).json());
  t.equal(read.length, first.length, 'as read back');
});

t.test('a line keeps its id and tick when its name gains a line in another unit, listed before it', async (t) => {
  const { a, sql, recipeId, generate } = await ownRecipeOnMenu(t, 'gains-a-unit');
  const needs = async (rows: [number, number, string][]) => {
    for (const [position, quantity, unit] of rows)
      await sql`INSERT INTO recipe_ingredients (recipe_id, position, product_id, name, quantity, unit_code)
                VALUES (${recipeId}, ${position}, NULL, 'Magic dust', ${quantity}, ${unit})`;
  };
  const dust = async () => (await generate()).filter((i) => i.name === 'Magic dust');
  await needs([[2, 2, 'piece']]);
  const [piece] = await dust();
  t.equal(
    (await a({ method: 'PATCH', url: `/shopping-list/items/${piece!.id}`, payload: { checked: true } })).statusCode,
    200,
  );
  await sql`DELETE FROM recipe_ingredients WHERE recipe_id = ${recipeId}`;
  await needs([
    [1, 1, 'can'],
    [2, 2, 'piece'],
  ]);
  const again = await dust();
  const kept = again.find((i) => i.unit_code === 'piece');
  t.equal(kept?.id, piece!.id, 'the piece line keeps its id (the can line, listed first, had taken it)');
  t.equal(kept?.checked, true, 'and its tick');
  t.equal(again.find((i) => i.unit_code === 'can')?.checked, false, 'the new can line is not ticked');
});
