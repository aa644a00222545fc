import t from 'tap';
import { todayUtc } from '@nutrition/domain';
import { as, assertError, buildTestApp, login } from './helpers.ts';
import { fakeJpeg, imageJson } from './processes.ts';

type Caller = ReturnType<typeof as>;

/** Every page of a list, following `next_cursor` until it is null. */
async function walk(user: Caller, url: string, onPage?: (n: number) => Promise<void>) {
  const pages: { id?: string; dish_id?: string | null; product_id?: string | null }[][] = [];
  let cursor: string | null = null;
  do {
    const separator = url.includes('?') ? '&' : '?';
    const res = await user({
      method: 'GET',
      url: `${url}${cursor ? `${separator}cursor=${encodeURIComponent(cursor)}` : ''}`,
    });
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
    pages.push(res.json().items);
    cursor = res.json().next_cursor;
    await onPage?.(pages.length);
  } while (cursor && pages.length < 100);
  return pages;
}

t.test('/diary/recent pages by cursor: every item once, newest first, a reuse while paging not repeated', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const alice = as(app, await login(app, 'alice'));
  const bob = as(app, await login(app, 'bob'));
  const products = await sql<{ id: string }[]>`SELECT id FROM products WHERE source = 'seed' ORDER BY id LIMIT 26`;
  const log = (user: Caller, productId: string) =>
    user({
      method: 'POST',
      url: '/diary',
      payload: { date: todayUtc(), meal_type: 'snack', product_id: productId, portion_g: 50 },
    });
  for (const p of products.slice(0, 25)) t.equal((await log(alice, p.id)).statusCode, 201);
  await log(bob, products[25]!.id);

  const pages = await walk(alice, '/diary/recent?limit=10', async (n) => {
    // Alice logs an item of a later page again while she pages: it moves to the front, which she has read.
    if (n === 1) await log(alice, products[0]!.id);
  });
  t.same(
    pages.map((p) => p.length),
    [10, 10, 4],
    'three pages; the item used again is on the first page now',
  );
  const seen = pages.flat().map((i) => i.product_id);
  t.equal(new Set(seen).size, seen.length, 'no item twice');
  t.notOk(seen.includes(products[25]!.id), "never another user's item");
  const newestFirst = products
    .slice(1, 25)
    .reverse()
    .map((p) => p.id);
  t.same(seen, newestFirst.slice(0, 24), 'in order of last use');

  assertError(t, await alice({ method: 'GET', url: '/diary/recent?cursor=bm90LWEtY3Vyc29y' }), 400, 'invalid_cursor');
  const forged = Buffer.from(JSON.stringify(['2026-02-30T10:00:00.000000Z', products[0]!.id])).toString('base64url');
  assertError(t, await alice({ method: 'GET', url: `/diary/recent?cursor=${forged}` }), 400, 'invalid_cursor');
});

t.test('/dishes/search pages by (score, id): the pages are the one long result, cut', async (t) => {
  const { app } = await buildTestApp(t);
  const alice = as(app, await login(app, 'alice'));
  const whole = (await alice({ method: 'GET', url: '/dishes/search?q=a&limit=100' })).json();
  t.ok(whole.items.length > 12, `a query with many results (${whole.items.length})`);
  const pages = await walk(alice, '/dishes/search?q=a&limit=5');
  const paged = pages.flat().map((i) => i.id);
  t.equal(new Set(paged).size, paged.length, 'no dish twice');
  t.ok(paged.length >= whole.items.length, 'pages reach at least as far as one page of 100');
  t.same(
    paged.slice(0, whole.items.length),
    whole.items.map((i: { id: string }) => i.id),
    'in the same order as the single page',
  );
  t.ok(pages.at(-1)!.length <= 5);
  assertError(t, await alice({ method: 'GET', url: '/dishes/search?q=a&cursor=e30' }), 400, 'invalid_cursor');
});

t.test("/ai/jobs and /ai/product-jobs page by id, and only the caller's", async (t) => {
  const { app } = await buildTestApp(t);
  const alice = as(app, await login(app, 'alice'));
  const bob = as(app, await login(app, 'bob'));
  const submitted: string[] = [];
  for (let i = 0; i < 7; i++) {
    const res = await alice({ method: 'POST', url: '/ai/recognize-dish', payload: { image: imageJson(fakeJpeg(i)) } });
    submitted.push(res.json().job_id);
    await alice({ method: 'POST', url: '/ai/recognize-products', payload: { images: [imageJson(fakeJpeg(i))] } });
  }
  await bob({ method: 'POST', url: '/ai/recognize-dish', payload: { image: imageJson(fakeJpeg(9)) } });

  const pages = await walk(alice, '/ai/jobs?limit=3');
  t.same(
    pages.map((p) => p.length),
    [3, 3, 1],
  );
  t.same(
    pages.flat().map((j) => j.id),
    [...submitted].reverse(),
    'every job once, newest first',
  );
  const products = await walk(alice, '/ai/product-jobs?limit=4');
  t.same(
    products.map((p) => p.length),
    [4, 3],
  );
  assertError(t, await alice({ method: 'GET', url: '/ai/jobs?cursor=InguIg' }), 400, 'invalid_cursor');
});

t.test('a cursor is good only where it was handed out: another route, user or search is 400', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const alice = as(app, await login(app, 'alice'));
  const bob = as(app, await login(app, 'bob'));
  const recipes = await sql<{ id: string }[]>`SELECT id FROM recipes WHERE source = 'catalog' ORDER BY id LIMIT 3`;
  for (const user of [alice, bob])
    for (const r of recipes)
      t.equal((await user({ method: 'POST', url: '/saved-recipes', payload: { recipe_id: r.id } })).statusCode, 201);
  const cursorOf = async (user: Caller, url: string) => {
    const res = await user({ method: 'GET', url });
    t.equal(res.statusCode, 200, url);
    t.type(res.json().next_cursor, 'string', `${url} has a next page`);
    return res.json().next_cursor as string;
  };
  const page = (user: Caller, url: string, cursor: string) =>
    user({ method: 'GET', url: `${url}${url.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}` });

  const alices = await cursorOf(alice, '/saved-recipes?limit=1');
  t.equal((await page(alice, '/saved-recipes?limit=1', alices)).statusCode, 200, 'her own cursor');
  // Bob holds three bookmarks: Alice's cursor once gave him an empty page, hiding them.
  assertError(t, await page(bob, '/saved-recipes?limit=1', alices), 400, 'invalid_cursor');
  const dishes = await cursorOf(alice, '/dishes?limit=1');
  for (const url of ['/saved-recipes', '/ai/jobs', '/ai/product-jobs/history', '/diary/recent'])
    assertError(t, await page(alice, url, dishes), 400, 'invalid_cursor');
  const tampered = `${alices.slice(0, 5)}${alices[5] === 'A' ? 'B' : 'A'}${alices.slice(6)}`;
  assertError(t, await page(alice, '/saved-recipes?limit=1', tampered), 400, 'invalid_cursor');
  const long = Buffer.from(JSON.stringify('x'.repeat(5000))).toString('base64url');
  assertError(t, await page(alice, '/saved-recipes?limit=1', long), 400, 'invalid_cursor');

  // Product search pages are everyone's: the same search's cursor works for any user, another search's does not.
  const milk = await cursorOf(alice, '/products/search?q=milk&limit=1');
  const alicesNext = await page(alice, '/products/search?q=milk&limit=1', milk);
  const bobsNext = await page(bob, '/products/search?q=Milk&limit=1', milk);
  t.equal(bobsNext.statusCode, 200);
  t.same(bobsNext.json().items, alicesNext.json().items, 'the same next page');
  assertError(t, await page(alice, '/products/search?q=bread&limit=1', milk), 400, 'invalid_cursor');
  assertError(t, await page(alice, '/dishes/search?q=borscht', milk), 400, 'invalid_cursor');
});
