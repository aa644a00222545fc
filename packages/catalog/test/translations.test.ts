import t from 'tap';
import { readJson } from '../src/seed/reference.ts';
import { readDishes } from '../src/seed/catalog.ts';

/**
 * The seed data check: every translated text of every seeded row, in every language, present and readable as that
 * language. A text may equal the English one only where the language uses the English word (seed-data/loanwords.json;
 * under `*`, proper names every language keeps), and a Ukrainian text of several words never equals the Russian one
 * (a name or a single word may: Борщ is Борщ in both).
 */
type Texts = Partial<Record<string, string>>;
interface Text {
  where: string;
  kind: 'name' | 'sentence';
  texts: Texts;
}
interface Seeded {
  code: string;
  names: Texts;
  descriptions?: Texts;
  recipe?: {
    notes?: Texts | null;
    steps: Texts[];
    ingredients: { product: string; note?: Texts }[];
  };
}

const loanwords = await readJson<Record<string, string[]>>('loanwords.json');
const reference = await readJson<Record<string, { code: string; names?: Texts }[]>>('reference.json');
const LANGUAGES = reference.languages!.map((language) => language.code);
const products = (
  await Promise.all(['ingredients', 'packaged'].map((f) => readJson<Seeded[]>(`products/${f}.json`)))
).flat();
// With the recipe texts of seed-data/recipe-text/ merged in, as the seed loads them.
const dishes: Seeded[] = await readDishes();

const names: Text[] = [
  ...Object.entries(reference).flatMap(([list, items]) =>
    items.flatMap((item) =>
      item.names ? [{ where: `${list} ${item.code}`, kind: 'name' as const, texts: item.names }] : [],
    ),
  ),
  ...[...products, ...dishes].map((row) => ({ where: row.code, kind: 'name' as const, texts: row.names })),
];
const descriptions: Text[] = dishes.flatMap((dish) =>
  dish.descriptions ? [{ where: `${dish.code} description`, kind: 'sentence' as const, texts: dish.descriptions }] : [],
);
/** A recipe's notes, its ingredients' notes and its steps (the other languages from seed-data/recipe-text/). */
const recipeTexts: Text[] = dishes.flatMap((dish) => [
  ...(dish.recipe?.notes ? [{ where: `${dish.code} note`, kind: 'sentence' as const, texts: dish.recipe.notes }] : []),
  ...(dish.recipe?.ingredients ?? []).flatMap((ingredient) =>
    ingredient.note
      ? [{ where: `${dish.code} ${ingredient.product} note`, kind: 'sentence' as const, texts: ingredient.note }]
      : [],
  ),
  ...(dish.recipe?.steps ?? []).map((texts, i) => ({
    where: `${dish.code} step ${i + 1}`,
    kind: 'sentence' as const,
    texts,
  })),
]);

/** Symbols every language writes alike: "400 ml" is not an untranslated text. */
const UNIT_SYMBOLS = /(?<!\p{L})(?:mg|g|kg|ml|l|mm|cm|мг|г|кг|мл|л|мм|см)(?!\p{L})|°C/gu;
/** The words of a text, leaving out figures and unit symbols. */
const words = (text: string) => text.replace(UNIT_SYMBOLS, '').match(/\p{L}+/gu) ?? [];
const hasWords = (text: string) => words(text).length > 0;
const count = (text: string, script: RegExp) => text.match(script)?.length ?? 0;
const CYRILLIC = /\p{Script=Cyrillic}/gu;
const LATIN = /\p{Script=Latin}/gu;
const HAN = /\p{Script=Han}/gu;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/gu;
const FOREIGN_TO_LATIN = /[\p{Script=Cyrillic}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

/** Why a text does not read as its language, or null. */
function scriptProblem(language: string, text: string): string | null {
  if (!/\p{L}/u.test(text)) return null; // figures only ("9%") read the same everywhere
  const latin = count(text.replace(UNIT_SYMBOLS, ''), LATIN); // 1缶400ml is Japanese
  switch (language) {
    case 'ru':
    case 'uk': {
      const cyrillic = count(text, CYRILLIC);
      if (cyrillic === 0 || cyrillic < latin) return 'not Cyrillic';
      if (language === 'ru' && /[іїєґ]/iu.test(text)) return 'Ukrainian letters in Russian';
      if (language === 'uk' && /[ыэёъ]/iu.test(text)) return 'Russian letters in Ukrainian';
      return null;
    }
    case 'zh':
      return count(text, HAN) === 0 || count(text, HAN) < latin || count(text, KANA) > 0 ? 'not Chinese' : null;
    case 'ja':
      return count(text, HAN) + count(text, KANA) === 0 || count(text, HAN) + count(text, KANA) < latin
        ? 'not Japanese'
        : null;
    default:
      return FOREIGN_TO_LATIN.test(text) ? 'letters of another script' : null;
  }
}

/** Every problem of a set of texts, one line each. */
function problems(items: Text[]): string[] {
  const found: string[] = [];
  for (const { where, kind, texts } of items) {
    for (const language of LANGUAGES) {
      const text = texts[language];
      if (typeof text !== 'string' || text.trim() === '') {
        found.push(`${where} [${language}]: missing`);
        continue;
      }
      const script = scriptProblem(language, text);
      if (script) found.push(`${where} [${language}]: ${script}: ${text}`);
      if (
        language !== 'en' &&
        text === texts.en &&
        hasWords(text) &&
        ![...(loanwords[language] ?? []), ...loanwords['*']!].includes(text)
      )
        found.push(`${where} [${language}]: the English text, not an accepted loanword: ${text}`);
    }
    if (kind === 'sentence' && texts.uk !== undefined && texts.uk === texts.ru && words(texts.uk).length > 1)
      found.push(`${where} [uk]: the Russian text: ${texts.uk}`);
  }
  return found;
}

t.test('the check itself: each kind of problem is found', async (t) => {
  const found = problems([
    {
      where: 'a',
      kind: 'sentence',
      texts: { en: 'Stir.', ru: 'Stir.', uk: 'Помішайте.', zh: '搅拌。', ja: '混ぜる。' },
    },
    { where: 'b', kind: 'sentence', texts: { en: 'Wash.', ru: 'Вымойте руки.', uk: 'Вымойте руки.', de: 'Waschen.' } },
    { where: 'c', kind: 'name', texts: { en: 'Tofu', pt: 'Uses Молоко 3,2%', tr: 'Tofu' } },
    { where: 'd', kind: 'name', texts: { en: 'Milk', de: 'Milk' } },
  ]);
  t.ok(found.includes('a [ru]: not Cyrillic: Stir.'));
  t.ok(found.includes('a [ru]: the English text, not an accepted loanword: Stir.'));
  t.ok(found.includes('a [fr]: missing'));
  t.ok(found.includes('b [uk]: Russian letters in Ukrainian: Вымойте руки.'));
  t.ok(found.includes('b [uk]: the Russian text: Вымойте руки.'));
  t.ok(found.includes('c [pt]: letters of another script: Uses Молоко 3,2%'));
  t.ok(found.includes('d [de]: the English text, not an accepted loanword: Milk'), 'Milk is not German');
  t.notOk(
    found.some((line) => line.startsWith('c [tr]: the English')),
    'Tofu is Turkish',
  );
  t.equal(scriptProblem('ja', 'スジュク（牛肉ソーセージ）'), null);
  t.equal(scriptProblem('zh', '低脂牛奶 1.5%'), null);
  const quantity = { en: '400 ml', de: '400 ml', ru: '400 мл', uk: '400 мл' };
  t.same(
    problems([{ where: 'e', kind: 'sentence', texts: quantity }]).filter((line) => !line.endsWith(': missing')),
    [],
    'a quantity reads alike in every language',
  );
});

t.test('every name of every seeded row, in all 12 languages', async (t) => {
  t.ok(names.length > 600, `${names.length} names`);
  t.same(problems(names), []);
});

t.test('every dish description, in all 12 languages', async (t) => {
  t.ok(descriptions.length >= 160, `${descriptions.length} descriptions`);
  t.same(problems(descriptions), []);
});

t.test('every recipe step, recipe note and ingredient note, in all 12 languages', async (t) => {
  t.ok(recipeTexts.length > 1200, `${recipeTexts.length} texts`);
  t.same(problems(recipeTexts), []);
});

t.test('every accepted loanword is still used, and is written as in English', async (t) => {
  const used = new Set(
    [...names, ...descriptions, ...recipeTexts].flatMap(({ texts }) =>
      LANGUAGES.filter((l) => l !== 'en' && texts[l] === texts.en).map((l) => `${l}:${texts.en}`),
    ),
  );
  for (const [language, words] of Object.entries(loanwords))
    t.same(
      words.filter((word) =>
        language === '*' ? ![...used].some((u) => u.endsWith(`:${word}`)) : !used.has(`${language}:${word}`),
      ),
      [],
      `${language}: no stale loanwords`,
    );
});
