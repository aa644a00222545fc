import { stat } from 'node:fs/promises';
import { createDatabase, openDatabaseTarget } from '@nutrition/db';
import { importFoodDump, type ImportSummary } from './importer.ts';

/**
 * `pnpm catalog:import <file>`: an Open Food Facts dump (CSV export, or JSONL plain or .gz) into the database that
 * `pnpm start` uses (DATABASE_URL, else the embedded server, also while the service runs).
 */
const path = process.argv[2];
if (!path) {
  console.error('usage: pnpm catalog:import <off-export.csv | products.jsonl | products.jsonl.gz>');
  process.exit(2);
}
await stat(path).catch(() => {
  console.error(`no such file: ${path}`);
  process.exit(2);
});

const target = await openDatabaseTarget();
const { sql, close } = createDatabase(target.url, { max: 2, applicationName: 'nutrition-import' });
const started = Date.now();
const tty = process.stderr.isTTY;
const progress = (s: ImportSummary) => {
  if (!tty) return;
  const seconds = (Date.now() - started) / 1000;
  const rate = Math.round(s.read / Math.max(seconds, 0.001));
  const width = 30;
  const filled = Math.min(width, Math.floor((seconds % 3) * (width / 3)));
  process.stderr.write(
    `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ` +
      `${s.read.toLocaleString('en')} rows  ${rate.toLocaleString('en')} rows/s `,
  );
};
try {
  const languages = (await sql<{ code: string }[]>`SELECT code FROM languages WHERE is_active`).map((l) => l.code);
  const summary = await importFoodDump(sql, path, languages, { onProgress: progress });
  if (tty) process.stderr.write('\n');
  const seconds = (Date.now() - started) / 1000;
  console.log(`read ${summary.read} rows in ${seconds.toFixed(1)} s (${Math.round(summary.read / seconds)} rows/s)`);
  console.log(
    `inserted ${summary.inserted}, updated ${summary.updated}, unchanged ${summary.unchanged}, ` +
      `duplicates merged ${summary.duplicates}`,
  );
  const skipped = Object.entries(summary.skipped);
  console.log(
    `skipped ${skipped.reduce((n, [, c]) => n + (c ?? 0), 0)}${skipped.map(([r, c]) => `, ${r} ${c}`).join('')}`,
  );
  console.log(`foreign keys checked ${summary.keysChecked}`);
} finally {
  await close();
  await target.stop();
}
