import t from 'tap';
import { openTestDatabase } from '@nutrition/db/testing';
import { recognitionRepository } from '@nutrition/db/repositories';
import type { ModelProvider, VisionModel } from '@nutrition/ai';
import { dishRecognizer } from '../src/recognize-dish.ts';

// The vision model and the macro estimate are external services: stand-ins that answer what the test needs.
const vision = (names: string[]) =>
  ({
    recognizeDish: async () => ({
      dishes: names.map((name) => ({ name, portions: 2, portion_g: 300, confidence: 0.9 })),
      model: 'test-vision',
    }),
  }) as unknown as VisionModel;
let estimates = 0;
const model = {
  estimateDishMacros: async () => {
    estimates++;
    return { calories: 250, protein: 10, fat: 8, carbs: 30 };
  },
} as unknown as ModelProvider;

t.test('a recognised dish: catalog match in one read, or one stub dish per new name even when jobs race', async (t) => {
  const { sql } = await openTestDatabase(t, { max: 6 });
  const [user] = await sql<{ id: string }[]>`INSERT INTO users (identity_provider, external_subject, email)
    VALUES ('test', 'worker-test', 'w@example.com') RETURNING id`;
  const _jobs = recognitionRepository(sql);
  const submit = () =>
    sql.begin((tx) =>
      recognitionRepository(tx).create('dish', user!.id, {}, [
        { contentType: 'image/jpeg', data: Buffer.from([0xff, 0xd8, 0xff, 0xe0]) },
      ]),
    );
  const [borscht] = await sql<{ id: string; calories: number }[]>`
    SELECT d.id, r.calories_per_serving::float8 AS calories FROM dishes d JOIN recipes r ON r.dish_id = d.id AND
      r.is_default
    WHERE d.code = 'borscht'`;

  const handle = dishRecognizer(sql, vision(['Borscht', "Grandma's harvest stew"]), model);
  const [a, b] = await Promise.all([submit(), submit()]);
  const outcomes = await Promise.all(
    [a, b].map((job) => handle({ jobId: job.id, kind: 'dish', plan: job.plan }, new AbortController().signal)),
  );
  t.same(outcomes, ['done', 'done']);

  const results = await sql<
    { result: { dishes: { name: string; dish_id: string; recipe_id: string; calories: number }[] } }[]
  >`
    SELECT result FROM dish_recognition_jobs WHERE id IN (${a.id}, ${b.id})`;
  for (const { result } of results) {
    t.equal(result.dishes[0]!.dish_id, borscht!.id, 'the catalog dish');
    t.equal(result.dishes[0]!.calories, Math.round(borscht!.calories * 2 * 10) / 10, 'per-serving calories x portions');
    t.equal(result.dishes[1]!.calories, 500, 'the estimate x portions');
  }
  t.equal(
    results[0]!.result.dishes[1]!.dish_id,
    results[1]!.result.dishes[1]!.dish_id,
    'both jobs name the same new dish',
  );
  const stubs =
    await sql`SELECT d.id FROM dishes d JOIN dish_translations t ON t.dish_id = d.id WHERE d.created_by = ${user!.id}
      AND t.name = ${"Grandma's harvest stew"}`;
  t.equal(stubs.length, 1, 'one stub dish for the name');
  t.ok(estimates >= 1 && estimates <= 2, 'estimated outside the lock, at most once per racing job');
});
