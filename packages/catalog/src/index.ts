export { seed } from './seed/index.ts';
export { seedDataDir, type ReferenceData, type Translations } from './seed/reference.ts';
export { readDishes, type SeedDish, type SeedProduct } from './seed/catalog.ts';
export { importFoodDump, type ImportSummary } from './import/importer.ts';
export { refreshSearchWords } from './search-words.ts';
