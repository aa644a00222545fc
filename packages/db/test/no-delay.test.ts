import t from 'tap';
import { openTestDatabase } from '../src/testing.ts';

// postgres.js 3.4.9 leaves Nagle's algorithm on, so a small message sent while earlier data waits for its ACK is held
// until the server's delayed ACK: a COPY that ends in a short chunk took 43-88 ms instead of 1-2 ms. The patch
// (patches/postgres@3.4.9.patch) sets TCP_NODELAY, as libpq and node-postgres do. Without it this test fails.
t.test("a COPY's last short chunk is sent at once, not held back for the server's ACK", async (t) => {
  const { sql } = await openTestDatabase(t, { max: 1 });
  await sql`CREATE TEMP TABLE copied (line text)`;
  const line = `${'x'.repeat(200)}\n`;
  const times: number[] = [];
  for (let i = 0; i < 12; i++) {
    const started = performance.now();
    const copy = await sql`COPY copied FROM STDIN`.writable();
    await new Promise<void>((resolve, reject) => {
      copy.on('error', reject);
      copy.on('finish', resolve);
      for (let chunk = 0; chunk < 4; chunk++) copy.write(line.repeat(300));
      copy.write(line);
      copy.end();
    });
    times.push(performance.now() - started);
  }
  const [row] = await sql<{ count: number }[]>`SELECT count(*)::int AS count FROM copied`;
  t.equal(row?.count, 12 * 1201, 'every line arrived');
  // The first COPY is not held either way (the connection is fresh); with Nagle on, the others took 43 ms or more.
  const later = times.slice(1).sort((a, b) => a - b);
  const median = later[Math.floor(later.length / 2)]!;
  t.ok(median < 25, `the median COPY took ${median.toFixed(1)} ms`);
});
