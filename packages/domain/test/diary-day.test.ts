import t from 'tap';
import { dayWithEntry, DIARY_PLACE_LENGTH, MEAL_TYPES, type DayEntry } from '../src/index.ts';

const id = (n: number) => `0000000${n}-0000-7000-8000-000000000000`;
const place = (meal: number, time: string, n: number) => `${meal}${time}${id(n)}`;
const row = (n: number) => `{"id":"${id(n)}","name":"entry \\"${n}\\" {\\"id\\":"}`;
const nutrients = (calories: number | null, fiber: number | null, salt: number | null): DayEntry['nutrients'] => ({
  calories,
  protein_g: 1,
  fat_g: null,
  carbs_g: 0.1,
  fiber_g: fiber,
  sugars_g: null,
  saturated_fat_g: null,
  salt_g: salt,
});
const EMPTY = {
  json:
    '"entries":[],"totals":{"calories" : 0.0, "protein_g" : 0.0, "fat_g" : 0.0, "carbs_g" : 0.0, "fiber_g" : 0.0, ' +
    '"sugars_g" : 0.0, "saturated_fat_g" : 0.0, "salt_g" : 0.00}',
  places: '',
};
const totals = (json: string) => JSON.parse(json.slice(json.indexOf('"totals":') + 9));
const entries = (json: string) => JSON.parse(json.slice('"entries":'.length, json.indexOf(',"totals":')));

t.test('places are one digit of meal type, 20 of time and the id', async (t) => {
  t.equal(place(1, '20261124120000000001', 1).length, DIARY_PLACE_LENGTH);
  t.ok(MEAL_TYPES.length < 10, "a meal type's position is one digit");
});

t.test('entries go where the day orders them, in the separators PostgreSQL writes', async (t) => {
  const snack = dayWithEntry(EMPTY, {
    json: row(1),
    place: place(6, '20261124120000000001', 1),
    nutrients: nutrients(100, null, 0.25),
  });
  t.ok(snack);
  t.equal(snack!.json.slice(0, snack!.json.indexOf(',"totals"')), `"entries":[${row(1)}]`);
  const breakfast = dayWithEntry(snack!, {
    json: row(2),
    place: place(1, '20261124130000000001', 2),
    nutrients: nutrients(50.1, 2, 0.5),
  });
  const lateSnack = dayWithEntry(breakfast!, {
    json: row(3),
    place: place(6, '20261124140000000001', 3),
    nutrients: nutrients(null, null, null),
  });
  // Same meal and microsecond: the id decides.
  const tie = dayWithEntry(lateSnack!, {
    json: row(4),
    place: place(6, '20261124120000000001', 4),
    nutrients: nutrients(0.2, 0.1, 0.01),
  });
  t.equal(
    tie!.json.slice(0, tie!.json.indexOf(',"totals"')),
    `"entries":[${row(2)}, \n ${row(1)}, \n ${row(4)}, \n ${row(3)}]`,
  );
  t.same(
    entries(tie!.json).map((e: { id: string }) => e.id),
    [id(2), id(1), id(4), id(3)],
  );
  t.equal(
    tie!.places,
    [
      place(1, '20261124130000000001', 2),
      place(6, '20261124120000000001', 1),
      place(6, '20261124120000000001', 4),
      place(6, '20261124140000000001', 3),
    ].join(''),
  );
});

t.test('totals add the entry as PostgreSQL sums: unknown values apart, rounded to their decimals', async (t) => {
  const first = dayWithEntry(EMPTY, {
    json: row(1),
    place: place(3, '20261124120000000001', 1),
    nutrients: nutrients(null, null, null),
  });
  t.equal(
    first!.json.slice(first!.json.indexOf('"totals":')),
    '"totals":{"calories" : 0.0, "protein_g" : 1.0, "fat_g" : 0.0, "carbs_g" : 0.1, "fiber_g" : null, ' +
      '"sugars_g" : null, "saturated_fat_g" : null, "salt_g" : null}',
    'on a day of one entry stating no fiber the fiber is unknown, not 0; calories are 0',
  );
  let day = first!;
  for (let n = 2; n < 9; n++)
    day = dayWithEntry(day, {
      json: row(n),
      place: place(3, `2026112412000000000${n}`, n),
      nutrients: nutrients(0.1, n === 5 ? 0.3 : null, 0.07),
    })!;
  t.same(totals(day.json), {
    calories: 0.7,
    protein_g: 8,
    fat_g: 0,
    carbs_g: 0.8,
    fiber_g: 0.3,
    sugars_g: null,
    saturated_fat_g: null,
    salt_g: 0.49,
  });
  t.match(day.json, /"calories" : 0\.7, .*"salt_g" : 0\.49\}$/, 'seven tenths summed in floating point print as 0.7');
});

t.test('a kept text of another shape is not changed', async (t) => {
  const entry = { json: row(1), place: place(1, '20261124120000000001', 1), nutrients: nutrients(1, 1, 1) };
  t.equal(dayWithEntry({ json: '{"items":[]}', places: '' }, entry), null);
  t.equal(dayWithEntry({ ...EMPTY, places: 'x' }, entry), null, 'places of the wrong length');
  t.equal(dayWithEntry(EMPTY, { ...entry, place: 'short' }), null);
  const one = dayWithEntry(EMPTY, entry)!;
  t.equal(
    dayWithEntry(
      { json: one.json.replace(id(1), id(9)), places: one.places },
      { ...entry, place: place(1, '20261124110000000001', 2) },
    ),
    null,
    'an entry named by its place but missing from the text',
  );
});
