import { spawn } from 'node:child_process';
import t from 'tap';
import postgres from 'postgres';
import { createTestDatabase } from '../src/testing.ts';

const program = new URL('./programs/backend-killed-in-transaction.ts', import.meta.url).pathname;

/** Runs the program against the database and returns its exit code, stdout and stderr. */
function run(url: string) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [program, url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

// postgres.js 3.4.9 throws `Cannot read properties of null (reading 'write')` from a setImmediate callback when a
// connection closes with a write buffered; patches/postgres@3.4.9.patch settles the write instead. Without the patch
// this test fails: the program exits 1 with that TypeError.
t.test('a transaction whose backend dies rejects with CONNECTION_CLOSED and the process lives on', async (t) => {
  const db = await createTestDatabase();
  t.teardown(db.drop);
  for (let attempt = 1; attempt <= 3; attempt++) {
    const { code, stdout, stderr } = await run(db.url);
    t.equal(code, 0, `attempt ${attempt}: the process did not crash${stderr ? `\n${stderr}` : ''}`);
    t.same(
      JSON.parse(stdout.trim() || '{}'),
      { outcome: 'rejected CONNECTION_CLOSED', poolAnswers: true },
      `attempt ${attempt}: caught, and the pool recovers`,
    );
  }
});

// postgres.js 3.4.9 kept its row counter when a query failed between rows (porsager/postgres#1119, #1181): the next
// query on the connection resolved with that many holes before its own rows, so `const [row] = ...` read undefined
// (seen as a 500 from the profile loader after an outage cut a result short). The patch resets it; without it this
// test fails with three rows, two of them holes.
t.test('a query that fails between rows leaves the next query on its connection whole', async (t) => {
  const db = await createTestDatabase();
  t.teardown(db.drop);
  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
  t.teardown(() => sql.end());
  await t.rejects(sql`SELECT CASE WHEN i < 3 THEN i ELSE 1 / (i - 3) END AS v FROM generate_series(1, 5) AS i`, {
    code: '22012',
  });
  const rows = await sql<{ x: number }[]>`SELECT 42 AS x`;
  t.same([...rows], [{ x: 42 }]);
  t.equal(rows.length, 1);
});
