import type postgres from 'postgres';
import type { Queryable, Sql } from '@nutrition/db';

/**
 * The distinct words (3+ characters) of product names: the lexemes of the folded names in the same `simple` text
 * search configuration that product search uses, so a corrected word is one full text can match.
 */
function wordsOf(sql: Queryable, only: { productIds?: string[]; addedSince?: postgres.Fragment }) {
  return sql`
    SELECT DISTINCT w.lexeme AS word
    FROM product_aliases a, unnest(to_tsvector('simple', a.search_name)) AS w
    WHERE length(w.lexeme) >= 3
      ${only.productIds ? sql`AND a.product_id = ANY(${only.productIds}::uuid[])` : sql``}
      ${only.addedSince ? sql`AND a.id >= ${only.addedSince}` : sql``}`;
}

/** Adds the words of the given products' names, or of every name, to the typo-correction vocabulary. */
export async function refreshSearchWords(sql: Queryable, only: { productIds?: string[] } = {}): Promise<void> {
  await sql`INSERT INTO search_words (word) ${wordsOf(sql, only)} ON CONFLICT DO NOTHING`;
}

/**
 * The smallest UUIDv7 of the millisecond `time` is in: every id that `uuidv7()` makes from then on sorts at or after it
 * (RFC 9562: the first 48 bits are the Unix time in milliseconds, and uuids compare bytewise).
 */
export function firstUuidv7Of(time: Date): string {
  const ms = time.getTime().toString(16).padStart(12, '0');
  return `${ms.slice(0, 8)}-${ms.slice(8)}-7000-8000-000000000000`;
}

/**
 * Adds the words of the names written since `since` (a bulk import's: it writes a product's names anew whenever it
 * adds or changes the product) to the vocabulary. A name's id is a UUIDv7, so those names are the ids from
 * `since` on, with no join to the products. They are collected into a temporary table first: PostgreSQL collects them
 * with parallel workers there, where an INSERT ... SELECT runs on one core (a million names on two cores: 6.5 s
 * against 10-11.6 s). The bound is a literal, as a utility statement takes no parameters; it is hex digits alone.
 */
export async function learnSearchWords(sql: Sql, since: Date): Promise<void> {
  await sql.begin(async (tx) => {
    const addedSince = tx.unsafe(`'${firstUuidv7Of(since)}'::uuid`);
    await tx`CREATE TEMP TABLE new_search_words ON COMMIT DROP AS ${wordsOf(tx, { addedSince })}`;
    await tx`INSERT INTO search_words (word) SELECT word FROM new_search_words ON CONFLICT DO NOTHING`;
  });
}
