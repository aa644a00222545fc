-- Hand-written. A dish logged by a name the catalog did not know had that name only in the language it was typed in,
-- and every reader falls back to English only, so in any other language the entry had no name. New ones get the
-- name in English too; this gives it to those made before.
INSERT INTO "dish_translations" ("dish_id", "language_code", "name")
SELECT DISTINCT ON (t."dish_id") t."dish_id", 'en', t."name"
FROM "dish_translations" t JOIN "dishes" d ON d."id" = t."dish_id"
WHERE d."source" = 'stub'
  AND NOT EXISTS (SELECT 1 FROM "dish_translations" e WHERE e."dish_id" = t."dish_id" AND e."language_code" = 'en')
ORDER BY t."dish_id", t."language_code";
