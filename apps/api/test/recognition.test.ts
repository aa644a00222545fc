import t from 'tap';
import { as, assertError, buildTestApp, login } from './helpers.ts';
import type { AddressInfo } from 'node:net';
import { recognitionRepository } from '@nutrition/db/repositories';
import { fakeJpeg, imageJson, readStream } from './processes.ts';

t.test('submissions: types by magic bytes, sizes, counts, both body forms', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const alice = await login(app, 'alice');
  const a = as(app, alice);
  const b = as(app, await login(app, 'bob'));

  const json = await a({
    method: 'POST',
    url: '/ai/recognize-dish',
    payload: { image: imageJson(fakeJpeg(1)), target_date: '2026-11-22', target_meal_type: 'lunch' },
  });
  t.equal(json.statusCode, 202);
  t.match(json.json(), { job_id: String, status: 'queued', queue_position: 0, estimated_seconds: Number });

  const boundary = 'xBOUNDARYx';
  const multipart = (parts: { name: string; file?: Buffer; value?: string }[]) =>
    Buffer.concat([
      ...parts.map((p) =>
        Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"` +
              `${p.file ? `; filename="${p.name}.jpg"\r\nContent-Type: image/jpeg` : ''}\r\n\r\n`,
          ),
          p.file ?? Buffer.from(p.value ?? ''),
          Buffer.from('\r\n'),
        ]),
      ),
      Buffer.from(`--${boundary}--\r\n`),
    ]);
  const form = (url: string, parts: Parameters<typeof multipart>[0]) =>
    a({
      method: 'POST',
      url,
      payload: multipart(parts),
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });

  const mp = await form('/ai/recognize-dish', [
    { name: 'image', file: fakeJpeg(2) },
    { name: 'target_meal_type', value: 'dinner' },
  ]);
  t.equal(mp.statusCode, 202, mp.body);
  const second = mp.json();
  t.equal(second.queue_position, 1, 'the first job is ahead of it');
  const [row] =
    await sql`SELECT status, target_meal_type, jsonb_array_length(images) AS n FROM dish_recognition_jobs WHERE id =
      ${second.job_id}`;
  t.match(row, { status: 'queued', target_meal_type: 'dinner', n: 1 });
  const [queued] =
    await sql`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'dish-recognition-free' AND data->>'jobId' =
      ${second.job_id}`;
  t.equal(queued!.n, 1, 'the queue entry was committed with the job');

  const products = await form(
    '/ai/recognize-receipt',
    [1, 2, 3].map((i) => ({ name: 'images', file: fakeJpeg(10 + i) })),
  );
  t.equal(products.statusCode, 202, products.body);

  const jobsBefore = (await sql`SELECT count(*)::int AS n FROM dish_recognition_jobs`)[0]!.n;
  assertError(
    t,
    await a({
      method: 'POST',
      url: '/ai/recognize-dish',
      payload: { image: { content_type: 'image/jpeg', data_base64: Buffer.from('GIF89a....').toString('base64') } },
    }),
    415,
    'unsupported_media_type',
  );
  assertError(
    t,
    await form('/ai/recognize-dish', [{ name: 'image', file: Buffer.from('%PDF-1.7 not an image') }]),
    415,
    'unsupported_media_type',
  );
  assertError(
    t,
    await form('/ai/recognize-dish', [{ name: 'image', file: fakeJpeg(3, 8 * 1024 * 1024 + 10) }]),
    413,
    'payload_too_large',
  );
  assertError(
    t,
    await a({
      method: 'POST',
      url: '/ai/recognize-dish',
      payload: { image: imageJson(fakeJpeg(3, 8 * 1024 * 1024 + 10)) },
    }),
    413,
  );
  assertError(
    t,
    await form('/ai/recognize-dish', [{ name: 'target_meal_type', value: 'lunch' }]),
    400,
    'missing_image',
  );
  assertError(
    t,
    await form('/ai/recognize-dish', [
      { name: 'image', file: fakeJpeg(4) },
      { name: 'image', file: fakeJpeg(5) },
    ]),
    400,
    'too_many_images',
  );
  assertError(
    t,
    await a({
      method: 'POST',
      url: '/ai/recognize-products',
      payload: { images: Array.from({ length: 11 }, (_, i) => imageJson(fakeJpeg(i))) },
    }),
    400,
    'validation_failed',
  );
  assertError(
    t,
    await a({ method: 'POST', url: '/ai/recognize-products', payload: { images: [] } }),
    400,
    'validation_failed',
  );
  assertError(
    t,
    await form('/ai/recognize-dish', [
      { name: 'image', file: fakeJpeg(6) },
      { name: 'target_date', value: '2026-02-30' },
    ]),
    400,
    'validation_failed',
  );
  assertError(
    t,
    await a({ method: 'POST', url: '/ai/recognize-dish', payload: { image: imageJson(fakeJpeg(7)), calories: 100 } }),
    400,
    'validation_failed',
  );
  assertError(
    t,
    await a({
      method: 'POST',
      url: '/ai/recognize-dish',
      payload: { image: { content_type: 'image/jpeg', data_base64: '%%%not base64%%%' } },
    }),
    400,
  );
  t.equal(
    (await sql`SELECT count(*)::int AS n FROM dish_recognition_jobs`)[0]!.n,
    jobsBefore,
    'rejected submissions store nothing',
  );

  assertError(t, await b({ method: 'GET', url: `/ai/jobs/${second.job_id}` }), 404, 'not_found');
  assertError(t, await b({ method: 'GET', url: `/ai/jobs/${second.job_id}/stream` }), 404, 'not_found');
  assertError(t, await b({ method: 'GET', url: `/ai/product-jobs/${products.json().job_id}` }), 404, 'not_found');
  assertError(
    t,
    await b({ method: 'POST', url: `/ai/product-jobs/${products.json().job_id}/apply`, payload: {} }),
    404,
    'not_found',
  );
  assertError(
    t,
    await a({ method: 'POST', url: `/ai/product-jobs/${products.json().job_id}/apply`, payload: {} }),
    409,
    'job_not_done',
  );
  t.same((await b({ method: 'GET', url: '/ai/jobs' })).json().items, []);
  t.equal((await a({ method: 'GET', url: '/ai/jobs' })).json().items.length, 2);
  t.equal((await a({ method: 'GET', url: '/ai/product-jobs' })).json().items.length, 1);
  t.equal((await a({ method: 'GET', url: '/ai/product-jobs/history?limit=1' })).json().items.length, 1);

  const linked = await a({
    method: 'POST',
    url: '/diary',
    payload: { date: '2026-11-22', meal_type: 'lunch', name: 'Borscht', job_id: second.job_id },
  });
  t.equal(linked.statusCode, 201);
  t.same(
    (await a({ method: 'GET', url: '/ai/jobs' })).json().items.map((j: { id: string }) => j.id),
    [json.json().job_id],
    'a linked job leaves /ai/jobs',
  );
});

t.test(
  'a stream sends each state as a read gives it, whether the notification carries the job or is too large to',
  async (t) => {
    const { app, sql } = await buildTestApp(t);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const session = await login(app, 'streamer');
    const job = (
      await as(
        app,
        session,
      )({ method: 'POST', url: '/ai/recognize-receipt', payload: { images: [imageJson(fakeJpeg(3))] } })
    ).json();
    const stream = readStream(`${url}/ai/product-jobs/${job.job_id}/stream`, session.access_token, 10_000);
    while (app.jobEvents.size === 0) await new Promise((r) => setTimeout(r, 10));
    const read = async () =>
      JSON.parse(JSON.stringify(await recognitionRepository(app.sql).byId('product', job.job_id)));

    await sql`UPDATE product_recognition_jobs SET status = 'processing', updated_at = now() WHERE id = ${job.job_id}`;
    const processing = await read();
    // Far beyond the 8,000 bytes a notification holds: the hub reads this one back.
    const items = Array.from({ length: 200 }, (_, i) => ({
      name: `Receipt line number ${i}`,
      product_id: null,
      quantity: 1,
      unit_code: 'piece',
      storage_days: 7,
      confidence: 0.5,
      price: 1.5,
    }));
    await sql`UPDATE product_recognition_jobs SET status = 'done', result = ${sql.json({ items, model: 'test' })},
            finished_at = now(), updated_at = now() WHERE id = ${job.job_id}`;
    const done = await read();

    const { events } = await stream;
    t.same(
      events.map((e) => e.data.status),
      ['queued', 'processing', 'done'],
    );
    t.same(events[1]!.data, processing, 'carried by the notification: the same JSON as a read');
    t.same(events[2]!.data, done, 'too large to carry: read back whole');
    t.equal(events[2]!.data.result.items.length, 200);
    for (const event of events)
      t.match(event.data.updated_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'RFC 3339 in UTC');
    const listed = (await as(app, session)({ method: 'GET', url: '/ai/product-jobs' })).json().items[0];
    t.same(listed, done, 'the same job from the list');
  },
);

t.test('a stream opened while the process drains gets its first event, then is told to reconnect', async (t) => {
  const { app } = await buildTestApp(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const session = await login(app, 'late');
  const job = (
    await as(app, session)({ method: 'POST', url: '/ai/recognize-dish', payload: { image: imageJson(fakeJpeg(4)) } })
  ).json();
  // As after SIGTERM, once the streams open until then have been closed.
  app.draining = true;
  const { events, comments } = await readStream(`${url}/ai/jobs/${job.job_id}/stream`, session.access_token, 5_000);
  t.same(
    events.map((e) => e.data.status),
    ['queued'],
  );
  t.ok(comments.includes('server shutting down, reconnect'), 'ended with the reconnect comment');
});

t.test("job results are localised when read: catalog names in the reading request's language", async (t) => {
  const { app, sql } = await buildTestApp(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const session = await login(app, 'bilingual');
  const a = as(app, session);
  const [borscht] = await sql`
    SELECT d.id AS dish_id, r.id AS recipe_id FROM dishes d JOIN recipes r ON r.dish_id = d.id AND r.is_default
    WHERE d.code = 'borscht'`;
  const [milk] = await sql`SELECT id FROM products WHERE code = 'milk'`;
  // Recognised for an English request: the names were stored in English.
  const dishResult = {
    dishes: [
      {
        name: 'Borscht',
        dish_id: borscht!.dish_id,
        recipe_id: borscht!.recipe_id,
        portion_g: 300,
        portions: 1,
        confidence: 0.9,
        calories: 200,
        protein_g: 8,
        fat_g: 9,
        carbs_g: 20,
      },
    ],
    model: 'offline',
  };
  const [dishJob] = await sql`INSERT INTO dish_recognition_jobs (user_id, status, result)
    VALUES (${session.user.id}, 'done', ${sql.json(dishResult)}) RETURNING id`;
  const productResult = {
    items: [
      {
        name: 'Milk 3.2%',
        product_id: milk!.id,
        quantity: 1,
        unit_code: 'l',
        storage_days: 7,
        confidence: 0.9,
        price: null,
      },
      {
        name: 'Mystery snack',
        product_id: null,
        quantity: 1,
        unit_code: 'piece',
        storage_days: 5,
        confidence: 0.4,
        price: null,
      },
    ],
    model: 'offline',
  };
  const [productJob] = await sql`INSERT INTO product_recognition_jobs (user_id, status, job_type, result)
    VALUES (${session.user.id}, 'done', 'receipt', ${sql.json(productResult)}) RETURNING id`;
  const ru = { 'accept-language': 'ru' };

  t.equal(
    (await a({ method: 'GET', url: `/ai/jobs/${dishJob!.id}`, headers: ru })).json().result.dishes[0].name,
    'Борщ',
  );
  t.equal((await a({ method: 'GET', url: `/ai/jobs/${dishJob!.id}` })).json().result.dishes[0].name, 'Borscht');
  const product = (await a({ method: 'GET', url: `/ai/product-jobs/${productJob!.id}?lang=uk` })).json();
  t.equal(product.result.items[0].name, 'Молоко 3,2%', "a catalog product in the reader's language");
  t.equal(product.result.items[1].name, 'Mystery snack', 'a name without a product stays as recognised');
  const history = (await a({ method: 'GET', url: '/ai/product-jobs/history', headers: ru })).json();
  t.equal(history.items[0].result.items[0].name, 'Молоко 3,2%');

  const stream = await readStream(`${url}/ai/jobs/${dishJob!.id}/stream?lang=ru`, session.access_token, 5_000);
  t.equal(stream.events.at(-1)?.data.result.dishes[0].name, 'Борщ', 'and over its stream');
});

t.test('SSE event ids name job states: Last-Event-ID resumes without repeating what the client has', async (t) => {
  const { app } = await buildTestApp(t);
  const session = await login(app, 'alice');
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const job = (
    await as(app, session)({ method: 'POST', url: '/ai/recognize-dish', payload: { image: imageJson(fakeJpeg(1)) } })
  ).json();
  const streamUrl = `${url}/ai/jobs/${job.job_id}/stream`;

  // The first connection gets the queued state; the app then loses the connection.
  const first = await readStream(streamUrl, session.access_token, 600).catch(() => null);
  t.equal(first, null, 'a queued job keeps its stream open');
  const jobs = recognitionRepository(app.sql);
  const [row] = await app.sql<{ updated_at: Date }[]>`
    SELECT updated_at FROM dish_recognition_jobs WHERE id = ${job.job_id}`;
  const queuedId = `${row!.updated_at.getTime()}-queued`;

  // Reconnecting with that id: the queued state is not sent again, the later ones are.
  const resumed = readStream(streamUrl, session.access_token, 10_000, { 'last-event-id': queuedId });
  await new Promise((r) => setTimeout(r, 300));
  await jobs.start('dish', job.job_id);
  await new Promise((r) => setTimeout(r, 100));
  await jobs.finish('dish', job.job_id, { result: { dishes: [] } });
  const { events } = await resumed;
  t.same(
    events.map((e) => e.data.status),
    ['processing', 'done'],
    'only what came after the state the client had',
  );
  t.match(events.at(-1)!.id, /^\d+-done$/);

  // A client that already saw the final state is sent it once more, which ends the stream.
  const again = await readStream(streamUrl, session.access_token, 5_000, { 'last-event-id': events.at(-1)!.id });
  t.same(
    again.events.map((e) => [e.id, e.data.status]),
    [[events.at(-1)!.id, 'done']],
  );
  // A malformed id is ignored: the stream starts from the current state.
  const junk = await readStream(streamUrl, session.access_token, 5_000, { 'last-event-id': '1-x; DROP' });
  t.equal(junk.events.length, 1);
});

t.test('a stream never goes back: a read begun before a change and answered after it is not sent', async (t) => {
  const { app, sql } = await buildTestApp(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const session = await login(app, 'ordered');
  const job = (
    await as(app, session)({ method: 'POST', url: '/ai/recognize-dish', payload: { image: imageJson(fakeJpeg(2)) } })
  ).json();
  // As under load: the stream's reads (in the request language) take 300 ms after their snapshot; the trigger's
  // notifications (no language) do not. Unslowed, a worker starting the job just as the stream subscribes did this
  // in 1-3 of 150 runs.
  await sql.unsafe(`
    ALTER FUNCTION dish_job_json(dish_recognition_jobs, text) RENAME TO dish_job_json_unslowed;
    CREATE FUNCTION dish_job_json(j dish_recognition_jobs, lang text DEFAULT NULL) RETURNS json
    LANGUAGE plpgsql STABLE AS $$
    BEGIN
      IF lang IS NOT NULL THEN PERFORM pg_sleep(0.3); END IF;
      RETURN dish_job_json_unslowed(j, lang);
    END $$`);
  const stream = readStream(`${url}/ai/jobs/${job.job_id}/stream`, session.access_token, 10_000);
  // Subscribed, the stream sends the job as first read (queued) and reads it again; a worker starts the job meanwhile.
  while (app.jobEvents.size === 0) await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 50));
  const jobs = recognitionRepository(app.sql);
  await jobs.start('dish', job.job_id);
  await new Promise((r) => setTimeout(r, 600));
  await jobs.finish('dish', job.job_id, { result: { dishes: [] } });
  const { events } = await stream;
  t.same(
    events.map((e) => e.data.status),
    ['queued', 'processing', 'done'],
    'each state once, in the order it happened (was queued, processing, queued, done)',
  );
  const times = events.map((e) => Number(e.id.split('-')[0]));
  t.same(
    times,
    [...times].sort((a, b) => a - b),
    'event ids never go back',
  );
});

t.test(
  'a photo of 8 MiB in base64 wrapped every 76 characters with CRLF (MIME, Android) is taken (was 413)',
  async (t) => {
    const { app } = await buildTestApp(t);
    const a = as(app, await login(app, 'wrapped'));
    const wrapped = fakeJpeg(3, 8 * 1024 * 1024 - 4)
      .toString('base64')
      .replace(/.{76}/g, '$&\r\n');
    const accepted = await a({
      method: 'POST',
      url: '/ai/recognize-dish',
      payload: { image: { content_type: 'image/jpeg', data_base64: wrapped } },
    });
    t.equal(accepted.statusCode, 202, 'a wrapped photo of 8 MiB');
  },
);
