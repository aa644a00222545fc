-- Ingredient names matched to curated products (see generatedRecipeRepository.matchProducts): an exact folded name
-- first, else the closest name with trigram similarity >= 0.6, null where none; each with its name's position `i`.
-- A function for its SET clause: `%` takes its threshold from pg_trgm.similarity_threshold, and at the default 0.3
-- the trigram index hands every loosely similar name to the similarity filter (a week menu's 150 names took 215-290
-- ms on a slow machine; at 0.6, 36-57 ms with the same answers). The setting holds inside the function only, so
-- product search's typo correction keeps its own.
CREATE FUNCTION match_curated_products(names text[]) RETURNS TABLE (i int, product_id uuid)
LANGUAGE sql STABLE SET pg_trgm.similarity_threshold = 0.6 AS $$
  SELECT q.i::int, m.product_id
  FROM unnest(names) WITH ORDINALITY AS typed(name, i)
  CROSS JOIN LATERAL (SELECT fold_text(typed.name) AS name, typed.i) q
  LEFT JOIN LATERAL (
    SELECT a.product_id FROM product_aliases a
    WHERE NOT a.imported AND (a.search_name = q.name OR a.search_name % q.name)
      AND similarity(a.search_name, q.name) >= 0.6
    ORDER BY a.search_name = q.name DESC, similarity(a.search_name, q.name) DESC, a.is_primary DESC
    LIMIT 1
  ) m ON true
$$;
