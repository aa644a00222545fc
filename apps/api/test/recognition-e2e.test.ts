import t from 'tap';
import { once } from 'node:events';
import postgres from 'postgres';
import { createTestDatabase } from '@nutrition/db/testing';
import { api, fakeJpeg, imageJson, loginOver, readStream, startService } from './processes.ts';
import { fakeOpenAi, type ChatRequest } from '../../../packages/ai/test/fake-openai.ts';
import { createNutritionClient, type NutritionClient, type Schemas } from '@nutrition/client';

/** A vision model on loopback: dish and product answers by task, optionally slow or broken. */
function visionReplies(opts: { delayMs?: number; failProducts?: boolean } = {}) {
  return (req: ChatRequest) => {
    const task = req.response_format?.json_schema?.name;
    if (task === 'product_recognition' && opts.failProducts) return { status: 500 };
    const content =
      task === 'dish_recognition'
        ? JSON.stringify({ dishes: [{ name: 'Borscht', portion_g: 350, portions: 1.5, confidence: 0.9 }] })
        : task === 'product_recognition'
          ? JSON.stringify({ items: [{ name: 'Milk 3.2%', quantity: 1, unit: 'l', price: 1.2, confidence: 0.8 }] })
          : JSON.stringify({ calories: 300, protein: 10, fat: 10, carbs: 30 });
    return opts.delayMs ? { delayMs: opts.delayMs, content } : { content };
  };
}

async function database(t: import('tap').Test) {
  const db = await createTestDatabase();
  const sql = postgres(db.url, { max: 2, onnotice: () => {} });
  t.teardown(async () => {
    await sql.end();
    await db.drop();
  });
  return { url: db.url, sql };
}

t.test('end to end through the typed client: API and both workers as processes, real sockets', async (t) => {
  const { url, sql } = await database(t);
  const model = await fakeOpenAi(visionReplies({ delayMs: 300 }));
  t.teardown(model.close);
  const modelEnv = { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: model.baseUrl };
  const apiA = await startService(t, 'api', { DATABASE_URL: url });
  const apiB = await startService(t, 'api', { DATABASE_URL: url });
  await startService(t, 'product-worker', { DATABASE_URL: url, ...modelEnv });
  // One app, and the same session used through the second API process (as behind a load balancer).
  const app = createNutritionClient({ baseUrl: apiA.url });
  await app.session.signIn('e2e-user');
  const viaB = createNutritionClient({ baseUrl: apiB.url, tokens: app.session.tokens });

  // A multipart upload, submitted before any dish worker runs, so the streams open on a queued job.
  const accepted = await app.recognizeDish({ data: fakeJpeg(1), type: 'image/jpeg' }, { target_meal_type: 'lunch' });
  t.equal(accepted.status, 'queued');
  const follow = async (client: NutritionClient) => {
    const events: { id: string; status: string; job: Schemas['DishJob'] }[] = [];
    for await (const { id, job } of client.dishJobEvents(accepted.job_id)) events.push({ id, status: job.status, job });
    return events;
  };
  const streams = Promise.all([follow(app), follow(viaB)]);
  await new Promise((r) => setTimeout(r, 200));
  await startService(t, 'dish-worker', { DATABASE_URL: url, ...modelEnv });
  const [onA, onB] = await streams;
  t.same(
    onA.map((e) => e.status),
    ['queued', 'processing', 'done'],
    'queued, processing, done in order',
  );
  t.same(
    onB.map((e) => e.status),
    ['queued', 'processing', 'done'],
    'the second API process delivers the same job',
  );
  t.same(
    onB.map((e) => e.id),
    onA.map((e) => e.id),
    'the same state has the same id on every API process (Last-Event-ID works behind a load balancer)',
  );
  const result = onA.at(-1)!.job.result!;
  t.match(result, {
    model: 'gpt-4o-mini',
    dishes: [{ name: 'Borscht', portions: 1.5, portion_g: 350, confidence: 0.9 }],
  });
  const [borscht] = await sql`SELECT d.id FROM dishes d WHERE d.code = 'borscht'`;
  const recognised = result.dishes[0]!;
  t.equal(recognised.dish_id, borscht!.id, 'matched to the catalog dish');
  t.ok(recognised.calories! > 0);

  // The diary: the recognised dish logged from its job, read back as the day with its totals.
  const date = onA.at(-1)!.job.target_date!;
  const logged = await app.api.POST('/diary', {
    body: { date, meal_type: 'lunch', dish_id: recognised.dish_id!, portions: 1.5, job_id: accepted.job_id },
  });
  t.equal(logged.response.status, 201);
  const day = await viaB.api.GET('/diary', { params: { query: { date } } });
  t.same(
    day.data?.entries.map((e) => e.dish_id),
    [borscht!.id],
    'the entry is in the day',
  );
  t.ok(day.data!.totals.calories > 0, 'and counts in its totals');

  // Products: four photos in one upload, recognised in parallel, applied to the pantry.
  const products = await viaB.recognizeProducts(
    [1, 2, 3, 4].map((i) => ({ data: fakeJpeg(20 + i), type: 'image/jpeg' })),
  );
  let done: Schemas['ProductJob'] | undefined;
  for await (const { job } of viaB.productJobEvents(products.job_id)) done = job;
  t.equal(done?.status, 'done');
  t.match(
    done?.result?.items,
    [{ name: 'Milk 3.2%', quantity: 4, unit_code: 'l', storage_days: Number }],
    'four photos merged into one line',
  );
  const [timing] =
    await sql`SELECT extract(epoch FROM finished_at - started_at)::float8 AS seconds FROM product_recognition_jobs
      WHERE id = ${products.job_id}`;
  t.ok(timing!.seconds < 1.2, `4 photos at 300 ms each took ${timing!.seconds.toFixed(2)} s: recognised in parallel`);
  const applied = await app.api.POST('/ai/product-jobs/{id}/apply', {
    params: { path: { id: products.job_id } },
    body: {},
  });
  t.equal(applied.response.status, 200);
  t.match(applied.data?.items, [{ quantity: 4, unit_code: 'l' }]);

  // The menu: a week planned by the (offline) model, one slot removed, the rest kept.
  const planned = await app.api.POST('/ai/generate-menu', { body: {} });
  t.equal(planned.response.status, 200);
  // The current week, so one plan (dates across weeks would answer `plans`).
  const plan = planned.data as Schemas['MenuPlan'];
  const slots = plan.days.flatMap((d) => d.items);
  t.ok(slots.length >= 7, `${slots.length} meals planned`);
  const removed = await app.api.DELETE('/menu/items/{id}', { params: { path: { id: slots[0]!.id } } });
  t.equal(removed.response.status, 204);
  const menu = await viaB.api.GET('/menu', { params: { query: { week_start: plan.week_start } } });
  t.same(
    menu.data?.days.flatMap((d) => d.items.map((i) => i.id)),
    slots.slice(1).map((i) => i.id),
    'the other meals stay',
  );

  // An idle worker starts a new job promptly (NOTIFY, not the polling interval).
  const quick = await app.recognizeDish({ data: fakeJpeg(2), type: 'image/jpeg' });
  for await (const _ of app.dishJobEvents(quick.job_id));
  const [pickup] =
    await sql`SELECT extract(epoch FROM started_at - created_at)::float8 * 1000 AS ms FROM dish_recognition_jobs WHERE
      id = ${quick.job_id}`;
  t.ok(pickup!.ms < 1000, `picked up ${pickup!.ms.toFixed(0)} ms after submission`);
});

t.test('a failing vision answer ends as failed on the stream', async (t) => {
  const { url } = await database(t);
  const model = await fakeOpenAi(visionReplies({ failProducts: true }));
  t.teardown(model.close);
  const apiA = await startService(t, 'api', { DATABASE_URL: url });
  await startService(t, 'product-worker', { DATABASE_URL: url, OPENAI_API_KEY: 'k', OPENAI_BASE_URL: model.baseUrl });
  const token = await loginOver(apiA.url, 'unlucky');
  const job = await api(apiA.url, token, 'POST', '/ai/recognize-receipt', { images: [imageJson(fakeJpeg(5))] });
  const stream = await readStream(`${apiA.url}/ai/product-jobs/${job.body.job_id}/stream`, token);
  t.equal(stream.status, 200, 'a failed recognition is an event, not an HTTP error');
  t.match(stream.events.at(-1)!.data, { status: 'failed', error: { code: 'model_unavailable', message: String } });
  t.equal(model.requests.length, 1, 'an upstream error is not retried');
});

t.test('a worker killed mid-job: another worker completes it', async (t) => {
  const { url, sql } = await database(t);
  const slow = await fakeOpenAi(visionReplies({ delayMs: 60_000 }));
  t.teardown(slow.close);
  const fast = await fakeOpenAi(visionReplies());
  t.teardown(fast.close);
  const apiA = await startService(t, 'api', { DATABASE_URL: url });
  const doomed = await startService(t, 'dish-worker', {
    DATABASE_URL: url,
    OPENAI_API_KEY: 'k',
    OPENAI_BASE_URL: slow.baseUrl,
    QUEUE_SUPERVISE_SECONDS: '1',
  });
  const token = await loginOver(apiA.url, 'resilient');
  const job = await api(apiA.url, token, 'POST', '/ai/recognize-dish', { image: imageJson(fakeJpeg(9)) });
  const until = Date.now() + 10_000;
  while (Date.now() < until && slow.requests.length === 0) await new Promise((r) => setTimeout(r, 50));
  t.equal(slow.requests.length, 1, 'the first worker was in the middle of the job');
  doomed.child.kill('SIGKILL');
  await startService(t, 'dish-worker', {
    DATABASE_URL: url,
    OPENAI_API_KEY: 'k',
    OPENAI_BASE_URL: fast.baseUrl,
    QUEUE_SUPERVISE_SECONDS: '1',
  });
  const stream = await readStream(`${apiA.url}/ai/jobs/${job.body.job_id}/stream`, token, 60_000);
  t.equal(stream.events.at(-1)!.data.status, 'done', 'completed by the second worker');
  const [row] = await sql`SELECT attempts FROM dish_recognition_jobs WHERE id = ${job.body.job_id}`;
  t.equal(row!.attempts, 2);
});

t.test('a worker that stalls mid-job and wakes after the retry failed it: the job stays failed', async (t) => {
  const { url } = await database(t);
  const slow = await fakeOpenAi(visionReplies({ delayMs: 12_000 }));
  t.teardown(slow.close);
  const down = await fakeOpenAi(() => ({ status: 500 }));
  t.teardown(down.close);
  const apiA = await startService(t, 'api', { DATABASE_URL: url });
  const worker = { DATABASE_URL: url, OPENAI_API_KEY: 'k', QUEUE_SUPERVISE_SECONDS: '1' };
  const stalled = await startService(t, 'dish-worker', { ...worker, OPENAI_BASE_URL: slow.baseUrl });
  const token = await loginOver(apiA.url, 'stalled');
  const job = await api(apiA.url, token, 'POST', '/ai/recognize-dish', { image: imageJson(fakeJpeg(12)) });
  const until = Date.now() + 10_000;
  while (Date.now() < until && slow.requests.length === 0) await new Promise((r) => setTimeout(r, 50));
  t.equal(slow.requests.length, 1, 'the first worker is waiting for its model');
  // A long GC pause, a throttled container, a frozen VM: its heartbeats stop, and pg-boss hands the job out again.
  stalled.child.kill('SIGSTOP');
  t.teardown(() => {
    if (stalled.child.exitCode === null) stalled.child.kill('SIGCONT');
  });
  const stream = readStream(`${apiA.url}/ai/jobs/${job.body.job_id}/stream`, token, 60_000);
  await startService(t, 'dish-worker', { ...worker, OPENAI_BASE_URL: down.baseUrl });
  const { events } = await stream;
  t.match(events.at(-1)!.data, { status: 'failed', error: { code: 'model_unavailable' } }, 'the client saw it fail');
  // The first worker wakes to its model's answer; stopping it waits for the job in its hands.
  stalled.child.kill('SIGCONT');
  stalled.child.kill('SIGTERM');
  await once(stalled.child, 'exit');
  const after = await api(apiA.url, token, 'GET', `/ai/jobs/${job.body.job_id}`);
  t.match(after.body, { status: 'failed', result: null, error: { code: 'model_unavailable' } }, 'and it stays so');
});

t.test('paid jobs are taken before every waiting free job', async (t) => {
  const { url, sql } = await database(t);
  const model = await fakeOpenAi(visionReplies({ delayMs: 400 }));
  t.teardown(model.close);
  const apiA = await startService(t, 'api', { DATABASE_URL: url });
  const free = await loginOver(apiA.url, 'free-user');
  const paid = await loginOver(apiA.url, 'paid-user');
  await sql`UPDATE users SET plan = 'paid' WHERE external_subject = 'paid-user'`;
  const ids: string[] = [];
  for (let i = 0; i < 4; i++)
    ids.push(
      (await api(apiA.url, free, 'POST', '/ai/recognize-dish', { image: imageJson(fakeJpeg(30 + i)) })).body.job_id,
    );
  const paidJob = await api(apiA.url, paid, 'POST', '/ai/recognize-dish', { image: imageJson(fakeJpeg(40)) });
  t.equal(paidJob.body.queue_position, 0, 'nothing is ahead of a paid job');
  // One slot: the worker starts only after every job is waiting, and must take the paid one first.
  await startService(t, 'dish-worker', {
    DATABASE_URL: url,
    OPENAI_API_KEY: 'k',
    OPENAI_BASE_URL: model.baseUrl,
    WORKER_CONCURRENCY: '1',
  });
  await readStream(`${apiA.url}/ai/jobs/${ids.at(-1)}/stream`, free, 30_000);
  const order = await sql`SELECT id FROM dish_recognition_jobs ORDER BY started_at`;
  t.equal(order[0]!.id, paidJob.body.job_id, 'the paid job was started first');
  t.same(
    order.slice(1).map((r) => r.id),
    ids,
    'then the free jobs in submission order',
  );
});
