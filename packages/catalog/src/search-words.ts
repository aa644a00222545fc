import type { Queryable } from '@nutrition/db';

/**
 * Adds the words of product names to the typo-correction vocabulary: the lexemes of the folded names in the same
 * `simple` text search configuration that product search uses, so a corrected word is one full text can match.
 */
export async function refreshSearchWords(
  sql: Queryable,
  only: { productIds?: string[]; changedSince?: Date } = {},
): Promise<void> {
  await sql`
    INSERT INTO search_words (word)
    SELECT DISTINCT w.lexeme
    FROM product_aliases a ${
      only.changedSince
        ? sql`JOIN products p ON p.id = a.product_id AND p.updated_at >=
      ${only.changedSince}`
        : sql``
    },
         unnest(to_tsvector('simple', a.search_name)) AS w
    WHERE length(w.lexeme) >= 3 ${only.productIds ? sql`AND a.product_id = ANY(${only.productIds}::uuid[])` : sql``}
    ON CONFLICT DO NOTHING`;
}
