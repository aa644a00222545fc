import t from 'tap';
import { connect } from 'node:net';
import { todayUtc, weekStart } from '@nutrition/domain';
import { as, assertError, buildTestApp, login } from './helpers.ts';
import { fakeJpeg, imageJson } from './processes.ts';

t.test(
  'hostile input: control characters, lone surrogates, dates out of range, loose integers, tampered cursors',
  async (t) => {
    const { app, sql } = await buildTestApp(t);
    const session = await login(app, 'hostile');
    const a = as(app, session);
    const [milk] = await sql`SELECT id FROM products WHERE code = 'milk'`;
    const stored = async () =>
      (
        await sql`SELECT (SELECT count(*)::int FROM meal_diary) AS diary, (SELECT count(*)::int FROM user_products) AS
          pantry,
      (SELECT count(*)::int FROM shopping_list_items) AS shopping, (SELECT count(*)::int FROM dishes) AS dishes`
      )[0]!;
    const before = await stored();
    const refuse = async (res: Awaited<ReturnType<typeof a>>, label: string, code = 'validation_failed') => {
      const body = assertError(t, res, 400, code);
      t.comment(`${label}: ${body.message}`);
    };

    // One text rule everywhere: NUL, other control characters and lone surrogates are 400, whatever the field.
    await refuse(
      await app.inject({ method: 'POST', url: '/auth/login', payload: { id_token: 'a\u0000b' } }),
      'id_token with NUL',
    );
    for (const path of ['/dishes/search', '/products/search', '/ingredients/search']) {
      await refuse(
        await a({ method: 'GET', url: `${path}?q=${encodeURIComponent('mi\u0000lk')}` }),
        `${path} q with NUL`,
      );
      await refuse(
        await a({ method: 'GET', url: `${path}?q=${encodeURIComponent('mi\u001blk')}` }),
        `${path} q with ESC`,
      );
    }
    for (const name of ['cook\u0000ies', 'bo\u0007b', 'tab\u0085', 'half \ud800 pair']) {
      await refuse(
        await a({ method: 'POST', url: '/diary', payload: { date: '2026-11-20', meal_type: 'lunch', name } }),
        `diary name ${JSON.stringify(name)}`,
      );
      await refuse(
        await a({ method: 'POST', url: '/user-products', payload: { name, quantity: 1, unit_code: 'piece' } }),
        'pantry name',
      );
      await refuse(
        await a({ method: 'POST', url: '/shopping-list/items', payload: { week_start: weekStart(todayUtc()), name } }),
        'shopping name',
      );
      await refuse(await a({ method: 'PUT', url: '/profile', payload: { name } }), 'profile name');
    }
    const body = assertError(
      t,
      await a({ method: 'PUT', url: '/profile', payload: { preferences: { cuisines: ['ok', 'x\u0000'] } } }),
      400,
    );
    t.same(
      body.details,
      [{ path: '/body/preferences/cuisines/1', message: 'must not contain control characters' }],
      'the path is a JSON Pointer',
    );
    t.equal(
      (await a({ method: 'PUT', url: '/profile', payload: { name: 'Line one\nline two\tand a tab' } })).statusCode,
      200,
      'line breaks and tabs are text',
    );
    await refuse(
      await a({ method: 'GET', url: '/diary?date=2026-11-20', headers: { 'accept-language': 'ru\u0085' } }),
      'a header the service reads',
    );

    // Dates from 1900-01-01 to 2100-12-31; purchases no more than a day ahead.
    const entry = (date: string) =>
      a({ method: 'POST', url: '/diary', payload: { date, meal_type: 'lunch', product_id: milk!.id, portion_g: 100 } });
    for (const date of ['9999-12-31', '1899-12-31', '2101-01-01', '0001-01-01'])
      await refuse(await entry(date), `diary date ${date}`);
    t.equal((await entry('1900-01-01')).statusCode, 201, 'the first day of the range');
    t.equal((await entry('2100-12-31')).statusCode, 201, 'the last day of the range');
    await refuse(await a({ method: 'GET', url: '/diary?date=9999-12-31' }), 'diary day 9999');
    const pantry = (payload: Record<string, unknown>) =>
      a({
        method: 'POST',
        url: '/user-products',
        payload: { product_id: milk!.id, quantity: 1, unit_code: 'l', ...payload },
      });
    const kept = (await pantry({ added_at: '2026-11-20T12:00:00+15:59', storage_days: 3 })).json();
    t.equal(kept.added_at, '2026-11-19T20:01:00.000Z', 'the widest offset PostgreSQL takes');
    for (const [added_at, utc] of [
      ['2026-11-20T12:00:00+0200', '2026-11-20T10:00:00.000Z'],
      ['2026-11-20T12:00:00+02', '2026-11-20T10:00:00.000Z'],
    ]) {
      const res = await pantry({ added_at, storage_days: 3 });
      t.equal(res.statusCode, 201, `${added_at}: an offset without its colon (Android) or minutes`);
      t.equal(res.json().added_at, utc);
    }
    for (const added_at of [
      '9999-12-31T23:59:59Z',
      '0001-01-01T00:00:00Z',
      new Date(Date.now() + 2 * 86400_000).toISOString(),
      // a leap second: PostgreSQL would roll it over into 2100-01-01, past the check for the future
      '2099-12-31T23:59:60Z',
      // offsets RFC 3339 allows and PostgreSQL refuses (was a 500)
      '2026-11-20T00:00:00+16:00',
      '2026-11-20T00:00:00-23:59',
    ]) {
      await refuse(await pantry({ added_at, storage_days: 3650 }), `added_at ${added_at}`);
      const patch = await a({ method: 'PATCH', url: `/user-products/${kept.id}`, payload: { added_at } });
      await refuse(patch, `PATCH added_at ${added_at}`);
    }
    t.equal(
      (await a({ method: 'GET', url: `/user-products/${kept.id}` })).json().added_at,
      kept.added_at,
      'refused changes left the item as it was',
    );

    // Integers only as integer literals.
    for (const limit of ['1.5', '0x10', '1e1', ' 5', '٣']) {
      await refuse(
        await a({ method: 'GET', url: `/user-products?limit=${encodeURIComponent(limit)}` }),
        `limit=${limit}`,
      );
    }
    t.equal((await a({ method: 'GET', url: '/user-products?limit=10' })).statusCode, 200);

    // Cursors: every page the server hands out can be followed, and a tampered one is 400 invalid_cursor.
    // Bought at the end of the range and kept ten years: expiry dates past 2100 still page.
    for (let i = 0; i < 3; i++)
      t.equal((await pantry({ added_at: `2026-11-2${i}T12:00:00Z`, storage_days: 3650 })).statusCode, 201);
    t.equal(
      (await pantry({ added_at: new Date(Date.now() + 3600_000).toISOString(), storage_days: 3650 })).statusCode,
      201,
      'an hour ahead is fine',
    );
    let cursor: string | null = '';
    let pages = 0;
    while (cursor !== null && pages < 10) {
      const page = await a({ method: 'GET', url: `/user-products?limit=1${cursor ? `&cursor=${cursor}` : ''}` });
      t.equal(page.statusCode, 200, `page ${++pages}`);
      cursor = page.json().next_cursor;
    }
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const bad of [
      forged({ expires_at: '2026-02-30T00:00:00.000Z', id: '01900000-0000-7000-8000-000000000000' }),
      forged({ expires_at: '+010009-12-28T23:59:59.000Z', id: '01900000-0000-7000-8000-000000000000' }),
      forged({ expires_at: '2026-11-20T00:00:00.000Z', id: 'nope' }),
      'not base64 at all!',
    ]) {
      await refuse(
        await a({ method: 'GET', url: `/user-products?cursor=${encodeURIComponent(bad)}` }),
        'tampered cursor',
        'invalid_cursor',
      );
    }
    await refuse(
      await a({ method: 'GET', url: `/products/search?q=milk&cursor=${forged({ score: 'x', id: 1 })}` }),
      'search cursor',
      'invalid_cursor',
    );

    // A UUID as a URN: the uuid format takes it, PostgreSQL does not (these were 500s).
    const urn = 'urn:uuid:01900000-0000-7000-8000-000000000000';
    await refuse(await a({ method: 'GET', url: `/dishes/${urn}` }), 'a path id as a URN');
    await refuse(await a({ method: 'GET', url: `/saved-recipes?recipe_id=${urn}` }), 'a query id as a URN');
    await refuse(
      await a({ method: 'POST', url: '/diary', payload: { date: '2026-11-20', meal_type: 'lunch', dish_id: urn } }),
      'a body id as a URN',
    );
    // 10,000 nested arrays (20 KB): the text check walked them recursively and overflowed the stack (a 500).
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    for (const url of ['/auth/login', '/diary']) {
      const nested = await a({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: deep });
      await refuse(nested, `nested arrays to ${url}`);
    }
    // A multipart body the parser cannot read: no boundary, or cut short (these were 500s).
    for (const [type, body] of [
      ['multipart/form-data', 'x'],
      [
        'multipart/form-data; boundary=XX',
        '--XX\r\nContent-Disposition: form-data; name="image"; filename="a.jpg"\r\n\r\nab',
      ],
    ] as const) {
      const unread = await a({
        method: 'POST',
        url: '/ai/recognize-dish',
        headers: { 'content-type': type },
        payload: body,
      });
      await refuse(unread, `multipart: ${type}`);
    }

    // An image over 8 MiB is 413 in JSON as in multipart.
    const big = Buffer.concat([fakeJpeg(1), Buffer.alloc(9 * 1024 * 1024)]);
    const tooLarge = await a({ method: 'POST', url: '/ai/recognize-products', payload: { images: [imageJson(big)] } });
    t.equal(tooLarge.statusCode, 413, '9 MiB as base64 JSON');
    t.equal(tooLarge.json().code, 'payload_too_large');

    t.same(await stored(), { ...before, diary: 2, pantry: 7 }, 'only the accepted requests stored anything');
  },
);

t.test('requests the HTTP parser refuses get the error shape: headers too large (431), malformed (400)', async (t) => {
  const { app } = await buildTestApp(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const raw = (request: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.end(request));
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk));
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
    });
  const parse = (answer: string) => {
    const [head, body] = answer.split('\r\n\r\n');
    return { status: Number(head!.split(' ')[1]), head: head!, body: JSON.parse(body!) };
  };

  const huge = parse(await raw(`GET /languages HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
  t.equal(huge.status, 431);
  t.match(huge.head, /content-type: application\/json/i);
  t.match(huge.body, { statusCode: 431, error: 'Request Header Fields Too Large', code: 'headers_too_large' });
  t.match(huge.body.request_id, /^[0-9a-f-]{36}$/);

  const malformed = parse(await raw('GET /languages HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
  t.equal(malformed.status, 400);
  t.match(malformed.body, { statusCode: 400, code: 'bad_request', request_id: String });
  // The server goes on serving.
  t.equal((await app.inject({ method: 'GET', url: '/languages' })).statusCode, 200);
});
