// Run as a child process by connection-loss.test.ts: a crash here must not take the test runner down.
// A transaction's backend is terminated while its query runs; postgres.js then writes its own ROLLBACK to the closed
// socket from a setImmediate callback (porsager/postgres#1208). Prints how the transaction ended and whether the pool
// still answers, then exits 0; an uncaught TypeError exits 1.
import postgres from 'postgres';

const url = process.argv[2]!;
const sql = postgres(url, { max: 2, onnotice: () => {} });
const killer = postgres(url, { max: 1, onnotice: () => {} });
let pid: number | null = null;
// The outcome is taken at once: the transaction may fail before the killer's answer arrives.
const transaction = sql
  .begin(async (tx) => {
    const [row] = await tx<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
    pid = row!.pid;
    await tx`SELECT pg_sleep(5)`;
  })
  .then(
    () => 'committed',
    (err: { code?: string }) => `rejected ${err.code}`,
  );
while (pid === null) await new Promise((resolve) => setTimeout(resolve, 10));
await killer`SELECT pg_terminate_backend(${pid})`;
const outcome = await transaction;
// Long enough for the immediate that used to throw to have run.
await new Promise((resolve) => setTimeout(resolve, 100));
const [after] = await sql<{ ok: number }[]>`SELECT 1 AS ok`;
console.log(JSON.stringify({ outcome, poolAnswers: after!.ok === 1 }));
// A connection closed mid-query never finishes ending by itself (in 3.4.9 too), so ending has a deadline.
await Promise.all([sql.end({ timeout: 1 }), killer.end({ timeout: 1 })]);
