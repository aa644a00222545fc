import type { Queryable } from './client.ts';

/**
 * Adds the words of product names to the typo-correction vocabulary: the lexemes of the same `simple` text search
 * configuration that product search uses, so a corrected word is one full text can match.
 */
export async function refreshSearchWords(sql: Queryable, productIds?: string[]): Promise<void> {
  await sql`
    INSERT INTO search_words (word)
    SELECT DISTINCT w.lexeme
    FROM product_aliases a, unnest(to_tsvector('simple', a.name)) AS w
    WHERE length(w.lexeme) >= 3 ${productIds ? sql`AND a.product_id = ANY(${productIds}::uuid[])` : sql``}
    ON CONFLICT DO NOTHING`;
}
