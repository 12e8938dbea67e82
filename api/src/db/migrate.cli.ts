/** `pnpm db:migrate`: applies pending migrations to the configured database and says which. */
import { migrate, openDatabase } from '@farm/sql';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../config.ts';

try {
  const config = loadConfig();
  const database = await openDatabase(
    config.databaseUrl ? { kind: 'postgres', url: config.databaseUrl } : { kind: 'pglite', dataDir: join(config.dataDir, 'pglite') },
  );
  const applied = await migrate(database);
  console.log(applied.length ? `Applied ${applied.join(', ')}` : 'The database is up to date');
  await database.close();
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exitCode = 1;
}
