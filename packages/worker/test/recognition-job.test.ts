import t from 'tap';
import { ModelUnavailable } from '@nutrition/ai';
import { openTestDatabase } from '@nutrition/db/testing';
import { recognitionRepository } from '@nutrition/db/repositories';
import { runRecognitionJob } from '../src/recognition-job.ts';

t.test('every recognition job: photos in order, purged photos, model errors, retries, finished jobs', async (t) => {
  const { sql } = await openTestDatabase(t, { max: 2 });
  const [user] = await sql<
    { id: string }[]
  >`INSERT INTO users (identity_provider, external_subject) VALUES ('test', 'job-test') RETURNING id`;
  const jobs = recognitionRepository(sql);
  const photo = (n: number) => ({ contentType: 'image/jpeg', data: Buffer.from([0xff, 0xd8, 0xff, n]) });
  const submit = async (photos = [photo(1), photo(2), photo(3)]) =>
    (await sql.begin((tx) => recognitionRepository(tx).create('product', user!.id, { jobType: 'receipt' }, photos))).id;
  const state = async (id: string) =>
    (await sql`SELECT status, result, error, attempts FROM product_recognition_jobs WHERE id = ${id}`)[0]!;

  const id = await submit();
  let seen: number[] = [];
  const steps = {
    expiredMessage: 'gone',
    recognise: async (job: { images: { data: Buffer }[]; job_type?: string }) => {
      seen = job.images.map((i) => i.data[3]!);
      return job.job_type;
    },
    result: async (_job: unknown, answer: string | undefined) => ({ answer }),
  };
  t.equal(await runRecognitionJob(jobs, 'product', id, steps), 'done');
  t.same(seen, [1, 2, 3], 'the photos, in the order they were sent');
  t.match(await state(id), { status: 'done', result: { answer: 'receipt' }, error: null, attempts: 1 });
  t.equal(await runRecognitionJob(jobs, 'product', id, steps), 'skipped', 'a finished job is not run again');
  t.match(await state(id), { status: 'done', attempts: 1 });

  const purged = await submit();
  await sql`DELETE FROM job_images WHERE product_job_id = ${purged}`;
  t.equal(await runRecognitionJob(jobs, 'product', purged, steps), 'failed');
  t.match(await state(purged), { status: 'failed', error: { code: 'images_expired', message: 'gone' } });

  const unavailable = await submit();
  const down = { ...steps, recognise: async () => Promise.reject(new ModelUnavailable('timeout')) };
  t.equal(await runRecognitionJob(jobs, 'product', unavailable, down), 'failed');
  t.match(await state(unavailable), { status: 'failed', error: { code: 'model_unavailable' } });

  // A model failing while the result is made (the dish worker's macro estimate) ends the job the same way.
  const estimateDown = await submit();
  const noEstimate = { ...steps, result: async () => Promise.reject(new ModelUnavailable('timeout')) };
  t.equal(await runRecognitionJob(jobs, 'product', estimateDown, noEstimate), 'failed');
  t.match(await state(estimateDown), { status: 'failed', error: { code: 'model_unavailable' }, attempts: 1 });

  // A worker stopping (a deploy) aborts the model call in flight: the job goes back to the queue, not to failed.
  const stopped = await submit();
  const stop = new AbortController();
  stop.abort();
  await t.rejects(runRecognitionJob(jobs, 'product', stopped, down, stop.signal), /timeout/, 'thrown, for a retry');
  t.match(await state(stopped), { status: 'processing', error: null, attempts: 1 });
  t.equal(await runRecognitionJob(jobs, 'product', stopped, steps), 'done', 'another worker runs it');

  const crashed = await submit();
  const bug = { ...steps, result: async () => Promise.reject(new Error('connection lost')) };
  await t.rejects(
    runRecognitionJob(jobs, 'product', crashed, bug),
    /connection lost/,
    'not a model error: thrown for pg-boss to retry',
  );
  t.match(await state(crashed), { status: 'processing', attempts: 1 });
  t.equal(await runRecognitionJob(jobs, 'product', crashed, steps), 'done', 'the retry runs it again');
  t.match(await state(crashed), { status: 'done', attempts: 2 });
});

t.test('a finished job is final: an earlier attempt answering late does not change it', async (t) => {
  const { sql } = await openTestDatabase(t, { max: 2 });
  const [user] = await sql<
    { id: string }[]
  >`INSERT INTO users (identity_provider, external_subject) VALUES ('test', 'late-attempt') RETURNING id`;
  const jobs = recognitionRepository(sql);
  const submit = async (kind: 'dish' | 'product') =>
    (
      await sql.begin((tx) =>
        recognitionRepository(tx).create(kind, user!.id, kind === 'dish' ? {} : { jobType: 'receipt' }, [
          { contentType: 'image/jpeg', data: Buffer.from([0xff, 0xd8, 0xff, 1]) },
        ]),
      )
    ).id;
  const state = async (kind: 'dish' | 'product', id: string) =>
    (await sql`SELECT status, result, error FROM ${sql(`${kind}_recognition_jobs`)} WHERE id = ${id}`)[0]!;
  const steps = (recognise: () => Promise<string>) => ({
    expiredMessage: 'gone',
    recognise,
    result: async (_job: unknown, model: string) => ({ dishes: [], items: [], model }),
  });
  const modelDown = steps(async () => Promise.reject(new ModelUnavailable('timeout')));
  /** An attempt whose model answers (or fails) only when told: a worker stalled past its heartbeat. */
  const stalled = (kind: 'dish' | 'product', id: string, answer: () => Promise<string>) => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const outcome = runRecognitionJob(
      jobs,
      kind,
      id,
      steps(async () => {
        await held;
        return answer();
      }),
    );
    return { release, outcome };
  };
  const started = async (kind: 'dish' | 'product', id: string) => {
    while ((await state(kind, id)).status !== 'processing') await new Promise((r) => setTimeout(r, 10));
  };

  for (const kind of ['dish', 'product'] as const) {
    // The retry (another worker) ends the job failed; the first attempt's answer comes after.
    const retried = await submit(kind);
    const first = stalled(kind, retried, async () => 'late answer');
    await started(kind, retried);
    t.equal(await runRecognitionJob(jobs, kind, retried, modelDown), 'failed', `${kind}: the retry fails the job`);
    first.release();
    t.equal(await first.outcome, 'skipped', `${kind}: the late answer is not stored`);
    t.match(
      await state(kind, retried),
      { status: 'failed', result: null, error: { code: 'model_unavailable' } },
      `${kind}: the job stays failed, without a result`,
    );

    // The dead-letter queue gives the job up (worker_lost) while an attempt still runs.
    const lost = await submit(kind);
    const running = stalled(kind, lost, async () => 'late answer');
    await started(kind, lost);
    await jobs.finish(kind, lost, {
      error: { code: 'worker_lost', message: 'The job was interrupted too many times' },
    });
    running.release();
    t.equal(await running.outcome, 'skipped', `${kind}: the answer after worker_lost is not stored`);
    t.match(
      await state(kind, lost),
      { status: 'failed', result: null, error: { code: 'worker_lost' } },
      `${kind}: given up, it stays failed`,
    );

    // The retry ends the job done; the first attempt's model fails after: the client keeps its result.
    const done = await submit(kind);
    const failing = stalled(kind, done, async () => Promise.reject(new ModelUnavailable('timeout')));
    await started(kind, done);
    const answered = steps(async () => 'answer');
    t.equal(await runRecognitionJob(jobs, kind, done, answered), 'done', `${kind}: the retry ends the job done`);
    failing.release();
    t.equal(await failing.outcome, 'skipped', `${kind}: nor the model error after done`);
    t.match(
      await state(kind, done),
      { status: 'done', result: { model: 'answer' }, error: null },
      `${kind}: still done`,
    );
  }
});
