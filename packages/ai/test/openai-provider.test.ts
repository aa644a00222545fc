import t from 'tap';
import { openAiProvider, OUTPUT_RETRIES } from '../src/openai-provider.ts';
import { ModelOutputInvalid, ModelUnavailable, type PlanningContext } from '../src/provider.ts';
import { fakeOpenAi, sampleRecipe } from './fake-openai.ts';

const ctx: PlanningContext = {
  language: { code: 'ru', english_name: 'Russian' },
  calorieTarget: 1850,
  macroTargets: { protein_g: 116, fat_g: 62, carbs_g: 208 },
  cuisines: ['russian'],
  excludedTags: ['contains_pork'],
  pantry: [
    { product_id: 'a', name: 'Шампиньоны', quantity: 300, unit: 'g', days_left: 1 },
    { product_id: 'b', name: 'Рис', quantity: 1, unit: 'kg', days_left: 200 },
  ],
  seed: 'x',
};

function provider(baseUrl: string, timeoutMs = 5000) {
  const logged: object[] = [];
  const p = openAiProvider({
    apiKey: 'test-key',
    baseUrl,
    timeoutMs,
    models: { recommendations: 'rec-model', menu: 'menu-model', estimate: 'est-model', vision: 'vision-model' },
    log: { info: (o) => logged.push(o), warn: (o) => logged.push(o) },
  });
  return { p, logged };
}

t.test('structured output with the task schema; the prompt carries profile, pantry and language', async (t) => {
  const server = await fakeOpenAi([{ content: JSON.stringify({ recipes: [sampleRecipe()] }) }]);
  t.teardown(server.close);
  const { p, logged } = provider(server.baseUrl);
  const out = await p.recommend({ ...ctx, count: 1, mealType: 'dinner' });
  t.equal(out.recipes[0]!.title, 'Гречка с грибами');
  t.equal(out.model, 'rec-model');
  const req = server.requests[0]!;
  t.equal(req.model, 'rec-model', 'the model configured for the task');
  t.equal(req.response_format?.type, 'json_schema');
  t.match(req.response_format?.json_schema?.schema, { type: 'object', properties: { recipes: { type: 'array' } } });
  const prompt = req.messages.map((m) => m.content).join('\n');
  t.match(prompt, /Russian/);
  t.match(prompt, /1850 kcal/);
  t.match(prompt, /protein 116 g/);
  t.match(prompt, /Шампиньоны: 300 g, expires in 1 days/);
  t.ok(prompt.indexOf('Шампиньоны') < prompt.indexOf('Рис'), 'expiring first');
  t.match(prompt, /contains_pork/);
  t.match(logged, [{ task: 'recommendations', usage: { total_tokens: 200 } }], 'token usage logged');
});

t.test('invalid JSON, then a valid answer: retried with the error fed back', async (t) => {
  const server = await fakeOpenAi([
    { content: '{"recipes": [' },
    { content: JSON.stringify({ recipes: [sampleRecipe()] }) },
  ]);
  t.teardown(server.close);
  const out = await provider(server.baseUrl).p.recommend({ ...ctx, count: 1, mealType: null });
  t.equal(out.recipes.length, 1);
  t.equal(server.requests.length, 2);
  const feedback = server.requests[1]!.messages.at(-1)!;
  t.equal(feedback.role, 'user');
  t.match(feedback.content, /not valid JSON/);
});

t.test('text in another language than asked for is asked for again, like a schema violation', async (t) => {
  const server = await fakeOpenAi([
    { content: JSON.stringify({ recipes: [sampleRecipe({ reason: 'Uses Шампиньоны from your pantry.' })] }) },
    { content: JSON.stringify({ recipes: [sampleRecipe()] }) },
  ]);
  t.teardown(server.close);
  const out = await provider(server.baseUrl).p.recommend({ ...ctx, count: 1, mealType: null });
  t.equal(out.recipes[0]!.reason, 'Использует грибы, которые скоро испортятся.');
  t.equal(server.requests.length, 2);
  t.match(
    server.requests[1]!.messages.at(-1)!.content,
    /the reason is not written in Cyrillic; write all of it in Russian/,
  );
});

t.test('a stray control character in the text is dropped, not stored and not a failure', async (t) => {
  // A NUL cannot be stored in PostgreSQL text: it made the save fail with 500 internal_error.
  const dirty = sampleRecipe({
    title: 'Гречка\u0000 с грибами',
    ingredients: [{ name: 'Гречневая\u0000 крупа', quantity: 160, unit: 'g' }],
    steps: ['Отварите\u0007 гречку.\nПодавайте.'],
  });
  const server = await fakeOpenAi([{ content: JSON.stringify({ recipes: [dirty] }) }]);
  t.teardown(server.close);
  const out = await provider(server.baseUrl).p.recommend({ ...ctx, count: 1, mealType: null });
  t.equal(out.recipes[0]!.title, 'Гречка с грибами');
  t.equal(out.recipes[0]!.ingredients[0]!.name, 'Гречневая крупа');
  t.same(out.recipes[0]!.steps, ['Отварите гречку.\nПодавайте.'], 'line breaks stay, as in user text');
  t.equal(server.requests.length, 1, 'cleaned, not asked again');

  // A title of nothing but control characters is empty once cleaned: asked for again like any schema error.
  const empty = await fakeOpenAi([
    { content: JSON.stringify({ recipes: [sampleRecipe({ title: '\u0000' })] }) },
    { content: JSON.stringify({ recipes: [sampleRecipe()] }) },
  ]);
  t.teardown(empty.close);
  t.equal((await provider(empty.baseUrl).p.recommend({ ...ctx, count: 1, mealType: null })).recipes.length, 1);
  t.equal(empty.requests.length, 2);
  t.match(empty.requests[1]!.messages.at(-1)!.content, /title/);
});

t.test('an amount no recipe uses is asked for again, like a schema violation', async (t) => {
  // 100000 kg of oil passed the schema and was stored as 899,000,000 kcal a serving.
  const tons = sampleRecipe({ ingredients: [{ name: 'Подсолнечное масло', quantity: 100000, unit: 'kg' }] });
  const server = await fakeOpenAi([
    { content: JSON.stringify({ recipes: [tons] }) },
    { content: JSON.stringify({ recipes: [sampleRecipe()] }) },
  ]);
  t.teardown(server.close);
  const out = await provider(server.baseUrl).p.recommend({ ...ctx, count: 1, mealType: null });
  t.equal(out.recipes[0]!.ingredients[0]!.quantity, 160, 'the corrected answer');
  t.equal(server.requests.length, 2);
  t.match(
    server.requests[1]!.messages.at(-1)!.content,
    /recipe 1: Подсолнечное масло: 100000 kg is more than a recipe uses \(at most 25 kg\)/,
  );
});

t.test('schema violations are retried at most twice more', async (t) => {
  const server = await fakeOpenAi([{ content: JSON.stringify({ recipes: [sampleRecipe({ servings: 0 })] }) }]);
  t.teardown(server.close);
  t.ok(
    (await provider(server.baseUrl)
      .p.recommend({ ...ctx, count: 1, mealType: null })
      .catch((e: unknown) => e)) instanceof ModelOutputInvalid,
  );
  t.equal(server.requests.length, 1 + OUTPUT_RETRIES);
  t.match(server.requests[1]!.messages.at(-1)!.content, /servings/);
});

t.test('upstream errors are not retried', async (t) => {
  const server = await fakeOpenAi([{ status: 500 }]);
  t.teardown(server.close);
  t.ok(
    (await provider(server.baseUrl)
      .p.estimateDishMacros({ name: 'Borscht', language: 'en' })
      .catch((e: unknown) => e)) instanceof ModelUnavailable,
  );
  t.equal(server.requests.length, 1);

  const slow = await fakeOpenAi([{ delayMs: 1500, content: '{}' }]);
  t.teardown(slow.close);
  const started = Date.now();
  t.ok(
    (await provider(slow.baseUrl, 300)
      .p.estimateDishMacros({ name: 'Borscht', language: 'en' })
      .catch((e: unknown) => e)) instanceof ModelUnavailable,
  );
  t.ok(Date.now() - started < 1400, 'gave up at the timeout');
  t.equal(slow.requests.length, 1);

  t.ok(
    (await provider('http://127.0.0.1:9/v1')
      .p.estimateDishMacros({ name: 'x', language: 'en' })
      .catch((e: unknown) => e)) instanceof ModelUnavailable,
    'connection refused',
  );
});

t.test('retries of invalid output share the one timeout of the call', async (t) => {
  // Each retry had a timeout of its own: three 600 ms answers of invalid JSON took 1.8 s against a 1 s timeout
  // (150 s against 100 s with the defaults and 50 s answers, past the API's 120 s write timeout).
  const slow = await fakeOpenAi([{ delayMs: 600, content: 'not JSON' }]);
  t.teardown(slow.close);
  const started = Date.now();
  const err = await provider(slow.baseUrl, 1000)
    .p.recommend({ ...ctx, count: 1, mealType: null })
    .catch((e: unknown) => e);
  const elapsed = Date.now() - started;
  t.ok(err instanceof ModelUnavailable && !(err instanceof ModelOutputInvalid), 'a timeout, not invalid output');
  t.ok(elapsed >= 950 && elapsed < 1400, `gave up at the call's timeout: ${elapsed} ms`);
  t.equal(slow.requests.length, 2, 'the second try was cut off; no third was started');
});

t.test('menus and macro estimates use their own models and schemas', async (t) => {
  const server = await fakeOpenAi((req) =>
    req.model === 'menu-model'
      ? {
          content: JSON.stringify({
            days: [{ date: '2026-11-23', meals: [sampleRecipe({ meal_type: 'breakfast' })] }],
          }),
        }
      : { content: JSON.stringify({ calories: 250, protein: 10, fat: 8, carbs: 30 }) },
  );
  t.teardown(server.close);
  const { p } = provider(server.baseUrl);
  const menu = await p.planMenu({ ...ctx, slots: [{ date: '2026-11-23', meal_type: 'breakfast' }] });
  t.equal(menu.days[0]!.meals[0]!.meal_type, 'breakfast');
  t.match(server.requests[0]!.messages.at(-1)!.content, /2026-11-23: breakfast/);
  t.same(await p.estimateDishMacros({ name: 'Pho', language: 'en' }), {
    calories: 250,
    protein: 10,
    fat: 8,
    carbs: 30,
    model: 'est-model',
  });
});
