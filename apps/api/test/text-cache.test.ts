import t from 'tap';
import { TextCache } from '../src/text-cache.ts';

t.test('a kept day comes back with the version it was built at', async (t) => {
  const cache = new TextCache(1000, 60_000);
  cache.set('alice 2026-11-20 en', cache.generation, '7', '"entries":[]');
  t.match(cache.get('alice 2026-11-20 en'), { version: '7', json: '"entries":[]' });
  t.equal(cache.get('alice 2026-11-20 ru'), undefined, 'another language is another day');
});

t.test('an invalidation drops every day, and days built before it are not kept', async (t) => {
  const cache = new TextCache(1000, 60_000);
  const before = cache.generation;
  cache.set('a', before, '1', 'x');
  cache.invalidate();
  t.equal(cache.get('a'), undefined);
  cache.set('b', before, '1', 'built from rows read before the change');
  t.equal(cache.get('b'), undefined);
  cache.set('b', cache.generation, '1', 'y');
  t.equal(cache.get('b')?.json, 'y');
});

t.test('the least recently used days go first when the text budget is spent', async (t) => {
  const cache = new TextCache(10, 60_000);
  cache.set('a', 0, '1', 'aaaa');
  cache.set('b', 0, '1', 'bbbb');
  cache.get('a');
  cache.set('c', 0, '1', 'cccc');
  t.equal(cache.get('b'), undefined, 'b was least recently used');
  t.ok(cache.get('a') && cache.get('c'));
  cache.set('c', 0, '2', 'cccccc');
  t.ok(cache.get('a'), 'a replaced day counts once: 4 + 6 characters still fit');
  cache.set('huge', 0, '1', 'x'.repeat(11));
  t.equal(cache.get('huge'), undefined, 'a day larger than the budget is not kept');
  t.ok(cache.get('c'), 'and does not push others out');
});

t.test('a day older than the maximum age is rebuilt', async (t) => {
  const cache = new TextCache(1000, 60_000);
  cache.set('a', 0, '1', 'x', { at: 0 });
  t.ok(cache.get('a', 60_000));
  t.equal(cache.get('a', 60_001), undefined);
  t.equal(cache.size, 0);
});

t.test('a budget of zero keeps nothing', async (t) => {
  const cache = new TextCache(0, 60_000);
  cache.set('a', 0, '1', 'x');
  t.equal(cache.size, 0);
});
