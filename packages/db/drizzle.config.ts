import { defineConfig } from 'drizzle-kit';

// Generating migrations needs no database: `pnpm db:generate` diffs the schema against drizzle/ snapshots.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/schema/index.ts',
  out: '../../drizzle',
  casing: 'snake_case',
});
