import t from 'tap';
import { createDatabase, databaseAnswers } from '../src/client.ts';
import { createTestDatabase } from '../src/testing.ts';

t.test('pool options reach the session: generic plans, asynchronous commits, timestamps as Dates', async (t) => {
  const db = await createTestDatabase();
  t.teardown(db.drop);
  const plans = async (options: Parameters<typeof createDatabase>[1]) => {
    const { sql, close } = createDatabase(db.url, { ...options, max: 1 });
    try {
      for (const name of ['milk', 'bread', 'salt']) await sql`SELECT id FROM products WHERE canonical_name = ${name}`;
      const [row] = await sql<{ generic_plans: number; custom_plans: number }[]>`
        SELECT generic_plans::int, custom_plans::int FROM pg_prepared_statements
        WHERE statement LIKE '%FROM products WHERE canonical_name%' AND statement NOT LIKE '%pg_prepared_statements%'`;
      const [{ synchronous_commit } = { synchronous_commit: '' }] = await sql<
        { synchronous_commit: string }[]
      >`SHOW synchronous_commit`;
      return { ...row, synchronous_commit };
    } finally {
      await close();
    }
  };
  t.same(
    await plans({}),
    { generic_plans: 0, custom_plans: 3, synchronous_commit: 'on' },
    'by default the first runs are planned for their parameters',
  );
  t.same(await plans({ genericPlans: true, synchronousCommit: false }), {
    generic_plans: 3,
    custom_plans: 0,
    synchronous_commit: 'off',
  });

  const tuned = createDatabase(db.url, { max: 1, randomPageCost: 1.1 });
  const [cost] = await tuned.sql<{ random_page_cost: string }[]>`SHOW random_page_cost`;
  await tuned.close();
  t.equal(cost!.random_page_cost, '1.1', 'the planner cost of a random page read is set per pool');

  const { sql, close } = createDatabase(db.url, { max: 1 });
  t.teardown(close);
  const at = new Date('2026-11-23T04:05:06.789Z');
  const [row] = await sql<
    { at: Date; text: string }[]
  >`SELECT ${at}::timestamptz AS at, (${at}::timestamptz)::text AS text`;
  t.ok(row!.at instanceof Date);
  t.equal(row!.at.toISOString(), '2026-11-23T04:05:06.789Z', 'read back as the same instant');
  t.equal(row!.text, '2026-11-23 04:05:06.789+00', 'sent as that instant');
});

t.test('without pipelining, a statement goes to the first free connection, not behind a long one', async (t) => {
  const db = await createTestDatabase();
  t.teardown(db.drop);
  // Two connections, one busy for 1.5 s and one for 0.2 s; two quick statements sent while both are busy.
  const order = async (options: Parameters<typeof createDatabase>[1]) => {
    const { sql, close } = createDatabase(db.url, { ...options, max: 2 });
    try {
      const sleep = (seconds: number) => sql`SELECT pg_sleep(${seconds})`.execute();
      // Both connections open, with the statement prepared on each: postgres.js queues nothing behind a statement
      // that a connection has not prepared yet.
      await Promise.all([sleep(0.01), sleep(0.01)]);
      const done: string[] = [];
      const run = (name: string, seconds: number) => sleep(seconds).then(() => done.push(name));
      await Promise.all([run('long', 1.5), run('short', 0.2), run('quick 1', 0), run('quick 2', 0)]);
      return done;
    } finally {
      await close();
    }
  };
  t.same(
    await order({}),
    ['short', 'quick 2', 'long', 'quick 1'],
    "by default the first quick statement waits on the long one's connection",
  );
  t.same(
    await order({ pipeline: false }),
    ['short', 'quick 1', 'quick 2', 'long'],
    'both run on the connection that is free first',
  );
});

// A server that ended its sessions (a restart, a failover, an administrator) leaves the pool holding connections it
// has not yet seen close: a statement sent on one fails without the server being asked. The health probe answered
// 503 for that (the first /health after a recovery, in 1 of 12 runs of system.test.ts) while the server answered.
t.test('the health probe is not fooled by pooled connections the server has closed', async (t) => {
  const db = await createTestDatabase();
  t.teardown(db.drop);
  const { sql, close } = createDatabase(db.url, { max: 4 });
  t.teardown(close);
  const admin = createDatabase(db.adminUrl, { max: 1 });
  t.teardown(admin.close);
  const name = new URL(db.url).pathname.slice(1);
  let wrong = 0;
  for (let i = 0; i < 20; i++) {
    // Four connections open (a statement on one the last round closed fails, and the pool opens another).
    await Promise.all(Array.from({ length: 4 }, () => sql`SELECT pg_sleep(0.001)`.catch(() => {})));
    await admin.sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${name}`;
    if (!(await databaseAnswers(sql))) wrong++;
  }
  t.equal(wrong, 0, `${wrong} of 20 probes right after the server closed the pool's connections answered "down"`);
  await admin.sql`ALTER DATABASE ${admin.sql(name)} ALLOW_CONNECTIONS false`;
  await admin.sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${name}`;
  t.equal(await databaseAnswers(sql), false, 'a database that refuses connections is down');
  await admin.sql`ALTER DATABASE ${admin.sql(name)} ALLOW_CONNECTIONS true`;
});
