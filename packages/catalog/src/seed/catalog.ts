import { readdir } from 'node:fs/promises';
import { normalizeBarcode, UNKNOWN_NUTRIENTS, type Unit } from '@nutrition/domain';
import { computePerServing, writeRecipeBody } from '@nutrition/db/repositories';
import type { Queryable, Sql } from '@nutrition/db';
import { readJson, seedDataDir, type Translations } from './reference.ts';
import { refreshSearchWords } from '../search-words.ts';

export interface SeedProduct {
  code: string;
  category: string;
  names: Translations;
  aliases?: Record<string, string[]>;
  brand?: string | null;
  kcal: number;
  protein: number;
  fat: number;
  carbs: number;
  /** Per 100 g, from reference tables (USDA FoodData Central; labels for packaged goods). */
  fiber: number;
  sugars: number;
  saturated_fat: number;
  salt: number;
  default_unit: string;
  storage_days: number;
  density: number | null;
  piece_g: number | null;
  /** The share of a piece as bought that is eaten; 1 when absent. */
  edible?: number;
  unit_g?: Record<string, number>;
  barcode: string | null;
}

export interface SeedDish {
  code: string;
  category: string;
  cuisine: string;
  tags: string[];
  names: Translations;
  descriptions: Translations;
  recipe: {
    servings: number;
    prep_minutes: number | null;
    cook_minutes: number | null;
    /** `yield`: the share that ends up in the dish (strained out or discarded otherwise); 1 when absent. */
    ingredients: { product: string; quantity: number; unit: string; note?: Translations; yield?: number }[];
    steps: ({ duration_minutes: number | null } & Translations)[];
    notes: Translations | null;
  };
}

/** The JSON files of a folder of seed-data/, by name. */
async function jsonFiles(folder: string): Promise<string[]> {
  return (await readdir(new URL(folder, seedDataDir)).catch(() => [] as string[]))
    .filter((f) => f.endsWith('.json'))
    .sort();
}

async function readFolder<T>(folder: string): Promise<T[]> {
  const lists = await Promise.all((await jsonFiles(folder)).map((f) => readJson<T[]>(`${folder}${f}`)));
  return lists.flat();
}

/** Recipe texts of one language for the dishes of one seed file: `seed-data/recipe-text/<lang>/<file>.json`. */
interface RecipeText {
  steps: string[];
  notes?: string;
  ingredient_notes?: Record<string, string>;
}

/**
 * Adds the recipe texts written per language (steps, notes, ingredient notes) to the dishes of each seed file. Each
 * language is its own file, so translators work side by side; a text that does not fit its dish (another number of
 * steps, a note the dish does not have) stops the seed.
 */
async function withRecipeTexts(file: string, dishes: SeedDish[]): Promise<SeedDish[]> {
  const languages = await readdir(new URL('recipe-text/', seedDataDir)).catch(() => [] as string[]);
  for (const language of languages.sort()) {
    const texts = await readJson<Record<string, RecipeText>>(`recipe-text/${language}/${file}`).catch(() => null);
    if (!texts) continue;
    for (const dish of dishes) {
      const text = texts[dish.code];
      if (!text) continue;
      const where = `recipe-text/${language}/${file}: ${dish.code}`;
      if (text.steps.length !== dish.recipe.steps.length)
        throw new Error(`${where}: ${text.steps.length} steps for ${dish.recipe.steps.length}`);
      text.steps.forEach((step, i) => {
        dish.recipe.steps[i]![language] = step;
      });
      if (text.notes !== undefined) {
        if (!dish.recipe.notes) throw new Error(`${where}: notes for a recipe without them`);
        dish.recipe.notes[language] = text.notes;
      }
      for (const [index, note] of Object.entries(text.ingredient_notes ?? {})) {
        const ingredient = dish.recipe.ingredients[Number(index)];
        if (!ingredient?.note) throw new Error(`${where}: a note for ingredient ${index}, which has none`);
        ingredient.note[language] = note;
      }
    }
  }
  return dishes;
}

/** Every dish of seed-data/dishes/, with the recipe texts of seed-data/recipe-text/ added. */
export async function readDishes(): Promise<SeedDish[]> {
  const files = await jsonFiles('dishes/');
  const lists = await Promise.all(
    files.map(async (f) => withRecipeTexts(f, await readJson<SeedDish[]>(`dishes/${f}`))),
  );
  return lists.flat();
}

const chunks = <T>(items: T[], size: number) =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, i * size + size));

/** Products by code, with their names in every language as aliases (the primary alias is the display name). */
async function seedProducts(tx: Queryable, products: SeedProduct[]) {
  const rows = products.map((p) => ({
    code: p.code,
    canonical_name: p.names.en ?? p.code,
    barcode: p.barcode ? normalizeBarcode(p.barcode) : null,
    brand: p.brand ?? null,
    category_code: p.category,
    calories_per_100g: p.kcal,
    protein_per_100g: p.protein,
    fat_per_100g: p.fat,
    carbs_per_100g: p.carbs,
    fiber_per_100g: p.fiber ?? null,
    sugars_per_100g: p.sugars ?? null,
    saturated_fat_per_100g: p.saturated_fat ?? null,
    salt_per_100g: p.salt ?? null,
    default_unit_code: p.default_unit,
    storage_days: p.storage_days,
    density_g_per_ml: p.density,
    piece_g: p.piece_g,
    edible_portion: p.edible ?? 1,
    unit_grams: JSON.stringify(p.unit_g ?? {}),
  }));
  const ids = new Map<string, string>();
  for (const chunk of chunks(rows, 500)) {
    const saved = await tx<{ id: string; code: string }[]>`
      INSERT INTO products ${tx(chunk.map((r) => ({ ...r, source: 'seed' })))}
      ON CONFLICT (code) WHERE code IS NOT NULL DO UPDATE SET canonical_name = excluded.canonical_name,
        barcode = excluded.barcode, brand = excluded.brand, category_code = excluded.category_code,
        calories_per_100g = excluded.calories_per_100g, protein_per_100g = excluded.protein_per_100g,
        fat_per_100g = excluded.fat_per_100g, carbs_per_100g = excluded.carbs_per_100g,
        fiber_per_100g = excluded.fiber_per_100g, sugars_per_100g = excluded.sugars_per_100g,
        saturated_fat_per_100g = excluded.saturated_fat_per_100g, salt_per_100g = excluded.salt_per_100g,
        default_unit_code = excluded.default_unit_code, storage_days = excluded.storage_days,
        density_g_per_ml = excluded.density_g_per_ml, piece_g = excluded.piece_g,
        edible_portion = excluded.edible_portion, unit_grams = excluded.unit_grams::jsonb
      RETURNING id, code`;
    for (const s of saved) ids.set(s.code, s.id);
  }
  // Aliases are derived data: rewritten whole, so a renamed product loses its old names.
  await tx`DELETE FROM product_aliases WHERE product_id = ANY(${[...ids.values()]}::uuid[])`;
  const aliases = products.flatMap((p) => {
    const productId = ids.get(p.code)!;
    const seen = new Set<string>();
    const out: { product_id: string; language_code: string; name: string; is_primary: boolean }[] = [];
    const add = (language_code: string, name: string, is_primary: boolean) => {
      const key = `${language_code}\u0000${name.trim().toLowerCase()}`;
      if (!name.trim() || seen.has(key)) return;
      seen.add(key);
      out.push({ product_id: productId, language_code, name: name.trim(), is_primary });
    };
    for (const [lang, name] of Object.entries(p.names)) add(lang, name, true);
    for (const [lang, names] of Object.entries(p.aliases ?? {})) for (const name of names) add(lang, name, false);
    return out;
  });
  for (const chunk of chunks(aliases, 2000)) await tx`INSERT INTO product_aliases ${tx(chunk)}`;
  await refreshSearchWords(tx, { productIds: [...ids.values()] });
  return ids;
}

async function seedDishes(tx: Queryable, dishes: SeedDish[], productIds: Map<string, string>) {
  const units = new Map((await tx<Unit[]>`SELECT code, kind, factor FROM units`).map((u) => [u.code, u] as const));
  for (const dish of dishes) {
    const [saved] = await tx<{ id: string }[]>`
      INSERT INTO dishes (code, category_code, cuisine_code, source)
      VALUES (${dish.code}, ${dish.category}, ${dish.cuisine}, 'catalog')
      ON CONFLICT (code) DO UPDATE SET category_code = excluded.category_code, cuisine_code = excluded.cuisine_code
      RETURNING id`;
    const dishId = saved!.id;
    const translations = Object.keys(dish.names).map((language_code) => ({
      dish_id: dishId,
      language_code,
      name: dish.names[language_code]!,
      description: dish.descriptions[language_code] ?? null,
    }));
    await tx`
      INSERT INTO dish_translations ${tx(translations)}
      ON CONFLICT (dish_id, language_code) DO UPDATE SET name = excluded.name, description = excluded.description`;
    await tx`DELETE FROM dish_tags WHERE dish_id = ${dishId}`;
    if (dish.tags.length > 0)
      await tx`INSERT INTO dish_tags ${tx(dish.tags.map((tag_code) => ({ dish_id: dishId, tag_code })))}`;

    const { recipe } = dish;
    const ingredients = recipe.ingredients.map((ing, i) => {
      const productId = productIds.get(ing.product);
      const unit = units.get(ing.unit);
      if (!productId || !unit) throw new Error(`dish ${dish.code}: unknown product ${ing.product} or unit ${ing.unit}`);
      return { ...ing, productId, unit, position: i + 1 };
    });
    const perServing = (await computePerServing(
      tx,
      ingredients.map((ing) => ({
        productId: ing.productId,
        name: null,
        quantity: ing.quantity,
        unitCode: ing.unit.code,
        yieldFactor: ing.yield ?? 1,
      })),
      recipe.servings,
    )) ?? { calories: 0, protein: 0, fat: 0, carbs: 0, servingG: null, nutrients: UNKNOWN_NUTRIENTS };
    const values = {
      servings: recipe.servings,
      prep_minutes: recipe.prep_minutes,
      cook_minutes: recipe.cook_minutes,
      calories_per_serving: perServing.calories,
      protein_per_serving: perServing.protein,
      fat_per_serving: perServing.fat,
      carbs_per_serving: perServing.carbs,
      fiber_per_serving: perServing.nutrients.fiber,
      sugars_per_serving: perServing.nutrients.sugars,
      saturated_fat_per_serving: perServing.nutrients.saturated_fat,
      salt_per_serving: perServing.nutrients.salt,
      serving_g: perServing.servingG,
    };
    // The catalog recipe keeps its id across re-seeding: diaries, menus and bookmarks point at it.
    const [existing] = await tx<{ id: string }[]>`
      SELECT id FROM recipes WHERE dish_id = ${dishId} AND is_default AND source = 'catalog'`;
    const [row] = existing
      ? await tx<{ id: string }[]>`UPDATE recipes SET ${tx(values)} WHERE id = ${existing.id} RETURNING id`
      : await tx<{ id: string }[]>`
          INSERT INTO recipes ${tx({ ...values, dish_id: dishId, is_default: true, source: 'catalog' })} RETURNING id`;
    const recipeId = row!.id;

    await writeRecipeBody(
      tx,
      recipeId,
      ingredients.map((ing) => ({
        productId: ing.productId,
        name: null,
        quantity: ing.quantity,
        unitCode: ing.unit.code,
        yieldFactor: ing.yield ?? 1,
        note: ing.note ?? null,
      })),
      recipe.steps.map(({ duration_minutes, ...text }) => ({
        text: text as Record<string, string>,
        durationMinutes: duration_minutes ?? null,
      })),
    );
    if (recipe.notes) {
      const notes = Object.entries(recipe.notes).map(([language_code, notes]) => ({
        recipe_id: recipeId,
        language_code,
        notes,
      }));
      await tx`
        INSERT INTO recipe_translations ${tx(notes)}
        ON CONFLICT (recipe_id, language_code) DO UPDATE SET notes = excluded.notes`;
    }
  }
}

/** Seeds the catalog from seed-data/products/*.json and seed-data/dishes/*.json in one transaction. Idempotent. */
export async function seedCatalog(sql: Sql): Promise<{ products: number; dishes: number }> {
  const products = await readFolder<SeedProduct>('products/');
  const codes = new Set<string>();
  for (const p of products) {
    if (codes.has(p.code)) throw new Error(`seed data: product code ${p.code} appears twice`);
    codes.add(p.code);
  }
  const dishes = await readDishes();
  await sql.begin(async (tx) => {
    const ids = await seedProducts(tx, products);
    await seedDishes(tx, dishes, ids);
  });
  return { products: products.length, dishes: dishes.length };
}
