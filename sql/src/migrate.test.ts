import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { failureCodes } from '@farm/agent-protocol/failures';
import { openDatabase, type Database, type DatabaseTarget } from './database.ts';
import { migrate, MigrationChangedError, readMigrations } from './migrate.ts';

const opened: Database[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const database of opened) await database.close();
  for (const cleanup of cleanups) await cleanup();
});

async function fresh(kind: 'pglite' | 'postgres'): Promise<Database> {
  let target: DatabaseTarget = { kind: 'pglite' };
  if (kind === 'postgres') {
    const url = process.env.DATABASE_URL!;
    const name = `farm_sql_${randomBytes(5).toString('hex')}`;
    const admin = await openDatabase({ kind: 'postgres', url, poolSize: 1 });
    await admin.exec(`CREATE DATABASE ${name}`);
    cleanups.push(async () => {
      await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
    });
    const u = new URL(url);
    u.pathname = `/${name}`;
    target = { kind: 'postgres', url: u.toString() };
  }
  const database = await openDatabase(target);
  opened.push(database);
  return database;
}

const kinds = process.env.DATABASE_URL ? (['pglite', 'postgres'] as const) : (['pglite'] as const);

describe.each(kinds)('migrations on %s', (kind) => {
  it('applies every migration once and records it', async () => {
    const database = await fresh(kind);
    const all = await readMigrations();
    expect(await migrate(database, all)).toEqual(all.map((m) => m.name));
    expect(await migrate(database, all)).toEqual([]);
    const { rows } = await sql<{ name: string }>`select name from schema_migrations order by name`.execute(database.db);
    expect(rows.map((row) => row.name)).toEqual(all.map((m) => m.name));
  });

  it('refuses a migration that changed after it ran', async () => {
    const database = await fresh(kind);
    const all = await readMigrations();
    await migrate(database, all);
    const changed = all.map((m, index) => (index === 0 ? { ...m, checksum: 'different' } : m));
    await expect(migrate(database, changed)).rejects.toBeInstanceOf(MigrationChangedError);
  });

  it('leaves nothing behind when a migration fails', async () => {
    const database = await fresh(kind);
    const broken = [{ name: '0001_broken.sql', checksum: 'x', script: 'CREATE TABLE half_done (id int); SELECT no_such_function();' }];
    await expect(migrate(database, broken)).rejects.toThrow();
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from information_schema.tables where table_name = 'half_done'`.execute(database.db);
    expect(rows[0]?.n).toBe(0);
    const applied = await sql<{ n: number }>`select count(*)::int as n from schema_migrations`.execute(database.db);
    expect(applied.rows[0]?.n).toBe(0);
  });

  it('enforces the spec values with CHECK constraints and keeps updated_at current', async () => {
    const database = await fresh(kind);
    await migrate(database);
    const ws = await database.db.insertInto('workspaces').values({ name: 'W' }).returning(['id', 'updatedAt']).executeTakeFirstOrThrow();
    await expect(
      database.db
        .insertInto('devices')
        .values({ workspaceId: ws.id, name: 'x', status: 'exploded' as 'online' })
        .execute(),
    ).rejects.toThrow();
    const device = await database.db.insertInto('devices').values({ workspaceId: ws.id, name: 'Pixel' }).returningAll().executeTakeFirstOrThrow();
    expect(device.status).toBe('offline');
    expect(device.battery).toBe(100);
    expect(device.sessionTime).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const updated = await database.db.updateTable('devices').set({ battery: 40 }).where('id', '=', device.id).returningAll().executeTakeFirstOrThrow();
    expect(updated.updatedAt.getTime()).toBeGreaterThan(device.updatedAt.getTime());
  });

  it('lets a task end with every failure code phones and the server know, and none other', async () => {
    const database = await fresh(kind);
    await migrate(database);
    const { rows } = await sql<{ def: string }>`
      select pg_get_constraintdef(oid) as def from pg_constraint where conname = 'tasks_failure_code_check'`.execute(database.db);
    const listed = [...(rows[0]?.def ?? '').matchAll(/'([a-z_]+)'/g)].map((match) => match[1]);
    expect([...listed].sort()).toEqual([...failureCodes].sort());
  });

  it("keeps each phone's answer in its row, written for phones already there without touching their updated_at", async () => {
    const database = await fresh(kind);
    const all = await readMigrations();
    const before = all.filter((m) => m.name < '0025');
    await migrate(database, before);
    const ws = await database.db.insertInto('workspaces').values({ name: 'W' }).returning('id').executeTakeFirstOrThrow();
    await sql`insert into devices (workspace_id, name, battery, model, screen_on, updated_at)
      values (${ws.id}, 'Pixel "old"', 55, null, true, timestamptz '2026-01-02 03:04:05.678+00')`.execute(database.db);
    await migrate(database, all);
    const row = async () =>
      (await sql<{ answer: string; updatedAt: Date }>`select answer_json as answer, updated_at as "updatedAt" from devices`.execute(database.db)).rows[0]!;
    const old = await row();
    expect(old.updatedAt.toISOString()).toBe('2026-01-02T03:04:05.678Z');
    expect(JSON.parse(old.answer)).toMatchObject({ name: 'Pixel "old"', battery: 55, model: null, screenOn: true, updatedAt: '2026-01-02T03:04:05.678Z' });
    await database.db.updateTable('devices').set({ battery: 12, lastSeenAt: sql<Date>`timestamptz '2026-05-06 07:08:09.123999+00'` }).execute();
    const changed = await row();
    expect(JSON.parse(changed.answer)).toMatchObject({ battery: 12, lastSeenAt: '2026-05-06T07:08:09.124Z', updatedAt: changed.updatedAt.toISOString() });
    expect(changed.updatedAt.getTime()).toBeGreaterThan(old.updatedAt.getTime());
  });

  it('stamps when each member last was an operator from the audit log, and now where the log has no demotion', async () => {
    const database = await fresh(kind);
    const all = await readMigrations();
    await migrate(
      database,
      all.filter((m) => m.name < '0053'),
    );
    const ws = await database.db.insertInto('workspaces').values({ name: 'W' }).returning('id').executeTakeFirstOrThrow();
    const person = async (name: string, role: 'operator' | 'va') => {
      const user = await database.db
        .insertInto('users')
        .values({ email: `${name}@example.test`, passwordHash: 'x', name, role })
        .returning('id')
        .executeTakeFirstOrThrow();
      await database.db.insertInto('workspaceMembers').values({ workspaceId: ws.id, userId: user.id, role }).execute();
      return user.id;
    };
    const boss = await person('boss', 'operator');
    const demoted = await person('demoted', 'va');
    const unrecorded = await person('unrecorded', 'va');
    const alwaysVa = await person('always', 'va');
    const audit = (entityId: string, action: string, role: string, at: string) =>
      sql`insert into audit_log (workspace_id, action, entity_type, entity_id, data, created_at)
          values (${ws.id}, ${action}, 'user', ${entityId}, ${JSON.stringify({ role })}::jsonb, ${at}::timestamptz)`.execute(database.db);
    // Joined as an operator, demoted, promoted again, demoted again: the last demotion counts.
    await audit(demoted, 'user.joined', 'operator', '2026-01-01 00:00:00+00');
    await audit(demoted, 'user.updated', 'va', '2026-01-05 00:00:00+00');
    await audit(demoted, 'user.updated', 'operator', '2026-02-01 00:00:00+00');
    await audit(demoted, 'user.updated', 'va', '2026-02-03 00:00:00+00');
    await audit(demoted, 'user.updated', 'va', '2026-02-09 00:00:00+00');
    // Promoted once, and the demotion is not in the log: taken as an operator until the upgrade.
    await audit(unrecorded, 'user.joined', 'va', '2026-01-01 00:00:00+00');
    await audit(unrecorded, 'user.updated', 'operator', '2026-01-02 00:00:00+00');
    await audit(alwaysVa, 'user.joined', 'va', '2026-01-01 00:00:00+00');
    const started = Date.now();
    await migrate(database, all);
    const rows = await database.db.selectFrom('workspaceMembers').select(['userId', 'lastOperatorAt']).execute();
    const at = (id: string) => rows.find((row) => row.userId === id)?.lastOperatorAt;
    expect(at(demoted)?.toISOString()).toBe('2026-02-03T00:00:00.000Z');
    expect(at(unrecorded)!.getTime()).toBeGreaterThanOrEqual(started - 1000);
    expect(at(boss)!.getTime()).toBeGreaterThanOrEqual(started - 1000);
    expect(at(alwaysVa)).toBeNull();
  });

  it('rolls up the tasks already there for the analytics figures, then follows each change', async () => {
    const database = await fresh(kind);
    const all = await readMigrations();
    await migrate(
      database,
      all.filter((m) => m.name < '0027'),
    );
    const ws = await database.db.insertInto('workspaces').values({ name: 'W' }).returning('id').executeTakeFirstOrThrow();
    await sql`insert into tasks (workspace_id, title, type, priority, status, created_at, completed_at)
      values (${ws.id}, 'a', 'engage', 'low', 'completed', timestamptz '2026-01-02 03:07:00+00', timestamptz '2026-01-02 04:01:00+00'),
             (${ws.id}, 'b', 'post', 'low', 'pending', timestamptz '2026-01-02 03:14:59+00', null),
             (${ws.id}, 'c', 'post', 'low', 'failed', timestamptz '2026-01-02 03:15:00+00', timestamptz '2026-01-02 04:14:00+00')`.execute(database.db);
    await migrate(database, all);
    const created = () =>
      sql<{ at: Date; status: string; n: number }>`select at, status, sum(n)::int as n from task_created_counts group by 1, 2 having sum(n) <> 0 order by 1, 2`
        .execute(database.db)
        .then((r) => r.rows.map((row) => ({ ...row, at: row.at.toISOString() })));
    expect(await created()).toEqual([
      { at: '2026-01-02T03:00:00.000Z', status: 'completed', n: 1 },
      { at: '2026-01-02T03:00:00.000Z', status: 'pending', n: 1 },
      { at: '2026-01-02T03:15:00.000Z', status: 'failed', n: 1 },
    ]);
    const finished = await sql<{ status: string; type: string; n: number }>`
      select status, type, n::int from tasks_finished_between(${ws.id}, timestamptz '2026-01-02 04:00:00+00', timestamptz '2026-01-02 04:15:00+00') order by status`.execute(
      database.db,
    );
    expect(finished.rows).toEqual([
      { status: 'completed', type: 'engage', n: 1 },
      { status: 'failed', type: 'post', n: 1 },
    ]);
    const days = () =>
      sql<{ day: Date; status: string; n: number }>`select day, status, sum(n)::int as n from task_created_days group by 1, 2 having sum(n) <> 0 order by 1, 2`
        .execute(database.db)
        .then((r) => r.rows.map((row) => ({ ...row, day: row.day.toISOString() })));
    expect(await days()).toEqual([
      { day: '2026-01-02T00:00:00.000Z', status: 'completed', n: 1 },
      { day: '2026-01-02T00:00:00.000Z', status: 'failed', n: 1 },
      { day: '2026-01-02T00:00:00.000Z', status: 'pending', n: 1 },
    ]);
    const dayFinished = await sql<{ status: string; n: number }>`
      select status, n::int from tasks_finished_between(${ws.id}, timestamptz '2026-01-02 00:00:00+00', timestamptz '2026-01-03 00:00:00+00') order by status`.execute(
      database.db,
    );
    expect(dayFinished.rows).toEqual([
      { status: 'completed', n: 1 },
      { status: 'failed', n: 1 },
    ]);
    await sql`update tasks set status = 'completed', completed_at = now() where title = 'b'`.execute(database.db);
    expect((await created()).find((row) => row.status === 'pending')).toBeUndefined();
    expect(await days()).toEqual([
      { day: '2026-01-02T00:00:00.000Z', status: 'completed', n: 2 },
      { day: '2026-01-02T00:00:00.000Z', status: 'failed', n: 1 },
    ]);
  });

  it('tallies the phones already there per status, then follows each change', async () => {
    const database = await fresh(kind);
    const all = await readMigrations();
    await migrate(
      database,
      all.filter((m) => m.name < '0029'),
    );
    const ws = await database.db.insertInto('workspaces').values({ name: 'W' }).returning('id').executeTakeFirstOrThrow();
    await database.db
      .insertInto('devices')
      .values([
        { workspaceId: ws.id, name: 'a', status: 'online' },
        { workspaceId: ws.id, name: 'b', status: 'busy' },
        { workspaceId: ws.id, name: 'c', status: 'offline' },
      ])
      .execute();
    await migrate(database, all);
    const tallies = () =>
      sql<{ status: string; n: number }>`select status, sum(n)::int as n from device_tallies group by 1 having sum(n) <> 0 order by 1`
        .execute(database.db)
        .then((r) => r.rows);
    expect(await tallies()).toEqual([
      { status: 'busy', n: 1 },
      { status: 'offline', n: 1 },
      { status: 'online', n: 1 },
    ]);
    await sql`update devices set status = 'offline' where name = 'a'`.execute(database.db);
    expect(await tallies()).toEqual([
      { status: 'busy', n: 1 },
      { status: 'offline', n: 2 },
    ]);
  });

  it("lets a heartbeat's rewrite of a phone stay on its page without touching an index (a HOT update)", async () => {
    const database = await fresh(kind);
    await migrate(database);
    const ws = await database.db.insertInto('workspaces').values({ name: 'W' }).returning('id').executeTakeFirstOrThrow();
    const device = await database.db
      .insertInto('devices')
      .values({ workspaceId: ws.id, name: 'Pixel', status: 'online' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const hot = await database.db.transaction().execute(async (tx) => {
      // The columns the heartbeat batch writes (api/src/agents/pulse.ts), the status unchanged.
      await sql`update devices set battery = 41, screen_on = true, foreground_app = 'com.zhiliaoapp.musically',
                  last_seen_at = now(), last_active = now(), status = 'online' where id = ${device.id}`.execute(tx);
      const { rows } = await sql<{ hot: string }>`select pg_stat_get_xact_tuples_hot_updated('devices'::regclass) as hot`.execute(tx);
      return Number(rows[0]!.hot);
    });
    expect(hot).toBe(1);
  });

  it("counts a window's tasks per phone, VA and status from the creation-time index alone (an index-only scan)", async () => {
    const database = await fresh(kind);
    await migrate(database);
    const ws = await database.db.insertInto('workspaces').values({ name: 'W' }).returning('id').executeTakeFirstOrThrow();
    await sql`insert into tasks (workspace_id, title, type, priority, status, created_at)
              select ${ws.id}, 'Task ' || g, 'warmup', 'low', 'completed', now() - g * interval '1 minute'
              from generate_series(1, 500) g`.execute(database.db);
    await sql`vacuum (analyze) tasks`.execute(database.db);
    // The per-phone table's count (api/src/modules/analytics/analytics.queries.ts), the planner kept to an index as on a
    // farm's thousands of tasks: every column it reads is in the index, so no table page is visited.
    const plan = await database.db.connection().execute(async (connection) => {
      await sql`set enable_seqscan = off`.execute(connection);
      await sql`set enable_bitmapscan = off`.execute(connection);
      const { rows } = await sql<{ 'QUERY PLAN': string }>`explain (costs off)
        select device_id, assigned_to_id, count(*), count(*) filter (where status = 'completed') from tasks
        where workspace_id = ${ws.id} and created_at >= now() - interval '1 day' and created_at < now()
        group by device_id, assigned_to_id`.execute(connection);
      await sql`reset enable_seqscan`.execute(connection);
      await sql`reset enable_bitmapscan`.execute(connection);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain('Index Only Scan using tasks_workspace_idx on tasks');
  });
  it("keeps on upgrade only the verifications an operator's verified run shows, keyed by that run's recipe row", async () => {
    const database = await fresh(kind);
    const all = await readMigrations();
    await migrate(
      database,
      all.filter((m) => m.name < '0052'),
    );
    const { db } = database;
    const ws = (await db.insertInto('workspaces').values({ name: 'W' }).returning('id').executeTakeFirstOrThrow()).id;
    const person = async (role: 'operator' | 'va') => {
      const id = (
        await db
          .insertInto('users')
          .values({ email: `${role}-${randomBytes(4).toString('hex')}@farm.test`, passwordHash: 'x', name: role, role })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
      await db.insertInto('workspaceMembers').values({ workspaceId: ws, userId: id, role }).execute();
      return id;
    };
    const operator = await person('operator');
    const va = await person('va');
    const row = async (version: number) =>
      (
        await db
          .insertInto('workspaceRecipes')
          .values({ workspaceId: ws, recipeId: 'instagram.post', version, name: 'Post', platform: 'instagram', routines: ['create_post'], body: '{}' })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    const v1 = await row(1);
    const v2 = await row(2);
    const run = async (recipeRowId: string, version: number, startedById: string, appVersion: string) =>
      (
        await sql<{ id: string }>`insert into recipe_dry_runs
          (workspace_id, recipe_row_id, recipe_id, recipe_version, started_by_id, mode, effects, status, app_package, app_version, locale, verified, finished_at)
          values (${ws}, ${recipeRowId}, 'instagram.post', ${version}, ${startedById}, 'straight', true, 'passed', 'com.instagram.android', ${appVersion}, 'en-US', true, now())
          returning id`.execute(db)
      ).rows[0]!.id;
    const byOperator = await run(v1, 1, operator, '400.0.0.1');
    const byVa = await run(v2, 2, va, '401.0.0.1');
    // Before 0052 a verification named the recipe's id only; one came from no run at all.
    await sql`insert into recipe_verifications (workspace_id, recipe_id, package, app_version, locale, source, verified_by) values
      (${ws}, 'instagram.post', 'com.instagram.android', '400.0.0.1', 'en-US', 'dry_run', ${operator}),
      (${ws}, 'instagram.post', 'com.instagram.android', '401.0.0.1', 'en-US', 'dry_run', ${va}),
      (${ws}, 'instagram.post', 'com.instagram.android', '402.0.0.1', '', 'person', ${va})`.execute(db);

    await migrate(database, all);
    const kept = await db
      .selectFrom('recipeVerifications')
      .select(['recipeRowId', 'recipeVersion', 'appVersion', 'locale', 'source', 'dryRunId', 'verifiedBy'])
      .execute();
    expect(kept).toEqual([
      { recipeRowId: v1, recipeVersion: 1, appVersion: '400.0.0.1', locale: 'en-US', source: 'dry_run', dryRunId: byOperator, verifiedBy: operator },
    ]);
    const runs = await db.selectFrom('recipeDryRuns').select(['id', 'verified']).orderBy('appVersion').execute();
    expect(runs).toEqual([
      { id: byOperator, verified: true },
      { id: byVa, verified: false },
    ]);
  });
});
