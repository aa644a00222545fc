import t from 'tap';
import { recognitionRepository } from '@nutrition/db/repositories';
import { buildTestApp } from '../../../apps/api/test/helpers.ts';
import { fakeJpeg } from '../../../apps/api/test/processes.ts';
import { ApiError, createNutritionClient, type TokenPair } from '../src/index.ts';

/** The API on a real socket (the noop verifier: an id token is the subject). */
async function served(t: Parameters<typeof buildTestApp>[0]) {
  const ctx = await buildTestApp(t);
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = ctx.app.server.address() as { port: number };
  return { ...ctx, baseUrl: `http://127.0.0.1:${port}` };
}

/** A fetch that counts requests by path, optionally losing an answer after the server handled it. */
function countingFetch(lose: (url: URL) => boolean = () => false) {
  const calls: string[] = [];
  const wrapped = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    calls.push(url.pathname);
    const response = await fetch(request);
    if (lose(url)) {
      await response.body?.cancel();
      throw new TypeError('fetch failed (the answer was lost)');
    }
    return response;
  };
  return { calls, fetch: wrapped as typeof fetch };
}

t.test('typed calls: sign-in, profile, diary, error answers as ApiError fields', async (t) => {
  const { baseUrl } = await served(t);
  const saved: TokenPair[] = [];
  const client = createNutritionClient({ baseUrl, language: 'de', onTokens: (p) => saved.push(p) });
  const pair = await client.session.signIn('client-user');
  t.equal(saved.length, 1, 'the new pair is handed over for storage');
  t.equal(pair.user.is_new, true);

  const profile = await client.api.GET('/profile');
  t.equal(profile.response.status, 200);
  t.equal(profile.data?.id, pair.user.id, 'authorised as the signed-in user');

  const dishes = await client.api.GET('/dishes/search', { params: { query: { q: 'borscht', limit: 1 } } });
  t.equal(dishes.response.headers.get('content-language'), 'de', 'the language option is sent');
  const borscht = dishes.data!.items[0]!;

  const created = await client.api.POST('/diary', {
    body: { date: '2026-11-24', meal_type: 'lunch', dish_id: borscht.id, portions: 2 },
  });
  t.equal(created.response.status, 201);
  const day = await client.api.GET('/diary', { params: { query: { date: '2026-11-24' } } });
  t.same(
    day.data?.entries.map((e) => [e.dish_id, e.portions]),
    [[borscht.id, 2]],
  );

  const refused = await client.api.GET('/diary', { params: { query: { date: '2026-13-40' } } });
  t.equal(refused.response.status, 400);
  t.equal(refused.error?.code, 'validation_failed', 'errors are typed in the contract shape');
});

t.test('refresh: an expired or refused access token is refreshed once and the request resent', async (t) => {
  const { baseUrl } = await served(t);
  const net = countingFetch();
  const signedOut: string[] = [];
  const client = createNutritionClient({ baseUrl, fetch: net.fetch, onSignedOut: () => signedOut.push('out') });
  const pair = await client.session.signIn('refresher');

  // A stored pair whose access token no longer works (its signature altered), as after the 15 minutes.
  const stale = { ...pair, access_token: `${pair.access_token.slice(0, -4)}AAAA` };
  const later = createNutritionClient({ baseUrl, fetch: net.fetch, tokens: stale });
  net.calls.length = 0;
  const answers = await Promise.all(Array.from({ length: 8 }, () => later.api.GET('/profile')));
  t.same(
    answers.map((a) => a.response.status),
    Array(8).fill(200),
    'eight requests at once all succeed',
  );
  t.equal(net.calls.filter((p) => p === '/auth/refresh').length, 1, 'with one refresh between them');
  t.not(later.session.tokens?.refresh_token, pair.refresh_token, 'the refresh token rotated');

  // Near expiry the token is refreshed before the request, not after a 401.
  let now = Date.now();
  const clocked = createNutritionClient({ baseUrl, fetch: net.fetch, now: () => now });
  await clocked.session.signIn('refresher');
  now += 850_000;
  net.calls.length = 0;
  t.equal((await clocked.api.GET('/profile')).response.status, 200);
  t.same(net.calls, ['/auth/refresh', '/profile'], 'refreshed ahead of the expiry');
  t.same(signedOut, [], 'nobody was signed out');
});

t.test('refresh grace: a lost refresh answer and two apps sharing a pair keep the session', async (t) => {
  const { baseUrl } = await served(t);
  let lost = 0;
  const net = countingFetch((url) => url.pathname === '/auth/refresh' && lost++ === 0);
  const client = createNutritionClient({ baseUrl, fetch: net.fetch });
  const pair = await client.session.signIn('flaky-network');
  t.ok(await client.session.refresh(), 'the refresh is resent with the same token and answered');
  t.equal(net.calls.filter((p) => p === '/auth/refresh').length, 2);
  t.equal((await client.api.GET('/profile')).response.status, 200);

  // An app and its widget start from the same stored pair and refresh at once.
  const stored = client.session.tokens!;
  const app = createNutritionClient({ baseUrl, tokens: stored });
  const widget = createNutritionClient({ baseUrl, tokens: stored });
  t.same(await Promise.all([app.session.refresh(), widget.session.refresh()]), [true, true]);
  t.equal((await app.api.GET('/profile')).response.status, 200, 'the app is signed in');
  t.equal((await widget.api.GET('/profile')).response.status, 200, 'and so is the widget');

  // Signed out elsewhere (the session revoked): the next request fails, the refresh is refused, the app is told once.
  const out: string[] = [];
  const stale = createNutritionClient({ baseUrl, tokens: app.session.tokens, onSignedOut: () => out.push('out') });
  await app.session.signOut();
  const answers = await Promise.all([stale.api.GET('/profile'), stale.api.GET('/menu')]);
  t.same(
    answers.map((a) => a.response.status),
    [401, 401],
  );
  t.same(out, ['out'], 'onSignedOut is called once');
  t.equal(stale.session.tokens, null, 'the dead pair is forgotten');
  t.ok(pair.user.id);
});

t.test('uploads: multipart photos, resent with the same key after a lost answer, one job', async (t) => {
  const { baseUrl, sql } = await served(t);
  let lost = 0;
  const net = countingFetch((url) => url.pathname === '/ai/recognize-products' && lost++ === 0);
  const client = createNutritionClient({ baseUrl, fetch: net.fetch });
  const { user } = await client.session.signIn('uploader');
  const photos = [fakeJpeg(1), fakeJpeg(2)].map((data) => ({ data, type: 'image/jpeg' }));
  const accepted = await client.recognizeProducts(photos);
  t.equal(accepted.status, 'queued');
  t.equal(net.calls.filter((p) => p === '/ai/recognize-products').length, 2, 'sent twice');
  const jobs = await sql`SELECT id FROM product_recognition_jobs WHERE user_id = ${user.id}`;
  t.same(
    jobs.map((j) => j.id),
    [accepted.job_id],
    'one job',
  );
  const [images] = await sql`SELECT count(*)::int AS n FROM job_images WHERE product_job_id = ${accepted.job_id}`;
  t.equal(images!.n, 2, 'both photos stored');

  const dish = await client.recognizeDish(new Blob([fakeJpeg(3)], { type: 'image/jpeg' }), {
    target_meal_type: 'dinner',
  });
  const [row] = await sql`SELECT target_meal_type FROM dish_recognition_jobs WHERE id = ${dish.job_id}`;
  t.equal(row!.target_meal_type, 'dinner', 'text fields travel with the file');

  const refused = await client
    .recognizeDish({ data: Buffer.from('not a photo'), type: 'image/jpeg' })
    .catch((e: unknown) => e);
  t.ok(refused instanceof ApiError && refused.status === 415, 'a refusal is an ApiError with the status');
});

t.test('job streams: an async iterator that resumes after a dropped connection without repeats', async (t) => {
  const { baseUrl, app } = await served(t);
  // The first stream connection is cut after its first event, as a phone changing networks would.
  let streams = 0;
  const cutting = (async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    const response = await fetch(request);
    if (!request.url.endsWith('/stream') || streams++ > 0) return response;
    const reader = response.body!.getReader();
    const { value } = await reader.read();
    // The event read so far is delivered; the next read fails.
    const body = new ReadableStream({
      start: (c) => c.enqueue(value),
      pull(c) {
        c.error(new TypeError('network changed'));
        void reader.cancel();
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  }) as typeof fetch;
  const client = createNutritionClient({ baseUrl, fetch: cutting });
  await client.session.signIn('streamer');
  const accepted = await client.recognizeDish({ data: fakeJpeg(4), type: 'image/jpeg' });

  // The worker's side, through the same repository the dish worker uses, once the stream has been resumed: the job
  // was still queued then, so only Last-Event-ID keeps that state from being sent twice.
  const jobs = recognitionRepository(app.sql);
  const worker = (async () => {
    while (streams < 2) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 200));
    await jobs.start('dish', accepted.job_id);
    await jobs.finish('dish', accepted.job_id, { result: { dishes: [] } });
  })();
  const seen: string[] = [];
  for await (const { job } of client.dishJobEvents(accepted.job_id)) seen.push(job.status);
  await worker;
  t.equal(streams, 2, 'the stream was reconnected once');
  t.equal(seen[0], 'queued');
  t.equal(seen.at(-1), 'done', 'it ends with the final state');
  t.equal(new Set(seen).size, seen.length, 'no state twice');

  const other = createNutritionClient({ baseUrl });
  await other.session.signIn('someone-else');
  const foreign = await (async () => {
    for await (const _ of other.dishJobEvents(accepted.job_id)) return 'read';
  })().catch((e: unknown) => e);
  t.ok(foreign instanceof ApiError && foreign.status === 404, "another user's job is 404");
});

t.test('sync(): pulls every page until up to date, then only what changed, with client-made ids', async (t) => {
  const { baseUrl, sql } = await served(t);
  const client = createNutritionClient({ baseUrl });
  await client.session.signIn('client-syncer');
  const [milk] = await sql`SELECT id FROM products WHERE code = 'milk'`;
  const ids = Array.from({ length: 5 }, () => crypto.randomUUID());
  for (const id of ids) {
    const { response } = await client.api.POST('/user-products', {
      body: { id, product_id: milk!.id, quantity: 1, unit_code: 'l' },
    });
    t.equal(response.status, 201);
  }
  const first = await client.sync(undefined, 2);
  t.ok(first.pages >= 3, `${first.pages} pages of 2`);
  t.same(first.changes.user_products.upserted.map((row) => row.id).sort(), [...ids].sort());
  t.ok(first.profile, 'the profile comes with the first pull');

  await client.api.DELETE('/user-products/{id}', { params: { path: { id: ids[0]! } } });
  const next = await client.sync(first.cursor);
  t.same(next.changes.user_products, { upserted: [], deleted: [ids[0]] });
  t.equal(next.profile, null);
  await t.rejects(client.sync('not-a-cursor'), { name: 'ApiError', status: 400, code: 'invalid_cursor' });
});
