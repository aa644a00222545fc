import { createDatabase } from '@nutrition/db';
import { catalogRepository } from '@nutrition/db/repositories';
import { login, maxRow, percentile, root, startProcess, timedGet, type Row } from './lib.ts';

/** A word with one letter dropped, swapped or doubled: what people type on phones. */
function typo(word: string, n: number): string {
  const i = 1 + (n % (word.length - 2));
  const chars = [...word];
  if (n % 3 === 0) chars.splice(i, 1);
  else if (n % 3 === 1) [chars[i], chars[i + 1]] = [chars[i + 1]!, chars[i]!];
  else chars.splice(i, 0, chars[i]!);
  return chars.join('');
}

/**
 * /products/search over the imported catalog: words, 2-word prefixes, typos, 1-2 letters, four languages and
 * barcodes; the same queries through the repository give the SQL time they cost without HTTP.
 */
export async function searchBench(databaseUrl: string, queries: number): Promise<Row[]> {
  const { sql, close } = createDatabase(databaseUrl, { max: 2 });
  // The API's pools: unprepared statements for dish search, generic plans for product search.
  const { sql: searchSql, close: closeSearch } = createDatabase(databaseUrl, { max: 2, prepare: false });
  const { sql: productSearchSql, close: closeProductSearch } = createDatabase(databaseUrl, {
    max: 2,
    genericPlans: true,
    randomPageCost: 1.1,
  });
  const api = await startProcess(
    `${root}apps/api/src/main.ts`,
    { DATABASE_URL: databaseUrl, RATE_LIMIT_PER_MINUTE: '100000000' },
    '/health',
  );
  const hello = await startProcess(`${root}bench/hello.ts`, {}, /hello ready/);
  try {
    const words = (
      await sql<{ word: string }[]>`SELECT word FROM search_words WHERE length(word) >= 5 ORDER BY word LIMIT 400`
    ).map((w) => w.word);
    const barcodes = (
      await sql<{ barcode: string }[]>`SELECT barcode FROM products WHERE source = 'off' ORDER BY id LIMIT 50`
    ).map((b) => b.barcode);
    const names = await sql<{ name: string; lang: string }[]>`
      SELECT name, language_code AS lang FROM product_aliases WHERE language_code IN ('en', 'ru', 'de', 'uk') AND
        is_primary ORDER BY id LIMIT 200`;
    const share = (n: number) => Math.max(1, Math.round((queries * n) / 500));
    const mix: { q: string; kind: string; lang: string }[] = [];
    for (let i = 0; i < share(150); i++) mix.push({ q: words[(i * 7) % words.length]!, kind: 'word', lang: 'en' });
    for (let i = 0; i < share(100); i++) {
      const [a, b] = [words[(i * 3) % words.length]!, words[(i * 11 + 5) % words.length]!];
      mix.push({ q: `${a} ${b.slice(0, 3)}`, kind: 'prefix', lang: 'en' });
    }
    const typos = share(50);
    for (let i = 0; i < typos; i++)
      mix.push({ q: typo(words[(i * 13 + 1) % words.length]!, i), kind: 'typo', lang: 'en' });
    for (let i = 0; i < share(50); i++)
      mix.push({ q: String.fromCharCode(97 + (i % 26)).repeat(1 + (i % 2)), kind: 'short', lang: 'en' });
    for (let i = 0; i < share(100); i++) {
      const n = names[(i * 17) % names.length]!;
      mix.push({ q: n.name, kind: 'name', lang: n.lang });
    }
    for (let i = 0; i < share(50); i++) mix.push({ q: barcodes[i % barcodes.length]!, kind: 'barcode', lang: 'en' });

    const repo = catalogRepository(sql, searchSql, productSearchSql);
    const sqlMs: number[] = [];
    const httpMs: number[] = [];
    let typoMisses = 0;
    const token = await login(api.url, 'bench-search');
    for (const { q, kind, lang } of mix) {
      const isBarcode = kind === 'barcode';
      const t0 = performance.now();
      if (isBarcode) await repo.productByBarcode(q, lang);
      // The statement the API runs for a first page of 20.
      else await repo.searchProductsPage({ q, language: lang, limit: 20 });
      sqlMs.push(performance.now() - t0);
      const t1 = performance.now();
      const res = await timedGet(
        isBarcode ? `${api.url}/products/barcode/${q}` : `${api.url}/products/search?q=${encodeURIComponent(q)}`,
        { authorization: `Bearer ${token}`, 'accept-language': lang },
      );
      httpMs.push(performance.now() - t1);
      if (kind === 'typo' && (res.status !== 200 || res.body.items.length === 0)) typoMisses++;
    }
    // The transport floor: the same client against a hello-world server, one request at a time.
    const floorMs: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t0 = performance.now();
      await timedGet(`${hello.url}/`);
      floorMs.push(performance.now() - t0);
    }
    process.stderr.write(` [hello-world round trip p50 ${percentile(floorMs, 50).toFixed(2)} ms]`);
    const sqlP50 = percentile(sqlMs, 50);
    const httpP50 = percentile(httpMs, 50);
    return [
      maxRow(
        'search',
        `p95 of ${mix.length} queries over HTTP`,
        percentile(httpMs, 95),
        'ms',
        30,
        percentile(sqlMs, 95),
      ),
      maxRow('search', 'p50 over HTTP', httpP50, 'ms', 5, sqlP50),
      maxRow('search', 'HTTP added at p50', httpP50 - sqlP50, 'ms', 1),
      { ...maxRow('search', `typos without a hit (of ${typos})`, typoMisses, 'queries', Math.round(typos / 10)) },
    ];
  } finally {
    await hello.stop();
    await api.stop();
    await close();
    await closeSearch();
    await closeProductSearch();
  }
}
