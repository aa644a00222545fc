import t from 'tap';
import { recognitionRepository } from '@nutrition/db/repositories';
import { as, buildTestApp, login } from './helpers.ts';
import { fakeJpeg, imageJson } from './processes.ts';

const submit = (user: ReturnType<typeof as>, seed: number) =>
  user({ method: 'POST', url: '/ai/recognize-dish', payload: { image: imageJson(fakeJpeg(seed)) } });

t.test('a burst of submissions gets distinct, consecutive queue positions in the paid-first order', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const users = await Promise.all(
    Array.from({ length: 30 }, (_, i) => login(app, `burst-${i}`).then((tk) => as(app, tk))),
  );
  const burst = await Promise.all(users.map((u, i) => submit(u, i)));
  t.same(
    burst.map((r) => r.statusCode),
    burst.map(() => 202),
  );
  const positions = burst.map((r) => r.json().queue_position as number).sort((a, b) => a - b);
  t.same(
    positions,
    Array.from({ length: 30 }, (_, i) => i),
    'thirty parallel submissions: positions 0-29, none repeated',
  );

  const paidToken = await login(app, 'paid');
  await sql`UPDATE users SET plan = 'paid' WHERE external_subject = 'paid'`;
  const paid = await submit(as(app, paidToken), 100);
  t.equal(paid.json().queue_position, 0, 'a paid job goes before every waiting free job');
  const late = await submit(users[0]!, 101);
  t.equal(late.json().queue_position, 31, 'a new free job waits behind the 30 free jobs and the paid one');

  // A worker takes the paid job and the first five free jobs (as the worker does: queued → processing).
  const jobs = recognitionRepository(app.sql);
  const order = await sql<{ id: string }[]>`
    SELECT id FROM dish_recognition_jobs ORDER BY plan = 'paid' DESC, queue_seq LIMIT 6`;
  for (const { id } of order) await jobs.start('dish', id);
  const next = await submit(users[1]!, 102);
  t.equal(next.json().queue_position, 26, 'the six taken jobs no longer count');

  // Paid tickets whose jobs are not waiting: a submission that failed after taking one (sequences do not roll back),
  // and a queued job removed with its user. Each counted for every free job until a later paid job was taken.
  await sql`SELECT nextval('dish_jobs_paid_tickets')`;
  const gone = await submit(as(app, paidToken), 103);
  await sql`DELETE FROM dish_recognition_jobs WHERE id = ${gone.json().job_id}`;
  const after = await submit(users[2]!, 104);
  t.equal(after.json().queue_position, 27, 'behind the 27 free jobs waiting, and no paid one');
});

t.test('the estimate follows the recent processing speed, not the history', async (t) => {
  const { app, sql } = await buildTestApp(t, { DISH_WORKER_CAPACITY: '2' });
  const alice = await login(app, 'alice');
  const [user] = await sql<{ id: string }[]>`SELECT id FROM users WHERE external_subject = 'alice'`;
  const userId = user!.id;
  // A long history of fast jobs (0.2 s), finished an hour ago.
  await sql`
    INSERT INTO dish_recognition_jobs (user_id, status, started_at, finished_at)
    SELECT ${userId}, 'done', now() - interval '1 hour' - interval '200 ms', now() - interval '1 hour'
    FROM generate_series(1, 50) n`;
  const a = as(app, alice);
  const queue = [];
  for (let i = 0; i < 8; i++) queue.push((await submit(a, i)).json());
  const fast = queue.at(-1)!;
  t.equal(fast.queue_position, 7);
  t.equal(fast.estimated_seconds, 1, 'fast history and nothing recent: 0.2 s per job');

  // The model slows down: the last jobs took 6 s each.
  await sql`
    INSERT INTO dish_recognition_jobs (user_id, status, started_at, finished_at)
    SELECT ${userId}, 'done', now() - make_interval(secs => 6 + n * 6), now() - make_interval(secs => n * 6)
    FROM generate_series(1, 5) n`;
  const slow = (await submit(a, 20)).json();
  t.equal(slow.queue_position, 8);
  // Eight ahead on two slots: five rounds of about 6 s.
  const expected = 30;
  t.ok(
    slow.estimated_seconds >= expected * 0.9 && slow.estimated_seconds <= expected * 1.1,
    `about ${expected} s after the slowdown (got ${slow.estimated_seconds})`,
  );

  // Jobs being processed right now are slots in use: more workers than one process's configuration.
  const extra = await sql<{ id: string }[]>`
    INSERT INTO dish_recognition_jobs (user_id, status, started_at)
    SELECT ${userId}, 'processing', now() FROM generate_series(1, 16) n RETURNING id`;
  t.equal(extra.length, 16);
  const scaled = (await submit(a, 21)).json();
  t.ok(
    scaled.estimated_seconds <= 7,
    `16 busy slots take 9 waiting jobs in one round (got ${scaled.estimated_seconds})`,
  );
});
