import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Ten benchmarks with their own processes: about two minutes alone, more beside the rest of the suite.
t.setTimeout(300_000);

/** `pnpm bench --quick` once per test run, so the benchmarks cannot rot; their goals are judged by `pnpm bench`. */
t.test('the quick benchmark runs end to end and reports every figure', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'nutrition-bench-test-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const out = join(dir, 'latest.json');
  const { NODE_OPTIONS: _, ...env } = process.env;
  const child = spawn(
    'env',
    [
      '-u',
      'NODE_OPTIONS',
      process.execPath,
      fileURLToPath(new URL('./run.ts', import.meta.url)),
      '--quick',
      '--out',
      out,
    ],
    {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  t.equal(code, 0, output.slice(-2000));
  const rows = JSON.parse(await readFile(out, 'utf8')) as {
    id: string;
    value: number;
    unit: string;
    goal: string;
    met: boolean | null;
  }[];
  t.same([...new Set(rows.map((r) => r.id))].sort(), [
    'api',
    'app-mixed',
    'import',
    'menu',
    'queue',
    'search',
    'search-load',
    'sse',
    'sync',
    'uploads',
  ]);
  for (const row of rows) {
    t.ok(Number.isFinite(row.value), `${row.id}: a number`);
    // A figure reported without a goal (the day cache's hit rate) has no verdict.
    t.ok(row.goal.startsWith('reported') ? row.met === null : typeof row.met === 'boolean', `${row.id}: ${row.goal}`);
  }
  t.match(output, /goals met \(quick sizes\)/);
});
