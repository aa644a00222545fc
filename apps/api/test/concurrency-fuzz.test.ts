import t from 'tap';
import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { addDays, todayUtc, weekStart } from '@nutrition/domain';
import { as, buildTestApp, login, type Session } from './helpers.ts';
import { fakeJpeg, imageJson } from './processes.ts';

/** A small seeded generator, so a failing run can be repeated with its seed. */
function random(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = Math.imul(s ^ (s >>> 15), 1 | s);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!,
  };
}

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 100_000);
const USERS = 20;
const SECONDS = 4;

t.test(
  `concurrency fuzz (seed ${SEED}): 20 users, every mutating operation at once, retries and double taps`,
  async (t) => {
    const { app, sql } = await buildTestApp(t, {
      RATE_LIMIT_PER_MINUTE: '100000',
      RATE_LIMIT_MODEL_PER_MINUTE: '100000',
    });
    const rnd = random(SEED);
    const [milk] = await sql`SELECT id FROM products WHERE code = 'milk'`;
    const [borscht] =
      await sql`SELECT d.id AS dish_id, r.id AS recipe_id FROM dishes d JOIN recipes r ON r.dish_id = d.id AND
        r.is_default WHERE d.code = 'borscht'`;
    const week = weekStart(todayUtc());

    interface User {
      session: Session;
      /** Rows this user created, by kind: nobody else may see them. */
      own: Set<string>;
      diary: string[];
      pantry: string[];
      bookmarks: string[];
      shopping: string[];
      dishJobs: string[];
      productJobs: string[];
    }
    const users: User[] = [];
    for (let i = 0; i < USERS; i++) {
      const session = await login(app, `fuzz-${i}`);
      const productJobs = [];
      for (let j = 0; j < 2; j++) {
        const result = {
          items: [
            {
              name: 'Milk',
              product_id: milk!.id,
              quantity: 1,
              unit_code: 'l',
              storage_days: 7,
              confidence: 0.9,
              price: null,
            },
            {
              name: `Thing ${j}`,
              product_id: null,
              quantity: 2,
              unit_code: 'piece',
              storage_days: 5,
              confidence: 0.6,
              price: null,
            },
          ],
          model: 'offline',
        };
        const [job] = await sql`INSERT INTO product_recognition_jobs (user_id, status, job_type, result)
        VALUES (${session.user.id}, 'done', 'receipt', ${sql.json(result)}) RETURNING id`;
        productJobs.push(job!.id as string);
      }
      const dishJobs = [];
      for (let j = 0; j < 3; j++) {
        const [job] =
          await sql`INSERT INTO dish_recognition_jobs (user_id, status) VALUES (${session.user.id}, 'done') RETURNING
            id`;
        dishJobs.push(job!.id as string);
      }
      users.push({
        session,
        own: new Set([...productJobs, ...dishJobs]),
        diary: [],
        pantry: [],
        bookmarks: [],
        shopping: [],
        dishJobs,
        productJobs,
      });
    }

    const statuses = new Map<number, number>();
    const failures: string[] = [];
    /** Responses per Idempotency-Key: every one must carry the same created id. */
    const byKey = new Map<string, Set<string>>();
    /** Item ids every apply of a job answered with. */
    const applied = new Map<string, Set<string>>();

    const send = async (user: User, opts: InjectOptions, label: string) => {
      const res = await as(app, user.session)(opts);
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      if (res.statusCode >= 500) failures.push(`${label}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      return res;
    };
    /** Sends once, or as a double tap (two at once), or as a retry after the answer: the way apps really send. */
    const sendLikeAnApp = async (user: User, opts: InjectOptions, label: string) => {
      const shape = rnd.int(3);
      if (shape === 0) return [await send(user, opts, label)];
      if (shape === 1) return Promise.all([send(user, opts, label), send(user, opts, label)]);
      const first = await send(user, opts, label);
      return [first, await send(user, opts, label)];
    };
    const created = (user: User, list: string[], replies: { statusCode: number; json: () => any }[], key?: string) => {
      for (const r of replies) {
        if (r.statusCode !== 201 && r.statusCode !== 202) continue;
        const id = r.json().id ?? r.json().job_id;
        list.push(id);
        user.own.add(id);
        if (key) byKey.set(key, (byKey.get(key) ?? new Set()).add(id));
      }
    };

    const operations: ((user: User) => Promise<void>)[] = [
      async (u) => {
        const key = randomUUID();
        const payload = rnd.pick([
          { date: todayUtc(), meal_type: 'lunch', dish_id: borscht!.dish_id, portions: 1 + rnd.int(3) },
          { date: todayUtc(), meal_type: 'snack', product_id: milk!.id, portion_g: 100 + rnd.int(200) },
          { date: todayUtc(), meal_type: 'dinner', name: rnd.pick(['Borscht', 'Home pie', 'Secret soup', 'борщ']) },
        ]);
        created(
          u,
          u.diary,
          await sendLikeAnApp(
            u,
            { method: 'POST', url: '/diary', payload, headers: { 'idempotency-key': key } },
            'diary',
          ),
          key,
        );
      },
      async (u) => {
        const job = rnd.pick(u.dishJobs);
        const replies = await sendLikeAnApp(
          u,
          {
            method: 'POST',
            url: '/diary',
            payload: { date: todayUtc(), meal_type: 'breakfast', dish_id: borscht!.dish_id, job_id: job },
          },
          'link job',
        );
        created(u, u.diary, replies);
      },
      async (u) => {
        const id = u.diary.length ? rnd.pick(u.diary) : randomUUID();
        await sendLikeAnApp(u, { method: 'DELETE', url: `/diary/${id}` }, 'delete entry');
      },
      async (u) => {
        const key = randomUUID();
        created(
          u,
          u.pantry,
          await sendLikeAnApp(
            u,
            {
              method: 'POST',
              url: '/user-products',
              payload: { product_id: milk!.id, quantity: 1 + rnd.int(3), unit_code: 'l' },
              headers: { 'idempotency-key': key },
            },
            'pantry',
          ),
          key,
        );
      },
      async (u) => {
        if (!u.pantry.length) return;
        await sendLikeAnApp(
          u,
          { method: 'PATCH', url: `/user-products/${rnd.pick(u.pantry)}`, payload: { quantity: 1 + rnd.int(5) } },
          'pantry patch',
        );
      },
      async (u) => {
        if (!u.pantry.length) return;
        await sendLikeAnApp(u, { method: 'DELETE', url: `/user-products/${rnd.pick(u.pantry)}` }, 'pantry delete');
      },
      async (u) => {
        const job = rnd.pick(u.productJobs);
        const replies = await sendLikeAnApp(u, { method: 'POST', url: `/ai/product-jobs/${job}/apply` }, 'apply');
        for (const r of replies) {
          if (r.statusCode !== 200) continue;
          const ids = r.json().items.map((i: { id: string }) => i.id);
          for (const id of ids) u.own.add(id);
          applied.set(job, (applied.get(job) ?? new Set()).add(ids.sort().join()));
        }
      },
      async (u) => {
        const replies = await sendLikeAnApp(
          u,
          { method: 'POST', url: '/saved-recipes', payload: { recipe_id: borscht!.recipe_id } },
          'bookmark',
        );
        for (const r of replies)
          if (r.statusCode < 300) {
            u.bookmarks.push(r.json().id);
            u.own.add(r.json().id);
          }
      },
      async (u) => {
        if (!u.bookmarks.length) return;
        await sendLikeAnApp(u, { method: 'DELETE', url: `/saved-recipes/${rnd.pick(u.bookmarks)}` }, 'unbookmark');
      },
      async (u) => {
        const date = addDays(week, rnd.int(7));
        await sendLikeAnApp(
          u,
          {
            method: 'PUT',
            url: '/menu',
            payload: {
              week_start: week,
              items: [{ date, meal_type: 'lunch', dish_id: borscht!.dish_id, servings: 1 }],
            },
          },
          'menu',
        );
      },
      async (u) => {
        await sendLikeAnApp(
          u,
          {
            method: 'POST',
            url: '/ai/generate-menu',
            payload: { dates: [addDays(week, rnd.int(7))], meal_types: ['dinner'] },
          },
          'generate',
        );
      },
      async (u) => {
        await sendLikeAnApp(
          u,
          { method: 'POST', url: '/shopping-list/generate', payload: { week_start: week } },
          'shopping',
        );
      },
      async (u) => {
        const replies = await sendLikeAnApp(
          u,
          {
            method: 'POST',
            url: '/shopping-list/items',
            payload: { week_start: week, name: 'Bread', quantity: 1, unit_code: 'piece' },
          },
          'shopping item',
        );
        for (const r of replies)
          if (r.statusCode === 201) {
            u.shopping.push(r.json().id);
            u.own.add(r.json().id);
          }
      },
      async (u) => {
        if (!u.shopping.length) return;
        await sendLikeAnApp(
          u,
          {
            method: 'PATCH',
            url: `/shopping-list/items/${rnd.pick(u.shopping)}`,
            payload: { checked: rnd.next() < 0.5 },
          },
          'check',
        );
      },
      async (u) => {
        await sendLikeAnApp(
          u,
          { method: 'PUT', url: '/profile', payload: { weight_kg: 50 + rnd.int(50), height_cm: 150 + rnd.int(50) } },
          'profile',
        );
      },
      async (u) => {
        const key = randomUUID();
        created(
          u,
          u.dishJobs,
          await sendLikeAnApp(
            u,
            {
              method: 'POST',
              url: '/ai/recognize-dish',
              payload: { image: imageJson(fakeJpeg(rnd.int(1000))) },
              headers: { 'idempotency-key': key },
            },
            'recognise',
          ),
          key,
        );
      },
    ];

    const until = Date.now() + SECONDS * 1000;
    let sent = 0;
    await Promise.all(
      users.map(async (user) => {
        while (Date.now() < until) {
          await rnd.pick(operations)(user);
          sent++;
        }
      }),
    );
    t.ok(sent > USERS * 5, `${sent} operations sent (${[...statuses].map(([s, n]) => `${n}×${s}`).join(', ')})`);
    t.same(failures, [], 'no 5xx');

    for (const [key, ids] of byKey) if (ids.size !== 1) t.fail(`Idempotency-Key ${key} created ${ids.size} rows`);
    for (const [job, answers] of applied)
      t.equal(answers.size, 1, `apply of ${job}: every call answered with the same items`);
    const [dup] =
      await sql`SELECT count(*)::int AS n FROM (SELECT job_id FROM meal_diary WHERE job_id IS NOT NULL GROUP BY job_id
        HAVING count(*) > 1) d`;
    t.equal(dup!.n, 0, 'one diary entry per linked job');
    const appliedRows = await sql`
    SELECT j.id, cardinality(j.applied_item_ids) AS n, jsonb_array_length(j.result->'items') AS items
    FROM product_recognition_jobs j WHERE j.applied_at IS NOT NULL`;
    for (const row of appliedRows) t.equal(row.n, row.items, `job ${row.id} applied once, with each of its items`);

    // Nobody sees another user's rows in any list.
    const everyone = new Map<string, User>();
    for (const u of users) for (const id of u.own) everyone.set(id, u);
    for (const u of users) {
      const lists = await Promise.all(
        [
          `/diary?date=${todayUtc()}`,
          '/user-products?limit=100',
          '/saved-recipes?limit=100',
          `/shopping-list?week_start=${week}`,
          '/ai/jobs',
          '/ai/product-jobs',
        ].map((url) => as(app, u.session)({ method: 'GET', url })),
      );
      const seen = JSON.stringify(lists.map((l) => l.json()));
      for (const [id, owner] of everyone)
        if (owner !== u && seen.includes(id)) t.fail(`${u.session.user.id} sees ${id} of another user`);
    }
    t.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200, '/health is 200 afterwards');
  },
);
