import t from 'tap';
import { as, buildTestApp, login } from './helpers.ts';

t.test('catalog answers carry an ETag; a conditional GET that still matches is 304 without a body', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const user = as(app, await login(app, 'cache-user'));
  const [borscht] = await sql`SELECT id FROM dishes WHERE code = 'borscht'`;
  const url = `/dishes/${borscht!.id}`;

  const first = await user({ method: 'GET', url, headers: { 'accept-language': 'de' } });
  t.equal(first.statusCode, 200);
  const tag = first.headers.etag as string;
  t.match(tag, /^"[^"]+"$/, 'a strong ETag');
  t.equal(first.headers['cache-control'], 'private, max-age=300', 'a signed-in answer is private');
  t.match(first.headers.vary, /Accept-Language/);

  const again = await user({ method: 'GET', url, headers: { 'accept-language': 'de', 'if-none-match': tag } });
  t.equal(again.statusCode, 304);
  t.equal(again.body, '', 'no body');
  t.equal(again.headers.etag, tag);
  t.equal(again.headers['cache-control'], 'private, max-age=300', '304 restates the caching rule');

  const other = await user({ method: 'GET', url, headers: { 'accept-language': 'ja', 'if-none-match': tag } });
  t.equal(other.statusCode, 200, 'another language is another answer');
  t.not(other.headers.etag, tag);
  t.equal(other.json().id, borscht!.id);

  // Lists and searches are revalidated every time (the caller's own dishes may appear), still 304 when unchanged.
  const search = await user({ method: 'GET', url: '/dishes/search?q=borscht' });
  t.equal(search.headers['cache-control'], 'private, no-cache');
  const unchanged = await user({
    method: 'GET',
    url: '/dishes/search?q=borscht',
    headers: { 'if-none-match': search.headers.etag as string },
  });
  t.equal(unchanged.statusCode, 304);
});

t.test('reference lists: public and cacheable for an hour without a token', async (t) => {
  const { app } = await buildTestApp(t);
  const first = await app.inject({ method: 'GET', url: '/cuisines', headers: { 'accept-language': 'uk' } });
  t.equal(first.headers['cache-control'], 'public, max-age=3600');
  t.equal(first.headers['content-language'], 'uk');
  const again = await app.inject({
    method: 'GET',
    url: '/cuisines',
    headers: { 'accept-language': 'uk', 'if-none-match': first.headers.etag as string },
  });
  t.equal(again.statusCode, 304);
  const withToken = as(app, await login(app, 'reference-reader'));
  const personal = await withToken({ method: 'GET', url: '/cuisines' });
  t.equal(personal.headers['cache-control'], 'private, max-age=3600', 'the profile language may apply: private');
});

t.test("a tag does not open another user's recipe, and personal data is not cached", async (t) => {
  const { app } = await buildTestApp(t);
  const owner = as(app, await login(app, 'recipe-owner'));
  const stranger = as(app, await login(app, 'recipe-stranger'));
  const recommended = await owner({ method: 'GET', url: '/recommendations?limit=1' });
  const recipeId = recommended.json().items[0].id;
  const mine = await owner({ method: 'GET', url: `/recipes/${recipeId}` });
  t.equal(mine.statusCode, 200);
  const theirs = await stranger({
    method: 'GET',
    url: `/recipes/${recipeId}`,
    headers: { 'if-none-match': mine.headers.etag as string },
  });
  t.equal(theirs.statusCode, 404, "the owner's tag gets a stranger a 404, not a 304");
  t.notOk(theirs.headers['cache-control'], 'errors carry no caching rule');

  const diary = await owner({ method: 'GET', url: '/diary?date=2026-11-24' });
  t.equal(diary.statusCode, 200);
  t.notOk(diary.headers.etag, 'the diary is not tagged');
  t.notOk(diary.headers['cache-control']);
});
