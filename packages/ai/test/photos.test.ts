import t from 'tap';
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { findPhotos, pexels, unsplash } from '../src/photos.ts';

async function photoApi(t: import('tap').Test, handler: http.RequestListener) {
  const server = http.createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(
    () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

t.test('Pexels and Unsplash answers become urls with attribution; failures and slowness give null', async (t) => {
  const seen: { url: string; auth: string }[] = [];
  const base = await photoApi(t, (req, res) => {
    seen.push({ url: req.url!, auth: String(req.headers.authorization) });
    const query = new URL(req.url!, 'http://x').searchParams.get('query');
    if (query === 'slow soup') return void setTimeout(() => res.end('{}'), 2000);
    if (query === 'broken') return void res.writeHead(500).end();
    if (req.url!.startsWith('/v1/search')) {
      res.end(
        JSON.stringify({
          photos: [{ url: 'https://pexels.test/p/1', photographer: 'Ann', src: { large: 'https://img.test/1.jpg' } }],
        }),
      );
    } else {
      res.end(
        JSON.stringify({
          results: [
            {
              urls: { regular: 'https://img.test/2.jpg' },
              user: { name: 'Bo' },
              links: { html: 'https://unsplash.test/2' },
            },
          ],
        }),
      );
    }
  });
  const px = await findPhotos(pexels('pk', base), ['Borscht', 'broken', 'slow soup'], 300);
  t.same(px, [
    { url: 'https://img.test/1.jpg', attribution: 'Photo by Ann on Pexels', source_url: 'https://pexels.test/p/1' },
    null,
    null,
  ]);
  t.equal(seen[0]!.auth, 'pk');
  t.match(seen[0]!.url, /query=Borscht/);
  const us = await findPhotos(unsplash('uk', base), ['Pho'], 1000);
  t.match(us[0], { url: 'https://img.test/2.jpg', attribution: 'Photo by Bo on Unsplash' });
  t.equal(seen.at(-1)!.auth, 'Client-ID uk');
  t.same(await findPhotos(null, ['Pho'], 1000), [null], 'no provider configured');
});
