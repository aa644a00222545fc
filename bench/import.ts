import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createDatabase } from '@nutrition/db';
import { generateDump } from '../packages/catalog/src/import/generate-dump.ts';
import { maxRow, ratioRow, root, type Row } from './lib.ts';

async function runImport(databaseUrl: string, file: string) {
  const child = spawn(process.execPath, [`${root}bench/import-child.ts`, databaseUrl, file], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  await new Promise((r) => child.on('exit', r));
  return JSON.parse(out.trim().split('\n').at(-1)!) as {
    summary: { read: number };
    seconds: number;
    maxRssKiB: number;
  };
}

/** The import command on a synthetic CSV export, against raw COPY of the same rows into an unindexed table. */
export async function importBench(databaseUrl: string, rows: number, dir: string): Promise<Row[]> {
  const file = `${dir}/off-${rows}.csv`;
  await generateDump(rows, file);
  const { sql, close } = createDatabase(databaseUrl, { max: 2 });
  try {
    const header = (await import('node:fs')).readFileSync(file, 'utf8').slice(0, 20000).split('\n')[0]!.split('\t');
    await sql.unsafe(`CREATE UNLOGGED TABLE IF NOT EXISTS raw_copy (${header.map((_, i) => `c${i} text`).join(', ')})`);
    await sql`TRUNCATE raw_copy`;
    const copyStarted = performance.now();
    const writable = await sql`COPY raw_copy FROM STDIN WITH (FORMAT text, HEADER true)`.writable();
    await pipeline(createReadStream(file), writable);
    const copySeconds = (performance.now() - copyStarted) / 1000;
    await sql`DROP TABLE raw_copy`;

    // Memory is flat when importing the whole file peaks where importing a hundredth of it does.
    const small = `${dir}/off-small.csv`;
    await generateDump(Math.max(2000, Math.round(rows / 100)), small, 2);
    const smallRun = await runImport(databaseUrl, small);
    const result = await runImport(databaseUrl, file);
    const peak = result.maxRssKiB / 1024;
    const smallPeak = smallRun.maxRssKiB / 1024;
    return [
      ratioRow(
        'import',
        `import ${rows.toLocaleString('en')} CSV rows, indexes included`,
        result.summary.read / result.seconds,
        'rows/s',
        rows / copySeconds,
        0.4,
      ),
      {
        ...maxRow(
          'import',
          'import peak memory (baseline: a hundredth of the rows)',
          peak,
          'MiB',
          1.25 * smallPeak,
          smallPeak,
        ),
        goal: '<= 1.25 x baseline (flat)',
      },
    ];
  } finally {
    await close();
  }
}
