import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { setImmediate as yieldToIo } from 'node:timers/promises';
import { createGunzip } from 'node:zlib';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type postgres from 'postgres';
import { normalizeFoodRecord, type FoodRecord, type ImportedProduct, type SkipReason } from '@nutrition/domain';
import { violatedUnique, type Sql } from '@nutrition/db';
import { learnSearchWords } from '../search-words.ts';
import { csvReader, jsonRecord } from './formats.ts';

/** A connection of the pool held by one writer for the whole import. */
type Reserved = Awaited<ReturnType<Sql['reserve']>>;

export interface ImportSummary {
  read: number;
  inserted: number;
  updated: number;
  unchanged: number;
  /**
   * Rows naming a product an earlier row of the same batch already named (UPC-A and EAN-13 of one product): the last
   * wins.
   */
  duplicates: number;
  /** Rows imported although their code's check digit is wrong (a typo in the source): the code is kept as given. */
  uncheckedBarcodes: number;
  skipped: Partial<Record<SkipReason | 'unparsable', number>>;
  /**
   * How the rows' foreign keys were checked: once per batch where the database role may set
   * `session_replication_role`, per row (by PostgreSQL's own triggers) otherwise.
   */
  keysChecked: 'per batch' | 'per row';
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

const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_SPECIAL_ALL = new RegExp(COPY_SPECIAL.source, 'g');

/**
 * COPY text format: backslash, tab, newline and carriage return escaped; `\N` for null. Numbers and strings without
 * those go as they are: a replace on every field made the COPY line 1.7 µs of the 5.6 µs of CPU a row costs the
 * import process (1.2 now).
 */
function copyField(value: string | number | null): string {
  if (value === null) return '\\N';
  if (typeof value === 'number') return String(value);
  if (!COPY_SPECIAL.test(value)) return value;
  return value.replace(COPY_SPECIAL_ALL, (c) =>
    c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r',
  );
}

/** A product as a line of COPY text format. */
function copyLine(p: ImportedProduct): string {
  const row = [
    p.barcode,
    p.canonicalName,
    p.brand,
    p.categoryCode,
    p.calories,
    p.protein,
    p.fat,
    p.carbs,
    p.nutrients.fiber,
    p.nutrients.sugars,
    p.nutrients.saturated_fat,
    p.nutrients.salt,
    JSON.stringify(p.aliases),
  ];
  return `${row.map(copyField).join('\t')}\n`;
}

/** Characters of COPY text sent in one message. */
const COPY_CHUNK = 64 * 1024;

/** Writer connections: a batch is written on one while the file is read and the next batch written on another. */
const WRITERS = 2;

/**
 * Streams an Open Food Facts dump (CSV export, or JSONL plain or gzipped) into products and aliases. Rows go through
 * COPY into a staging table in batches, then one upsert per batch keyed by the normalised barcode: a re-import
 * updates instead of duplicating, leaves identical rows untouched, and never overwrites curated (non-imported)
 * products. Memory stays flat whatever the file size.
 *
 * Two connections write at once while the file is parsed, and a barcode always goes to the same one (by its digits),
 * so "the last row of a barcode wins" holds across batches as it does within one.
 */
export async function importFoodDump(
  sql: Sql,
  path: string,
  languages: readonly string[],
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const summary: ImportSummary = {
    read: 0,
    inserted: 0,
    updated: 0,
    unchanged: 0,
    duplicates: 0,
    uncheckedBarcodes: 0,
    skipped: {},
    keysChecked: 'per row',
  };
  const skip = (reason: SkipReason | 'unparsable') => (summary.skipped[reason] = (summary.skipped[reason] ?? 0) + 1);
  const gzip = await isGzip(path);
  const [clock] = await sql<{ now: Date }[]>`SELECT now()`;
  const started = clock!.now;
  const size = options.batchSize ?? BATCH;
  const [role] = await sql<{ replica: boolean }[]>`
    SELECT has_parameter_privilege('session_replication_role', 'SET') AS replica`;
  if (role!.replica) summary.keysChecked = 'per batch';
  const writers: {
    conn: Reserved;
    /** The batch as COPY lines by barcode, made as rows are read: the last row of a barcode wins. */
    batch: Map<string, string>;
    rows: number;
    writing: Promise<void>;
  }[] = [];
  try {
    // A pool smaller than that gets fewer writers rather than waiting forever for a connection.
    for (let i = 0; i < Math.min(WRITERS, sql.options.max); i++) {
      const conn = await sql.reserve();
      writers.push({ conn, batch: new Map(), rows: 0, writing: Promise.resolve() });
      // Emptied by each batch's commit: a TRUNCATE per batch was a transaction of its own, waiting for its WAL flush.
      await conn`
        CREATE TEMP TABLE IF NOT EXISTS food_import (
          barcode text, canonical_name text, brand text, category_code text,
          calories numeric, protein numeric, fat numeric, carbs numeric, fiber numeric, sugars numeric,
          saturated_fat numeric, salt numeric, aliases jsonb) ON COMMIT DELETE ROWS`;
    }
    // Starts writing a writer's batch once its previous one is written; a failure surfaces at the next flush.
    const flush = async (writer: (typeof writers)[number]) => {
      const { batch, rows } = writer;
      writer.batch = new Map();
      writer.rows = 0;
      await writer.writing;
      const writing = writeBatch(writer.conn, [...batch.values()], rows, summary).then(() =>
        options.onProgress?.(summary),
      );
      writing.catch(() => {}); // handled where it is awaited; not an unhandled rejection meanwhile
      writer.writing = writing;
    };
    // Opened only now: readline drops lines emitted before its async iterator starts.
    let input: Readable = createReadStream(path);
    if (gzip) input = input.pipe(createGunzip());
    const lines = createInterface({ input, crlfDelay: Infinity });
    let parse: ((line: string) => FoodRecord) | undefined;
    let sinceYield = 0;
    for await (const line of lines) {
      // The writers' replies wait while lines are parsed: every few dozen lines, the event loop gets a turn.
      if (++sinceYield === 32) {
        sinceYield = 0;
        await yieldToIo();
      }
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
      if (typeof product === 'string') {
        skip(product);
        continue;
      }
      if (!product.barcodeChecked) summary.uncheckedBarcodes++;
      const writer = writers[product.barcode.charCodeAt(product.barcode.length - 2) % writers.length]!;
      // The COPY text is made now, while the writers are busy: made at the flush, the writer's COPY waited for it.
      writer.batch.set(product.barcode, copyLine(product));
      if (++writer.rows >= size) await flush(writer);
    }
    for (const writer of writers) if (writer.rows > 0) await flush(writer);
    await Promise.all(writers.map((w) => w.writing));
    options.onProgress?.(summary);
    for (const writer of writers) await writer.conn`DROP TABLE IF EXISTS food_import`;
  } finally {
    // Every write has settled before a connection goes back to the pool.
    await Promise.allSettled(writers.map((w) => w.writing));
    for (const writer of writers) writer.conn.release();
  }
  // The typo vocabulary learns the words of the names this import added or changed.
  await learnSearchWords(sql, started);
  // Vacuumed (visibility map, hint bits) and with fresh statistics, so searches right after a large import neither
  // plan for the catalog as it was nor compete with autovacuum catching up. Pages the import left alone are skipped.
  await sql`VACUUM (ANALYZE) products, product_aliases, search_words`;
  return summary;
}

/** A batch's COPY lines (one per barcode) from `rows` rows read, in one transaction. */
async function writeBatch(conn: Reserved, lines: string[], rows: number, summary: ImportSummary) {
  const counts = await inTransaction(conn, async () => {
    if (summary.keysChecked === 'per batch') await conn`SET LOCAL session_replication_role = replica`;
    await copyInto(conn, lines);
    if (summary.keysChecked === 'per batch') await lockReferences(conn);
    const inserted = await insertNew(conn);
    return inserted === null ? upsert(conn) : { inserted, updated: 0 };
  });
  summary.duplicates += rows - lines.length;
  summary.inserted += counts.inserted;
  summary.updated += counts.updated;
  summary.unchanged += lines.length - counts.inserted - counts.updated;
}

/** The lines into the staging table, which the transaction's commit empties. */
async function copyInto(conn: Reserved, lines: string[]) {
  const copy = await conn`COPY food_import FROM STDIN`.writable();
  await pipeline(Readable.from(copyChunks(lines)), copy);
}

/**
 * The lines joined into chunks of about 64 KiB: postgres.js sends each write as a CopyData message of its own, a socket
 * write per row otherwise.
 */
function* copyChunks(lines: string[]) {
  let chunk = '';
  for (const line of lines) {
    chunk += line;
    if (chunk.length >= COPY_CHUNK) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

/** One transaction per batch: a product is never left without its names. */
async function inTransaction<T>(conn: Reserved, work: () => Promise<T>): Promise<T> {
  await conn`BEGIN`;
  try {
    const result = await work();
    await conn`COMMIT`;
    return result;
  } catch (err) {
    await conn`ROLLBACK`.catch(() => {});
    throw err;
  }
}

/** The unit an imported product is measured in. */
const IMPORTED_UNIT = 'g';

/**
 * The batch's references checked once, for a batch written as a replica (`session_replication_role`), which skips
 * PostgreSQL's per-row foreign-key checks: three a product (its category, its unit, its name's product), a sixth of
 * a 1 M-row import. The categories, languages and unit the batch names are locked as those checks lock them (FOR KEY
 * SHARE: none is deleted before the commit), and one the catalog lacks fails the batch, as a check would. A name's
 * product is the batch's own insert or update, so it exists.
 */
async function lockReferences(conn: Reserved) {
  const [missing] = await conn<{ categories: string[]; languages: string[]; units: string[] }[]>`
    WITH named AS MATERIALIZED (
      SELECT DISTINCT a.language FROM food_import s, jsonb_to_recordset(s.aliases) AS a(language text)
      WHERE a.language IS NOT NULL
    ),
    categories AS MATERIALIZED (
      SELECT code FROM product_categories WHERE code IN (SELECT category_code FROM food_import) FOR KEY SHARE
    ),
    languages AS MATERIALIZED (SELECT code FROM languages WHERE code IN (SELECT language FROM named) FOR KEY SHARE),
    units AS MATERIALIZED (SELECT code FROM units WHERE code = ${IMPORTED_UNIT} FOR KEY SHARE)
    -- EXCEPT reads each locking query whole, so every row the batch names is locked, whatever is missing.
    SELECT
      array(SELECT category_code FROM food_import WHERE category_code IS NOT NULL EXCEPT SELECT code FROM categories)
        AS categories,
      array(SELECT language FROM named EXCEPT SELECT code FROM languages) AS languages,
      array(SELECT ${IMPORTED_UNIT}::text EXCEPT SELECT code FROM units) AS units`;
  const unknown = Object.entries(missing!).filter(([, codes]) => codes.length > 0);
  if (unknown.length > 0) {
    const list = unknown.map(([table, codes]) => `${table} ${codes.join(', ')}`).join('; ');
    throw new Error(`the catalog has no ${list}: seed it before importing`);
  }
}

/** The batch's rows (`food_import s`) inserted as imported products; the caller adds the condition or conflict rule. */
const insertProducts = (conn: Reserved) => conn`
  INSERT INTO products (barcode, canonical_name, brand, category_code, calories_per_100g, protein_per_100g,
                        fat_per_100g, carbs_per_100g, fiber_per_100g, sugars_per_100g,
                        saturated_fat_per_100g, salt_per_100g, default_unit_code, source)
  SELECT barcode, canonical_name, brand, category_code, calories, protein, fat, carbs, fiber, sugars,
         saturated_fat, salt, ${IMPORTED_UNIT}, 'off' FROM food_import s`;

/** The names of the products `p` (their id and barcode) from their batch rows, inserted as imported names. */
const insertNames = (conn: Reserved, products: postgres.Fragment) => conn`
  INSERT INTO product_aliases (product_id, language_code, name, is_primary, imported)
  SELECT p.id, a.language, a.name, a.primary, true
  FROM ${products} JOIN food_import s ON s.barcode = p.barcode,
       jsonb_to_recordset(s.aliases) AS a(language text, name text, "primary" boolean)`;

/**
 * The batch as new products with their names: plain inserts, which cost about a tenth less than the upsert's
 * speculative ones (a first import is all new products). Returns how many, or null when a barcode was known (or
 * another transaction inserted it meanwhile): then nothing of it is kept, and the batch is for the upsert.
 *
 * The barcode's unique index is the check: looking each barcode up first cost the writers 3 % of their time (`perf`),
 * for a lookup the insert makes anyway. A re-import meets a known barcode in its first rows.
 */
async function insertNew(conn: Reserved): Promise<number | null> {
  await conn`SAVEPOINT new_products`;
  try {
    const [row] = await conn<{ n: number }[]>`
      WITH up AS (${insertProducts(conn)} RETURNING id, barcode),
      -- A record's names are distinct, with one primary name per language (normalizeFoodRecord).
      named AS (${insertNames(conn, conn`up p`)})
      SELECT count(*)::int AS n FROM up`;
    await conn`RELEASE SAVEPOINT new_products`;
    return row!.n;
  } catch (err) {
    if (violatedUnique(err) !== 'products_barcode_unique') throw err;
    await conn`ROLLBACK TO SAVEPOINT new_products`;
    return null;
  }
}

/**
 * Upserts the batch by barcode: new products with their names; changed imported ones updated, their names rewritten;
 * identical and curated ones left alone. Returns how many were inserted and updated.
 */
async function upsert(conn: Reserved): Promise<{ inserted: number; updated: number }> {
  const changed = await conn<{ id: string; barcode: string; inserted: boolean }[]>`
    WITH up AS (
      ${insertProducts(conn)}
      ON CONFLICT (barcode) DO UPDATE SET canonical_name = excluded.canonical_name, brand = excluded.brand,
        category_code = excluded.category_code, calories_per_100g = excluded.calories_per_100g,
        protein_per_100g = excluded.protein_per_100g, fat_per_100g = excluded.fat_per_100g,
        carbs_per_100g = excluded.carbs_per_100g, fiber_per_100g = excluded.fiber_per_100g,
        sugars_per_100g = excluded.sugars_per_100g, saturated_fat_per_100g = excluded.saturated_fat_per_100g,
        salt_per_100g = excluded.salt_per_100g, updated_at = now()
      WHERE products.source = 'off'
        AND (products.canonical_name, products.brand, products.category_code, products.calories_per_100g,
             products.protein_per_100g, products.fat_per_100g, products.carbs_per_100g, products.fiber_per_100g,
             products.sugars_per_100g, products.saturated_fat_per_100g, products.salt_per_100g)
        IS DISTINCT FROM (excluded.canonical_name, excluded.brand, excluded.category_code, excluded.calories_per_100g,
             excluded.protein_per_100g, excluded.fat_per_100g, excluded.carbs_per_100g, excluded.fiber_per_100g,
             excluded.sugars_per_100g, excluded.saturated_fat_per_100g, excluded.salt_per_100g)
      RETURNING id, barcode, (xmax = 0) AS inserted
    ),
    named AS (${insertNames(conn, conn`up p`)} WHERE p.inserted ON CONFLICT DO NOTHING)
    SELECT id, barcode, inserted FROM up`;
  const updated = changed.filter((r) => !r.inserted);
  if (updated.length > 0) {
    // Rewritten whole, after the old ones are gone (a new primary name per language would otherwise meet the old
    // one in the unique index).
    const ids = updated.map((r) => r.id);
    const barcodes = updated.map((r) => r.barcode);
    await conn`DELETE FROM product_aliases WHERE product_id = ANY(${ids}::uuid[])`;
    await conn`
      ${insertNames(conn, conn`unnest(${ids}::uuid[], ${barcodes}::text[]) AS p(id, barcode)`)}
      ON CONFLICT DO NOTHING`;
  }
  return { inserted: changed.length - updated.length, updated: updated.length };
}
