/**
 * A fresh, migrated database for each test file: a PGlite restored from a migrated template
 * (made once per worker process), or a new PostgreSQL database dropped afterwards — copied from the run's migrated
 * template database when the test run made one (`postgresTemplateSetup`, a vitest global setup), migrated otherwise.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from './database.ts';
import { migrate, readMigrations } from './migrate.ts';

let template: Promise<Blob> | undefined;

/** Names the run's migrated PostgreSQL template database to the test processes (set by `postgresTemplateSetup`). */
const TEMPLATE_ENV = 'FARM_TEST_PG_TEMPLATE';

/** The migrated template, cached on disk under the migrations' checksum so every test process shares it. */
async function pgliteTemplate(): Promise<Blob> {
  const migrations = await readMigrations();
  const key = createHash('sha256')
    .update(migrations.map((m) => m.checksum).join())
    .digest('hex')
    .slice(0, 16);
  const file = join(tmpdir(), `farm-pglite-template-${key}.tar`);
  try {
    return new Blob([await readFile(file)]);
  } catch {
    const database = await openDatabase({ kind: 'pglite' });
    await migrate(database, migrations);
    const blob = await database.dumpDataDir!();
    await database.close();
    const partial = `${file}.${process.pid}`;
    await writeFile(partial, Buffer.from(await blob.arrayBuffer()));
    await rename(partial, file);
    return blob;
  }
}

export interface TestDatabase {
  database: Database;
  drop(): Promise<void>;
}

/**
 * A new, empty PostgreSQL database on the server of `url` (its own `url` returned), and a connection to that server's
 * own database (`admin`) to act on it from outside; `drop()` closes both and drops the database.
 */
export async function createPostgresDatabase(url: string, poolSize: number, template?: string): Promise<TestDatabase & { admin: Database; url: string }> {
  const name = `farm_test_${randomBytes(6).toString('hex')}`;
  const admin = await openDatabase({ kind: 'postgres', url, poolSize: 1 });
  await admin.exec(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  const target = new URL(url);
  target.pathname = `/${name}`;
  const database = await openDatabase({ kind: 'postgres', url: target.toString(), poolSize });
  return {
    database,
    admin,
    url: target.toString(),
    async drop() {
      await database.close();
      await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
    },
  };
}

export async function createTestDatabase(): Promise<TestDatabase> {
  if (process.env.TEST_DB === 'postgres') {
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error('TEST_DB=postgres needs DATABASE_URL');
    const template = process.env[TEMPLATE_ENV];
    const created = await createPostgresDatabase(url, 5, template);
    if (!template) await migrate(created.database);
    return created;
  }
  template ??= pgliteTemplate();
  const database = await openDatabase({ kind: 'pglite', loadDataDir: await template });
  return { database, drop: () => database.close() };
}

/**
 * A vitest global setup: when DATABASE_URL is set, migrates one template database for the whole run, so that each
 * test file's database is a copy of it (one CREATE DATABASE … TEMPLATE instead of every migration again), and drops
 * it when the run ends. The template is named for this run alone, so two runs on one server never share one.
 */
export async function postgresTemplateSetup(): Promise<() => Promise<void>> {
  const url = process.env.DATABASE_URL;
  if (!url) return async () => {};
  const name = `farm_template_${randomBytes(6).toString('hex')}`;
  const admin = await openDatabase({ kind: 'postgres', url, poolSize: 1 });
  await admin.exec(`CREATE DATABASE ${name}`);
  const target = new URL(url);
  target.pathname = `/${name}`;
  // Two connections: migrate holds the advisory lock on one and runs the migrations on the other.
  const database = await openDatabase({ kind: 'postgres', url: target.toString(), poolSize: 2 });
  try {
    await migrate(database);
  } finally {
    // A template is copied only while nobody is connected to it.
    await database.close();
  }
  process.env[TEMPLATE_ENV] = name;
  return async () => {
    delete process.env[TEMPLATE_ENV];
    await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.close();
  };
}
