import t from 'tap';
import { openTestDatabase } from '@nutrition/db/testing';
import { recognitionRepository } from '@nutrition/db/repositories';
import type { VisionModel } from '@nutrition/ai';
import { productRecognizer } from '../src/recognize-products.ts';

/** The vision model is an external service: a stand-in answering one list of lines per photo. */
const vision = (perPhoto: { name: string; quantity: number; price: number | null }[][]) => {
  let photo = 0;
  return {
    recognizeProducts: async () => ({
      items: perPhoto[photo++ % perPhoto.length]!.map((line) => ({ ...line, unit: 'kg', confidence: 0.8 })),
      model: 'test-vision',
    }),
  } as unknown as VisionModel;
};

t.test('a receipt over two photos: lines merged without float noise, nameless lines left out', async (t) => {
  const { sql } = await openTestDatabase(t, { max: 3 });
  const [user] = await sql<{ id: string }[]>`INSERT INTO users (identity_provider, external_subject)
    VALUES ('test', 'receipt-test') RETURNING id`;
  const photo = { contentType: 'image/jpeg', data: Buffer.from([0xff, 0xd8, 0xff, 0xe0]) };
  const job = await sql.begin((tx) =>
    recognitionRepository(tx).create('product', user!.id, { jobType: 'receipt' }, [photo, photo]),
  );
  const handle = productRecognizer(
    sql,
    vision([
      [
        { name: 'Zzq flour', quantity: 0.1, price: 0.1 },
        { name: '   ', quantity: 1, price: null },
      ],
      [
        { name: 'zzq flour ', quantity: 0.2, price: 0.2 },
        { name: '', quantity: 2, price: null },
      ],
    ]),
  );
  t.equal(await handle({ jobId: job.id, kind: 'product', plan: job.plan }, new AbortController().signal), 'done');
  const [{ result }] = (await sql`SELECT result FROM product_recognition_jobs WHERE id = ${job.id}`) as unknown as [
    { result: { items: { name: string; quantity: number; price: number | null }[] } },
  ];
  t.same(
    result.items.map(({ name, quantity, price }) => ({ name, quantity, price })),
    [{ name: 'Zzq flour', quantity: 0.3, price: 0.3 }],
  );
});
