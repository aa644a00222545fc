import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { normalizeFoodRecord, type FoodRecord, type ImportedProduct, type SkipReason } from '@nutrition/domain';
import type postgres from 'postgres';
import type { Sql } from '../client.ts';
import { refreshSearchWords } from '../search-words.ts';
import { csvReader, jsonRecord } from './formats.ts';

export interface ImportSummary {
  read: number;
  inserted: number;
  updated: number;
  unchanged: number;
  /** Rows naming a product an earlier row of the same batch already named (UPC-A and EAN-13 of one product): the last wins. */
  duplicates: number;
  skipped: Partial<Record<SkipReason | 'unparsable', number>>;
}

export interface ImportOptions {
  batchSize?: number;
  onProgress?: (summary: ImportSummary) => void;
}

const BATCH = 5000;

async function isGzip(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

/** COPY text format: backslash, tab, newline and carriage return escaped; `\N` for null. */
function copyField(value: string | number | null): string {
  if (value === null) return '\\N';
  return String(value).replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

/**
 * Streams an Open Food Facts dump (CSV export, or JSONL plain or gzipped) into products and aliases. Rows go through
 * COPY into a staging table in batches, then one upsert per batch keyed by the normalised barcode: a re-import
 * updates instead of duplicating, leaves identical rows untouched, and never overwrites curated (non-imported)
 * products. Memory stays flat whatever the file size.
 */
export async function importFoodDump(sql: Sql, path: string, languages: readonly string[], options: ImportOptions = {}): Promise<ImportSummary> {
  const summary: ImportSummary = { read: 0, inserted: 0, updated: 0, unchanged: 0, duplicates: 0, skipped: {} };
  const skip = (reason: SkipReason | 'unparsable') => (summary.skipped[reason] = (summary.skipped[reason] ?? 0) + 1);
  const gzip = await isGzip(path);
  const conn = await sql.reserve();
  try {
    await conn`
      CREATE TEMP TABLE IF NOT EXISTS food_import (
        seq int, barcode text, canonical_name text, brand text, category_code text,
        calories numeric, protein numeric, fat numeric, carbs numeric, aliases jsonb)`;
    // Opened only now: readline drops lines emitted before its async iterator starts.
    let input: Readable = createReadStream(path);
    if (gzip) input = input.pipe(createGunzip());
    const lines = createInterface({ input, crlfDelay: Infinity });
    let batch: ImportedProduct[] = [];
    let parse: ((line: string) => FoodRecord) | undefined;
    for await (const line of lines) {
      if (!parse) {
        // A JSONL dump starts with a document; the CSV export with its header line.
        if (line.startsWith('{')) parse = (l) => jsonRecord(JSON.parse(l) as Record<string, unknown>);
        else {
          parse = csvReader(line);
          continue;
        }
      }
      if (!line.trim()) continue;
      summary.read++;
      let record: FoodRecord;
      try {
        record = parse(line);
      } catch {
        skip('unparsable');
        continue;
      }
      const product = normalizeFoodRecord(record, languages);
      if (typeof product === 'string') skip(product);
      else batch.push(product);
      if (batch.length >= (options.batchSize ?? BATCH)) {
        await writeBatch(conn, batch, summary);
        batch = [];
        options.onProgress?.(summary);
      }
    }
    if (batch.length > 0) await writeBatch(conn, batch, summary);
    options.onProgress?.(summary);
    await conn`DROP TABLE IF EXISTS food_import`;
  } finally {
    conn.release();
  }
  await refreshSearchWords(sql);
  return summary;
}

async function writeBatch(conn: postgres.ReservedSql<any>, batch: ImportedProduct[], summary: ImportSummary) {
  await conn`TRUNCATE food_import`;
  const copy = await conn`COPY food_import FROM STDIN`.writable();
  await new Promise<void>((resolve, reject) => {
    copy.on('error', reject);
    copy.on('finish', resolve);
    let i = 0;
    const write = () => {
      let ok = true;
      while (i < batch.length && ok) {
        const p = batch[i]!;
        const row = [i, p.barcode, p.canonicalName, p.brand, p.categoryCode, p.calories, p.protein, p.fat, p.carbs, JSON.stringify(p.aliases)];
        ok = copy.write(`${row.map(copyField).join('\t')}\n`);
        i++;
      }
      if (i < batch.length) copy.once('drain', write);
      else copy.end();
    };
    write();
  });
  // The last row of a barcode in the batch wins.
  const changed = await conn<{ id: string; inserted: boolean }[]>`
    WITH src AS (SELECT DISTINCT ON (barcode) * FROM food_import ORDER BY barcode, seq DESC)
    INSERT INTO products (barcode, canonical_name, brand, category_code, calories_per_100g, protein_per_100g,
                          fat_per_100g, carbs_per_100g, source)
    SELECT barcode, canonical_name, brand, category_code, calories, protein, fat, carbs, 'off' FROM src
    ON CONFLICT (barcode) DO UPDATE SET canonical_name = excluded.canonical_name, brand = excluded.brand,
      category_code = excluded.category_code, calories_per_100g = excluded.calories_per_100g,
      protein_per_100g = excluded.protein_per_100g, fat_per_100g = excluded.fat_per_100g,
      carbs_per_100g = excluded.carbs_per_100g, updated_at = now()
    WHERE products.source = 'off'
      AND (products.canonical_name, products.brand, products.category_code, products.calories_per_100g,
           products.protein_per_100g, products.fat_per_100g, products.carbs_per_100g)
      IS DISTINCT FROM (excluded.canonical_name, excluded.brand, excluded.category_code, excluded.calories_per_100g,
           excluded.protein_per_100g, excluded.fat_per_100g, excluded.carbs_per_100g)
    RETURNING id, (xmax = 0) AS inserted`;
  const updatedIds = changed.filter((r) => !r.inserted).map((r) => r.id);
  // Aliases of a changed product are rewritten whole, after the old ones are gone (a new primary name per language
  // would otherwise meet the old one in the unique index).
  if (updatedIds.length > 0) await conn`DELETE FROM product_aliases WHERE product_id = ANY(${updatedIds}::uuid[])`;
  if (changed.length > 0) {
    await conn`
      INSERT INTO product_aliases (product_id, language_code, name, is_primary)
      SELECT p.id, a.language, a.name, a.primary
      FROM (SELECT DISTINCT ON (barcode) * FROM food_import ORDER BY barcode, seq DESC) src
      JOIN products p ON p.barcode = src.barcode AND p.id = ANY(${changed.map((r) => r.id)}::uuid[]),
           jsonb_to_recordset(src.aliases) AS a(language text, name text, "primary" boolean)
      ON CONFLICT DO NOTHING`;
  }
  const [row] = await conn<{ distinct: number }[]>`SELECT count(DISTINCT barcode)::int AS distinct FROM food_import`;
  const counts = { distinct: row!.distinct, inserted: changed.length - updatedIds.length, updated: updatedIds.length };
  summary.duplicates += batch.length - counts.distinct;
  summary.inserted += counts.inserted;
  summary.updated += counts.updated;
  summary.unchanged += counts.distinct - counts.inserted - counts.updated;
}
