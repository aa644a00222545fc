import t from 'tap';
import { as, buildTestApp, login } from './helpers.ts';

/** Fibre, sugars, saturated fat and salt from the product through recipes, the diary and menus to every total. */
t.test('label nutrients beyond the macros', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const a = as(app, await login(app, 'nutrients-user'));
  const [oats] = await sql`SELECT id FROM products WHERE code = 'oat_flakes'`;
  const [borscht] = await sql`
    SELECT d.id AS dish_id, r.id AS recipe_id FROM dishes d JOIN recipes r ON r.dish_id = d.id AND r.is_default
    WHERE d.code = 'borscht'`;

  t.test('products state them per 100 g', async (t) => {
    const product = (await a({ method: 'GET', url: `/products/${oats!.id}` })).json();
    t.match(product, { fiber_per_100g: 10.1, sugars_per_100g: 1, saturated_fat_per_100g: 1.1, salt_per_100g: 0.01 });
  });

  t.test('recipes per serving, from their ingredients', async (t) => {
    const recipe = (await a({ method: 'GET', url: `/recipes/${borscht!.recipe_id}` })).json();
    for (const key of ['fiber_per_serving', 'sugars_per_serving', 'saturated_fat_per_serving', 'salt_per_serving'])
      t.type(recipe[key], 'number', key);
    // Borscht is beetroot, cabbage, potato, carrot: a few grams of fibre and of sugars, salt from the salt added.
    t.ok(recipe.fiber_per_serving > 2 && recipe.fiber_per_serving < 15, `fibre ${recipe.fiber_per_serving} g`);
    t.ok(recipe.sugars_per_serving > 3 && recipe.sugars_per_serving < 30, `sugars ${recipe.sugars_per_serving} g`);
    t.ok(recipe.salt_per_serving > 0.3 && recipe.salt_per_serving < 5, `salt ${recipe.salt_per_serving} g`);
    const dish = (await a({ method: 'GET', url: `/dishes/${borscht!.dish_id}` })).json();
    t.equal(dish.recipes[0].fiber_per_serving, recipe.fiber_per_serving, 'the dish lists the same');
  });

  t.test('diary entries and the day, null where unknown, the known values summed', async (t) => {
    const recipe = (await a({ method: 'GET', url: `/recipes/${borscht!.recipe_id}` })).json();
    const post = (payload: object) =>
      a({ method: 'POST', url: '/diary', payload: { date: '2026-11-20', meal_type: 'lunch', ...payload } });
    const soup = (await post({ dish_id: borscht!.dish_id, portions: 2 })).json();
    t.equal(soup.fiber_g, Math.round(recipe.fiber_per_serving * 2 * 10) / 10);
    t.equal(soup.salt_g, Math.round(recipe.salt_per_serving * 2 * 100) / 100);
    const porridge = (await post({ product_id: oats!.id, portion_g: 50 })).json();
    t.match(porridge, { fiber_g: 5.1, sugars_g: 0.5, saturated_fat_g: 0.6, salt_g: 0.01 });
    // A product of unknown composition (as many imported ones are) counts nothing and makes nothing up.
    const [mystery] = await sql`
      INSERT INTO products (canonical_name, calories_per_100g, protein_per_100g, fat_per_100g, carbs_per_100g)
      VALUES ('Mystery bar', 400, 5, 20, 50) RETURNING id`;
    const bar = (await post({ product_id: mystery!.id, portion_g: 40 })).json();
    t.match(bar, { calories: 160, fiber_g: null, sugars_g: null, saturated_fat_g: null, salt_g: null });
    const day = (await a({ method: 'GET', url: '/diary?date=2026-11-20' })).json();
    t.equal(day.totals.fiber_g, Math.round((soup.fiber_g + porridge.fiber_g) * 10) / 10);
    t.equal(day.totals.salt_g, Math.round((soup.salt_g + porridge.salt_g) * 100) / 100);
    t.equal(day.entries.find((e: { id: string }) => e.id === bar.id).sugars_g, null);
    t.match((await a({ method: 'GET', url: '/diary?date=2026-11-21' })).json().totals, { fiber_g: 0, salt_g: 0 });
    await a({ method: 'DELETE', url: `/diary/${soup.id}` });
    await a({ method: 'DELETE', url: `/diary/${porridge.id}` });
    t.match(
      (await a({ method: 'GET', url: '/diary?date=2026-11-20' })).json().totals,
      { calories: 160, fiber_g: null, salt_g: null },
      'a day of nothing but unknowns says unknown, not 0',
    );
  });

  t.test('what is eaten: edible share of pieces, strained ingredients, boneless cuts', async (t) => {
    const perServing = async (code: string) =>
      (
        await sql`SELECT r.calories_per_serving::float8 AS kcal, r.serving_g::float8 AS grams FROM recipes r
                  JOIN dishes d ON d.id = r.dish_id AND r.is_default WHERE d.code = ${code}`
      )[0]!;
    // A glass of home-made kvass is about what a glass of bought kvass is (27 kcal per 100 ml), not the bread and
    // sugar that went into the jar.
    const kvass = await perServing('homemade_kvass');
    const perHundred = (kvass.kcal / kvass.grams) * 100;
    t.ok(perHundred > 20 && perHundred < 34, `kvass: ${perHundred.toFixed(1)} kcal per 100 g`);
    // A latte is its milk: the coffee grounds stay in the machine.
    const latte = await perServing('caffe_latte');
    t.ok(latte.kcal < 160, `latte: ${latte.kcal} kcal`);
    // A French omelette of three eggs: the shells are not eaten (3 × 55 g × 0.88 of egg).
    const [omelette] = await sql`
      SELECT i.quantity::float8 AS eggs, p.edible_portion::float8 AS edible FROM recipe_ingredients i
      JOIN recipes r ON r.id = i.recipe_id JOIN dishes d ON d.id = r.dish_id JOIN products p ON p.id = i.product_id
      WHERE d.code = 'french_omelette' AND p.code = 'egg'`;
    t.match(omelette, { eggs: 3, edible: 0.88 });
    const egg = (
      await a({ method: 'GET', url: `/products/${(await sql`SELECT id FROM products WHERE code = 'egg'`)[0]!.id}` })
    ).json();
    t.equal(egg.edible_portion, 0.88);
    const recipes = await sql`
      SELECT d.code FROM recipe_ingredients i JOIN recipes r ON r.id = i.recipe_id JOIN dishes d ON d.id = r.dish_id
      JOIN products p ON p.id = i.product_id
      WHERE p.code = 'chicken_thigh_fillet' AND r.source = 'catalog' ORDER BY d.code`;
    // The recipes that call for boneless, skinless thighs (others may join them).
    for (const code of ['butter_chicken', 'chicken_shawarma', 'thai_green_curry_chicken'])
      t.ok(
        recipes.some((r) => r.code === code),
        `${code}: boneless, skinless thighs are the boneless, skinless product`,
      );
  });

  t.test('menu items and their day and week totals', async (t) => {
    const recipe = (await a({ method: 'GET', url: `/recipes/${borscht!.recipe_id}` })).json();
    const put = await a({
      method: 'PUT',
      url: '/menu',
      payload: {
        week_start: '2026-11-23',
        items: [
          { date: '2026-11-23', meal_type: 'lunch', dish_id: borscht!.dish_id, servings: 1.5 },
          { date: '2026-11-24', meal_type: 'lunch', dish_id: borscht!.dish_id, servings: 1 },
        ],
      },
    });
    t.equal(put.statusCode, 200);
    const plan = (await a({ method: 'GET', url: '/menu?week_start=2026-11-23' })).json();
    const monday = plan.days[0];
    t.equal(monday.items[0].fiber_g, Math.round(recipe.fiber_per_serving * 1.5 * 10) / 10);
    t.equal(monday.totals.fiber_g, monday.items[0].fiber_g);
    t.equal(plan.totals.fiber_g, Math.round((monday.items[0].fiber_g + plan.days[1].items[0].fiber_g) * 10) / 10);
    t.equal(plan.days[2].totals.salt_g, 0, 'an empty day');
  });
});
