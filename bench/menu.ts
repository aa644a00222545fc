import { createDatabase } from '@nutrition/db';
import { generatedRecipeRepository } from '@nutrition/db/repositories';
import { json, login, maxRow, percentile, root, startProcess, type Row } from './lib.ts';

/**
 * A real model names a week menu's ingredients (the offline model reuses catalog recipes, whose ingredients carry
 * their products): 150 names, half of them exact English product names and half one letter short, matched to
 * products as saving the menu does, with the imported catalog in the database.
 */
async function ingredientMatching(databaseUrl: string, runs: number): Promise<number> {
  const { sql, close } = createDatabase(databaseUrl, { max: 1 });
  try {
    const names = (
      await sql<{ name: string }[]>`
      SELECT DISTINCT a.name FROM recipe_ingredients ri
      JOIN product_aliases a ON a.product_id = ri.product_id AND a.language_code = 'en' AND a.is_primary
      ORDER BY a.name LIMIT 75`
    ).map((r) => r.name);
    const week = [...names, ...names.map((n) => n.slice(0, -1))];
    const repo = generatedRecipeRepository(sql);
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      await repo.matchProducts(week);
      times.push(performance.now() - t);
    }
    return percentile(times, 50);
  } finally {
    await close();
  }
}

/** Week menu and shopping-list generation on the offline model; ingredient matching as a real model needs it. */
export async function menuBench(databaseUrl: string, runs: number): Promise<Row[]> {
  const api = await startProcess(
    `${root}apps/api/src/main.ts`,
    { DATABASE_URL: databaseUrl, RATE_LIMIT_MODEL_PER_MINUTE: '100000000' },
    '/health',
  );
  try {
    const token = await login(api.url, 'bench-menu');
    await json(`${api.url}/profile`, {
      method: 'PUT',
      token,
      body: JSON.stringify({
        sex: 'female',
        weight_kg: 65,
        height_cm: 168,
        date_of_birth: '1990-01-01',
        activity_level: 'moderate',
        goal: 'maintain',
      }),
    });
    const menu: number[] = [];
    const shopping: number[] = [];
    for (let i = 0; i < runs; i++) {
      const week = new Date(Date.UTC(2027, 0, 4 + 7 * i)).toISOString().slice(0, 10);
      let t = performance.now();
      const generated = await json(`${api.url}/ai/generate-menu`, {
        method: 'POST',
        token,
        body: JSON.stringify({ week_start: week }),
      });
      menu.push(performance.now() - t);
      if (generated.status !== 200) throw new Error(`generate-menu answered ${generated.status}`);
      t = performance.now();
      await json(`${api.url}/shopping-list/generate`, {
        method: 'POST',
        token,
        body: JSON.stringify({ week_start: week }),
      });
      shopping.push(performance.now() - t);
    }
    return [
      maxRow('menu', 'week menu generation (offline model), median', percentile(menu, 50), 'ms', 200),
      maxRow('menu', 'shopping list generation, median', percentile(shopping, 50), 'ms', 200),
      maxRow(
        'menu',
        "a week menu's 150 ingredient names matched to products, median",
        await ingredientMatching(databaseUrl, runs),
        'ms',
        200,
      ),
    ];
  } finally {
    await api.stop();
  }
}
