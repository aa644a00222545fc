import t from 'tap';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { as, assertError, buildTestApp, login } from './helpers.ts';
import { fakeJpeg, imageJson } from './processes.ts';

/** A camera photo: 3000 × 2000 pixels stored sideways (EXIF orientation 6), with a GPS position and a camera make. */
async function cameraPhoto() {
  const raw = Buffer.alloc(3000 * 2000 * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 2654435761) >>> 24;
  return sharp(raw, { raw: { width: 3000, height: 2000, channels: 3 } })
    .jpeg({ quality: 90 })
    .withExif({
      IFD0: { Make: 'SecretCam', Orientation: '6' },
      IFD3: {
        GPSLatitudeRef: 'N',
        GPSLatitude: '48/1 51/1 2964/100',
        GPSLongitudeRef: 'E',
        GPSLongitude: '2/1 21/1 0/1',
      },
    })
    .withMetadata({ orientation: 6 })
    .toBuffer();
}

t.test('photos are stored upright, at most 2048 px, as JPEG, without GPS or camera metadata', async (t) => {
  const { app, sql } = await buildTestApp(t);
  const a = as(app, await login(app, 'alice'));
  const photo = await cameraPhoto();
  const before = await sharp(photo).metadata();
  t.equal(before.orientation, 6, 'the upload carries an orientation');
  t.ok(photo.includes(Buffer.from('SecretCam')) && before.exif, 'and EXIF with the camera and a GPS position');

  const res = await a({ method: 'POST', url: '/ai/recognize-dish', payload: { image: imageJson(photo) } });
  t.equal(res.statusCode, 202, res.body);
  const [stored] = await sql<{ data: Buffer; content_type: string; byte_size: number }[]>`
    SELECT data, content_type, byte_size FROM job_images WHERE dish_job_id = ${res.json().job_id}`;
  const after = await sharp(stored!.data).metadata();
  t.equal(stored!.content_type, 'image/jpeg');
  t.equal(stored!.byte_size, stored!.data.length);
  t.same([after.width, after.height], [1365, 2048], 'turned upright (portrait) and shrunk to 2048 px');
  t.equal(after.exif, undefined, 'no EXIF block');
  t.equal(after.orientation, undefined, 'no orientation left to apply twice');
  t.notOk(stored!.data.includes(Buffer.from('SecretCam')), 'the camera make is gone');
  // Entropy-coded data never holds 0xFF 0xE1 (0xFF is stuffed), so this finds any APP1 segment: EXIF with GPS, or XMP.
  t.notOk(stored!.data.includes(Buffer.from([0xff, 0xe1])), 'no APP1 segment (EXIF, GPS, XMP)');
  t.ok(stored!.data.length < photo.length / 2, `smaller than the upload (${stored!.data.length} of ${photo.length})`);

  const [job] = await sql<{ images: { byte_size: number }[] }[]>`
    SELECT images FROM dish_recognition_jobs WHERE id = ${res.json().job_id}`;
  t.equal(job!.images[0]!.byte_size, stored!.data.length, 'the job refers to the stored size');
});

t.test('HEIC is refused with a clear 415, a damaged JPEG with 400 invalid_image', async (t) => {
  const { app } = await buildTestApp(t);
  const a = as(app, await login(app, 'alice'));
  const heic = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypheic'), Buffer.alloc(64)]);
  const refused = await a({ method: 'POST', url: '/ai/recognize-dish', payload: { image: imageJson(heic) } });
  assertError(t, refused, 415, 'unsupported_media_type');
  t.match(refused.json().message, /HEIC.*JPEG/);

  const damaged = Buffer.concat([fakeJpeg(1).subarray(0, 40), Buffer.alloc(100, 7)]);
  const res = await a({
    method: 'POST',
    url: '/ai/recognize-products',
    payload: { images: [imageJson(fakeJpeg(2)), imageJson(damaged)] },
  });
  assertError(t, res, 400, 'invalid_image');
  const jobs = await a({ method: 'GET', url: '/ai/product-jobs' });
  t.same(jobs.json().items, [], 'nothing was submitted');
});

t.test('large uploads beyond the per-process limit are told to retry; small ones and later ones pass', async (t) => {
  const { app } = await buildTestApp(t, { UPLOAD_CONCURRENCY: '1' });
  const session = await login(app, 'alice');
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;

  // A 5 MB upload whose body arrives slowly: it holds the only slot while it is read.
  const slow = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => slow.once('connect', resolve));
  slow.write(
    'POST /ai/recognize-dish HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
      `Authorization: Bearer ${session.access_token}\r\nContent-Length: 5000000\r\n\r\n{"image":`,
  );
  await new Promise((r) => setTimeout(r, 200));

  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`http://127.0.0.1:${port}/ai/recognize-dish`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.access_token}`, 'content-type': 'application/json', ...headers },
      body,
    });
  const large = JSON.stringify({ image: imageJson(fakeJpeg(3, 2 * 1024 * 1024)) });
  const busy = await post(large);
  t.equal(busy.status, 503);
  t.equal(busy.headers.get('retry-after'), '1');
  t.match(await busy.json(), { code: 'busy', request_id: String });

  const small = await post(JSON.stringify({ image: imageJson(fakeJpeg(4)) }));
  t.equal(small.status, 202, 'a small photo does not wait for the slot');

  // The client gives up: its slot is given back.
  slow.destroy();
  await new Promise((r) => setTimeout(r, 200));
  const again = await post(large);
  t.equal(again.status, 202, 'the slot of an aborted upload is free again');
  const third = await post(JSON.stringify({ image: imageJson(fakeJpeg(5, 2 * 1024 * 1024)) }));
  t.equal(third.status, 202, 'and so is the slot of an answered one');
});
