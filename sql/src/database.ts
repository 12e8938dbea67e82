/**
 * One way to open the product database: PostgreSQL through `pg` when a URL is given,
 * otherwise PGlite (PostgreSQL in WASM) persisted in a directory, or in memory.
 */
import { CamelCasePlugin, Kysely, PostgresDialect } from 'kysely';
import { preparingPool } from './prepared.ts';
import type { DB } from './schema.ts';

export type DatabaseTarget =
  | {
      kind: 'postgres';
      url: string;
      poolSize?: number;
      /** Named (prepared) statements, on unless turned off (a PgBouncer in transaction mode before 1.21 needs them off). */
      prepare?: boolean;
    }
  | { kind: 'pglite'; dataDir?: string; loadDataDir?: Blob };

export interface Database {
  db: Kysely<DB>;
  kind: DatabaseTarget['kind'];
  /** Runs a script of several statements (migrations); no parameters. */
  exec(script: string): Promise<void>;
  /** Runs fn while holding a database-wide lock, so two processes never migrate at once. */
  withLock<T>(fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** PostgreSQL only: the pool's connections (total, idle) and the queries waiting for one. */
  poolStats?(): { total: number; idle: number; waiting: number };
  /** PGlite only: the whole data directory as a tarball, to restore a copy quickly (tests use it as a template). */
  dumpDataDir?(): Promise<Blob>;
}

const DATE_OID = 1082;

/** The plugins of every Kysely instance on the product database (the compile-only one of the SQL snapshots included). */
export const kyselyPlugins = () => [new CamelCasePlugin()];

export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  return target.kind === 'postgres' ? openPostgres(target.url, target.poolSize, target.prepare ?? true) : openPglite(target);
}

async function openPostgres(url: string, poolSize = 10, prepare = true): Promise<Database> {
  const pg = await import('pg');
  const { Pool, types } = pg.default;
  // A calendar date stays a 'YYYY-MM-DD' string rather than a Date shifted by the server's zone.
  types.setTypeParser(DATE_OID, (value: string) => value);
  const pool = new Pool({
    connectionString: url,
    max: poolSize,
    // No JIT compilation: the product's statements run for milliseconds, and compiling one the planner thinks is large
    // (an analytics series over a farm's tasks) cost 15-20 ms of the server's CPU each time, more than the statement
    // itself. Set on each new connection before its first use, so it needs no rights on the database.
    // pg-pool waits for the promise onConnect returns before it hands the connection out (@types/pg says void).
    // eslint-disable-next-line @typescript-eslint/no-misused-promises
    onConnect: async (client) => {
      await client.query('SET jit = off').catch(() => undefined);
    },
  });
  // A connection the server ends (a restart, a failover, an administrator) says so as an 'error' event on its client,
  // idle or in use: unheard, that event would end the process. In use, the statement or transaction on it fails with
  // its own error, and the pool drops the connection when it comes back; idle, the pool drops it at once (and repeats
  // the event on itself, heard below so that it is not told twice). Either way the next use gets a new connection.
  pool.on('connect', (client) => {
    // Told once per connection: the server's reason comes first, then the socket's end.
    client.once('error', (error: Error) => process.emitWarning(`PostgreSQL closed a connection: ${error.message}`));
    client.on('error', () => undefined);
  });
  pool.on('error', () => undefined);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: prepare ? preparingPool(pool) : pool }), plugins: kyselyPlugins() });
  return {
    db,
    kind: 'postgres',
    async exec(script) {
      await pool.query(script);
    },
    async withLock(fn) {
      const client = await pool.connect();
      try {
        await client.query('SELECT pg_advisory_lock(72707101)');
        return await fn();
      } finally {
        await client.query('SELECT pg_advisory_unlock(72707101)').catch(() => undefined);
        client.release();
      }
    },
    async close() {
      await db.destroy();
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
}

async function openPglite(target: { dataDir?: string; loadDataDir?: Blob }): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGliteDialect } = await import('kysely-pglite-dialect');
  const client = new PGlite({
    ...(target.dataDir ? { dataDir: target.dataDir } : {}),
    ...(target.loadDataDir ? { loadDataDir: target.loadDataDir } : {}),
    parsers: { [DATE_OID]: (value: string) => value },
  });
  await client.waitReady;
  const db = new Kysely<DB>({ dialect: new PGliteDialect(client), plugins: kyselyPlugins() });
  let closed = false;
  return {
    db,
    kind: 'pglite',
    async exec(script) {
      await client.exec(script);
    },
    // PGlite is a single connection inside this process: there is no one else to race.
    withLock: (fn) => fn(),
    dumpDataDir: () => client.dumpDataDir('none') as Promise<Blob>,
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy().catch(() => undefined);
      if (!client.closed) await client.close();
    },
  };
}
