import type postgres from 'postgres';
import type { Queryable } from '../client.ts';

/**
 * The `name` of the translation row `matching` the outer row, in `language`, else in English, as a scalar subquery:
 * one index probe, planned on its own rather than as two more joins of the outer query. `matching` names the
 * translation table's columns through the alias `x`.
 */
export const localizedName = (
  sql: Queryable,
  table: string,
  matching: postgres.Fragment,
  language: string | postgres.Parameter,
) => sql`
  (SELECT x.name FROM ${sql(table)} x WHERE ${matching} AND x.language_code IN (${language}, 'en')
   ORDER BY x.language_code = ${language} DESC LIMIT 1)`;
