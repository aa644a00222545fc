export {
  createDatabase,
  databaseAnswers,
  DatabaseBusy,
  type Database,
  type Db,
  type Queryable,
  type Sql,
  type Transaction,
} from './client.ts';
export { violatedForeignKey, violatedUnique } from './errors.ts';
export { migrate, migrationsFolder, withSetupLock } from './migrate.ts';
export { startEmbeddedPostgres, freePort, type EmbeddedServer } from './embedded.ts';
export { openDatabaseTarget, LOCAL_DATA_DIR } from './local.ts';
export * as schema from './schema/index.ts';
