import t from 'tap';
import { recognitionRepository } from '../src/repositories/recognition.ts';
import { openTestDatabase } from '../src/testing.ts';

t.test('a submission reads a bounded number of finished jobs, however many finished lately', async (t) => {
  const { sql } = await openTestDatabase(t, { max: 1 });
  const [user] = await sql<{ id: string }[]>`
    INSERT INTO users (identity_provider, external_subject) VALUES ('dev', 'busy') RETURNING id`;
  // A busy quarter of an hour: 5,000 jobs of 2 s each finished, after a slow history of 10 s jobs.
  await sql`
    INSERT INTO dish_recognition_jobs (user_id, status, started_at, finished_at)
    SELECT ${user!.id}, 'done', now() - interval '2 hours' - interval '10 s', now() - interval '2 hours'
    FROM generate_series(1, 1000)`;
  await sql`
    INSERT INTO dish_recognition_jobs (user_id, status, started_at, finished_at)
    SELECT ${user!.id}, 'done', now() - make_interval(secs => n * 0.15 + 2), now() - make_interval(secs => n * 0.15)
    FROM generate_series(1, 5000) n`;
  await sql`ANALYZE dish_recognition_jobs`;

  const image = { contentType: 'image/jpeg', data: Buffer.from('jpeg') };
  // Eight submissions on one connection: PostgreSQL plans a prepared statement's first five runs for their values,
  // then keeps a generic plan, which must read as little.
  for (let i = 1; i <= 8; i++) {
    const { read, job } = await sql.begin(async (tx) => {
      // Row reads of the job table, index and sequential scans alike, before and after (the counts not yet reported
      // to the statistics carry over between transactions).
      const reads = async () => {
        const [stats] = await tx<{ read: number }[]>`
          SELECT (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::int AS read
          FROM pg_stat_xact_user_tables WHERE relname = 'dish_recognition_jobs'`;
        return stats?.read ?? 0;
      };
      const before = await reads();
      const job = await recognitionRepository(tx).create('dish', user!.id, {}, [image]);
      return { read: (await reads()) - before, job };
    });
    t.ok(read <= 300, `submission ${i}: the last 200 finished jobs and a few more are read, not 5,000 (read ${read})`);
    t.ok(Math.abs(job.avgSeconds! - 2) < 0.01, `submission ${i}: the recent 2 s per job, not 10 s (${job.avgSeconds})`);
  }
  // Planning the submission cost more than running it; once its generic plan is kept, it is not planned again.
  const [plans] = await sql<{ generic: number; custom: number }[]>`
    SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements
    WHERE statement ~ '^[[:space:]]*WITH img AS'`;
  t.same(plans, { generic: 3, custom: 5 }, 'five runs planned for their values, then the generic plan');
});
