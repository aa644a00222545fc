import sharp from 'sharp';
import { login, maxRow, root, rssKiB, startProcess, type Proc, type Row } from './lib.ts';

const MIB = 1024 * 1024;
const MAX_IMAGE = 8 * MIB;

/** A maximum-size camera photo: 4000 × 3000 of noise (compresses worst), padded after its end to exactly 8 MiB. */
async function maxPhoto(seed: number): Promise<Buffer> {
  const raw = Buffer.alloc(4000 * 3000 * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = ((i + seed) * 2654435761) >>> 24;
  for (let quality = 90; ; quality -= 5) {
    const jpeg = await sharp(raw, { raw: { width: 4000, height: 3000, channels: 3 } })
      .jpeg({ quality })
      .toBuffer();
    if (jpeg.length <= MAX_IMAGE) return Buffer.concat([jpeg, Buffer.alloc(MAX_IMAGE - jpeg.length)]);
  }
}

function multipart(photos: Buffer[]): { body: Buffer; type: string } {
  const boundary = 'benchBOUNDARY';
  const parts = photos.flatMap((photo, i) => [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="images"; filename="${i}.jpg"\r\n` +
        'Content-Type: image/jpeg\r\n\r\n',
    ),
    photo,
    Buffer.from('\r\n'),
  ]);
  return {
    body: Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]),
    type: `multipart/form-data; boundary=${boundary}`,
  };
}

/** The highest RSS of a process (MiB) while `work` runs, sampled every 10 ms. */
async function peakDuring(pid: number, work: () => Promise<unknown>): Promise<number> {
  let peak = rssKiB(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssKiB(pid))), 10);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, rssKiB(pid)) / 1024;
}

async function waitForJobs(api: Proc, token: string, ids: string[]) {
  for (const id of ids)
    for (;;) {
      const res = await fetch(`${api.url}/ai/product-jobs/${id}`, { headers: { authorization: `Bearer ${token}` } });
      const { status } = (await res.json()) as { status: string };
      if (status === 'done' || status === 'failed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
}

/**
 * Memory of maximum-size uploads: 10 photos of 8 MiB in one products job, then `parallel` such jobs at once, sent as
 * multipart to a real API process (with as many upload slots, so none is turned away), then processed by a real
 * product worker; and the API's memory after `idleSeconds` without work.
 */
export async function uploadBench(
  databaseUrl: string,
  sizes: { images: number; parallel: number; idleSeconds: number },
): Promise<Row[]> {
  const photos = await Promise.all(Array.from({ length: Math.min(sizes.images, 3) }, (_, i) => maxPhoto(i)));
  const job = multipart(Array.from({ length: sizes.images }, (_, i) => photos[i % photos.length]!));
  const api = await startProcess(
    `${root}apps/api/src/main.ts`,
    {
      DATABASE_URL: databaseUrl,
      RATE_LIMIT_PER_MINUTE: '100000000',
      RATE_LIMIT_MODEL_PER_MINUTE: '100000000',
      UPLOAD_CONCURRENCY: String(sizes.parallel),
    },
    '/health',
  );
  const worker = await startProcess(
    `${root}apps/product-worker/src/main.ts`,
    { DATABASE_URL: databaseUrl, WORKER_CONCURRENCY: '1' },
    '/health',
    'HEALTH_PORT',
  );
  try {
    const token = await login(api.url, 'bench-uploads');
    const submit = async () => {
      const res = await fetch(`${api.url}/ai/recognize-products`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': job.type },
        body: job.body,
      });
      if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { job_id: string }).job_id;
    };
    // From a fresh process, as a pod starts: the first job also loads the image library.
    const apiStart = rssKiB(api.child.pid!) / 1024;
    const workerStart = rssKiB(worker.child.pid!) / 1024;
    const ids: string[] = [];
    const onePeak = await peakDuring(api.child.pid!, async () => ids.push(await submit()));
    const manyPeak = await peakDuring(api.child.pid!, async () =>
      ids.push(...(await Promise.all(Array.from({ length: sizes.parallel }, submit)))),
    );
    const workerPeak = await peakDuring(worker.child.pid!, () => waitForJobs(api, token, ids));
    await new Promise((r) => setTimeout(r, sizes.idleSeconds * 1000));
    const apiIdle = rssKiB(api.child.pid!) / 1024;
    const what = `${sizes.images} x 8 MiB products job`;
    return [
      maxRow('uploads', `API peak RSS added by one ${what}`, onePeak - apiStart, 'MiB', 150, apiStart),
      maxRow(
        'uploads',
        `API peak RSS added by ${sizes.parallel} such jobs at once`,
        manyPeak - apiStart,
        'MiB',
        400,
        apiStart,
      ),
      maxRow('uploads', `API RSS over start after ${sizes.idleSeconds} s idle`, apiIdle - apiStart, 'MiB', 50),
      maxRow('uploads', 'product worker peak RSS added per job', workerPeak - workerStart, 'MiB', 100),
    ];
  } finally {
    await worker.stop();
    await api.stop();
  }
}
