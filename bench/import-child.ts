import { createDatabase } from '@nutrition/db';
import { importFoodDump } from '../packages/catalog/src/import/importer.ts';

/** Runs one import in its own process, so its peak memory is its own. */
const [url, file] = process.argv.slice(2) as [string, string];
const { sql, close } = createDatabase(url, { max: 2 });
const languages = (await sql<{ code: string }[]>`SELECT code FROM languages`).map((l) => l.code);
const started = performance.now();
const summary = await importFoodDump(sql, file, languages);
const seconds = (performance.now() - started) / 1000;
await close();
console.log(JSON.stringify({ summary, seconds, maxRssKiB: process.resourceUsage().maxRSS }));
