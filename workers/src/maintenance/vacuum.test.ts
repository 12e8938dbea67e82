import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { TestDatabase } from '@farm/sql/testing';
import type { Db } from '../db.ts';
import { device, useTestDatabase, workspace } from '../../test/farm.ts';
import { autovacuumRuns, processDatabaseVacuum } from './vacuum.ts';

let db: Db;
let kind: TestDatabase['database']['kind'];
useTestDatabase((opened, database) => {
  db = opened;
  kind = database.database.kind;
});

const deps = () => ({ db, announce: async () => {} });

/** A table's live and dead rows and whether it was ever vacuumed by hand, as the server's statistics say. */
async function statsOf(table: string) {
  const { rows } = await sql<{ live: number; dead: number; vacuumed: boolean }>`
    select n_live_tup::int as live, n_dead_tup::int as dead, last_vacuum is not null as vacuumed
    from pg_stat_user_tables where schemaname = current_schema() and relname = ${table}`.execute(db);
  return rows[0];
}

/** Runs `change` on one connection and makes that connection's statistics visible to the others as it commits. */
async function changeAndReport(change: (trx: Db) => Promise<unknown>) {
  await db.transaction().execute(async (trx) => {
    await change(trx);
    await sql`select pg_stat_force_next_flush()`.execute(trx);
  });
}

describe('database.vacuum', () => {
  it('runs only where the database has no autovacuum of its own', async () => {
    const runs = await autovacuumRuns(db);
    if (kind === 'pglite') expect(runs).toBe(false);
    else {
      const { rows } = await sql<{ on: boolean }>`select current_setting('autovacuum') = 'on' as on`.execute(db);
      expect(runs).toBe(rows[0]?.on);
    }
  });

  // PGlite has no roles' views of other processes: it is one process.
  if (process.env.TEST_DB === 'postgres')
    it("asks the server's setting where the role cannot see the other processes", async () => {
      const role = `farm_probe_${Math.random().toString(36).slice(2, 10)}`;
      await sql`create role ${sql.id(role)} nologin`.execute(db);
      try {
        await db.transaction().execute(async (trx) => {
          await sql`set local role ${sql.id(role)}`.execute(trx);
          const hidden = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where backend_type is null`.execute(trx);
          expect(hidden.rows[0]?.n).toBeGreaterThan(0);
          const { rows } = await sql<{ on: boolean }>`
          select current_setting('autovacuum') = 'on' and current_setting('track_counts') = 'on' as on`.execute(trx);
          expect(await autovacuumRuns(trx)).toBe(rows[0]?.on);
        });
      } finally {
        await sql`drop role ${sql.id(role)}`.execute(db);
      }
    });

  it('vacuums the tables whose updates left dead rows, analyzes the changed ones, and leaves the rest', async () => {
    const ws = await workspace(db, 'Vacuumed');
    const phone = await device(db, ws);
    await changeAndReport((trx) =>
      trx
        .insertInto('tasks')
        .values(
          Array.from({ length: 3000 }, (_, i) => ({
            workspaceId: ws,
            deviceId: phone.id,
            title: `Task ${i}`,
            type: 'engage' as const,
            priority: 'medium' as const,
          })),
        )
        .execute(),
    );
    // Every task updated once: as many dead rows as live ones, far past 50 + 20%.
    await changeAndReport((trx) => trx.updateTable('tasks').set({ priority: 'high' }).where('workspaceId', '=', ws).execute());
    expect((await statsOf('tasks'))?.dead).toBeGreaterThanOrEqual(3000);

    const first = await processDatabaseVacuum(undefined, deps());
    if (await autovacuumRuns(db)) {
      expect(first).toEqual({ skipped: true, vacuumed: [], analyzed: [] });
      return;
    }
    expect(first.skipped).toBe(false);
    expect(first.vacuumed).toContain('tasks');
    expect(first.vacuumed).not.toContain('workspaces');
    expect(first.analyzed).not.toContain('workspaces');
    expect(await statsOf('tasks')).toMatchObject({ live: 3000, dead: 0, vacuumed: true });

    // Nothing changed since: nothing is due.
    const second = await processDatabaseVacuum(undefined, deps());
    expect(second.vacuumed).not.toContain('tasks');
    expect(second.analyzed).not.toContain('tasks');

    // A tenth of the tasks changed: past analyze's 10%, short of vacuum's 20%.
    await changeAndReport((trx) =>
      trx
        .updateTable('tasks')
        .set({ priority: 'low' })
        .where('id', 'in', (eb) => eb.selectFrom('tasks').select('id').where('workspaceId', '=', ws).orderBy('id').limit(400))
        .execute(),
    );
    const third = await processDatabaseVacuum(undefined, deps());
    expect(third.analyzed).toContain('tasks');
    expect(third.vacuumed).not.toContain('tasks');

    // The statistics start over (PGlite at every open, PostgreSQL after a crash): what was dead before is unknown,
    // so a table with pages is vacuumed once, then only as it changes again.
    await sql`select pg_stat_reset()`.execute(db);
    const afterReset = await processDatabaseVacuum(undefined, deps());
    expect(afterReset.vacuumed).toContain('tasks');
    expect(afterReset.vacuumed).not.toContain('workspaces');
    const next = await processDatabaseVacuum(undefined, deps());
    expect(next.vacuumed).not.toContain('tasks');
  });
});
