import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import postgres from 'postgres';
import { weekStart } from '@nutrition/domain';
import { syncRepository } from '@nutrition/db/repositories';
import { as, assertError, buildTestApp, login, logCapture } from './helpers.ts';

const uuid4 = () => crypto.randomUUID();

type Page = {
  changes: Record<string, { upserted: { id: string; version: number }[]; deleted: string[] }>;
  profile: { id: string; version: number } | null;
  cursor: string;
  has_more: boolean;
};

/** Pulls until `has_more` is false, `limit` rows a page, as an app would; returns the merged changes and cursor. */
async function pullAll(call: ReturnType<typeof as>, cursor?: string, limit = 3) {
  const upserted = new Map<string, Map<string, { id: string; version: number }>>();
  const deleted = new Map<string, Set<string>>();
  let profile: Page['profile'] = null;
  let pages = 0;
  for (;;) {
    const query = new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) });
    const res = await call({ method: 'GET', url: `/sync?${query}` });
    if (res.statusCode !== 200) throw new Error(`sync answered ${res.statusCode}: ${res.body}`);
    const page: Page = res.json();
    pages++;
    for (const [kind, change] of Object.entries(page.changes)) {
      const rows = upserted.get(kind) ?? new Map();
      const gone = deleted.get(kind) ?? new Set();
      for (const row of change.upserted) {
        rows.set(row.id, row);
        gone.delete(row.id);
      }
      for (const id of change.deleted) {
        rows.delete(id);
        gone.add(id);
      }
      upserted.set(kind, rows);
      deleted.set(kind, gone);
    }
    profile = page.profile ?? profile;
    cursor = page.cursor;
    if (!page.has_more) break;
  }
  const ids = (kind: string) => [...(upserted.get(kind)?.keys() ?? [])].sort();
  const tombstones = (kind: string) => [...(deleted.get(kind) ?? [])].sort();
  return { upserted, ids, tombstones, profile, cursor: cursor!, pages };
}

t.test('sync round trip: offline-style creates with client ids, updates, deletes, pulled by cursor', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const a = as(app, await login(app, 'syncer'));
  const b = as(app, await login(app, 'bystander'));
  const [borscht] = await sql`SELECT id FROM dishes WHERE code = 'borscht'`;
  const [recipe] = await sql`SELECT id FROM recipes WHERE dish_id = ${borscht!.id} AND is_default`;
  const [milk] = await sql`SELECT id FROM products WHERE code = 'milk'`;
  const week = weekStart('2026-11-25');

  const ids = { diary: uuid4(), pantry: uuid4(), bookmark: uuid4(), shopping: uuid4(), menu: uuid4() };
  const created = await Promise.all([
    a({
      method: 'POST',
      url: '/diary',
      payload: { id: ids.diary, date: '2026-11-25', meal_type: 'lunch', dish_id: borscht!.id },
    }),
    a({
      method: 'POST',
      url: '/user-products',
      payload: { id: ids.pantry, product_id: milk!.id, quantity: 1, unit_code: 'l' },
    }),
    a({ method: 'POST', url: '/saved-recipes', payload: { id: ids.bookmark, recipe_id: recipe!.id } }),
    a({ method: 'POST', url: '/shopping-list/items', payload: { id: ids.shopping, week_start: week, name: 'Bread' } }),
    a({
      method: 'PUT',
      url: '/menu',
      payload: { week_start: week, items: [{ id: ids.menu, date: week, meal_type: 'dinner', dish_id: borscht!.id }] },
    }),
  ]);
  t.same(
    created.map((r) => r.statusCode),
    [201, 201, 201, 201, 200],
  );
  t.same(
    created.slice(0, 4).map((r) => [r.json().id, r.json().version]),
    [
      [ids.diary, 1],
      [ids.pantry, 1],
      [ids.bookmark, 1],
      [ids.shopping, 1],
    ],
    'each row takes the id the client made, at version 1',
  );
  t.equal(created[4]!.json().days[0].items[0].id, ids.menu);

  const first = await pullAll(a);
  t.ok(first.pages > 1, 'the first pull came in several pages');
  t.same(first.ids('diary_entries'), [ids.diary]);
  t.same(first.ids('user_products'), [ids.pantry]);
  t.same(first.ids('saved_recipes'), [ids.bookmark]);
  t.same(first.ids('shopping_items'), [ids.shopping]);
  t.same(first.ids('menu_items'), [ids.menu]);
  t.match(first.profile, { version: 1 }, 'a first pull carries the profile');
  const diaryRow = first.upserted.get('diary_entries')!.get(ids.diary)!;
  t.same(diaryRow, created[0]!.json(), 'a row has the shape its own endpoint answers');

  // Offline edits, replayed when the connection comes back.
  t.equal(
    (await a({ method: 'PATCH', url: `/diary/${ids.diary}`, headers: { 'if-match': '"1"' }, payload: { portions: 2 } }))
      .statusCode,
    200,
  );
  t.equal((await a({ method: 'DELETE', url: `/user-products/${ids.pantry}` })).statusCode, 204);
  t.equal((await a({ method: 'DELETE', url: `/shopping-list/items/${ids.shopping}` })).statusCode, 204);
  t.equal((await a({ method: 'DELETE', url: `/menu?week_start=${week}` })).statusCode, 204, 'a whole week removed');
  t.equal((await a({ method: 'PUT', url: '/profile', payload: { weight_kg: 70 } })).statusCode, 200);
  // Another user's changes are not in this user's feed.
  await b({ method: 'POST', url: '/diary', payload: { date: '2026-11-25', meal_type: 'lunch', dish_id: borscht!.id } });

  const second = await pullAll(a, first.cursor);
  t.same(second.ids('diary_entries'), [ids.diary], 'the changed entry');
  t.equal(second.upserted.get('diary_entries')!.get(ids.diary)!.version, 2);
  t.same(second.tombstones('user_products'), [ids.pantry], 'deleted rows come as ids');
  t.same(second.tombstones('shopping_items'), [ids.shopping]);
  t.same(second.tombstones('menu_items'), [ids.menu], "the week's items, deleted with their week");
  t.same(second.ids('saved_recipes'), [], 'unchanged rows do not come again');
  t.match(second.profile, { weight_kg: 70, version: 2 });

  const third = await pullAll(a, second.cursor);
  t.same(
    ['diary_entries', 'user_products', 'saved_recipes', 'menu_items', 'shopping_items'].flatMap((k) => [
      ...third.ids(k),
      ...third.tombstones(k),
    ]),
    [],
    'nothing changed since: an empty pull',
  );
  t.equal(third.profile, null);

  const other = await pullAll(b);
  t.equal(other.ids('diary_entries').length, 1, "the bystander sees only their own entry, none of the syncer's rows");
  t.notOk(other.ids('diary_entries').includes(ids.diary));
});

t.test('a transaction that began before a cursor and commits after it is still pulled', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const session = await login(app, 'slow-writer');
  const a = as(app, session);
  const [milk] = await sql`SELECT id FROM products WHERE code = 'milk'`;
  const base = await pullAll(a);

  const writer = await sql.reserve();
  t.teardown(() => writer.release());
  await writer`BEGIN`;
  // A pantry row: a diary row would lock the user's row (its diary version) until this transaction ends.
  const [row] = await writer`
    INSERT INTO user_products (user_id, product_id, quantity, unit_code, storage_days)
    VALUES (${session.user.id}, ${milk!.id}, 1, 'l', 7) RETURNING id`;
  // Committed elsewhere meanwhile: a later transaction, visible at once.
  await a({
    method: 'POST',
    url: '/diary',
    payload: { date: '2026-11-25', meal_type: 'lunch', product_id: milk!.id, portion_g: 50 },
  });
  const during = await pullAll(a, base.cursor);
  t.equal(during.ids('diary_entries').length, 1, 'the committed entry');
  t.same(during.ids('user_products'), [], "not the open transaction's row");

  await writer`COMMIT`;
  const after = await pullAll(a, during.cursor);
  t.same(after.ids('user_products'), [row!.id], 'the late commit arrives with the cursor issued before it');
  t.same(after.ids('diary_entries'), [], 'and what was pulled already does not come again');
});

t.test('client ids: replays answer the stored row, conflicts are 409, nothing is created twice', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const session = await login(app, 'replayer');
  const a = as(app, session);
  const b = as(app, await login(app, 'other-replayer'));
  const [milk] = await sql`SELECT id FROM products WHERE code = 'milk'`;
  const id = uuid4();
  const body = { id, product_id: milk!.id, quantity: 2, unit_code: 'l' };

  // A double tap: the same create five times at once.
  const taps = await Promise.all(
    Array.from({ length: 5 }, () => a({ method: 'POST', url: '/user-products', payload: body })),
  );
  t.same(taps.map((r) => r.statusCode).sort(), [200, 200, 200, 200, 201], 'one creates, the others get the stored row');
  t.ok(taps.every((r) => r.json().id === id));
  t.equal((await sql`SELECT count(*)::int AS n FROM user_products WHERE user_id = ${session.user.id}`)[0]!.n, 1);

  // The stored row as it is now, even after an update.
  await a({ method: 'PATCH', url: `/user-products/${id}`, payload: { quantity: 3 } });
  const replay = await a({ method: 'POST', url: '/user-products', payload: body });
  t.equal(replay.statusCode, 200);
  t.match(replay.json(), { id, quantity: 3, version: 2 });
  const upper = await a({ method: 'POST', url: '/user-products', payload: { ...body, id: id.toUpperCase() } });
  t.equal(upper.statusCode, 200, 'the same id in capitals is the same id');

  assertError(
    t,
    await a({ method: 'POST', url: '/user-products', payload: { ...body, quantity: 5 } }),
    409,
    'id_conflict',
  );
  assertError(t, await b({ method: 'POST', url: '/user-products', payload: body }), 409, 'id_conflict');
  t.equal((await b({ method: 'GET', url: `/user-products/${id}` })).statusCode, 404, "another user's row stays hidden");

  await a({ method: 'DELETE', url: `/user-products/${id}` });
  assertError(t, await a({ method: 'POST', url: '/user-products', payload: body }), 409, 'id_conflict');
  t.equal((await sql`SELECT count(*)::int AS n FROM user_products WHERE id = ${id}`)[0]!.n, 0, 'not brought back');

  // The other creates: diary, bookmark, shopping item.
  const [recipe] = await sql`SELECT id FROM recipes WHERE is_default AND source = 'catalog' LIMIT 1`;
  const [other] =
    await sql`SELECT id FROM recipes WHERE is_default AND source = 'catalog' AND id <> ${recipe!.id} LIMIT 1`;
  const creates = [
    [
      '/diary',
      { id: uuid4(), date: '2026-11-25', meal_type: 'snack', product_id: milk!.id, portion_g: 100 },
      { portion_g: 1 },
    ],
    ['/saved-recipes', { id: uuid4(), recipe_id: recipe!.id }, { recipe_id: other!.id }],
    ['/shopping-list/items', { id: uuid4(), name: 'Eggs', week_start: '2026-11-23' }, { name: 'Milk' }],
  ] as const;
  for (const [url, payload, changed] of creates) {
    const copies = await Promise.all([1, 2, 3].map(() => a({ method: 'POST', url, payload })));
    t.same(copies.map((r) => r.statusCode).sort(), [200, 200, 201], `${url}: one create among parallel copies`);
    t.same(new Set(copies.map((r) => r.json().id)), new Set([payload.id]), `${url}: every copy answers the row`);
    assertError(t, await a({ method: 'POST', url, payload: { ...payload, ...changed } }), 409, 'id_conflict');
  }
  assertError(t, await a({ method: 'POST', url: '/diary', payload: { ...creates[0][1], id: 'not-a-uuid' } }), 400);
  const v1 = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
  assertError(
    t,
    await a({ method: 'POST', url: '/diary', payload: { ...creates[0][1], id: v1 } }),
    400,
    'validation_failed',
  );
});

t.test('client ids: parallel copies of a diary create that links a job all answer the row', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const session = await login(app, 'double-tap-job');
  const a = as(app, session);
  const [borscht] = await sql`SELECT id FROM dishes WHERE code = 'borscht'`;
  for (let round = 0; round < 4; round++) {
    const [job] = await sql`
      INSERT INTO dish_recognition_jobs (user_id, status) VALUES (${session.user.id}, 'done') RETURNING id`;
    const body = {
      id: crypto.randomUUID(),
      date: '2026-11-25',
      meal_type: 'dinner',
      dish_id: borscht!.id,
      job_id: job!.id,
    };
    // The copies found the job linked by the first one: 409 job_already_linked for their own entry.
    const copies = await Promise.all([1, 2, 3, 4].map(() => a({ method: 'POST', url: '/diary', payload: body })));
    t.same(copies.map((r) => r.statusCode).sort(), [200, 200, 200, 201], `round ${round}: one create, three replays`);
    t.ok(
      copies.every((r) => r.json().id === body.id),
      'each answers the entry',
    );
  }
  const other = await a({
    method: 'POST',
    url: '/diary',
    payload: {
      id: crypto.randomUUID(),
      date: '2026-11-25',
      meal_type: 'lunch',
      dish_id: borscht!.id,
      job_id: (
        await sql`SELECT job_id FROM meal_diary WHERE user_id = ${session.user.id} AND job_id IS NOT NULL LIMIT 1`
      )[0]!.job_id,
    },
  });
  assertError(t, other, 409, 'job_already_linked');
});

/** PUT /menu with one item, lunch on the week's Monday, under the client-made `id`. */
const putLunch = (a: ReturnType<typeof as>, week: string, id: string, dishId: string) =>
  a({
    method: 'PUT',
    url: '/menu',
    payload: { week_start: week, items: [{ id, date: week, meal_type: 'lunch', dish_id: dishId }] },
  });

t.test('PUT /menu: the id of an item deleted since is 409 id_conflict, not the item brought back', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const a = as(app, await login(app, 'menu-offline'));
  const [borscht] = await sql`SELECT id FROM dishes WHERE code = 'borscht'`;
  const week = '2026-11-23';
  const id = crypto.randomUUID();
  const put = () => putLunch(a, week, id, borscht!.id);
  t.equal((await put()).statusCode, 200);
  t.equal((await put()).statusCode, 200, 'sent again: the same item');
  t.equal((await a({ method: 'DELETE', url: `/menu/items/${id}` })).statusCode, 204, 'deleted on another device');
  assertError(t, await put(), 409, 'id_conflict');
  const plan = (await a({ method: 'GET', url: `/menu?week_start=${week}` })).json();
  t.equal(plan.days[0].items.length, 0, 'still deleted');
});

// The same week sent again (a retry) while another device deletes one of its items, or the whole week: the tombstone
// check ran before the deletion committed and the upsert after, so the item came back (53-69 of 150 pairs). Either
// order must leave it deleted: the PUT first and then the deletion, or the deletion and then 409.
t.test('PUT /menu racing the deletion of an item or of its week: a deleted item never comes back', async (t) => {
  const { app, sql } = await buildTestApp(t, { RATE_LIMIT_PER_MINUTE: '1000000' });
  const a = as(app, await login(app, 'menu-race'));
  const [borscht] = await sql`SELECT id FROM dishes WHERE code = 'borscht'`;
  const week = '2026-11-23';
  const statuses = new Map<string, number>();
  let back = 0;
  for (let i = 0; i < 120; i++) {
    const id = crypto.randomUUID();
    const put = () => putLunch(a, week, id, borscht!.id);
    t.equal((await put()).statusCode, 200);
    const remove = () => a({ method: 'DELETE', url: i % 2 ? `/menu/items/${id}` : `/menu?week_start=${week}` });
    const [again, removed] = await Promise.all([put(), new Promise((r) => setTimeout(r, i % 3)).then(remove)]);
    const key = `${again.statusCode}/${removed.statusCode}`;
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
    if (again.statusCode !== 200) assertError(t, again, 409, 'id_conflict');
    t.equal(removed.statusCode, 204);
    const [row] = await sql<{ n: number; deleted: boolean }[]>`
      SELECT (SELECT count(*)::int FROM menu_items WHERE id = ${id}) AS n,
             (SELECT deleted FROM sync_changes WHERE kind = 'menu_items' AND row_id = ${id}) AS deleted`;
    if (row!.n > 0 || !row!.deleted) back++;
  }
  t.equal(back, 0, `${back} of 120 deleted items came back or lost their tombstone (${JSON.stringify([...statuses])})`);
});

t.test('If-Match: a stale version is 412 and changes nothing; without it the last write wins', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const a = as(app, await login(app, 'matcher'));
  const b = as(app, await login(app, 'other-matcher'));
  const [milk] = await sql`SELECT id FROM products WHERE code = 'milk'`;
  const entry = (
    await a({
      method: 'POST',
      url: '/diary',
      payload: { date: '2026-11-25', meal_type: 'lunch', product_id: milk!.id, portion_g: 100 },
    })
  ).json();
  const item = (
    await a({ method: 'POST', url: '/user-products', payload: { product_id: milk!.id, quantity: 1, unit_code: 'l' } })
  ).json();
  const line = (
    await a({ method: 'POST', url: '/shopping-list/items', payload: { name: 'Tea', week_start: '2026-11-23' } })
  ).json();
  const profile = (await a({ method: 'GET', url: '/profile' })).json();

  // Two devices edit the same entry from version 1: the second one is told.
  const [one, two] = await Promise.all([
    a({ method: 'PATCH', url: `/diary/${entry.id}`, headers: { 'if-match': '"1"' }, payload: { portion_g: 150 } }),
    a({ method: 'PATCH', url: `/diary/${entry.id}`, headers: { 'if-match': 'W/"1"' }, payload: { portion_g: 300 } }),
  ]);
  t.same([one.statusCode, two.statusCode].sort(), [200, 412], 'one of two edits from the same version wins');
  const winner = one.statusCode === 200 ? one : two;
  assertError(t, one.statusCode === 412 ? one : two, 412, 'version_mismatch');
  t.match((await a({ method: 'GET', url: `/diary?date=2026-11-25` })).json().entries[0], {
    portion_g: winner.json().portion_g,
    version: 2,
  });

  assertError(
    t,
    await a({
      method: 'PATCH',
      url: `/user-products/${item.id}`,
      headers: { 'if-match': '7' },
      payload: { quantity: 2 },
    }),
    412,
  );
  t.equal((await a({ method: 'GET', url: `/user-products/${item.id}` })).json().quantity, 1, 'unchanged');
  t.equal(
    (
      await a({
        method: 'PATCH',
        url: `/user-products/${item.id}`,
        headers: { 'if-match': '1' },
        payload: { quantity: 2 },
      })
    ).json().version,
    2,
  );
  assertError(
    t,
    await a({
      method: 'PATCH',
      url: `/shopping-list/items/${line.id}`,
      headers: { 'if-match': '"2"' },
      payload: { checked: true },
    }),
    412,
  );
  assertError(
    t,
    await a({
      method: 'PUT',
      url: '/profile',
      headers: { 'if-match': `"${profile.version + 1}"` },
      payload: { weight_kg: 80 },
    }),
    412,
  );
  t.equal(
    (
      await a({
        method: 'PUT',
        url: '/profile',
        headers: { 'if-match': `"${profile.version}"` },
        payload: { weight_kg: 80 },
      })
    ).json().version,
    profile.version + 1,
  );
  t.equal(
    (await a({ method: 'PUT', url: '/profile', payload: { weight_kg: 81 } })).statusCode,
    200,
    'no If-Match: last write wins',
  );

  assertError(
    t,
    await a({
      method: 'PATCH',
      url: `/user-products/${item.id}`,
      headers: { 'if-match': 'soon' },
      payload: { quantity: 2 },
    }),
    400,
    'validation_failed',
  );
  assertError(
    t,
    await b({ method: 'PATCH', url: `/diary/${entry.id}`, headers: { 'if-match': '"2"' }, payload: { portion_g: 1 } }),
    404,
  );
  assertError(
    t,
    await b({
      method: 'PATCH',
      url: `/shopping-list/items/${line.id}`,
      headers: { 'if-match': '"1"' },
      payload: { checked: true },
    }),
    404,
  );
});

t.test('cursors: expired after the retention is 410 sync_reset; tampered or borrowed is 400', async (t) => {
  let clock = new Date('2026-11-25T12:00:00Z');
  const { app } = await buildTestApp(t, {}, { clock: () => clock });
  const a = as(app, await login(app, 'traveller'));
  const b = as(app, await login(app, 'borrower'));
  const { cursor } = await pullAll(a);
  clock = new Date('2026-12-24T12:00:00Z');
  t.equal((await a({ method: 'GET', url: `/sync?cursor=${cursor}` })).statusCode, 200, 'a 29-day-old cursor works');
  clock = new Date('2026-12-26T12:00:00Z');
  assertError(t, await a({ method: 'GET', url: `/sync?cursor=${cursor}` }), 410, 'sync_reset');
  t.equal((await a({ method: 'GET', url: '/sync' })).statusCode, 200, 'starting over works');

  const [payload, signature] = cursor.split('.');
  const forged = Buffer.from(
    JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), s: '1:1:' }),
  ).toString('base64url');
  for (const bad of [
    `${forged}.${signature}`,
    `${payload}.${signature!.startsWith('A') ? 'B' : 'A'}${signature!.slice(1)}`,
    'abc',
    `${payload}.${signature}.x`,
    '\u0000',
  ])
    assertError(t, await a({ method: 'GET', url: `/sync?cursor=${encodeURIComponent(bad)}` }), 400);
  assertError(t, await b({ method: 'GET', url: `/sync?cursor=${cursor}` }), 400, 'invalid_cursor');
});

/** Opens an SSE stream and collects its events until `close()`. */
function openStream(url: string, token: string, headers: Record<string, string> = {}) {
  const events: { event: string; id: string; data: { cursor: string } }[] = [];
  let wake: () => void = () => {};
  let request: http.ClientRequest;
  const opened = new Promise<number>((resolve, reject) => {
    request = http.get(url, { headers: { authorization: `Bearer ${token}`, ...headers } }, (res) => {
      resolve(res.statusCode!);
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const fields = Object.fromEntries(
            buffer
              .slice(0, end)
              .split('\n')
              .filter((l) => !l.startsWith(':'))
              .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]),
          );
          buffer = buffer.slice(end + 2);
          if (fields.event)
            events.push({ event: fields.event, id: fields.id ?? '', data: JSON.parse(fields.data ?? '{}') });
          wake();
        }
      });
    });
    request.on('error', reject);
  });
  return {
    opened,
    events,
    /** The first event after the `count`th (default: after those already heard). */
    async next(timeoutMs = 5000, count = events.length) {
      const deadline = Date.now() + timeoutMs;
      while (events.length === count && Date.now() < deadline)
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 50);
        });
      return events[count];
    },
    close: () => request.destroy(),
  };
}

t.test('the sync stream wakes on a change of the caller only, and on reconnect after missed changes', async (t) => {
  const { app, sql } = await buildTestApp(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/sync/stream`;
  const sa = await login(app, 'listener');
  const sb = await login(app, 'quiet');
  const [milk] = await sql`SELECT id FROM products WHERE code = 'milk'`;
  const mine = openStream(url, sa.access_token);
  const theirs = openStream(url, sb.access_token);
  t.teardown(() => {
    mine.close();
    theirs.close();
  });
  t.same(await Promise.all([mine.opened, theirs.opened]), [200, 200]);

  await as(
    app,
    sa,
  )({ method: 'POST', url: '/user-products', payload: { product_id: milk!.id, quantity: 1, unit_code: 'l' } });
  const event = await mine.next();
  t.equal(event?.event, 'changed');
  t.equal(event?.id, event?.data.cursor, 'the event id is the feed position');
  t.equal(await theirs.next(500), undefined, "another user's stream stays quiet");

  // Away while something changed: reconnecting with the last event id hears of it at once.
  mine.close();
  await as(app, sa)({ method: 'PUT', url: '/profile', payload: { weight_kg: 65 } });
  const back = openStream(url, sa.access_token, { 'last-event-id': event!.id });
  t.teardown(() => back.close());
  t.equal((await back.next())?.event, 'changed');
  const caughtUp = openStream(url, sa.access_token, { 'last-event-id': (back.events[0] as { id: string }).id });
  t.teardown(() => caughtUp.close());
  t.equal(await caughtUp.next(500), undefined, 'nothing since that position: no event');
});

t.test(
  'sync streams poll the feed: across processes, for many users at once, and for a transaction that commits late',
  async (t) => {
    const { app, sql, url: databaseUrl } = await buildTestApp(t, { SYNC_STREAM_POLL_MS: '50' });
    const { buildApp } = await import('../src/app.ts');
    const { loadConfig } = await import('../src/config.ts');
    const other = await buildApp(
      loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl, SYNC_STREAM_POLL_MS: '50' }),
    );
    t.teardown(() => other.close());
    const streamUrl = async (server: typeof app) => {
      await server.listen({ port: 0, host: '127.0.0.1' });
      return `http://127.0.0.1:${(server.server.address() as AddressInfo).port}/sync/stream`;
    };
    const [here, there] = [await streamUrl(app), await streamUrl(other)];
    const [milk] = await sql<{ id: string }[]>`SELECT id FROM products WHERE code = 'milk'`;

    // Twelve users, each with a stream on either process; six write at once, each through the other process.
    const users = await Promise.all(Array.from({ length: 12 }, (_, i) => login(app, `poller-${i}`)));
    const streams = users.map((u, i) => openStream(i % 2 ? there : here, u.access_token));
    t.teardown(() => {
      for (const s of streams) s.close();
    });
    t.same(
      await Promise.all(streams.map((s) => s.opened)),
      users.map(() => 200),
    );
    const heard = streams.map((s) => s.events.length);
    await Promise.all(
      users.slice(0, 6).map((u, i) =>
        as(
          i % 2 ? app : other,
          u,
        )({
          method: 'POST',
          url: '/user-products',
          payload: { product_id: milk!.id, quantity: 1, unit_code: 'l' },
        }),
      ),
    );
    const told = await Promise.all(streams.map((s, i) => s.next(i < 6 ? 5000 : 300, heard[i])));
    t.same(
      told.map((e) => e?.event),
      users.map((_, i) => (i < 6 ? 'changed' : undefined)),
      'each writer hears of its own change, whichever process holds its stream; the others hear nothing',
    );

    // A transaction that began before several polls and commits after them is told when it commits.
    const late = streams[6]!;
    const heardLate = late.events.length;
    await sql.begin(async (tx) => {
      await tx`INSERT INTO user_products (user_id, product_id, quantity, unit_code, storage_days)
               VALUES (${users[6]!.user.id}, ${milk!.id}, 2, 'l', 7)`;
      t.equal(await late.next(300), undefined, 'nothing told before the commit');
    });
    t.equal((await late.next(5000, heardLate))?.event, 'changed', 'told after the commit');

    // The feed's writes NOTIFY no one: PostgreSQL lets one notifying commit through at a time.
    const notified: string[] = [];
    const { unlisten } = await sql.listen('sync_changed', (payload) => notified.push(payload));
    const heardProfile = streams[7]!.events.length;
    await as(app, users[7]!)({ method: 'PUT', url: '/profile', payload: { weight_kg: 70 } });
    t.equal((await streams[7]!.next(5000, heardProfile))?.event, 'changed');
    await unlisten();
    t.same(notified, [], 'no notification per write');
  },
);

t.test('a database outage: the poll logs it once, and the stream hears the first change after', async (t) => {
  const { lines, stream } = logCapture();
  const { app, sql, adminUrl } = await buildTestApp(
    t,
    { SYNC_STREAM_POLL_MS: '20' },
    { logger: { level: 'info', stream } },
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  const session = await login(app, 'outlasting');
  const listener = openStream(
    `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/sync/stream`,
    session.access_token,
  );
  t.teardown(() => listener.close());
  t.equal(await listener.opened, 200);
  const [milk] = await sql<{ id: string }[]>`SELECT id FROM products WHERE code = 'milk'`;

  // The API's connections are cut and new ones refused for a while: many polls fail.
  const [database] = await sql<{ name: string }[]>`SELECT current_database() AS name`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  t.teardown(() => admin.end());
  await admin.unsafe(`ALTER DATABASE ${database!.name} ALLOW_CONNECTIONS false`);
  await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${database!.name}`;
  await new Promise((r) => setTimeout(r, 400));
  await admin.unsafe(`ALTER DATABASE ${database!.name} ALLOW_CONNECTIONS true`);
  const failed = lines.filter((l) => l.includes('sync streams cannot read the change feed')).length;
  t.equal(failed, 1, 'one warning for the outage, not one per poll');

  const heard = listener.events.length;
  await sql`INSERT INTO user_products (user_id, product_id, quantity, unit_code, storage_days)
            VALUES (${session.user.id}, ${milk!.id}, 1, 'l', 7)`;
  t.equal((await listener.next(5000, heard))?.event, 'changed', 'the first change after the outage is told');
  t.equal(lines.filter((l) => l.includes('sync streams read the change feed again')).length, 1);
});

t.test('tombstones are kept for the retention period and purged after it', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const session = await login(app, 'forgetter');
  const a = as(app, session);
  const [milk] = await sql`SELECT id FROM products WHERE code = 'milk'`;
  const { cursor } = await pullAll(a);
  const ids: string[] = [];
  for (let i = 0; i < 2; i++) {
    const item = await a({
      method: 'POST',
      url: '/user-products',
      payload: { product_id: milk!.id, quantity: 1, unit_code: 'l' },
    });
    ids.push(item.json().id);
    await a({ method: 'DELETE', url: `/user-products/${item.json().id}` });
  }
  await sql`UPDATE sync_changes SET changed_at = now() - interval '32 days' WHERE row_id = ${ids[0]!}`;
  await sql`UPDATE sync_changes SET changed_at = now() - interval '30 days' WHERE row_id = ${ids[1]!}`;
  t.equal(await syncRepository(app.sql).purgeTombstones(31), 1);
  t.same((await pullAll(a, cursor)).tombstones('user_products'), [ids[1]], 'the 30-day-old deletion is still told');
  t.same((await pullAll(a)).tombstones('user_products'), [], 'a first pull has no deletions to tell');
});

t.test('many pulls at once (more than pool connections), in far time zones: each gets its own rows', async (t) => {
  const { app, sql } = await buildTestApp(t, { DATABASE_POOL_SIZE: '4' });
  const [milk] = await sql`SELECT id FROM products WHERE code = 'milk'`;
  const zones = ['Pacific/Kiritimati', 'Pacific/Pago_Pago'];
  const users = await Promise.all(
    Array.from({ length: 24 }, async (_, i) => {
      const call = as(app, await login(app, `crowd-${i}`));
      await call({ method: 'PUT', url: '/profile', payload: { timezone: zones[i % 2] } });
      const item = (
        await call({
          method: 'POST',
          url: '/user-products',
          payload: { product_id: milk!.id, quantity: i + 1, unit_code: 'l' },
        })
      ).json();
      return { call, item };
    }),
  );
  const pulls = await Promise.all(users.map(({ call }) => pullAll(call, undefined, 1)));
  for (const [i, pull] of pulls.entries()) {
    const { call, item } = users[i]!;
    t.same(pull.ids('user_products'), [item.id], `user ${i} gets only their item`);
    const own = (await call({ method: 'GET', url: `/user-products/${item.id}` })).json();
    t.same(pull.upserted.get('user_products')!.get(item.id), own, `user ${i}: days_left on their own clock`);
    t.equal((pull.profile as unknown as { timezone: string }).timezone, zones[i % 2]);
  }
});

t.test('a pull without Accept-Language speaks the profile language, read beside the feed', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const [milk] = await sql<{ id: string; de: string; en: string }[]>`
    SELECT p.id, de.name AS de, en.name AS en FROM products p
    JOIN product_aliases de ON de.product_id = p.id AND de.language_code = 'de' AND de.is_primary
    JOIN product_aliases en ON en.product_id = p.id AND en.language_code = 'en' AND en.is_primary
    WHERE p.code = 'milk'`;
  const a = as(app, await login(app, 'lena'));
  await a({ method: 'PUT', url: '/profile', payload: { preferences: { language: 'de' } } });
  await a({
    method: 'POST',
    url: '/diary',
    payload: { date: '2026-11-20', meal_type: 'breakfast', product_id: milk!.id, portion_g: 250 },
    headers: { 'accept-language': 'en' },
  });
  const names = (res: { json: () => Page }) =>
    (res.json().changes.diary_entries!.upserted as unknown as { name: string }[]).map((e) => e.name);

  const pulled = await a({ method: 'GET', url: '/sync' });
  t.equal(pulled.headers['content-language'], 'de');
  t.equal(pulled.headers.vary, 'Origin, Accept-Language', 'Accept-Language named once');
  t.same(names(pulled), [milk!.de], "the entry's product in the profile language");
  const asked = await a({ method: 'GET', url: '/sync', headers: { 'accept-language': 'en' } });
  t.equal(asked.headers['content-language'], 'en');
  t.same(names(asked), [milk!.en], 'Accept-Language still wins');

  // A pull that fails before its reads still names a language, and the profile read it started fails nothing.
  const bad = await a({ method: 'GET', url: '/sync?cursor=abc' });
  assertError(t, bad, 400, 'invalid_cursor');
  t.equal(bad.headers['content-language'], 'en');
  t.equal((await a({ method: 'GET', url: '/sync' })).headers['content-language'], 'de');
});
