import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { once } from 'node:events';
import { gtinCheckDigit } from '@nutrition/domain';

/**
 * Writes a synthetic Open Food Facts CSV export of any size (the real 210-column header, tab-separated, unquoted) for
 * benchmarks: `node generate-dump.ts <rows> <out.csv> [seed]`. Names mix words of several languages, so search sees
 * realistic word frequencies; every barcode is a valid EAN-13 outside the seed data's 2xx range.
 */
const WORDS = [
  'milk',
  'chocolate',
  'organic',
  'yogurt',
  'cheese',
  'bread',
  'juice',
  'orange',
  'apple',
  'tea',
  'green',
  'coffee',
  'butter',
  'cookies',
  'pasta',
  'tomato',
  'sauce',
  'rice',
  'chicken',
  'soup',
  'cereal',
  'honey',
  'oat',
  'almond',
  'молоко',
  'сыр',
  'хлеб',
  'сок',
  'гречка',
  'шоколад',
  'печенье',
  'кефир',
  'творог',
  'йогурт',
  'чай',
  'колбаса',
  'Milch',
  'Käse',
  'Brot',
  'Schokolade',
  'Joghurt',
  'Saft',
  'Apfel',
  'Nudeln',
  'lait',
  'fromage',
  'pain',
  'chocolat',
  'jus',
  'pomme',
  'leche',
  'queso',
  'pan',
  'zumo',
  'latte',
  'formaggio',
  'pane',
  'mleko',
  'ser',
  'chleb',
];

export async function generateDump(rows: number, out: string, seed = 1): Promise<void> {
  const header = (await readFile(new URL('./off-csv-header.tsv', import.meta.url), 'utf8')).split('\n')[0]!;
  const columns = header.split('\t');
  const at = (name: string) => columns.indexOf(name);
  const idx = {
    code: at('code'),
    name: at('product_name'),
    brands: at('brands'),
    categories: at('categories_tags'),
    kcal: at('energy-kcal_100g'),
    kj: at('energy-kj_100g'),
    fat: at('fat_100g'),
    carbs: at('carbohydrates_100g'),
    protein: at('proteins_100g'),
  };
  let state = seed >>> 0 || 1;
  const random = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
  const file = createWriteStream(out);
  file.write(`${header}\n`);
  const fields = new Array<string>(columns.length).fill('');
  for (let i = 0; i < rows; i++) {
    const payload = String(300000000000 + i * 7 + 1).padStart(12, '0');
    const fat = Math.round(random() * 300) / 10;
    const carbs = Math.round(random() * 600) / 10;
    const protein = Math.round(random() * 300) / 10;
    fields[idx.code] = payload + gtinCheckDigit(payload);
    fields[idx.name] = `${pick(WORDS)} ${pick(WORDS)}${random() < 0.5 ? ` ${pick(WORDS)}` : ''} ${i % 1000}`;
    fields[idx.brands] = `Brand ${i % 5000}`;
    fields[idx.categories] = pick([
      'en:dairies,en:milks',
      'en:beverages,en:juices',
      'en:snacks,en:chocolates',
      'en:cereals',
      'en:breads',
    ]);
    fields[idx.kcal] = String(Math.round(fat * 9 + carbs * 4 + protein * 4));
    fields[idx.kj] = '';
    fields[idx.fat] = String(fat);
    fields[idx.carbs] = String(carbs);
    fields[idx.protein] = String(protein);
    if (!file.write(`${fields.join('\t')}\n`)) await once(file, 'drain');
  }
  file.end();
  await once(file, 'finish');
}

if (import.meta.main) {
  const [rows, out, seed] = process.argv.slice(2);
  if (!rows || !out) {
    console.error('usage: generate-dump.ts <rows> <out.csv> [seed]');
    process.exit(2);
  }
  await generateDump(Number(rows), out, Number(seed ?? 1));
}
