import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from './database.ts';
import { createPostgresDatabase } from './testing.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!process.env.DATABASE_URL)('connections PostgreSQL ends (a restart, a failover, an administrator)', () => {
  let created: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let admin: Database;
  let database: Database;
  beforeAll(async () => {
    created = await createPostgresDatabase(process.env.DATABASE_URL!, 2);
    ({ admin, database } = created);
  });
  afterAll(async () => {
    await created?.drop();
  });

  const end = (pid: number) => sql`select pg_terminate_backend(${pid})`.execute(admin.db);
  const pidOf = async (db: Database['db']) => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]!.pid;

  it('fails the transaction whose connection ended between its statements, and the process goes on', async () => {
    const outcome = database.db.transaction().execute(async (tx) => {
      await end(await pidOf(tx));
      // The server's word arrives while the transaction holds the connection with nothing asked of it.
      await pause(300);
      await sql`select 1`.execute(tx);
    });
    await expect(outcome).rejects.toThrow();
    expect((await sql<{ one: number }>`select 1 as one`.execute(database.db)).rows[0]!.one).toBe(1);
  });

  it('fails the statement whose connection ended while it ran, and the next statements run on a new connection', async () => {
    const pids = new Set<number>();
    const outcome = database.db.transaction().execute(async (tx) => {
      const pid = await pidOf(tx);
      pids.add(pid);
      // Held from the start: the statement may fail before `end` returns, and a rejection nobody holds yet is unhandled.
      const slow = sql`select pg_sleep(5)`.execute(tx).then(
        () => null,
        (error: unknown) => error,
      );
      await pause(200);
      await end(pid);
      const failed = await slow;
      if (failed) throw failed;
    });
    await expect(outcome).rejects.toThrow();
    for (let i = 0; i < 3; i++) pids.add(await pidOf(database.db));
    expect(pids.size).toBeGreaterThan(1);
  });

  it('replaces idle connections the server ended', async () => {
    const pids = await Promise.all([pidOf(database.db), pidOf(database.db)]);
    for (const pid of new Set(pids)) await end(pid);
    await pause(300);
    expect((await sql<{ one: number }>`select 1 as one`.execute(database.db)).rows[0]!.one).toBe(1);
  });
});
