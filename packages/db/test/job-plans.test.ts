import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import postgres from 'postgres';
import { createDatabase } from '../src/client.ts';
import { SERVER_SETTINGS, startEmbeddedPostgres } from '../src/embedded.ts';
import { migrate } from '../src/migrate.ts';
import { recognitionRepository } from '../src/repositories/recognition.ts';

t.test(
  'a worker whose plans were made on an empty job table uses its index within seconds of it growing',
  async (t) => {
    // A server of the test's own: on the shared one, autovacuum also tends every other test file's database.
    const dir = await mkdtemp(join(tmpdir(), 'nutrition-job-plans-'));
    const pg = await startEmbeddedPostgres({ dataDir: join(dir, 'data'), persistent: false });
    const admin = postgres(pg.url(), { max: 1, onnotice: () => {} });
    t.teardown(async () => {
      await admin.end();
      await pg.stop();
      await rm(dir, { recursive: true, force: true });
    });
    const [naptime] = await admin<{ autovacuum_naptime: string }[]>`SHOW autovacuum_naptime`;
    t.equal(naptime!.autovacuum_naptime, SERVER_SETTINGS.autovacuum_naptime, 'the server runs with the settings asked');
    await migrate(pg.url());
    // Empty and analysed, as after maintenance on a new deployment: the planner counts the table as one page.
    await admin`VACUUM ANALYZE dish_recognition_jobs`;
    const [user] = await admin<{ id: string }[]>`
      INSERT INTO users (identity_provider, external_subject) VALUES ('dev', 'plans') RETURNING id`;

    // The workers' pool: generic plans, made at a statement's first run and kept by the connection.
    const { sql, close } = createDatabase(pg.url(), { max: 1, genericPlans: true });
    t.teardown(close);
    /** A job started by the worker's statement: the job table's scans, row by row and by index, that it made. */
    const start = () =>
      sql.begin(async (tx) => {
        const [job] = await admin<{ id: string }[]>`
          INSERT INTO dish_recognition_jobs (user_id) VALUES (${user!.id}) RETURNING id`;
        // Counts not yet reported to the statistics carry over between transactions: the difference is this start's.
        const scans = async () => {
          const [s] = await tx<{ seq: number; idx: number }[]>`
            SELECT seq_scan::int AS seq, coalesce(idx_scan, 0)::int AS idx
            FROM pg_stat_xact_user_tables WHERE relname = 'dish_recognition_jobs'`;
          return s!;
        };
        const before = await scans();
        t.ok(await recognitionRepository(tx).start('dish', job!.id), 'the job starts');
        const after = await scans();
        return { seq: after.seq - before.seq, idx: after.idx - before.idx };
      });

    t.same(await start(), { seq: 1, idx: 0 }, 'on the empty table the plan reads it row by row');
    await admin`
      INSERT INTO dish_recognition_jobs (user_id, status, started_at, finished_at)
      SELECT ${user!.id}, 'done', now() - interval '3 s', now() FROM generate_series(1, 5000)`;
    t.same(await start(), { seq: 1, idx: 0 }, 'the kept plan still reads all 5,000 jobs');

    // Autovacuum analyses the grown table at its next round; new statistics make every connection plan anew.
    const grown = Date.now();
    for (;;) {
      const [row] = await admin<{ analysed: boolean }[]>`
        SELECT last_autoanalyze IS NOT NULL AS analysed FROM pg_stat_user_tables
        WHERE relname = 'dish_recognition_jobs'`;
      if (row!.analysed) break;
      if (Date.now() - grown > 30_000) {
        t.fail('autovacuum did not analyse the grown table within 30 s');
        return;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    t.same(await start(), { seq: 0, idx: 1 }, 'after the analysis the job is found by its key');
  },
);
