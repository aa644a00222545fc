import t from 'tap';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { openTestDatabase } from '../src/testing.ts';

// postgres.js 3.4.9 never settled a COPY FROM STDIN that the server rejected once the writable had ended: the
// pipeline waited forever, and a transaction around it was never rolled back, so its connection was lost to the pool
// (porsager/postgres#1173). The patch (patches/postgres@3.4.9.patch) settles it with the server's error. Without it
// each case below reports "hung".
t.test('a COPY the server rejects fails with its error, and its connection goes on', async (t) => {
  const { sql } = await openTestDatabase(t, { max: 1 });
  await sql`CREATE TABLE copied (name text, n int)`;
  const cases: [string, string[]][] = [
    ['a row that does not parse', ['milk\tnot a number\n']],
    ['a NUL byte', ['mi\u0000lk\t1\n']],
    // The server answers while the client is still sending: 2 MB in chunks, the bad row in the second.
    [
      'a bad row early in a long COPY',
      Array.from({ length: 40 }, (_, i) => `${i === 1 ? 'x\ty\n' : ''}${'a\t1\n'.repeat(12000)}`),
    ],
  ];
  for (const [label, chunks] of cases) {
    const copied = sql.begin(async (tx) => {
      const copy = await tx`COPY copied FROM STDIN`.writable();
      await pipeline(Readable.from(chunks), copy);
    });
    const outcome = await Promise.race([
      copied.then(
        () => 'copied',
        (e: { code?: string }) => e.code,
      ),
      sleep(10_000, 'hung', { ref: false }),
    ]);
    t.match(outcome, /^22/, `${label}: the server's data error (${outcome})`);
  }
  const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM copied`;
  t.equal(row!.n, 0, 'nothing of a failed COPY was kept, and the one connection of the pool still answers');
});
