import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import postgres from 'postgres';
import { startEmbeddedPostgres } from '@nutrition/db';
import { prepareDatabase } from '../apps/api/src/setup.ts';
import { apiBench } from './api.ts';
import { importBench } from './import.ts';
import { searchBench } from './search.ts';
import { searchLoadBench } from './search-load.ts';
import { appMixedBench } from './app-mixed.ts';
import { queueBench } from './queue.ts';
import { sseBench } from './sse.ts';
import { menuBench } from './menu.ts';
import { uploadBench } from './uploads.ts';
import { syncBench } from './sync.ts';
import { root, type Row } from './lib.ts';

/**
 * `pnpm bench` (`--quick` for small sizes): every benchmark on an embedded PostgreSQL, each figure next to a baseline
 * measured in the same run on the same machine. Prints a table and writes bench/results/latest.json.
 */
const quick = process.argv.includes('--quick');
const outArg = process.argv.indexOf('--out');
const out = outArg > 0 ? process.argv[outArg + 1]! : join(root, 'bench/results/latest.json');
const sizes = quick
  ? {
      ...{ apiSeconds: 2, importRows: 20_000, queries: 100, jobs: 300, pickups: 10, streams: 300, menuRuns: 3 },
      uploads: { images: 2, parallel: 2, idleSeconds: 2 },
    }
  : {
      ...{ apiSeconds: 10, importRows: 1_000_000, queries: 500, jobs: 10_000, pickups: 30, streams: 10_000 },
      menuRuns: 5,
      uploads: { images: 10, parallel: 5, idleSeconds: 60 },
    };

const dir = await mkdtemp(join(tmpdir(), 'nutrition-bench-'));
const pg = await startEmbeddedPostgres({ dataDir: join(dir, 'data'), persistent: false });
const admin = postgres(pg.url(), { max: 1, onnotice: () => {} });
await admin`CREATE DATABASE bench`;
await admin.end();
const url = pg.url('bench');
await prepareDatabase(url);

const rows: Row[] = [];
// `--only search,sse` runs just those benchmarks (while working on one).
const onlyArg = process.argv.indexOf('--only');
const only = onlyArg > 0 ? new Set(process.argv[onlyArg + 1]!.split(',')) : null;
// Each benchmark starts on a vacuumed and analysed database: otherwise autovacuum cleans up after the one before
// (a million imported products, 20,000 queue jobs) while the next one is measured.
const settle = async () => {
  const started = Date.now();
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin`VACUUM (ANALYZE)`;
  await admin.end();
  process.stderr.write(` (vacuum ${((Date.now() - started) / 1000).toFixed(1)} s)`);
};
const step = async (name: string, run: () => Promise<Row[]>) => {
  if (only && !only.has(name)) return;
  process.stderr.write(`[bench] ${name} ...`);
  await settle();
  const started = Date.now();
  rows.push(...(await run()));
  process.stderr.write(` ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
};
try {
  await step('api', () => apiBench(url, sizes.apiSeconds));
  await step('import', () => importBench(url, sizes.importRows, dir));
  // After the import: menus are saved into a catalog that holds the imported products.
  await step('menu', () => menuBench(url, sizes.menuRuns));
  await step('search', () => searchBench(url, sizes.queries));
  await step('search-load', () => searchLoadBench(url, sizes.apiSeconds));
  await step('app-mixed', () => appMixedBench(url, sizes.apiSeconds));
  await step('sync', () => syncBench(url, sizes.menuRuns));
  await step('queue', () => queueBench(url, sizes.jobs, sizes.pickups));
  await step('sse', () => sseBench(url, sizes.streams));
  await step('uploads', () => uploadBench(url, sizes.uploads));
} finally {
  await pg.stop();
  await rm(dir, { recursive: true, force: true });
}

const table = [
  ['id', 'figure', 'value', 'baseline', 'ratio', 'goal', 'met'],
  ...rows.map((r) => [
    r.id,
    r.figure,
    `${r.value} ${r.unit}`,
    r.baseline === null ? '-' : String(r.baseline),
    r.ratio === null ? '-' : String(r.ratio),
    r.goal,
    r.met === null ? '-' : r.met ? 'yes' : 'NO',
  ]),
];
const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
for (const row of table) console.log(row.map((cell, i) => cell.padEnd(widths[i]!)).join('  '));
// A partial run (`--only`) leaves the results file alone unless `--out` names one.
const write = !only || outArg > 0;
if (write) {
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify(rows, null, 2)}\n`);
}
const goals = rows.filter((r) => r.met !== null);
console.log(
  `\n${goals.filter((r) => r.met).length} of ${goals.length} goals met (${quick ? 'quick sizes' : 'full sizes'})` +
    `${write ? `; ${out} written` : ''}`,
);
