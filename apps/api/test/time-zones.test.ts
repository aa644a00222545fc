import t from 'tap';
import { as, assertError, buildTestApp, login } from './helpers.ts';
import { fakeJpeg, imageJson } from './processes.ts';

/**
 * Users at UTC+14 (Kiritimati) and UTC-11 (Pago Pago), whose dates always differ, on a clock the test sets: every
 * "today" follows the user's zone, around their midnight and across a daylight-saving change.
 */
t.test(
  "time zones: today, this week, the last 24 hours, days_left, age and cache days on the user's clock",
  async (t) => {
    let clock = new Date('2026-11-24T09:59:00Z');
    const { app, sql } = await buildTestApp(t, { RATE_LIMIT_MODEL_PER_MINUTE: '1000' }, { clock: () => clock });
    const sessions = {
      kiri: await login(app, 'kiritimati'),
      pago: await login(app, 'pago-pago'),
      utc: await login(app, 'greenwich'),
    };
    const kiri = as(app, sessions.kiri);
    const pago = as(app, sessions.pago);
    const utc = as(app, sessions.utc);

    t.equal((await utc({ method: 'GET', url: '/profile' })).json().timezone, 'UTC', 'UTC by default');
    for (const zone of ['Mars/Olympus_Mons', 'pacific/kiritimati', 'UTC+14', '']) {
      assertError(
        t,
        await kiri({ method: 'PUT', url: '/profile', payload: { timezone: zone } }),
        400,
        'validation_failed',
      );
    }
    t.equal(
      (await kiri({ method: 'PUT', url: '/profile', payload: { timezone: 'Pacific/Kiritimati' } })).json().timezone,
      'Pacific/Kiritimati',
    );
    t.equal(
      (await pago({ method: 'PUT', url: '/profile', payload: { timezone: 'Pacific/Pago_Pago' } })).json().timezone,
      'Pacific/Pago_Pago',
    );

    const jobDate = async (user: typeof kiri) => {
      const id = (
        await user({
          method: 'POST',
          url: '/ai/recognize-dish',
          payload: { image: imageJson(fakeJpeg(Math.floor(Math.random() * 1e6))) },
        })
      ).json().job_id;
      return (await user({ method: 'GET', url: `/ai/jobs/${id}` })).json().target_date as string;
    };

    // 09:59 UTC: 23:59 on the 24th in Kiritimati, 22:59 on the 23rd in Pago Pago.
    t.equal(await jobDate(kiri), '2026-11-24', 'Kiritimati, a minute before midnight');
    t.equal(await jobDate(pago), '2026-11-23', 'Pago Pago, the day before');
    t.equal(await jobDate(utc), '2026-11-24');
    clock = new Date('2026-11-24T10:01:00Z');
    t.equal(await jobDate(kiri), '2026-11-25', 'Kiritimati, a minute after midnight');
    t.equal(await jobDate(pago), '2026-11-23');
    clock = new Date('2026-11-24T11:00:30Z');
    t.equal(await jobDate(pago), '2026-11-24', 'Pago Pago, just after its midnight');

    // "Today's" dish jobs: those submitted since midnight on the user's clock.
    clock = new Date('2026-11-24T10:01:00Z');
    await sql`DELETE FROM dish_recognition_jobs`;
    const job = async (userId: string, at: string) =>
      (
        await sql`INSERT INTO dish_recognition_jobs (user_id, status, created_at) VALUES (${userId}, 'done', ${at})
          RETURNING id`
      )[0]!.id as string;
    await job(sessions.kiri.user.id, '2026-11-24T09:58:00Z');
    const afterKiriMidnight = await job(sessions.kiri.user.id, '2026-11-24T10:00:30Z');
    const pagoYesterdayMorning = await job(sessions.pago.user.id, '2026-11-23T11:30:00Z');
    await job(sessions.pago.user.id, '2026-11-23T10:30:00Z');
    const ids = async (user: typeof kiri) =>
      (await user({ method: 'GET', url: '/ai/jobs' })).json().items.map((j: { id: string }) => j.id);
    t.same(await ids(kiri), [afterKiriMidnight], 'Kiritimati: only the job after its midnight, not the one at 09:58');
    t.same(await ids(pago), [pagoYesterdayMorning], 'Pago Pago: its 23rd started at 11:00 UTC on the 23rd, not 10:30');

    // The last 24 hours of product jobs, by the clock.
    await sql`INSERT INTO product_recognition_jobs (user_id, status, job_type, created_at) VALUES
    (${sessions.pago.user.id}, 'done', 'receipt', '2026-11-23T10:30:00Z'), (${sessions.pago.user.id}, 'done',
      'receipt', '2026-11-23T09:30:00Z')`;
    t.equal(
      (await pago({ method: 'GET', url: '/ai/product-jobs' })).json().items.length,
      1,
      '23.5 hours ago is in, 24.5 is out',
    );

    // days_left counts calendar days on the user's clock; added at noon UTC on the 20th, kept 5 days.
    const milk = (await sql`SELECT id FROM products WHERE code = 'milk'`)[0]!.id;
    const add = (user: typeof kiri) =>
      user({
        method: 'POST',
        url: '/user-products',
        payload: { product_id: milk, quantity: 1, unit_code: 'l', storage_days: 5, added_at: '2026-11-20T12:00:00Z' },
      });
    const kiriItem = (await add(kiri)).json().id;
    const pagoItem = (await add(pago)).json().id;
    const daysLeft = async (user: typeof kiri, id: string) =>
      (await user({ method: 'GET', url: `/user-products/${id}` })).json().days_left;
    clock = new Date('2026-11-24T09:59:00Z');
    t.equal(
      await daysLeft(kiri, kiriItem),
      2,
      'Kiritimati on the 24th: expires on the 26th (added at 02:00 on the 21st)',
    );
    t.equal(
      await daysLeft(pago, pagoItem),
      2,
      'Pago Pago on the 23rd: expires on the 25th (added at 01:00 on the 20th)',
    );
    clock = new Date('2026-11-24T10:01:00Z');
    t.equal(await daysLeft(kiri, kiriItem), 1, 'a minute after midnight in Kiritimati, one day less');
    t.equal(await daysLeft(pago, pagoItem), 2, 'still the 23rd in Pago Pago');
    const expiring = (await kiri({ method: 'GET', url: '/user-products?expiring_within_days=1' })).json().items;
    t.same(
      expiring.map((i: { id: string }) => i.id),
      [kiriItem],
      'expiring_within_days counts the same days',
    );

    // The current week: at 10:30 UTC on Sunday the 29th it is already Monday the 30th in Kiritimati.
    clock = new Date('2026-11-29T10:30:00Z');
    t.equal((await kiri({ method: 'GET', url: '/menu' })).json().week_start, '2026-11-30');
    t.equal((await pago({ method: 'GET', url: '/menu' })).json().week_start, '2026-11-23');
    t.equal((await utc({ method: 'GET', url: '/menu' })).json().week_start, '2026-11-23');
    t.equal((await kiri({ method: 'GET', url: '/shopping-list' })).json().week_start, '2026-11-30');
    t.equal((await pago({ method: 'GET', url: '/shopping-list' })).json().week_start, '2026-11-23');

    // Age and the limits on the date of birth: a birthday starts at the user's midnight.
    clock = new Date('2026-11-24T09:59:00Z');
    await kiri({ method: 'PUT', url: '/profile', payload: { date_of_birth: '2000-11-25' } });
    await pago({ method: 'PUT', url: '/profile', payload: { date_of_birth: '2000-11-25' } });
    t.equal((await kiri({ method: 'GET', url: '/profile' })).json().age, 25);
    clock = new Date('2026-11-24T10:00:00Z');
    t.equal((await kiri({ method: 'GET', url: '/profile' })).json().age, 26, 'Kiritimati: 26 at its midnight');
    t.equal((await pago({ method: 'GET', url: '/profile' })).json().age, 25, 'Pago Pago: not yet');
    t.equal(
      (await kiri({ method: 'PUT', url: '/profile', payload: { date_of_birth: '2016-11-25' } })).statusCode,
      200,
      'ten years today in Kiritimati',
    );
    assertError(
      t,
      await pago({ method: 'PUT', url: '/profile', payload: { date_of_birth: '2016-11-25' } }),
      400,
      'validation_failed',
    );
    t.equal(
      (
        await pago({
          method: 'PUT',
          url: '/profile',
          payload: { date_of_birth: '2016-11-24', timezone: 'Pacific/Kiritimati' },
        })
      ).statusCode,
      200,
      'the limits count from today in the zone being set',
    );
    await pago({ method: 'PUT', url: '/profile', payload: { timezone: 'Pacific/Pago_Pago' } });

    // Recommendations are cached per day on the user's clock.
    clock = new Date('2026-11-24T09:58:00Z');
    const generatedAt = async (user: typeof kiri) =>
      (await user({ method: 'GET', url: '/recommendations?limit=1' })).json().generated_at;
    const kiriFirst = await generatedAt(kiri);
    const pagoFirst = await generatedAt(pago);
    clock = new Date('2026-11-24T10:02:00Z');
    t.not(await generatedAt(kiri), kiriFirst, 'a new day in Kiritimati brings new recommendations');
    t.equal(await generatedAt(pago), pagoFirst, 'the same day in Pago Pago keeps them');
  },
);

t.test('a daylight-saving change: expiry dates and days_left in New York when summer time ends', async (t) => {
  let clock = new Date('2026-11-02T04:30:00Z');
  const { app, sql } = await buildTestApp(t, {}, { clock: () => clock });
  const session = await login(app, 'new-yorker');
  const a = as(app, session);
  await a({ method: 'PUT', url: '/profile', payload: { timezone: 'America/New_York' } });
  const milk = (await sql`SELECT id FROM products WHERE code = 'milk'`)[0]!.id;
  // Noon on Saturday 31 October (EDT, UTC-4), kept two days: noon on Monday 2 November (EST, UTC-5), 49 hours later.
  const item = (
    await a({
      method: 'POST',
      url: '/user-products',
      payload: { product_id: milk, quantity: 1, unit_code: 'l', storage_days: 2, added_at: '2026-10-31T16:00:00Z' },
    })
  ).json();
  t.equal(item.expires_at, '2026-11-02T17:00:00.000Z', 'noon local on the day it expires, across the clock change');
  t.equal(item.days_left, 1, '23:30 on Sunday the 1st: one day left');
  clock = new Date('2026-11-02T05:00:00Z');
  t.equal(
    (await a({ method: 'GET', url: `/user-products/${item.id}` })).json().days_left,
    0,
    'midnight EST: expires today',
  );
  clock = new Date('2026-11-02T04:59:00Z');
  t.equal(
    (await a({ method: 'GET', url: `/user-products/${item.id}` })).json().days_left,
    1,
    'a minute before: still Sunday',
  );
});

t.test(
  'days_left where PostgreSQL and the runtime read a zone differently: an item that expires today is 0',
  async (t) => {
    let clock = new Date();
    const { app, sql } = await buildTestApp(t, {}, { clock: () => clock });
    const milk = (await sql`SELECT id FROM products WHERE code = 'milk'`)[0]!.id;
    for (const [zone, added, now, why] of [
      // names that are also abbreviations: PostgreSQL's AT TIME ZONE read CET as UTC+1 in summer too (was -1)
      ['CET', '2026-07-05T22:30:00Z', '2026-07-10T22:30:00Z', 'added 00:30 on 6 July (CEST), now 00:30 on 11 July'],
      ['WET', '2026-07-05T23:30:00Z', '2026-07-10T23:30:00Z', 'added 00:30 on 6 July (WEST), now 00:30 on 11 July'],
      ['EET', '2026-07-05T21:30:00Z', '2026-07-10T21:30:00Z', 'added 00:30 on 6 July (EEST), now 00:30 on 11 July'],
      // Alberta's rules changed in 2026: the runtime's tzdata has it, the embedded PostgreSQL's did not (was -1)
      ['America/Edmonton', '2026-11-15T06:30:00Z', '2026-11-20T06:30:00Z', 'added 15 November, now 20 November'],
    ] as const) {
      clock = new Date(now);
      const a = as(app, await login(app, `rules-${zone}`));
      t.equal((await a({ method: 'PUT', url: '/profile', payload: { timezone: zone } })).statusCode, 200);
      const item = (
        await a({
          method: 'POST',
          url: '/user-products',
          payload: { product_id: milk, quantity: 1, unit_code: 'l', storage_days: 5, added_at: added },
        })
      ).json();
      t.equal(item.days_left, 0, `${zone}: kept 5 days, ${why}`);
      t.equal(item.expires_at, new Date(Date.parse(added) + 5 * 86400_000).toISOString(), `${zone}: the expiry`);
      const expiring = (await a({ method: 'GET', url: '/user-products?expiring_within_days=0' })).json().items;
      t.same(
        expiring.map((i: { id: string }) => i.id),
        [item.id],
        `${zone}: listed as expiring today`,
      );
    }
  },
);

t.test("a dish photo retried with its Idempotency-Key just after the user's midnight gets the same job", async (t) => {
  let clock = new Date('2026-12-31T09:59:58Z'); // 23:59:58 on 31 December in Kiritimati
  const { app } = await buildTestApp(t, { RATE_LIMIT_MODEL_PER_MINUTE: '1000' }, { clock: () => clock });
  const a = as(app, await login(app, 'kiri-retry'));
  await a({ method: 'PUT', url: '/profile', payload: { timezone: 'Pacific/Kiritimati' } });
  const submit = () =>
    a({
      method: 'POST',
      url: '/ai/recognize-dish',
      headers: { 'idempotency-key': 'photo-1' },
      payload: { image: imageJson(fakeJpeg(42)) },
    });
  const first = await submit();
  t.equal(first.statusCode, 202);
  // The answer was lost; the app sends the same request again at 00:00:02 on 1 January, its clock.
  clock = new Date('2026-12-31T10:00:02Z');
  const retry = await submit();
  t.equal(retry.statusCode, 202, 'replayed, not refused as another request');
  t.equal(retry.json().job_id, first.json().job_id, 'the same job');
  const job = (await a({ method: 'GET', url: `/ai/jobs/${first.json().job_id}` })).json();
  t.equal(job.target_date, '2026-12-31', 'for the day it was sent on');
});
