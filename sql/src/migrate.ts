/**
 * Applies the numbered SQL files of migrations/ in order, once each, recording a checksum,
 * and refuses to start when a migration that already ran was changed afterwards.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { Database } from './database.ts';

export const migrationsDir = fileURLToPath(new URL('../migrations/', import.meta.url));

export interface Migration {
  name: string;
  checksum: string;
  script: string;
}

export class MigrationChangedError extends Error {
  constructor(readonly migration: string) {
    super(`Migration ${migration} was changed after it was applied; add a new migration instead.`);
  }
}

export async function readMigrations(dir = migrationsDir): Promise<Migration[]> {
  const names = (await readdir(dir)).filter((name) => /^\d{4}_[\w-]+\.sql$/.test(name)).sort();
  return Promise.all(
    names.map(async (name) => {
      const script = await readFile(`${dir}/${name}`, 'utf8');
      return { name, script, checksum: createHash('sha256').update(script).digest('hex') };
    }),
  );
}

/** Applies pending migrations; answers the names it applied. */
export async function migrate(database: Database, migrations?: Migration[]): Promise<string[]> {
  const all = migrations ?? (await readMigrations());
  return database.withLock(async () => {
    await database.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY,
      checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await sql<{ name: string; checksum: string }>`SELECT name, checksum FROM schema_migrations`.execute(database.db);
    const applied = new Map(rows.map((row) => [row.name, row.checksum]));
    const done: string[] = [];
    for (const migration of all) {
      const checksum = applied.get(migration.name);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum) throw new MigrationChangedError(migration.name);
        continue;
      }
      // One simple-protocol script runs as one implicit transaction: a failing migration leaves nothing
      // half-applied, and its record is written in the same breath.
      await database.exec(`${migration.script}\n;INSERT INTO schema_migrations (name, checksum) VALUES ('${migration.name}', '${migration.checksum}');`);
      done.push(migration.name);
    }
    return done;
  });
}
