import { createDatabase } from './client.ts';
import { openDatabaseTarget } from './local.ts';
import { migrate } from './migrate.ts';
import { seed } from './seed/index.ts';

/** `node src/cli.ts migrate|seed|setup` against DATABASE_URL, or the embedded server when it is unset. */
const command = process.argv[2];
const commands = ['migrate', 'seed', 'setup'];
if (!command || !commands.includes(command)) {
  console.error(`usage: cli.ts <${commands.join('|')}>`);
  process.exit(2);
}

const target = await openDatabaseTarget();
try {
  if (command === 'migrate' || command === 'setup') {
    await migrate(target.url);
    console.log('migrations applied');
  }
  if (command === 'seed' || command === 'setup') {
    const { sql, close } = createDatabase(target.url, { max: 2, applicationName: 'nutrition-seed' });
    try {
      await seed(sql);
    } finally {
      await close();
    }
    console.log('seed data loaded');
  }
} finally {
  await target.stop();
}
