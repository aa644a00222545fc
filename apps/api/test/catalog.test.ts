import t from 'tap';
import { as, assertError, buildTestApp, login } from './helpers.ts';
import { edibleGramsOf, recipePerServing } from '@nutrition/domain';
import { catalogRepository, literalWords } from '@nutrition/db/repositories';
import { readDishes } from '@nutrition/catalog';

t.test('catalog', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const get = as(app, await login(app, 'catalog-user'));
  const search = async (q: string, lang = 'en', path = '/dishes/search') => {
    const res = await get({
      method: 'GET',
      url: `${path}?q=${encodeURIComponent(q)}`,
      headers: { 'accept-language': lang },
    });
    t.equal(res.statusCode, 200, `${path} ${q}`);
    return res.json().items as { id: string; name: string; score: number }[];
  };
  const [borscht] = await sql`SELECT d.id FROM dishes d WHERE d.code = 'borscht'`;
  const [omelette] =
    await sql`SELECT d.id FROM dishes d JOIN dish_translations t ON t.dish_id = d.id AND t.language_code = 'en' WHERE
      t.name = 'Masala Omelette'`;

  t.test('seed size', async (t) => {
    const [counts] = await sql<{ dishes: number; products: number; barcodes: number; recipes: number }[]>`
      SELECT (SELECT count(*)::int FROM dishes) AS dishes, (SELECT count(*)::int FROM products) AS products,
             (SELECT count(*)::int FROM products WHERE barcode IS NOT NULL) AS barcodes,
             (SELECT count(DISTINCT dish_id)::int FROM recipes WHERE source = 'catalog') AS recipes`;
    const { dishes, products, barcodes, recipes } = counts!;
    t.ok(dishes >= 150, `${dishes} dishes`);
    t.equal(recipes, dishes, 'every dish has a catalog recipe');
    t.ok(products >= 500, `${products} products`);
    t.ok(barcodes >= 250, `${barcodes} barcodes`);
  });

  t.test('dish search across languages, prefixes and typos', async (t) => {
    t.equal((await search('borscht'))[0]?.id, borscht!.id, 'en exact');
    t.equal((await search('borsh'))[0]?.id, borscht!.id, 'unfinished word');
    t.equal((await search('борщ', 'ru'))[0]?.id, borscht!.id, 'ru');
    t.equal((await search('борщу', 'uk'))[0]?.id, borscht!.id, 'uk inflected');
    t.equal((await search('Borschtsch', 'de'))[0]?.id, borscht!.id, 'de');
    const crossLanguage = await search('борщ', 'de');
    t.equal(crossLanguage[0]?.id, borscht!.id, 'a Russian name found from a German client');
    t.equal(crossLanguage[0]?.name, 'Borschtsch', 'and shown in German');
    t.ok(
      (await search('omlete')).some((d) => d.id === omelette!.id),
      'typo omlete finds omelette',
    );
    t.ok((await search('pelmeni')).length > 0);
  });

  t.test('an exact name ranks above partial ones', async (t) => {
    const items = await search('borscht');
    t.ok(items.length >= 1);
    t.ok(
      items.every((d, i) => i === 0 || d.score <= items[i - 1]!.score),
      'best first',
    );
  });

  t.test('product search within a category holds only that category', async (t) => {
    type Item = { id: string; category_code: string | null };
    const page = async (query: string) =>
      (await get({ method: 'GET', url: `/products/search?${query}` })).json().items as Item[];
    const all = await page('q=c&limit=50');
    const categories = new Set(all.map((p) => p.category_code).filter(Boolean));
    t.ok(categories.size > 1, `the whole page spans ${categories.size} categories`);
    for (const category of categories) {
      const items = await page(`q=c&limit=50&category=${category}`);
      t.ok(items.length > 0, `${category}: found`);
      t.ok(
        items.every((p) => p.category_code === category),
        `${category}: nothing from another category`,
      );
    }
  });

  t.test('hostile and invalid queries', async (t) => {
    for (const q of ['%', '_', '\\', '%%%_', "'; DROP TABLE dishes; --"]) {
      t.same(await search(q), [], `"${q}" is literal text that no dish name has`);
      await search(q, 'en', '/products/search');
    }
    t.equal((await search('borscht%'))[0]?.id, borscht!.id, 'a trailing % is not a wildcard');
    const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM dishes`;
    t.ok(row!.n >= 150, 'tables intact');
    assertError(t, await get({ method: 'GET', url: '/dishes/search?q=' }), 400, 'validation_failed');
    assertError(t, await get({ method: 'GET', url: '/dishes/search?q=%20%20' }), 400, 'validation_failed');
    assertError(
      t,
      await get({ method: 'GET', url: `/products/search?q=${'a'.repeat(101)}` }),
      400,
      'validation_failed',
    );
    assertError(t, await get({ method: 'GET', url: '/products/search' }), 400, 'validation_failed');
    assertError(t, await get({ method: 'GET', url: '/products/search?q=milk&cursor=garbage' }), 400, 'invalid_cursor');
    assertError(t, await get({ method: 'GET', url: '/products/search?q=milk&limit=0' }), 400, 'validation_failed');
  });

  t.test('product search: words, prefixes, typos, 1-2 letters, four languages', async (t) => {
    const names = async (q: string, lang = 'en') =>
      (await search(q, lang, '/products/search')).map((p) => p.name.toLowerCase());
    t.match((await names('buckwheat'))[0], /buckwheat/);
    t.match((await names('buckw'))[0], /buckwheat/, 'prefix');
    t.match((await names('bukwheat'))[0] ?? '', /buckwheat/, 'typo');
    t.match((await names('гречка', 'ru')).join('|'), /греч/, 'ru');
    t.match((await names('Buchweizen', 'de'))[0], /buchweizen/, 'de');
    t.match((await names('гречана', 'uk'))[0] ?? '', /греч/, 'uk');
    const short = await names('mi');
    t.ok(short.length > 0 && short.every((n) => n.length > 0), '2 letters match name prefixes');
    const exact = await search('milk', 'en', '/products/search');
    t.ok(exact.length > 1);
    t.ok(exact[0]!.score >= exact[1]!.score);
  });

  t.test(
    'ranking: exact names, then request-language prefixes, then other languages, then inside words and typos',
    async (t) => {
      const products = async (q: string, lang = 'en', path = '/products/search') =>
        (await search(q, lang, path)).map((p) => p.name);
      const first = async (q: string, lang = 'en', path = '/products/search') =>
        (await products(q, lang, path))[0] ?? '';
      // `m`: English names starting with m, not Poppy seeds (de Mohn) or Semolina (ru манка) first.
      const m = await products('m');
      t.ok(m.length >= 5);
      t.match(
        m.slice(0, 5),
        m.slice(0, 5).map(() => /^m/i),
        'the first names start with m in English',
      );
      t.notOk(
        m.slice(0, 10).some((n) => /poppy|semolina|pork/i.test(n)),
        m.slice(0, 10).join(', '),
      );
      // `milk`: milk itself, not Soy drink or Oat drink (named "soy milk" in an alias).
      const milk = await products('milk');
      t.match(milk[0], /^Milk/);
      t.ok(
        milk.findIndex((n) => /^Milk/.test(n)) < milk.findIndex((n) => /drink/i.test(n)) ||
          !milk.some((n) => /drink/i.test(n)),
        milk.slice(0, 8).join(', '),
      );
      for (const [i, n] of milk.entries()) if (/drink/i.test(n)) t.notOk(milk.slice(i).some((x) => /^Milk\b/.test(x)));
      t.match(await first('tomato'), /^Tomato$/, 'the exact name first');
      t.ok((await products('tomatoe')).slice(0, 5).includes('Tomato'), 'an overshot word finds the shorter one');
      t.match(await first('chiken', 'en', '/ingredients/search'), /^Chicken/, 'an ingredient typo corrected');
      // Dish search took typos by likeness alone: chiken is too far from "chicken noodle soup" (0.5 < 0.6).
      const dishes = async (q: string) => (await search(q)).map((d) => d.name);
      t.match((await dishes('chiken'))[0] ?? '', /Chicken/, 'a dish typo corrected');
      t.equal((await dishes('chiken nodle'))[0], 'Chicken Noodle Soup', 'two typos in a dish name');
      t.same(
        (await dishes('chiken nodle')).filter((n) => !/noodle/i.test(n)),
        [],
        'every word still has to match: a correction of one word matched them all',
      );
      t.same(await dishes('chiken zqxvwk'), [], 'a word no dish holds: nothing');
      t.equal((await dishes('chicken'))[0]?.startsWith('Chicken'), true, 'a word spelt right still ranks first');
      t.match(await first('Kartoffel', 'en'), /Potato/, 'another language still finds, in the request language');
      const pom = await products('пом', 'ru');
      t.ok(
        pom.slice(0, 3).every((n) => /пом/i.test(n)),
        `Russian names with the prefix first: ${pom.join(', ')}`,
      );
      // Every word must match, and `%` inside a word is a literal `%`.
      t.same(await products('a%b', 'en', '/dishes/search'), [], 'a%b: no name holds it; Poulet au beurre is no match');
      t.same(await products('a%b'), [], 'nor a product name');
      t.match(await first('milk 1.5%'), /^Milk 1\.5/, 'a dot and a percent sign at the end still find it');
      t.same(literalWords("a%b m&m 1.5% alho-frances l'huile"), ['a%b', 'm&m'], 'symbols inside are literal');
      t.match(await first('alho-frances', 'pt'), /Alho-poró/, 'a hyphenated alias (of leek) by its words');
      t.same(await products('borscht zzzz', 'en', '/dishes/search'), [], 'a word that matches nothing');
      t.same(await products('buckwheat zzzz'), [], 'products too');
      const scores = (await search('chicken', 'en', '/dishes/search')).map((d) => d.score);
      t.same(
        scores,
        [...scores].sort((a, b) => b - a),
        'best first',
      );
    },
  );

  // Chinese and Japanese write compounds without spaces: sausage (香肠) is inside pork sausage (猪肉粗香肠), never a
  // word prefix, and most words are two characters, which other scripts only match at a name's start.
  t.test('Chinese, Japanese and Korean words are found inside names, at any length', async (t) => {
    const names = async (q: string, lang: string, path = '/products/search') =>
      (await search(q, lang, path)).map((p) => p.name);
    const sausages = await names('香肠', 'zh');
    t.ok(sausages.includes('猪肉粗香肠') && sausages.includes('萨拉米香肠'), `香肠: ${sausages.join(', ')}`);
    t.ok(
      sausages.every((n) => n.includes('香肠')),
      'every name holds the word',
    );
    t.ok((await names('罐头', 'zh')).includes('番茄罐头'), 'canned tomatoes by "canned"');
    t.ok((await names('ナッツ', 'ja')).includes('カシューナッツ'), 'cashews by "nuts", in katakana');
    t.same(await names('猪肉 香肠', 'zh'), ['猪肉粗香肠'], 'two words: both inside the name');
    const milk = await names('牛奶', 'zh');
    t.match(milk[0], /^牛奶/, 'a name starting with the word still ranks first');
    t.ok(milk.includes('牛奶巧克力'), milk.join(', '));
    const dumplings = await names('饺子', 'zh', '/dishes/search');
    t.ok(dumplings.includes('乌克兰土豆饺子'), `dishes: ${dumplings.join(', ')}`);
    t.ok((await names('奶酪', 'zh', '/dishes/search')).includes('波兰土豆奶酪饺子'), 'cheese inside a dish name');
    t.ok((await names('香肠', 'en')).includes('Salami'), 'found from another language, shown in the request language');
    t.same(await names('il', 'en'), [], 'two Latin letters still match only the start of a name');
  });

  t.test('a product search asked again is answered from memory until the catalog changes', async (t) => {
    const first = await search('zzqqx', 'en', '/products/search');
    t.same(first, [], 'nothing yet');
    t.same(await search('ZZQQX', 'en', '/products/search'), [], 'the same answer for another case');
    await sql`
      WITH p AS (INSERT INTO products (canonical_name, source) VALUES ('Zzqqx crunch bar', 'user') RETURNING id)
      INSERT INTO product_aliases (product_id, language_code, name, is_primary)
      SELECT id, 'en', 'Zzqqx crunch bar', true FROM p`;
    // The insert notifies every API process (LISTEN/NOTIFY, as across processes): the kept answer goes.
    let found: { name: string }[] = [];
    for (let i = 0; i < 50 && found.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      found = await search('zzqqx', 'en', '/products/search');
    }
    t.match(found, [{ name: 'Zzqqx crunch bar' }], 'a new product is found right after it is added');
    const again = await get({ method: 'GET', url: '/products/search?q=milk', headers: { 'accept-language': 'de' } });
    const repeat = await get({ method: 'GET', url: '/products/search?q=milk', headers: { 'accept-language': 'de' } });
    t.equal(repeat.body, again.body, 'the same answer, byte for byte');
    t.equal(repeat.headers['content-type'], 'application/json; charset=utf-8');
    t.match(repeat.json().items[0], { name: String, score: Number, calories_per_100g: Number });
  });

  t.test(
    "a product's own name starting with the words ranks before another's other name starting with them",
    async (t) => {
      const first = async (q: string, lang: string) => (await search(q, lang, '/products/search'))[0]?.name ?? '';
      // Egg is also known as "chicken egg", and kvass as "bread kvass": they came first for chicken and bread.
      t.match(await first('chicken', 'en'), /^Chicken /, 'chicken: a chicken product');
      t.match(await first('huhn', 'de'), /^Hühner/, 'huhn: not Ei');
      t.equal(await first('bread', 'en'), 'Breadcrumbs', 'bread: not Kvass');
      t.match(await first('milk', 'en'), /^Milk /, 'an exact other name still comes first');
    },
  );

  t.test('search folds case and accents the way people type: fr, es, de, tr, ru (ё = е)', async (t) => {
    const products = async (q: string, lang: string) => (await search(q, lang, '/products/search')).map((p) => p.name);
    t.match((await products('lait demi ecreme', 'fr'))[0] ?? '', /Lait demi-écrémé/, 'fr');
    t.match((await products('jalapenos', 'es')).join('|'), /Jalapeños/, 'es');
    t.match((await products('hahnchenbrust', 'de'))[0] ?? '', /Hähnchenbrust/, 'de');
    t.match((await products('HÄHNCHENBRUST', 'de'))[0] ?? '', /Hähnchenbrust/, 'de, upper case');
    t.match((await products('sogan', 'tr')).join('|'), /Soğan/, 'tr');
    t.match((await products('свекла', 'ru'))[0] ?? '', /Свёкла/, 'ru: е finds ё');
    t.match((await products('свёкла', 'ru'))[0] ?? '', /Свёкла/, 'and ё itself');
    t.match(
      (await search('зеленый лук', 'ru', '/ingredients/search')).map((p) => p.name).join('|'),
      /Зелёный лук/,
      'ingredient search folds too',
    );
    const dishes = async (q: string, lang: string) => (await search(q, lang)).map((d) => d.name);
    t.match((await dishes('taboule libanais', 'fr'))[0] ?? '', /Taboulé libanais/, 'dish search, fr');
    t.match((await dishes('epinards', 'fr'))[0] ?? '', /Épinards/, 'dish search, a capital with an accent');
    t.match((await dishes('kofte', 'tr')).join('|'), /Köfte/i, 'dish search, tr');
  });

  t.test('a vocabulary word with a quote or a backslash is a correction like any other', async (t) => {
    // Lexemes of URLs and paths keep such characters (to_tsvector('simple', 'x.com/a''b') has 'x.com/a''b'); as a
    // correction of a typo the word must reach the tsquery quoted, not as tsquery syntax.
    const odd = "bukwheet'x\\y";
    t.match((await sql`SELECT to_tsvector('simple', 'x.com/a''b')::text AS v`)[0]!.v, /''/);
    await sql`INSERT INTO search_words (word) VALUES (${odd})`;
    t.teardown(() => sql`DELETE FROM search_words WHERE word = ${odd}`);
    const closest =
      await sql`SELECT word FROM search_words WHERE word % 'bukwheat' ORDER BY word <-> 'bukwheat' LIMIT 3`;
    t.ok(
      closest.some((r) => r.word === odd),
      'the odd word is one of the corrections of the typo',
    );
    t.match((await search('bukwheat', 'en', '/products/search'))[0]?.name.toLowerCase() ?? '', /buckwheat/);
    t.match((await search('bukwheat')).map((d) => d.name).join('|'), /Buckwheat/i, 'and so does dish search');
  });

  t.test('many searches at once, each twice: every answer is the one the same query gets alone', async (t) => {
    // Typos (one word and two), words, prefixes, symbols and other languages: 24 distinct queries, each sent twice at
    // once (a double tap), 48 requests against a product-search pool of 4 connections.
    const queries: [string, string, string][] = [
      ...['chiken', 'bukwheat', 'tomatoe', 'milc', 'chese', 'yoghurt'].map((q): [string, string, string] => [
        q,
        'en',
        '/products/search',
      ]),
      ...['milk', 'mi', 'm', 'buckw', 'milk 1.5%', 'a%b', 'chicken brest', 'apple juice'].map(
        (q): [string, string, string] => [q, 'en', '/products/search'],
      ),
      ['гречка', 'ru', '/products/search'],
      ['гречана', 'uk', '/products/search'],
      ['Buchweizen', 'de', '/products/search'],
      ['lait demi ecreme', 'fr', '/products/search'],
      ['sogan', 'tr', '/products/search'],
      ['chiken', 'en', '/ingredients/search'],
      ['tomatoe', 'en', '/ingredients/search'],
      ['зеленый лук', 'ru', '/ingredients/search'],
    ];
    const answers = await Promise.all(
      [...queries, ...queries].map(async ([q, lang, path]) => {
        const res = await get({
          method: 'GET',
          url: `${path}?q=${encodeURIComponent(q)}`,
          headers: { 'accept-language': lang },
        });
        t.equal(res.statusCode, 200, `${path} ${q}`);
        return (res.json().items as { id: string }[]).map((p) => p.id);
      }),
    );
    const repo = catalogRepository(app.sql);
    for (const [i, [q, language, path]] of queries.entries()) {
      const alone = await repo.searchProducts({
        q,
        language,
        limit: 21,
        ingredientsOnly: path === '/ingredients/search',
      });
      const ids = alone.slice(0, 20).map((p) => p.id);
      if (q !== 'a%b') t.ok(ids.length > 0, `${path} ${q} finds something`);
      t.same(answers[i], ids, `${path} ${q} (${language}) at once: the answer alone`);
      t.same(answers[i + queries.length], ids, `${path} ${q} (${language}) twice at once: the same answer`);
    }
  });

  t.test('product search pages with a stable cursor', async (t) => {
    const seen = new Set<string>();
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await get({
        method: 'GET',
        url: `/products/search?q=juice&limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      });
      const body = res.json();
      for (const item of body.items) {
        t.notOk(seen.has(item.id), 'no product twice');
        seen.add(item.id);
      }
      cursor = body.next_cursor;
      pages++;
    } while (cursor && pages < 20);
    t.ok(pages > 1, `${pages} pages, ${seen.size} products`);
  });

  t.test('ingredients search leaves out bulk-imported products', async (t) => {
    await sql`INSERT INTO products (canonical_name, source, barcode) VALUES ('Buckwheat crispbread imported', 'off',
      '4006381333931')`;
    const [p] = await sql`SELECT id FROM products WHERE barcode = '4006381333931'`;
    await sql`INSERT INTO product_aliases (product_id, language_code, name, is_primary, imported) VALUES (${p!.id},
      'en', 'Buckwheat crispbread imported', true, true)`;
    t.ok((await search('buckwheat crispbread', 'en', '/products/search')).some((x) => x.id === p!.id));
    t.notOk((await search('buckwheat crispbread', 'en', '/ingredients/search')).some((x) => x.id === p!.id));
  });

  t.test('barcodes: validation, and UPC-A and EAN-13 find the same product', async (t) => {
    const [seeded] = await sql`SELECT id, barcode FROM products WHERE length(barcode) = 13 LIMIT 1`;
    t.equal((await get({ method: 'GET', url: `/products/barcode/${seeded!.barcode}` })).json().id, seeded!.id);
    const [ean8] = await sql`SELECT id, barcode FROM products WHERE length(barcode) = 8 LIMIT 1`;
    t.equal((await get({ method: 'GET', url: `/products/barcode/${ean8!.barcode}` })).json().id, ean8!.id, 'EAN-8');
    // How scanners, databases and spreadsheets hand an EAN-8 over: zero-padded to 10, 12, 13 or 14 digits.
    for (const width of [10, 12, 13, 14]) {
      const padded = ean8!.barcode.padStart(width, '0');
      const found = await get({ method: 'GET', url: `/products/barcode/${padded}` });
      t.equal(found.json().id, ean8!.id, `the EAN-8 padded to ${width} digits (${padded})`);
    }
    const [gtin14] = [`0${seeded!.barcode}`];
    t.equal((await get({ method: 'GET', url: `/products/barcode/${gtin14}` })).json().id, seeded!.id, 'GTIN-14');
    // A food database's code with a typo in its check digit is found as stored; other such codes stay 400.
    await sql`INSERT INTO products (canonical_name, barcode) VALUES ('Chickpeas (typo in the dump)', '4822753671905')`;
    t.equal(
      (await get({ method: 'GET', url: '/products/barcode/4822753671905' })).json().canonical_name,
      'Chickpeas (typo in the dump)',
    );
    await sql`INSERT INTO products (canonical_name, barcode) VALUES ('Peanut butter US', '0036000291452')`;
    const upc = (await get({ method: 'GET', url: '/products/barcode/036000291452' })).json();
    const ean = (await get({ method: 'GET', url: '/products/barcode/0036000291452' })).json();
    t.equal(upc.canonical_name, 'Peanut butter US');
    t.equal(upc.id, ean.id);
    for (const bad of ['1234567', '123456789012345', 'abcdefgh', '4006381333932', '12345678%20']) {
      assertError(t, await get({ method: 'GET', url: `/products/barcode/${bad}` }), 400, 'invalid_barcode');
    }
    assertError(t, await get({ method: 'GET', url: '/products/barcode/96385074' }), 404, 'not_found');
  });

  t.test(
    'in-store label codes match no seed product and say so; a stored store-brand code still finds its product',
    async (t) => {
      const [inStore] = await sql`SELECT count(*)::int AS n FROM products
        WHERE barcode ~ '^(2|0[24])[0-9]{12}$' OR barcode ~ '^[02][0-9]{7}$'`;
      t.equal(inStore!.n, 0, 'no seed barcode in a restricted range');
      // A deli label: prefix 21, item 23456, weight 0.789 kg.
      for (const label of ['2123456007893', '0212345678909', '20123451']) {
        assertError(t, await get({ method: 'GET', url: `/products/barcode/${label}` }), 404, 'restricted_barcode');
      }
      await sql`INSERT INTO products (canonical_name, source, barcode)
        VALUES ('Store-brand muesli', 'off', '20123451')`;
      t.equal(
        (await get({ method: 'GET', url: '/products/barcode/20123451' })).json().canonical_name,
        'Store-brand muesli',
      );
    },
  );

  t.test('recipes are localised: dish name, unit names, steps with English fallback', async (t) => {
    const dish = (
      await get({ method: 'GET', url: `/dishes/${borscht!.id}`, headers: { 'accept-language': 'ru' } })
    ).json();
    t.equal(dish.name, 'Борщ');
    t.ok(dish.recipes.length >= 1);
    const ru = (
      await get({ method: 'GET', url: `/recipes/${dish.default_recipe_id}`, headers: { 'accept-language': 'ru' } })
    ).json();
    t.equal(ru.name, 'Борщ');
    t.equal(ru.source, 'catalog');
    t.ok(ru.ingredients.length > 3);
    t.ok(
      ru.ingredients.every((i: { unit: string; name: string }) => /[а-яё]/i.test(i.unit) && /[а-яё]/i.test(i.name)),
      'units and products in Russian',
    );
    t.match(ru.steps[0], { position: 1, text: /[а-яё]/i });
    const fr = (
      await get({ method: 'GET', url: `/recipes/${dish.default_recipe_id}`, headers: { 'accept-language': 'fr' } })
    ).json();
    t.equal(fr.name, 'Bortsch');
  });

  t.test(
    'recipe steps in each of the 12 languages as the seed writes them, English where one is not written',
    async (t) => {
      const seeded = await readDishes();
      // A dish of each seed file (they are translated file by file).
      const sample = ['pho_bo', 'borscht', 'french_omelette'].map((code) => seeded.find((d) => d.code === code)!);
      for (const seedDish of sample) {
        const [row] = await sql<{ id: string }[]>`
        SELECT r.id FROM recipes r JOIN dishes d ON d.id = r.dish_id WHERE d.code = ${seedDish.code} AND r.is_default`;
        for (const language of ['en', 'ru', 'uk', 'de', 'fr', 'es', 'it', 'pt', 'pl', 'tr', 'zh', 'ja']) {
          const res = await get({ method: 'GET', url: `/recipes/${row!.id}?lang=${language}` });
          t.equal(res.headers['content-language'], language);
          t.same(
            res.json().steps.map((s: { text: string }) => s.text),
            seedDish.recipe.steps.map((step) => step[language] ?? step.en),
            `${seedDish.code} in ${language}${seedDish.recipe.steps[0]![language] ? '' : ' (English, not written)'}`,
          );
        }
      }
    },
  );

  t.test('stored per-serving nutrition is computed from the ingredients', async (t) => {
    const recipes = await sql`SELECT id, servings::float8 AS servings, calories_per_serving::float8 AS kcal,
        protein_per_serving::float8 AS protein FROM recipes WHERE source = 'catalog' ORDER BY random() LIMIT 5`;
    for (const r of recipes) {
      const ings = await sql`
        SELECT i.quantity::float8 AS quantity, u.code, u.kind, u.factor::float8 AS factor,
               p.density_g_per_ml::float8 AS density, p.piece_g::float8 AS piece_g, p.unit_grams,
               p.edible_portion::float8 AS edible, i.yield_factor::float8 AS yield,
               p.calories_per_100g::float8 AS calories, p.protein_per_100g::float8 AS protein,
               p.fat_per_100g::float8 AS fat, p.carbs_per_100g::float8 AS carbs
        FROM recipe_ingredients i JOIN units u ON u.code = i.unit_code JOIN products p ON p.id = i.product_id
        WHERE i.recipe_id = ${r.id}`;
      const expected = recipePerServing(
        ings.map((i) => ({
          grams:
            edibleGramsOf(
              i.quantity,
              { code: i.code, kind: i.kind, factor: i.factor },
              { densityGPerMl: i.density, pieceG: i.piece_g, unitGrams: i.unit_grams, ediblePortion: i.edible },
            )! * i.yield,
          per100g: { calories: i.calories, protein: i.protein, fat: i.fat, carbs: i.carbs },
        })),
        r.servings,
      );
      t.equal(r.kcal, expected.calories, `recipe ${r.id} kcal`);
      t.equal(r.protein, expected.protein);
      t.ok(r.kcal > 10 && r.kcal < 1500, `plausible ${r.kcal} kcal a serving`);
    }
  });

  t.test('dish list filters and pages', async (t) => {
    const soups = (await get({ method: 'GET', url: '/dishes?category=soup&limit=100' })).json();
    t.ok(soups.items.length >= 5);
    t.ok(soups.items.every((d: { category_code: string }) => d.category_code === 'soup'));
    const vegan = (await get({ method: 'GET', url: '/dishes?tag=vegan&limit=100' })).json();
    t.ok(vegan.items.every((d: { tags: string[] }) => d.tags.includes('vegan')));
    const first = (await get({ method: 'GET', url: '/dishes?limit=5' })).json();
    const second = (await get({ method: 'GET', url: `/dishes?limit=5&cursor=${first.next_cursor}` })).json();
    t.equal(first.items.length, 5);
    t.notOk(second.items.some((d: { id: string }) => first.items.some((f: { id: string }) => f.id === d.id)));
  });

  t.test('unknown ids are 404, malformed ones 400', async (t) => {
    const unknown = '01900000-0000-7000-8000-000000000000';
    for (const path of ['/dishes', '/recipes', '/products']) {
      assertError(t, await get({ method: 'GET', url: `${path}/${unknown}` }), 404, 'not_found');
      assertError(t, await get({ method: 'GET', url: `${path}/not-a-uuid` }), 400, 'validation_failed');
    }
  });

  t.test('search queries use their indexes', async (t) => {
    const rollback = new Error('rollback');
    await sql
      .begin(async (tx) => {
        await tx`SET LOCAL enable_seqscan = off`;
        const plan = async (query: string) =>
          (await tx.unsafe(`EXPLAIN ${query}`)).map((r) => r['QUERY PLAN']).join('\n');
        t.match(
          await plan(`SELECT product_id FROM product_aliases WHERE search_name LIKE 'buckw%'`),
          /product_aliases_prefix_idx/,
        );
        t.match(
          await plan(
            `SELECT product_id FROM product_aliases
             WHERE to_tsvector('simple', search_name) @@ to_tsquery('simple', 'buckw:*')`,
          ),
          /product_aliases_fts_idx/,
        );
        t.match(await plan(`SELECT id FROM products WHERE barcode = '4006381333931'`), /products_barcode/);
        // On a small table a full scan of a btree index looks as cheap; without them the trigram index must serve.
        await tx`DROP INDEX search_words_prefix_idx`;
        await tx`ALTER TABLE search_words DROP CONSTRAINT search_words_pkey`;
        t.match(await plan(`SELECT word FROM search_words WHERE word % 'bukwheat'`), /search_words_trgm_idx/);
        throw rollback;
      })
      .catch((err) => {
        if (err !== rollback) throw err;
      });
  });
});
