import t from 'tap';
import { implausibleQuantity } from '@nutrition/domain';
import { offlineModel } from '../src/offline.ts';
import { offlineVision } from '../src/vision.ts';

t.test('macro estimates are the similarity-weighted mean of similar catalog dishes', async (t) => {
  const model = offlineModel({
    async similarDishes() {
      return [
        { similarity: 0.75, calories: 300, protein: 20, fat: 10, carbs: 30 },
        { similarity: 0.25, calories: 500, protein: 10, fat: 30, carbs: 50 },
      ];
    },
  });
  // 300·.75 + 500·.25 = 350; 20·.75 + 10·.25 = 17.5; 10·.75 + 30·.25 = 15; 30·.75 + 50·.25 = 35
  t.same(await model.estimateDishMacros({ name: 'x', language: 'en' }), {
    calories: 350,
    protein: 17.5,
    fat: 15,
    carbs: 35,
    model: 'offline',
  });
});

t.test('a name like nothing in the catalog gets a typical meal, still labelled offline', async (t) => {
  const model = offlineModel({ similarDishes: async () => [] });
  t.match(await model.estimateDishMacros({ name: 'zzz', language: 'en' }), { calories: 400, model: 'offline' });
});

t.test('the offline receipt stand-in answers quantities a purchase can hold', async (t) => {
  const units = ['g', 'ml', 'piece', 'can', 'bunch', 'pack', 'bottle'];
  const catalog = {
    visionCatalog: async () => ({ dishes: [], products: units.map((unit) => ({ name: unit, unit })) }),
  };
  const vision = offlineVision(catalog);
  const wrong: string[] = [];
  for (let i = 0; i < 200; i++) {
    const { items } = await vision.recognizeProducts(
      { contentType: 'image/jpeg', data: Buffer.from(`photo ${i}`) },
      'receipt',
    );
    for (const item of items) {
      const problem = implausibleQuantity(item.quantity, item.unit);
      if (problem) wrong.push(problem);
    }
  }
  t.same(wrong, [], 'no "800 can" from 200 photos');
});
