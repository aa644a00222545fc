import t from 'tap';
import { addYears, todayUtc } from '@nutrition/domain';
import { as, assertError, buildTestApp, login } from './helpers.ts';

t.test('a new profile has no targets until every input is known', async (t) => {
  const { app } = await buildTestApp(t);
  const session = await login(app, 'p1');
  const res = await as(app, session)({ method: 'GET', url: '/profile' });
  t.equal(res.statusCode, 200);
  t.match(res.json(), {
    id: session.user.id,
    email: 'p1@dev.local',
    name: null,
    plan: 'free',
    bmr: null,
    calorie_target: null,
    macro_targets: null,
    preferences: { language: null, cuisines: [], excluded_tags: [], meals_per_day: 3 },
  });
});

t.test('partial updates change only sent fields and compute the targets', async (t) => {
  const { app } = await buildTestApp(t);
  const put = as(app, await login(app, 'p2'));
  const dob = addYears(todayUtc(), -30);
  let res = await put({
    method: 'PUT',
    url: '/profile',
    payload: { name: 'Anna', sex: 'female', height_cm: 165, weight_kg: 60 },
  });
  t.equal(res.statusCode, 200);
  t.match(res.json(), { name: 'Anna', height_cm: 165, weight_kg: 60, bmr: null, calorie_target: null });

  res = await put({
    method: 'PUT',
    url: '/profile',
    payload: { date_of_birth: dob, activity_level: 'light', goal: 'maintain' },
  });
  // 10·60 + 6.25·165 − 5·30 − 161 = 1320.25; × 1.375 = 1815.3
  t.match(res.json(), { name: 'Anna', age: 30, bmr: 1320.25, calorie_target: 1815 });
  // 1815 × .25 / 4 = 113.4; × .30 / 9 = 60.5; × .45 / 4 = 204.2
  t.same(res.json().macro_targets, { protein_g: 113, fat_g: 61, carbs_g: 204 });

  res = await put({
    method: 'PUT',
    url: '/profile',
    payload: { preferences: { language: 'ru', cuisines: ['russian', 'italian'] } },
  });
  t.same(res.json().preferences, {
    language: 'ru',
    cuisines: ['russian', 'italian'],
    excluded_tags: [],
    meals_per_day: 3,
  });
  res = await put({
    method: 'PUT',
    url: '/profile',
    payload: { preferences: { meals_per_day: 5, excluded_tags: ['contains_pork'] } },
  });
  t.same(
    res.json().preferences,
    { language: 'ru', cuisines: ['russian', 'italian'], excluded_tags: ['contains_pork'], meals_per_day: 5 },
    'preferences merge key by key',
  );

  res = await put({ method: 'PUT', url: '/profile', payload: { goal: null } });
  t.match(res.json(), { goal: null, calorie_target: null, bmr: 1320.25 });
  t.equal(
    (await put({ method: 'PUT', url: '/profile', payload: {} })).json().name,
    'Anna',
    'an empty update changes nothing',
  );
});

t.test('invalid input is 400 and changes nothing', async (t) => {
  const { app } = await buildTestApp(t);
  const put = as(app, await login(app, 'p3'));
  await put({ method: 'PUT', url: '/profile', payload: { name: 'Before', height_cm: 180 } });
  const today = todayUtc();
  const cases: [string, unknown][] = [
    ['height below 50', { height_cm: 49.9 }],
    ['height above 272', { height_cm: 272.5 }],
    ['weight below 20', { weight_kg: 19 }],
    ['weight above 500', { weight_kg: 501 }],
    ['too young', { date_of_birth: addYears(today, -9) }],
    ['too old', { date_of_birth: addYears(today, -121) }],
    ['impossible date', { date_of_birth: '1990-02-30' }],
    ['not a date', { date_of_birth: '30.01.1990' }],
    ['unknown sex', { sex: 'other' }],
    ['unknown activity', { activity_level: 'extreme' }],
    ['unknown goal', { goal: 'bulk' }],
    ['empty name', { name: '' }],
    ['blank name', { name: '   ' }],
    ['long name', { name: 'x'.repeat(101) }],
    ['unsupported language', { preferences: { language: 'xx' } }],
    ['unknown cuisine', { preferences: { cuisines: ['martian'] } }],
    ['unknown tag', { preferences: { excluded_tags: ['contains_kryptonite'] } }],
    ['meals per day', { preferences: { meals_per_day: 7 } }],
    ['unknown property', { height_cm: 170, favourite_colour: 'red' }],
    ['read-only field', { calorie_target: 3000 }],
    ['plan is read-only', { plan: 'paid' }],
    ['valid field with an invalid one', { height_cm: 170, preferences: { language: 'xx' } }],
    ['string for number', { height_cm: '170' }],
  ];
  for (const [_name, payload] of cases) {
    const res = await put({ method: 'PUT', url: '/profile', payload: payload as object });
    assertError(t, res, 400, 'validation_failed');
  }
  const bad = await put({
    method: 'PUT',
    url: '/profile',
    payload: '{"name":',
    headers: { 'content-type': 'application/json' },
  });
  assertError(t, bad, 400, 'invalid_json');
  const after = (await put({ method: 'GET', url: '/profile' })).json();
  t.match(after, { name: 'Before', height_cm: 180, preferences: { language: null, cuisines: [] } });
});

t.test('boundaries are inclusive', async (t) => {
  const { app } = await buildTestApp(t);
  const put = as(app, await login(app, 'p4'));
  const today = todayUtc();
  for (const payload of [
    { height_cm: 50, weight_kg: 20 },
    { height_cm: 272, weight_kg: 500 },
    { date_of_birth: addYears(today, -10) },
    { date_of_birth: addYears(today, -120) },
    { name: 'x'.repeat(100) },
  ]) {
    t.equal((await put({ method: 'PUT', url: '/profile', payload })).statusCode, 200, JSON.stringify(payload));
  }
});

t.test(
  'concurrent reads share statements yet each user gets their own profile, with every write before it',
  async (t) => {
    const { app } = await buildTestApp(t);
    const users = await Promise.all(
      ['c1', 'c2', 'c3', 'c4'].map(async (subject) => ({ subject, get: as(app, await login(app, subject)) })),
    );
    const date = todayUtc();
    for (const [i, { get }] of users.entries()) {
      t.equal(
        (await get({ method: 'PUT', url: '/profile', payload: { name: `user ${i}`, weight_kg: 60 + i } })).statusCode,
        200,
      );
    }
    for (let round = 0; round < 3; round++) {
      // Everyone at once, in an order unlike the rows': profile and diary reads of one turn go out as one statement.
      const order = [2, 0, 3, 1];
      const answers = await Promise.all(
        order.flatMap((i) => {
          const { get } = users[i]!;
          return [
            get({ method: 'GET', url: '/profile' }),
            get({ method: 'GET', url: `/diary?date=${date}` }),
            get({ method: 'GET', url: '/profile' }),
          ];
        }),
      );
      order.forEach((i, n) => {
        t.match(answers[3 * n]!.json(), { name: `user ${i}`, weight_kg: 60 + i + round });
        t.equal(answers[3 * n + 1]!.statusCode, 200);
        t.match(answers[3 * n + 2]!.json(), { name: `user ${i}`, weight_kg: 60 + i + round });
      });
      // A write is seen by the very next read, even one batched with other users' reads.
      await Promise.all(
        users.map(({ get }, i) => get({ method: 'PUT', url: '/profile', payload: { weight_kg: 61 + i + round } })),
      );
    }
  },
);

t.test('a request reads its caller profile once, for its language, its time zone and its answer', async (t) => {
  const { app } = await buildTestApp(t);
  const statements = async () =>
    Number(/profile_read_statements_total (\d+)/.exec((await app.inject('/metrics')).body)?.[1]);
  const sent = async (request: () => Promise<{ statusCode: number }>) => {
    const before = await statements();
    t.equal((await request()).statusCode, 200);
    return (await statements()) - before;
  };
  const kiri = as(app, await login(app, 'kiritimati'));
  await kiri({ method: 'PUT', url: '/profile', payload: { timezone: 'Pacific/Kiritimati' } });

  // Without Accept-Language the language is the profile's; GET /profile and its "today" need it too. Before, each
  // part read it in a statement of its own, one after another: three round trips to answer one request.
  t.equal(await sent(() => kiri({ method: 'GET', url: '/profile' })), 1, 'GET /profile: one read');
  t.equal(
    await sent(() => kiri({ method: 'GET', url: '/profile', headers: { 'accept-language': 'de' } })),
    1,
    'GET /profile in a language asked for: one read',
  );
  // The sync pull: the profile language and the user's today (for the pantry's expiry) from the same read.
  t.equal(await sent(() => kiri({ method: 'GET', url: '/sync' })), 1, 'GET /sync: one read');

  // Shared within a request, never between them: a change is seen by the next request.
  const put = await kiri({ method: 'PUT', url: '/profile', payload: { timezone: 'Pacific/Pago_Pago' } });
  t.equal(put.json().timezone, 'Pacific/Pago_Pago');
  t.equal((await kiri({ method: 'GET', url: '/profile' })).json().timezone, 'Pacific/Pago_Pago');

  // Many users at once: each request gets its own caller's profile, whatever reads share a statement.
  const users = await Promise.all(
    Array.from({ length: 12 }, async (_, i) => {
      const session = await login(app, `once-${i}`);
      await as(app, session)({ method: 'PUT', url: '/profile', payload: { name: `User ${i}` } });
      return { session, i };
    }),
  );
  const answers = await Promise.all(
    users.flatMap(({ session }) => [0, 1].map(() => as(app, session)({ method: 'GET', url: '/profile' }))),
  );
  t.same(
    answers.map((res) => res.json().name),
    users.flatMap(({ i }) => [`User ${i}`, `User ${i}`]),
    '24 requests at once, each with its own caller profile',
  );
});
