import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * Part of `pnpm lint`: no line of TypeScript longer than 120 characters. Biome's formatter keeps code within that;
 * this also holds comments, strings and SQL, which the formatter leaves as written. Generated files are as generated.
 */
const MAX = 120;
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts'], {
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => file && !file.endsWith('.generated.ts'));
const long = files.flatMap((file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, i) => (line.length > MAX ? [`${file}:${i + 1}: ${line.length} characters`] : [])),
);
for (const line of long) console.error(line);
if (long.length > 0) {
  console.error(`${long.length} line(s) longer than ${MAX} characters`);
  process.exit(1);
}
