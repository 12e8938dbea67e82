/** Opens the product database the configuration names and brings its schema up to date. */
import { join } from 'node:path';
import { migrate, openDatabase, type Database } from '@farm/sql';
import type { Config } from '../config.ts';

export async function openProductDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'> & Partial<Pick<Config, 'databasePrepare'>>): Promise<Database> {
  const database = await openDatabase(
    config.databaseUrl
      ? { kind: 'postgres', url: config.databaseUrl, prepare: config.databasePrepare ?? true }
      : { kind: 'pglite', dataDir: join(config.dataDir, 'pglite') },
  );
  try {
    await migrate(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}
