import type postgres from 'postgres';
import type { Queryable } from '../client.ts';
import { runStatementText, statementSlots, statementText } from '../statement-text.ts';
import { localizedName } from './localized.ts';
import { visibleDish, visibleRecipe } from './ownership.ts';
import { type NutrientsPerServing, PRODUCT_NUTRIENTS, RECIPE_NUTRIENTS } from './nutrients.ts';

export interface DishFilters {
  category?: string;
  cuisine?: string;
  tag?: string;
}

/** `%`, `_` and `\` are literal characters in a user's query, never LIKE wildcards. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The words of a query: letters and digits of any script, lower case. Nothing else reaches a tsquery. */
export function queryWords(q: string): string[] {
  return q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * Chinese and Japanese write compounds as one word, and Korean often does (`猪肉香肠`, pork sausage; `된장찌개`):
 * a query word in these scripts also matches inside a name, at any length, where other words need 3+ letters. The
 * same character class serves JavaScript and PostgreSQL's regular expressions.
 */
const COMPOUNDING_SCRIPT = '[\\u3040-\\u30ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\uac00-\\ud7af\\uf900-\\ufaff]';
const compounding = new RegExp(COMPOUNDING_SCRIPT, 'u');
const someCompounding = (words: string[]) => words.some((w) => compounding.test(w));

/**
 * The query's words that hold a symbol inside (`a%b`, `m&m`, `50%off`), trimmed of punctuation at their ends: a name
 * must contain each as written (folded), so `%` matches a literal `%` and `a%b` is not the two words `a` and `b`.
 * Hyphens, apostrophes, dots, commas and slashes join or separate words in names (`alho-frances`, `l'huile`, `1.5`):
 * around them the words are matched one by one, typos included.
 */
export function literalWords(q: string): string[] {
  return q
    .toLowerCase()
    .split(/[\s\-'’.,/]+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
    .filter((w) => /[^\p{L}\p{N}]/u.test(w));
}

/** A prefix tsquery over words (`'bors':* & 'ukr':*`); words are quoted, and hold only letters and digits. */
function prefixQuery(words: string[]): string {
  return words.map((w) => `'${w}':*`).join(' & ');
}

/**
 * A text expression quoted as a tsquery lexeme: folding can add quotes or spaces (`ŉ` is `'n`), and vocabulary words
 * of URLs and paths keep quotes and backslashes.
 */
function lexeme(sql: Queryable, expression: string) {
  return sql.unsafe(`('''' || replace(replace(${expression}, '\\', '\\\\'), '''', '''''') || '''')`);
}

/**
 * `column` starting with `prefix`, as a range only the text_pattern_ops btree serves, in its order (for a LIKE prefix
 * the planner would pick the trigram index and sort every match); chr(1114111) is the last code point.
 */
function startingWith(sql: Queryable, column: string, prefix: postgres.Fragment) {
  const c = sql.unsafe(column);
  return sql`${c} ~>=~ ${prefix} AND ${c} ~<~ (${prefix} || chr(1114111))`;
}

/** No word of the vocabulary (`search_words`) is `word` or starts with it: a typo, when the word is long enough. */
function startsNoWord(sql: Queryable, word: postgres.Fragment) {
  return sql`NOT EXISTS (SELECT 1 FROM search_words p WHERE ${startingWith(sql, 'p.word', word)})`;
}

/** The three vocabulary words closest to `word` (trigram distance), where `when` holds: a typo's corrections. */
function closestWords(sql: Queryable, word: postgres.Fragment, when: postgres.Fragment) {
  return sql`SELECT word FROM search_words WHERE ${when} AND word % ${word} ORDER BY word <-> ${word} LIMIT 3`;
}

/** Every word, folded as names are (`fold_text`), as a word prefix: a `simple` tsquery. */
function foldedPrefixQuery(sql: Queryable, words: string[] | postgres.Parameter) {
  return sql`(SELECT to_tsquery('simple', string_agg(${lexeme(sql, 'fold_text(w)')} || ':*', ' & ' ORDER BY n))
    FROM unnest(${words}::text[]) WITH ORDINALITY AS x(w, n))`;
}

/**
 * The ranking tier of a name `c.search_name` (folded; `v.v` is its `simple` tsvector) in language `c.language_code`
 * for the folded query; the score is the tier plus a text similarity below 1. Exact names first, then names starting
 * with the query in the request language, then names holding every query word as a word prefix in the request
 * language, then both of these in other languages, then matches only inside words or through a typo correction. A
 * name of unknown language counts as the request language's. Tiers are `float8`, as the similarity they are added to
 * is: a `numeric` tier was converted through text for each candidate (3 % of a search's time in PostgreSQL).
 */
function rankTier(
  sql: Queryable,
  folded: postgres.Fragment,
  language: postgres.Parameter,
  words: postgres.Parameter | null,
) {
  const own = sql`(c.language_code = ${language} OR c.language_code IS NULL)`;
  return sql`(CASE
    WHEN c.search_name = ${folded} THEN 4::float8
    WHEN starts_with(c.search_name, ${folded}) THEN CASE WHEN ${own} THEN 3::float8 ELSE 1.5::float8 END
    ${
      words
        ? sql`WHEN v.v @@ ${foldedPrefixQuery(sql, words)}
                THEN CASE WHEN ${own} THEN 2::float8 ELSE 1.5::float8 END`
        : sql``
    }
    ELSE 1::float8 END)`;
}

/**
 * A product's columns with its names in `lang` (English, then the canonical name, where missing). The names are scalar
 * subqueries rather than joins, which cost more to plan than the search costs to run.
 */
const PRODUCT_COLUMNS = (sql: Queryable, lang: string | postgres.Parameter) => sql`
  p.id, p.canonical_name,
  COALESCE(${localizedName(
    sql,
    'product_aliases',
    sql`x.product_id = p.id AND
    x.is_primary`,
    lang,
  )}, p.canonical_name) AS name,
  p.barcode, p.brand, p.category_code,
  ${localizedName(sql, 'product_category_translations', sql`x.category_code = p.category_code`, lang)} AS category_name,
  p.calories_per_100g::float8 AS calories_per_100g, p.protein_per_100g::float8 AS protein_per_100g,
  p.fat_per_100g::float8 AS fat_per_100g, p.carbs_per_100g::float8 AS carbs_per_100g, ${PRODUCT_NUTRIENTS(sql)},
  p.edible_portion::float8 AS edible_portion, p.default_unit_code,
  ${localizedName(sql, 'unit_translations', sql`x.unit_code = p.default_unit_code`, lang)} AS default_unit_name,
  COALESCE(p.storage_days,
    (SELECT c.default_storage_days FROM product_categories c WHERE c.code = p.category_code)) AS storage_days`;

export interface ProductRow {
  id: string;
  canonical_name: string;
  name: string;
  barcode: string | null;
  brand: string | null;
  category_code: string | null;
  category_name: string | null;
  calories_per_100g: number | null;
  protein_per_100g: number | null;
  fat_per_100g: number | null;
  carbs_per_100g: number | null;
  fiber_per_100g: number | null;
  sugars_per_100g: number | null;
  saturated_fat_per_100g: number | null;
  salt_per_100g: number | null;
  edible_portion: number;
  default_unit_code: string;
  default_unit_name: string | null;
  storage_days: number | null;
  score: number;
}

export interface ProductSearch {
  q: string;
  language: string;
  limit: number;
  /** Keyset of the last row of the previous page. */
  after?: { score: number; id: string };
  category?: string;
  /** Only curated products that recipes use (seed, model- or user-named), not bulk-imported packaged goods. */
  ingredientsOnly?: boolean;
}

/** Candidates taken per method before ranking: ranking reads each candidate, so the set stays bounded. */
const CANDIDATES = 150;

/**
 * Catalog reads. Search ranks a bounded candidate set: names equal to or starting with the query (btree), names
 * containing every query word as a word prefix (full text, each word widened by the closest vocabulary words when it
 * looks misspelt), ranked by the greater of text rank and trigram similarity. Product search runs on
 * `productSearchSql`, meant for generic plans (its index ranges and full text plan the same for any query, and
 * planning cost more than running), its text built once for each shape of search; dish search, whose LIKE and trigram
 * conditions go wrong in a generic plan, runs unprepared on `searchSql`.
 */
export function catalogRepository(sql: Queryable, searchSql: Queryable = sql, productSearchSql: Queryable = sql) {
  // Product search's statements are built once per shape (`statementText`), with these slots for their values.
  const db = productSearchSql;
  const { slots: P, keys: slotKeys } = statementSlots(db, [
    'q',
    'language',
    'words',
    'literal',
    'candidates',
    'limit',
    'pageSize',
    'category',
    'afterScore',
    'afterId',
  ] as const);
  type SearchValues = Partial<Record<keyof typeof P, postgres.SerializableParameter>>;
  const statements = new Map<string, { text: string; keys: string[] }>();
  const shaped = <T extends object[]>(shape: string, build: () => postgres.Fragment, values: SearchValues) => {
    let statement = statements.get(shape);
    if (!statement) {
      statement = statementText(build(), slotKeys);
      statements.set(shape, statement);
    }
    return runStatementText<T>(db, statement, values);
  };

  /**
   * The query's words and their corrections as CTEs of the search statement itself (one round trip). `query_words`:
   * each word folded as names are, and whether it is a typo (3+ characters, and neither a word nor a word prefix of
   * any name: a range on the vocabulary's text_pattern_ops index). `fixes`: vocabulary words that are the word cut
   * short by one or two letters (`tomatoe` is `tomato`, `eggs` is `egg`) and, for a typo, the three closest
   * vocabulary words. `tsq`: every word as a word prefix, or one of its fixes; every word is quoted as a tsquery
   * lexeme.
   */
  const wordCtes = () => db`
    query_words AS MATERIALIZED (
      SELECT t.ord, w.w, length(w.w) >= 3 AND ${startsNoWord(db, db`w.w`)} AS typo
      FROM unnest(${P.words}::text[]) WITH ORDINALITY AS t(w, ord) CROSS JOIN LATERAL (SELECT fold_text(t.w) AS w) w),
    fixes AS MATERIALIZED (
      SELECT q.ord, q.typo, s.word, s.word <-> q.w AS distance FROM query_words q CROSS JOIN LATERAL (
        SELECT word FROM search_words
        WHERE length(q.w) >= 4 AND word IN (left(q.w, -1), left(q.w, -2)) AND length(word) >= 3
        UNION
        (${closestWords(db, db`q.w`, db`q.typo`)})) s),
    tsq AS (
      SELECT string_agg('(' || ${lexeme(db, 'q.w')} || ':*' || COALESCE((
               SELECT string_agg(' | ' || ${lexeme(db, 'f.word')}, '')
               FROM fixes f WHERE f.ord = q.ord), '') || ')', ' & ' ORDER BY q.ord)::tsquery AS tsq
      FROM query_words q)`;

  /**
   * A search's shape (what its statement's text depends on) and the values of its slots. `limit` is the number of
   * products the ranked page keeps.
   */
  const searchShape = (s: ProductSearch, limit: number) => {
    const q = s.q.trim().toLowerCase();
    const words = queryWords(q);
    const literal = literalWords(q);
    const typed = q.length > 2 && words.length > 0;
    const shape = {
      words: words.length > 0,
      typed,
      inside: someCompounding(words),
      fixed: typed && words.length === 1,
      literal: literal.length > 0,
      category: Boolean(s.category),
      after: s.after !== undefined,
      ingredientsOnly: s.ingredientsOnly === true,
    };
    const values: SearchValues = {
      q,
      language: s.language,
      words,
      literal,
      candidates: CANDIDATES,
      limit,
      pageSize: s.limit,
      category: s.category,
      afterScore: s.after?.score,
      afterId: s.after?.id,
    };
    return { shape, values };
  };
  type SearchShape = ReturnType<typeof searchShape>['shape'];

  /**
   * The search statement up to its `page` CTE: the candidates, ranked (`score`), cut to `limit` products in page
   * order (score, then id, both descending), without their names yet.
   */
  const rankedPage = (s: SearchShape) => {
    // The folded query, computed once per statement (a scalar subquery): a call per candidate costs more than the
    // rest of ranking it.
    const folded = db`(SELECT fold_text(${P.q}))`;
    const startsWith = startingWith(db, 'a.search_name', folded);
    // Ingredients: candidates from curated names only (their own small indexes). Filtering imported products out
    // after the candidate limit would leave a common word with none: a million imported names crowd them out.
    const curated = s.ingredientsOnly ? db`AND NOT a.imported` : db``;
    const filter = s.category ? db`AND p.category_code = ${P.category}` : db``;
    const { typed, fixed } = s;
    const tsq = typed ? db`(SELECT tsq FROM tsq)` : db`NULL::tsquery`;
    // A one-word typo (no name holds it as a word prefix, so every match is a correction's, in one tier): curated
    // names holding a correction, on their own small full-text index, and other names starting with one, closest
    // correction first, as index ranges in order. Full text over every name would visit each name that holds a
    // common correction (80,000 for `chocolte` at a million products) before any limit applies.
    const startingWithFixes = db`
        SELECT a.* FROM (SELECT word FROM fixes WHERE typo ORDER BY distance, word) f
        CROSS JOIN LATERAL (
          SELECT a.product_id, a.search_name, a.language_code, a.is_primary FROM product_aliases a
          WHERE ${startingWith(db, 'a.search_name', db`f.word`)} ${curated}
          -- OFFSET 0: the match below is checked name by name in the range's order, never as a bitmap of the
          -- full-text index
          ORDER BY a.search_name USING ~<~ OFFSET 0) a
        WHERE to_tsvector('simple', a.search_name) @@ ${tsq}
        LIMIT ${P.candidates}`;
    // Full text finds names holding the words anywhere: the costly part for a common word, whose every match the
    // index visits before a limit applies. A first page that names starting with the query in the request language
    // already fill cannot hold any of its matches (they rank a tier lower), so then it is not run at all; nor when
    // a typo's candidates above fill it, as full text would only add more of the same tier.
    const fill = (ctes: string[], ownLanguage: boolean) =>
      db`AND (SELECT count(DISTINCT x.product_id)
                FROM (${db.unsafe(ctes.map((c) => `SELECT * FROM ${c}`).join(' UNION ALL '))}) x
                ${ownLanguage ? db`WHERE x.language_code = ${P.language} OR x.language_code IS NULL` : db``}
              ) < ${P.limit}`;
    const prefixesFill =
      !s.after && !s.category
        ? db`${fill(['own', 'pre'], true)} ${fixed ? fill(['fix_own', 'fix'], false) : db``}`
        : db``;
    // Rank and cut to one page first; only the page's rows get their names, category and unit.
    return db`
        WITH ${typed ? db`${wordCtes()},` : db``}
        -- Curated names in the request language starting with q come first, on their own small index: otherwise a
        -- letter or two would fill the candidates with other languages' names in alphabetical order.
        own AS MATERIALIZED (
          SELECT a.product_id, a.search_name, a.language_code, a.is_primary FROM product_aliases a
          WHERE a.language_code = ${P.language} AND NOT a.imported AND ${startsWith}
          ORDER BY a.search_name USING ~<~ LIMIT ${P.candidates}),
        pre AS MATERIALIZED (
          SELECT a.product_id, a.search_name, a.language_code, a.is_primary FROM product_aliases a
          WHERE ${startsWith} ${curated} ORDER BY a.search_name USING ~<~ LIMIT ${P.candidates}),
        ${
          fixed
            ? db`fix_own AS MATERIALIZED (
                   SELECT a.product_id, a.search_name, a.language_code, a.is_primary FROM product_aliases a
                   WHERE (SELECT typo FROM query_words) AND NOT a.imported
                     AND to_tsvector('simple', a.search_name) @@ ${tsq}
                   LIMIT ${P.candidates}),
                 fix AS MATERIALIZED (${startingWithFixes}),`
            : db``
        }
        ${
          // Chinese, Japanese or Korean: curated names holding every word anywhere, shortest (closest) first. Imported
          // names are left out: no index finds one or two characters inside a million names.
          s.inside
            ? db`inside AS MATERIALIZED (
                   SELECT a.product_id, a.search_name, a.language_code, a.is_primary FROM product_aliases a
                   -- (query words hold only letters and digits: nothing to escape in a LIKE pattern)
                   WHERE NOT a.imported
                     AND a.search_name LIKE ALL (
                       ARRAY(SELECT '%' || fold_text(w) || '%' FROM unnest(${P.words}::text[]) w))
                   ORDER BY length(a.search_name), a.search_name LIMIT ${P.candidates}),`
            : db``
        }
        c AS (
          SELECT * FROM own UNION ALL SELECT * FROM pre
          ${fixed ? db`UNION ALL SELECT * FROM fix_own UNION ALL SELECT * FROM fix` : db``}
          ${s.inside ? db`UNION ALL SELECT * FROM inside` : db``}
          ${
            // 1-2 characters: only names starting with them (an index range scan); more costs seconds at scale.
            typed
              ? db`UNION ALL
                   (SELECT a.product_id, a.search_name, a.language_code, a.is_primary FROM product_aliases a
                    WHERE to_tsvector('simple', a.search_name) @@ ${tsq} ${curated} ${prefixesFill}
                    LIMIT ${P.candidates})`
              : db``
          }),
        ranked AS (
          SELECT c.product_id, round(max(t.tier + least(0.999, greatest(
                   COALESCE(ts_rank(v.v, ${tsq}), 0),
                   -- the whole name's likeness orders names holding the query; with the closest word's, corrections
                   CASE WHEN t.tier > 1 THEN similarity(c.search_name, ${folded})
                        ELSE (similarity(c.search_name, ${folded}) + word_similarity(${folded}, c.search_name)) / 2 END)
                   -- within a tier, a product's own name well before another name it is also known by (at 0.9 the
                   -- alias "chicken egg" tied with Chicken drumstick for chicken)
                   * CASE WHEN c.is_primary THEN 1::float8 ELSE 0.5::float8 END))::numeric, 4) AS score
          FROM c
          -- computed once per candidate (OFFSET 0 keeps the subqueries from being inlined into every use)
          CROSS JOIN LATERAL (SELECT to_tsvector('simple', c.search_name) AS v OFFSET 0) v
          CROSS JOIN LATERAL (SELECT ${rankTier(db, folded, P.language, s.words ? P.words : null)} AS tier OFFSET 0) t
          ${
            // only when there are such words: checking none still costs a function scan per candidate
            s.literal
              ? db`WHERE NOT EXISTS (SELECT 1 FROM unnest(${P.literal}::text[]) x
                                     WHERE strpos(c.search_name, fold_text(x)) = 0)`
              : db``
          }
          GROUP BY c.product_id
        ),
        page AS (
          -- products joined only to filter by category: a probe per candidate otherwise spent for nothing
          SELECT r.product_id, r.score FROM ranked r ${s.category ? db`JOIN products p ON p.id = r.product_id` : db``}
          WHERE true ${filter}
            ${s.after ? db`AND (r.score, r.product_id) < (${P.afterScore}::numeric, ${P.afterId}::uuid)` : db``}
          ORDER BY r.score DESC, r.product_id DESC
          LIMIT ${P.limit}
        )`;
  };

  return {
    async searchProducts(s: ProductSearch): Promise<ProductRow[]> {
      const { shape, values } = searchShape(s, s.limit);
      const build = () => db`
        ${rankedPage(shape)}
        SELECT ${PRODUCT_COLUMNS(db, P.language)}, page.score::float8 AS score
        FROM page JOIN products p ON p.id = page.product_id
        ORDER BY page.score DESC, p.id DESC`;
      return shaped<ProductRow[]>(`rows ${JSON.stringify(shape)}`, build, values);
    },

    /**
     * One page of `searchProducts` as the API sends it: `items` is the JSON array of the first `s.limit` products
     * (built by PostgreSQL, so the API neither parses the rows nor serialises them again), `last` the keyset of the
     * last of them when another product follows.
     */
    async searchProductsPage(s: ProductSearch): Promise<{ items: string; last: { score: number; id: string } | null }> {
      const { shape, values } = searchShape(s, s.limit + 1);
      const build = () => db`
        ${rankedPage(shape)},
        numbered AS (SELECT page.*, row_number() OVER (ORDER BY page.score DESC, page.product_id DESC) AS n FROM page)
        SELECT COALESCE((
                 SELECT json_agg(x ORDER BY x.score DESC, x.id DESC) FROM (
                   SELECT ${PRODUCT_COLUMNS(db, P.language)}, page.score::float8 AS score
                   FROM numbered page JOIN products p ON p.id = page.product_id
                   WHERE page.n <= ${P.pageSize}) x)::text, '[]') AS items,
               l.score::float8 AS last_score, l.product_id AS last_id
        -- the page's last product, when one more follows it
        FROM (SELECT) one LEFT JOIN numbered l
          ON l.n = ${P.pageSize} AND EXISTS (SELECT 1 FROM numbered m WHERE m.n > ${P.pageSize})`;
      const [page] = await shaped<{ items: string; last_score: number | null; last_id: string | null }[]>(
        `page ${JSON.stringify(shape)}`,
        build,
        values,
      );
      return {
        items: page!.items,
        last: page!.last_id === null ? null : { score: page!.last_score!, id: page!.last_id },
      };
    },

    async productById(id: string, language: string): Promise<Omit<ProductRow, 'score'> | null> {
      const [row] = await sql<ProductRow[]>`
        SELECT ${PRODUCT_COLUMNS(sql, language)} FROM products p WHERE p.id = ${id}`;
      return row ?? null;
    },

    async productByBarcode(barcode: string, language: string): Promise<Omit<ProductRow, 'score'> | null> {
      const [row] = await sql<ProductRow[]>`
        SELECT ${PRODUCT_COLUMNS(sql, language)} FROM products p WHERE p.barcode = ${barcode}`;
      return row ?? null;
    },

    async listDishes(filters: DishFilters, language: string, limit: number, afterId?: string) {
      return sql<DishSummaryRow[]>`
        SELECT ${DISH_SUMMARY(sql)}
        FROM dishes d ${DISH_JOINS(sql, language)}
        WHERE d.source = 'catalog'
          ${filters.category ? sql`AND d.category_code = ${filters.category}` : sql``}
          ${filters.cuisine ? sql`AND d.cuisine_code = ${filters.cuisine}` : sql``}
          ${
            filters.tag
              ? sql`AND EXISTS (SELECT 1 FROM dish_tags x WHERE x.dish_id = d.id AND x.tag_code =
            ${filters.tag})`
              : sql``
          }
          ${afterId ? sql`AND d.id > ${afterId}` : sql``}
        ORDER BY d.id LIMIT ${limit}`;
    },

    /**
     * The catalog's dishes and the caller's own, by their names in every language: full text in each name's own
     * language configuration and in `simple` (prefixes), trigram similarity of the whole name and of its best-matching
     * word (typos, unfinished words), and substring; all but the stemmed full text compare names folded (case and
     * accents: `creme brulee` finds Crème brûlée).
     */
    async searchDishes(
      userId: string,
      q: string,
      language: string,
      limit: number,
      after?: { score: number; id: string },
    ) {
      const text = q.trim().toLowerCase();
      const words = queryWords(text);
      const tsq = words.length > 0 ? prefixQuery(words) : null;
      const contains = `%${escapeLike(text)}%`;
      const name = sql`fold_text(t.name)`;
      // every word inside the name: candidates of their own for Chinese, Japanese or Korean words
      const inside = someCompounding(words)
        ? sql`OR NOT EXISTS (SELECT 1 FROM unnest(q.words) w WHERE strpos(${name}, w) = 0)`
        : sql``;
      return searchSql<(DishSummaryRow & { score: number })[]>`
        WITH q AS (SELECT fold_text(${text}) AS text, fold_text(${contains}) AS contains,
                          ARRAY(SELECT fold_text(w) FROM unnest(${words}::text[]) w) AS words
                   ${words.length > 0 ? sql`, ${foldedPrefixQuery(sql, words)} AS folded` : sql``}),
        -- Corrections of a misspelt word (4+ letters, no word starts with it): the closest words of the catalog's
        -- vocabulary, as product search takes them (chiken: chicken), and names holding one as a word prefix.
        fix AS MATERIALIZED (
          -- (the first four words only: each lookup reads the vocabulary, and a name is checked against each fix)
          SELECT w, f.word FROM q, unnest(q.words[1:4]) w
          CROSS JOIN LATERAL (${closestWords(sql, sql`w`, sql`length(w) >= 4 AND ${startsNoWord(sql, sql`w`)}`)}) f),
        fixq AS (SELECT to_tsquery('simple', string_agg(${lexeme(sql, 'word')} || ':*', ' | ')) AS tsq FROM fix),
        m AS (
          SELECT t.dish_id, max(
            CASE
              WHEN ${name} = q.text THEN 4
              WHEN starts_with(${name}, q.text) THEN CASE WHEN t.language_code = ${language} THEN 3 ELSE 1.5 END
              ${
                words.length > 0
                  ? sql`WHEN to_tsvector('simple', ${name}) @@ q.folded
                          THEN CASE WHEN t.language_code = ${language} THEN 2 ELSE 1.5 END`
                  : sql``
              }
              ELSE 1 END
            + least(0.999, greatest(
              ${
                tsq
                  ? sql`ts_rank(to_tsvector(l.search_config::regconfig, t.name),
                                to_tsquery(l.search_config::regconfig, ${tsq})),
                        ts_rank(to_tsvector('simple', ${name}), q.folded),`
                  : sql``
              }
              similarity(${name}, q.text),
              word_similarity(q.text, ${name}),
              CASE WHEN ${name} LIKE q.contains THEN 0.6 ELSE 0 END))) AS score
          FROM q, fixq, dish_translations t
          JOIN languages l ON l.code = t.language_code
          JOIN dishes d ON d.id = t.dish_id AND ${visibleDish(sql, userId)}
          WHERE (${name} LIKE q.contains
             OR ${name} % q.text
             OR q.text <% ${name}
             OR to_tsvector('simple', ${name}) @@ fixq.tsq
             ${inside}
             ${
               tsq
                 ? sql`OR to_tsvector(l.search_config::regconfig, t.name)
                      @@ to_tsquery(l.search_config::regconfig, ${tsq})
             OR to_tsvector('simple', ${name}) @@ q.folded`
                 : sql``
             })
            -- Every query word matches: as a word prefix, or (3+ letters, or any in a compounding script) inside a
            -- word, or as a likely typo (a stemmed match alone would drop stop words); a word with punctuation inside,
            -- literally.
            AND NOT EXISTS (SELECT 1 FROM unnest(${literalWords(text)}::text[]) x
                            WHERE strpos(${name}, fold_text(x)) = 0)
            AND NOT EXISTS (
              SELECT 1 FROM unnest(q.words) AS qw(w)
              WHERE NOT (to_tsvector('simple', ${name})
                           @@ to_tsquery('simple', '''' || replace(qw.w, '''', '''''') || ''':*')
                         OR (length(qw.w) >= 3 AND (strpos(${name}, qw.w) > 0 OR qw.w <% ${name}))
                         OR (qw.w ~ ${COMPOUNDING_SCRIPT} AND strpos(${name}, qw.w) > 0)
                         -- qw.w, not w: inside FROM fix a bare w is fix's own column, and any word would match
                         OR EXISTS (SELECT 1 FROM fix WHERE fix.w = qw.w
                                      AND to_tsvector('simple', ${name})
                                          @@ to_tsquery('simple', ${lexeme(sql, 'fix.word')} || ':*'))))
          GROUP BY t.dish_id
        )
        SELECT ${DISH_SUMMARY(sql)}, round(m.score::numeric, 4)::float8 AS score
        FROM m JOIN dishes d ON d.id = m.dish_id ${DISH_JOINS(sql, language)}
        ${
          // The next page: after the last item in (score as sent, id) order.
          after
            ? sql`WHERE (round(m.score::numeric, 4)::float8 < ${after.score}
                     OR (round(m.score::numeric, 4)::float8 = ${after.score} AND d.id > ${after.id}))`
            : sql``
        }
        ORDER BY round(m.score::numeric, 4) DESC, d.id LIMIT ${limit}`;
    },

    /** A catalog dish or one made for the caller, with the recipes the caller may see; null otherwise. */
    async dishById(userId: string, id: string, language: string) {
      const [dish] = await sql<DishSummaryRow[]>`
        SELECT ${DISH_SUMMARY(sql)} FROM dishes d ${DISH_JOINS(sql, language)}
        WHERE d.id = ${id} AND ${visibleDish(sql, userId)}`;
      if (!dish) return null;
      const recipes = await sql<RecipeSummaryRow[]>`
        SELECT r.id, r.source, r.servings::float8 AS servings, r.prep_minutes, r.cook_minutes, r.is_default,
               r.calories_per_serving::float8 AS calories_per_serving,
               r.protein_per_serving::float8 AS protein_per_serving,
               r.fat_per_serving::float8 AS fat_per_serving, r.carbs_per_serving::float8 AS carbs_per_serving,
               ${RECIPE_NUTRIENTS(sql)}, r.image_url
        FROM recipes r WHERE r.dish_id = ${id} AND ${visibleRecipe(sql, userId)} ORDER BY r.is_default DESC, r.id`;
      return { ...dish, recipes };
    },

    /** A catalog recipe or one made for the caller, whole; null otherwise. */
    async recipeById(userId: string, id: string, language: string) {
      const [recipe] = await sql<RecipeRow[]>`
        SELECT r.id, r.dish_id, COALESCE(tl.name, te.name) AS name, r.source, r.servings::float8 AS servings,
               r.prep_minutes, r.cook_minutes,
               r.calories_per_serving::float8 AS calories_per_serving,
               r.protein_per_serving::float8 AS protein_per_serving,
               r.fat_per_serving::float8 AS fat_per_serving, r.carbs_per_serving::float8 AS carbs_per_serving,
               ${RECIPE_NUTRIENTS(sql)},
               COALESCE(nl.notes, ne.notes) AS notes, COALESCE(r.image_url, d.image_url) AS image_url
        FROM recipes r JOIN dishes d ON d.id = r.dish_id
        LEFT JOIN dish_translations tl ON tl.dish_id = d.id AND tl.language_code = ${language}
        LEFT JOIN dish_translations te ON te.dish_id = d.id AND te.language_code = 'en'
        LEFT JOIN recipe_translations nl ON nl.recipe_id = r.id AND nl.language_code = ${language}
        LEFT JOIN recipe_translations ne ON ne.recipe_id = r.id AND ne.language_code = 'en'
        WHERE r.id = ${id} AND ${visibleRecipe(sql, userId)}`;
      if (!recipe) return null;
      const [ingredients, steps] = await Promise.all([
        sql<IngredientRow[]>`
          SELECT i.id, i.product_id, COALESCE(pl.name, pe.name, p.canonical_name, i.name) AS name,
                 i.quantity::float8 AS quantity, i.unit_code, COALESCE(ut.name, ue.name, i.unit_code) AS unit,
                 COALESCE(i.note->>${language}, i.note->>'en') AS note, i.yield_factor::float8 AS yield_factor
          FROM recipe_ingredients i
          LEFT JOIN products p ON p.id = i.product_id
          LEFT JOIN product_aliases pl ON pl.product_id = p.id AND pl.language_code = ${language} AND pl.is_primary
          LEFT JOIN product_aliases pe ON pe.product_id = p.id AND pe.language_code = 'en' AND pe.is_primary
          LEFT JOIN unit_translations ut ON ut.unit_code = i.unit_code AND ut.language_code = ${language}
          LEFT JOIN unit_translations ue ON ue.unit_code = i.unit_code AND ue.language_code = 'en'
          WHERE i.recipe_id = ${id} ORDER BY i.position`,
        sql<{ position: number; text: string; duration_minutes: number | null }[]>`
          SELECT s.position, COALESCE(tl.text, te.text, '') AS text, s.duration_minutes
          FROM recipe_steps s
          LEFT JOIN recipe_step_translations tl ON tl.step_id = s.id AND tl.language_code = ${language}
          LEFT JOIN recipe_step_translations te ON te.step_id = s.id AND te.language_code = 'en'
          WHERE s.recipe_id = ${id} ORDER BY s.position`,
      ]);
      return { ...recipe, ingredients, steps };
    },
  };
}

export interface DishSummaryRow {
  id: string;
  name: string;
  description: string | null;
  category_code: string | null;
  cuisine_code: string | null;
  tags: string[];
  image_url: string | null;
  default_recipe_id: string | null;
  calories_per_serving: number | null;
}

export type RecipeSource = 'catalog' | 'ai' | 'menu' | 'user' | 'stub';

export interface RecipeSummaryRow extends NutrientsPerServing {
  id: string;
  source: RecipeSource;
  servings: number;
  prep_minutes: number | null;
  cook_minutes: number | null;
  is_default: boolean;
  calories_per_serving: number | null;
  protein_per_serving: number | null;
  fat_per_serving: number | null;
  carbs_per_serving: number | null;
  image_url: string | null;
}

export interface IngredientRow {
  id: string;
  product_id: string | null;
  name: string;
  quantity: number;
  unit_code: string;
  unit: string;
  note: string | null;
  yield_factor: number;
}

export interface RecipeRow extends Omit<RecipeSummaryRow, 'is_default'> {
  dish_id: string;
  name: string;
  notes: string | null;
}

const DISH_SUMMARY = (sql: Queryable) => sql`
  d.id, COALESCE(tl.name, te.name) AS name, COALESCE(tl.description, te.description) AS description,
  d.category_code, d.cuisine_code,
  COALESCE((SELECT array_agg(x.tag_code ORDER BY x.tag_code) FROM dish_tags x WHERE x.dish_id = d.id), '{}') AS tags,
  d.image_url, r.id AS default_recipe_id, r.calories_per_serving::float8 AS calories_per_serving`;

const DISH_JOINS = (sql: Queryable, language: string) => sql`
  LEFT JOIN dish_translations tl ON tl.dish_id = d.id AND tl.language_code = ${language}
  LEFT JOIN dish_translations te ON te.dish_id = d.id AND te.language_code = 'en'
  LEFT JOIN recipes r ON r.dish_id = d.id AND r.is_default`;
