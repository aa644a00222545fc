import type postgres from 'postgres';
import type { Queryable, Sql } from '@nutrition/db';

/**
 * The distinct words (3+ characters) of product names: the lexemes of the folded names in the same `simple` text
 * search configuration that product search uses, so a corrected word is one full text can match.
 */
function wordsOf(sql: Queryable, only: { productIds?: string[]; changedSince?: postgres.Fragment }) {
  return sql`
    SELECT DISTINCT w.lexeme AS word
    FROM product_aliases a ${
      only.changedSince ? sql`JOIN products p ON p.id = a.product_id AND p.updated_at >= ${only.changedSince}` : sql``
    },
         unnest(to_tsvector('simple', a.search_name)) AS w
    WHERE length(w.lexeme) >= 3 ${only.productIds ? sql`AND a.product_id = ANY(${only.productIds}::uuid[])` : sql``}`;
}

/** Adds the words of the given products' names, or of every name, to the typo-correction vocabulary. */
export async function refreshSearchWords(sql: Queryable, only: { productIds?: string[] } = {}): Promise<void> {
  await sql`INSERT INTO search_words (word) ${wordsOf(sql, only)} ON CONFLICT DO NOTHING`;
}

/**
 * Adds the words of the names changed since `since` (a bulk import's) to the vocabulary. They are collected into a
 * temporary table first: PostgreSQL collects them with parallel workers there, where an INSERT ... SELECT runs on one
 * core (a million names on two cores: 6.5 s against 10-11.6 s). The time is a literal, as a utility statement takes
 * no parameters; it is a Date's own ISO text.
 */
export async function learnSearchWords(sql: Sql, since: Date): Promise<void> {
  await sql.begin(async (tx) => {
    const changedSince = tx.unsafe(`'${since.toISOString()}'::timestamptz`);
    await tx`CREATE TEMP TABLE new_search_words ON COMMIT DROP AS ${wordsOf(tx, { changedSince })}`;
    await tx`INSERT INTO search_words (word) SELECT word FROM new_search_words ON CONFLICT DO NOTHING`;
  });
}
