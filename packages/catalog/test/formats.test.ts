import t from 'tap';
import { readFileSync } from 'node:fs';
import { csvReader, jsonRecord } from '../src/import/formats.ts';

const header = readFileSync(new URL('./fixtures/off/products.csv', import.meta.url), 'utf8').split('\n')[0]!;

t.test(
  'per 100 ml only where the export says so: the JSONL nutrition set; never guessed from a package size',
  async (t) => {
    const columns = header.split('\t');
    const row = (values: Record<string, string>) => columns.map((c) => values[c] ?? '').join('\t');
    const read = csvReader(header);
    t.equal(read(row({ code: '1', product_name: 'Oil', quantity: '1 l', 'energy-kcal_100g': '900' })).per, '100g');
    t.equal(read(row({ code: '2', product_name: 'Flour', quantity: '1 kg', 'energy-kcal_100g': '364' })).per, '100g');
    t.equal(jsonRecord({ code: '3', nutrition: { aggregated_set: { per: '100ml', nutrients: {} } } }).per, '100ml');
    t.equal(jsonRecord({ code: '4', quantity: '330 ml', nutriments: { 'energy-kcal_100g': 42 } }).per, '100g');
    t.equal(jsonRecord({ code: '5', nutrition: { aggregated_set: { per: '100g', nutrients: {} } } }).per, '100g');
  },
);
