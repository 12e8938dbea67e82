import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { device, useTestDatabase, workspace } from '../../test/farm.ts';
import { processTaskTally } from './tally.ts';

let db: Db;
useTestDatabase((opened) => (db = opened));

const deps = () => ({ db, announce: async () => {} });

/** Per workspace and status: what the tallies say, and what counting the tasks says. */
async function both(workspaceId: string) {
  const tallied = await sql<{ status: string; n: number }>`
    select status, sum(n)::int as n from task_tallies where workspace_id = ${workspaceId} group by status having sum(n) <> 0 order by status`.execute(db);
  const counted = await sql<{ status: string; n: number }>`
    select status, count(*)::int as n from tasks where workspace_id = ${workspaceId} group by status order by status`.execute(db);
  return { tallied: tallied.rows, counted: counted.rows };
}

async function addTasks(workspaceId: string, deviceId: string, count: number, status: 'pending' | 'completed' = 'pending') {
  return db
    .insertInto('tasks')
    .values(
      Array.from({ length: count }, (_, i) => ({ workspaceId, deviceId, title: `Task ${i}`, type: 'engage' as const, priority: 'medium' as const, status })),
    )
    .returning('id')
    .execute();
}

const idsOf = (rows: { id: string }[]) => rows.map((row) => row.id);

describe('task tallies', () => {
  it('follow every insert, status change and delete, and a fold keeps the sums while shrinking the rows', async () => {
    const farm = await workspace(db, 'Tallied');
    const other = await workspace(db, 'Elsewhere');
    const phone = await device(db, farm);
    const theirs = await device(db, other, { name: 'Pixel 9' });

    const tasks = await addTasks(farm, phone.id, 40);
    await addTasks(farm, phone.id, 5, 'completed');
    await addTasks(other, theirs.id, 7);
    await db
      .updateTable('tasks')
      .set({ status: 'in-progress' })
      .where('id', 'in', idsOf(tasks.slice(0, 10)))
      .execute();
    await db
      .updateTable('tasks')
      .set({ status: 'completed' })
      .where('id', 'in', idsOf(tasks.slice(0, 4)))
      .execute();
    await db.updateTable('tasks').set({ status: 'failed' }).where('id', '=', tasks[4]!.id).execute();
    // A change that is not a status change adds nothing.
    await db.updateTable('tasks').set({ progress: 50 }).where('workspaceId', '=', farm).execute();
    await db
      .deleteFrom('tasks')
      .where('id', 'in', idsOf(tasks.slice(30)))
      .execute();
    await db.updateTable('tasks').set({ status: 'cancelled' }).where('workspaceId', '=', farm).where('status', '=', 'pending').execute();

    const before = await both(farm);
    expect(before.tallied).toEqual(before.counted);
    expect(before.counted).toEqual([
      { status: 'cancelled', n: 20 },
      { status: 'completed', n: 9 },
      { status: 'failed', n: 1 },
      { status: 'in-progress', n: 5 },
    ]);
    expect(await both(other)).toEqual({ tallied: [{ status: 'pending', n: 7 }], counted: [{ status: 'pending', n: 7 }] });

    const folded = await processTaskTally(undefined, deps());
    expect(folded.folded).toBeGreaterThan(folded.kept);
    expect(await both(farm)).toEqual(before);
    const rows = await db
      .selectFrom('taskTallies')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('workspaceId', '=', farm)
      .executeTakeFirstOrThrow();
    expect(Number(rows.n)).toBe(4);

    // A fold touches only keys something changed: none now, then the two statuses one task moved between.
    expect(await processTaskTally(undefined, deps())).toEqual({ folded: 0, kept: 0 });
    await db.updateTable('tasks').set({ status: 'completed' }).where('id', '=', tasks[5]!.id).execute();
    const fresh = await sql<{ table: string; n: number }>`
      select 'tallies' as table, count(*)::int as n from task_tallies where fresh
      union all select 'created', count(*)::int from task_created_counts where fresh`.execute(db);
    expect(fresh.rows).toEqual([
      { table: 'tallies', n: 2 },
      { table: 'created', n: 2 },
    ]);
    const refolded = await processTaskTally(undefined, deps());
    // In-progress and completed, each a folded row and a fresh one, in the tallies, the quarter-hour and day rollups and
    // the phone and VA rollup (the task has no completion time, so the finished rollups have nothing).
    expect(refolded).toEqual({ folded: 16, kept: 8 });
    expect((await both(farm)).tallied).toEqual([
      { status: 'cancelled', n: 20 },
      { status: 'completed', n: 10 },
      { status: 'failed', n: 1 },
      { status: 'in-progress', n: 4 },
    ]);
  });

  it('stay exact when changes and folds run at the same time', async () => {
    const farm = await workspace(db, 'Busy');
    const phone = await device(db, farm);
    const tasks = await addTasks(farm, phone.id, 60);
    const statuses = ['in-progress', 'completed', 'failed', 'pending'] as const;
    await Promise.all([
      ...tasks.map((task, i) =>
        db
          .updateTable('tasks')
          .set({ status: statuses[i % statuses.length]! })
          .where('id', '=', task.id)
          .execute(),
      ),
      ...tasks.slice(0, 20).map((task) => db.deleteFrom('tasks').where('id', '=', task.id).execute()),
      processTaskTally(undefined, deps()),
      processTaskTally(undefined, deps()),
      addTasks(farm, phone.id, 10, 'completed'),
      processTaskTally(undefined, deps()),
    ]);
    const after = await both(farm);
    expect(after.tallied).toEqual(after.counted);
    await processTaskTally(undefined, deps());
    expect(await both(farm)).toEqual(after);
  });

  it('go with their workspace', async () => {
    const farm = await workspace(db, 'Leaving');
    const phone = await device(db, farm);
    await addTasks(farm, phone.id, 3);
    await db.deleteFrom('workspaces').where('id', '=', farm).execute();
    const left = await db.selectFrom('taskTallies').selectAll().where('workspaceId', '=', farm).execute();
    expect(left).toEqual([]);
  });
});

/** What each rollup says, and what counting the tasks says, per key (migrations 0027 and 0028). */
async function rollups(workspaceId: string) {
  const pair = async (rolled: ReturnType<typeof sql>, counted: ReturnType<typeof sql>) => ({
    rolled: (await rolled.execute(db)).rows,
    counted: (await counted.execute(db)).rows,
  });
  // The created and finished rollups come by the quarter-hour (`at`, task_quarter) and by the day (`day`, task_day).
  const created = (table: string, key: 'at' | 'day', bucket: 'task_quarter' | 'task_day') =>
    pair(
      sql`select ${sql.ref(key)}, status, sum(n)::int as n from ${sql.table(table)} where workspace_id = ${workspaceId}
          group by 1, 2 having sum(n) <> 0 order by 1, 2`,
      sql`select ${sql.raw(bucket)}(created_at) as ${sql.ref(key)}, status, count(*)::int as n from tasks where workspace_id = ${workspaceId}
          group by 1, 2 order by 1, 2`,
    );
  const finished = (table: string, key: 'at' | 'day', bucket: 'task_quarter' | 'task_day') =>
    pair(
      sql`select ${sql.ref(key)}, status, type, sum(n)::int as n from ${sql.table(table)} where workspace_id = ${workspaceId}
          group by 1, 2, 3 having sum(n) <> 0 order by 1, 2, 3`,
      sql`select ${sql.raw(bucket)}(completed_at) as ${sql.ref(key)}, status, type, count(*)::int as n from tasks
          where workspace_id = ${workspaceId} and status in ('completed', 'failed') and completed_at is not null
          group by 1, 2, 3 order by 1, 2, 3`,
    );
  return {
    created: await created('task_created_counts', 'at', 'task_quarter'),
    finished: await finished('task_finished_counts', 'at', 'task_quarter'),
    createdDays: await created('task_created_days', 'day', 'task_day'),
    finishedDays: await finished('task_finished_days', 'day', 'task_day'),
    workers: await pair(
      sql`select device_id, assigned_to_id, completed, sum(n)::int as n from task_worker_counts where workspace_id = ${workspaceId}
          group by 1, 2, 3 having sum(n) <> 0 order by 1, 2, 3`,
      sql`select device_id, assigned_to_id, status = 'completed' as completed, count(*)::int as n from tasks where workspace_id = ${workspaceId}
          group by 1, 2, 3 order by 1, 2, 3`,
    ),
  };
}

/** Over a window: what the rollup functions answer, and what counting the tasks answers. */
async function between(workspaceId: string, from: Date, to: Date) {
  const rows = async (query: ReturnType<typeof sql>) => (await query.execute(db)).rows;
  return {
    created: {
      rolled: await rows(sql`select status, n::int from tasks_created_between(${workspaceId}, ${from}, ${to}) order by status`),
      counted: await rows(sql`select status, count(*)::int as n from tasks
        where workspace_id = ${workspaceId} and created_at >= ${from} and created_at < ${to} group by status order by status`),
    },
    finished: {
      rolled: await rows(sql`select status, type, n::int from tasks_finished_between(${workspaceId}, ${from}, ${to}) order by status, type`),
      counted: await rows(sql`select status, type, count(*)::int as n from tasks
        where workspace_id = ${workspaceId} and status in ('completed', 'failed') and completed_at >= ${from} and completed_at < ${to}
        group by status, type order by status, type`),
    },
  };
}

const minutes = (n: number) => n * 60_000;

describe('analytics rollups', () => {
  it('follow creation, completion, retries, reassignment and deletion, and a fold keeps their sums', async () => {
    const farm = await workspace(db, 'Rolled up');
    const other = await workspace(db, 'Next door');
    const phone = await device(db, farm);
    const spare = await device(db, farm, { name: 'Pixel 8' });
    const theirs = await device(db, other, { name: 'Pixel 9' });
    const va = await db
      .insertInto('users')
      .values({ email: `va-${Date.now()}@rollups.farm`, passwordHash: 'x', name: 'Rolled VA', role: 'va' })
      .returning('id')
      .executeTakeFirstOrThrow();
    // Tasks spread over five hours at odd minutes, some finished at other odd minutes.
    const start = new Date('2026-03-01T08:00:00Z').getTime();
    const added = await db
      .insertInto('tasks')
      .values(
        Array.from({ length: 60 }, (_, i) => ({
          workspaceId: farm,
          deviceId: i % 3 === 0 ? spare.id : phone.id,
          assignedToId: i % 2 === 0 ? va.id : null,
          title: `Task ${i}`,
          type: (['post', 'engage', 'warmup'] as const)[i % 3]!,
          priority: 'medium' as const,
          status: (['pending', 'completed', 'failed', 'in-progress'] as const)[i % 4]!,
          createdAt: new Date(start + minutes(i * 5 + (i % 7))),
          completedAt: i % 4 === 1 || i % 4 === 2 ? new Date(start + minutes(i * 5 + 40 + (i % 11))) : null,
        })),
      )
      .returning('id')
      .execute();
    // And tasks over six days, every four hours and some minutes, finished up to a day and a half later.
    const days = await db
      .insertInto('tasks')
      .values(
        Array.from({ length: 36 }, (_, i) => ({
          workspaceId: farm,
          deviceId: phone.id,
          title: `Later task ${i}`,
          type: (['post', 'engage'] as const)[i % 2]!,
          priority: 'low' as const,
          status: (['completed', 'failed', 'pending'] as const)[i % 3]!,
          createdAt: new Date(start + minutes(i * 240 + 13 + (i % 5) * 17)),
          completedAt: i % 3 === 2 ? null : new Date(start + minutes(i * 240 + 13 + (i % 7) * 300)),
        })),
      )
      .returning('id')
      .execute();
    await addTasks(other, theirs.id, 5, 'completed');
    const ids = added.map((task) => task.id);
    await db
      .updateTable('tasks')
      .set({ status: 'completed', completedAt: new Date(start + minutes(3000)) })
      .where('id', 'in', idsOf(days.slice(0, 6)))
      .execute();
    // Completed now, retried (back to pending, completion cleared), moved to another phone and VA, retyped, deleted.
    await db
      .updateTable('tasks')
      .set({ status: 'completed', completedAt: new Date(start + minutes(301)) })
      .where('id', 'in', ids.slice(0, 8))
      .execute();
    await db.updateTable('tasks').set({ status: 'pending', completedAt: null }).where('id', 'in', ids.slice(8, 12)).execute();
    await db.updateTable('tasks').set({ deviceId: theirs.id, assignedToId: null }).where('id', 'in', ids.slice(12, 16)).execute();
    await db.updateTable('tasks').set({ type: 'monitor' }).where('id', 'in', ids.slice(16, 24)).execute();
    await db.updateTable('tasks').set({ progress: 40 }).where('workspaceId', '=', farm).execute();
    await db.deleteFrom('tasks').where('id', 'in', ids.slice(50)).execute();
    // A phone deleted leaves its tasks without a phone, and their counts move with them.
    await db.deleteFrom('devices').where('id', '=', spare.id).execute();

    const windows: [string, string][] = [
      ['2026-03-01T08:00:00Z', '2026-03-01T14:00:00Z'], // whole quarter-hours
      ['2026-03-01T08:07:00Z', '2026-03-01T12:52:30Z'], // uneven at both ends
      ['2026-03-01T09:01:00Z', '2026-03-01T09:13:00Z'], // inside one quarter-hour
      ['2026-03-01T09:05:00Z', '2026-03-01T09:15:00Z'], // up to a quarter-hour
      ['2026-03-01T09:15:00Z', '2026-03-01T09:15:00Z'], // empty
      ['2026-03-01T10:30:00Z', '2026-03-01T11:45:00Z'], // +05:30 and +05:45 zones' hours
      ['2026-03-02T00:00:00Z', '2026-03-05T00:00:00Z'], // whole UTC days
      ['2026-03-01T18:30:00Z', '2026-03-05T18:30:00Z'], // a +05:30 zone's days
      ['2026-03-01T08:07:00Z', '2026-03-06T13:52:30Z'], // days, quarter-hours and uneven ends
      ['2026-03-01T22:00:00Z', '2026-03-02T02:15:00Z'], // across one midnight
      ['2026-03-02T00:00:00Z', '2026-03-02T00:00:00Z'], // empty, at midnight
    ];
    const before = await rollups(farm);
    for (const kind of ['created', 'finished', 'createdDays', 'finishedDays', 'workers'] as const) {
      expect(before[kind].rolled, kind).toEqual(before[kind].counted);
    }
    expect(before.workers.counted.length).toBeGreaterThan(4);
    expect(before.createdDays.counted.length).toBeGreaterThan(12);
    expect(before.finishedDays.counted.length).toBeGreaterThan(12);
    for (const [from, to] of windows) {
      const answer = await between(farm, new Date(from), new Date(to));
      expect(answer.created.rolled, `created ${from} – ${to}`).toEqual(answer.created.counted);
      expect(answer.finished.rolled, `finished ${from} – ${to}`).toEqual(answer.finished.counted);
    }
    expect((await between(farm, new Date(windows[1]![0]), new Date(windows[1]![1]))).created.counted.length).toBeGreaterThan(1);
    const acrossDays = await between(farm, new Date(windows[8]![0]), new Date(windows[8]![1]));
    expect(acrossDays.created.counted.length).toBe(4);
    expect(acrossDays.finished.counted.length).toBeGreaterThan(3);

    const folded = await processTaskTally(undefined, deps());
    expect(folded.folded).toBeGreaterThan(folded.kept);
    expect(await rollups(farm)).toEqual(before);
    for (const [from, to] of windows) {
      const answer = await between(farm, new Date(from), new Date(to));
      expect(answer.created.rolled).toEqual(answer.created.counted);
      expect(answer.finished.rolled).toEqual(answer.finished.counted);
    }
    const rows = await db
      .selectFrom('taskCreatedCounts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('workspaceId', '=', farm)
      .executeTakeFirstOrThrow();
    expect(Number(rows.n)).toBe(before.created.counted.length);
  });

  it('stay exact when changes and folds run at the same time, and go with their workspace', async () => {
    const farm = await workspace(db, 'Rolling');
    const phone = await device(db, farm);
    const tasks = await addTasks(farm, phone.id, 40);
    await Promise.all([
      ...tasks.map((task, i) =>
        db
          .updateTable('tasks')
          .set(i % 2 === 0 ? { status: 'completed', completedAt: new Date(Date.now() - minutes(i)) } : { status: 'failed', completedAt: new Date() })
          .where('id', '=', task.id)
          .execute(),
      ),
      ...tasks.slice(0, 10).map((task) => db.deleteFrom('tasks').where('id', '=', task.id).execute()),
      processTaskTally(undefined, deps()),
      processTaskTally(undefined, deps()),
      addTasks(farm, phone.id, 10, 'completed'),
    ]);
    const after = await rollups(farm);
    for (const kind of ['created', 'finished', 'createdDays', 'finishedDays', 'workers'] as const) {
      expect(after[kind].rolled, kind).toEqual(after[kind].counted);
    }

    await db.deleteFrom('workspaces').where('id', '=', farm).execute();
    for (const table of ['task_created_counts', 'task_finished_counts', 'task_created_days', 'task_finished_days', 'task_worker_counts']) {
      const left = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)} where workspace_id = ${farm}`.execute(db);
      expect(left.rows[0]?.n, table).toBe(0);
    }
  });
});

/** Per status: what the phone tallies say, and what counting the phones says (migration 0029). */
async function fleet(workspaceId: string) {
  const tallied = await sql<{ status: string; n: number }>`
    select status, sum(n)::int as n from device_tallies where workspace_id = ${workspaceId} group by status having sum(n) <> 0 order by status`.execute(db);
  const counted = await sql<{ status: string; n: number }>`
    select status, count(*)::int as n from devices where workspace_id = ${workspaceId} group by status order by status`.execute(db);
  return { tallied: tallied.rows, counted: counted.rows };
}

describe('phone tallies', () => {
  it('follow phones added, connected, busy, moved, disconnected and removed, and stay put for a heartbeat', async () => {
    const farm = await workspace(db, 'Phones');
    const other = await workspace(db, 'Other phones');
    const phones = await Promise.all(Array.from({ length: 6 }, (_, i) => device(db, farm, { name: `Pixel ${i}`, seen: i % 2 === 0 })));
    const ids = phones.map((phone) => phone.id);
    await db.updateTable('devices').set({ status: 'busy' }).where('id', 'in', ids.slice(0, 2)).execute();
    await db.updateTable('devices').set({ status: 'idle' }).where('id', '=', ids[2]!).execute();
    await db.updateTable('devices').set({ workspaceId: other }).where('id', '=', ids[3]!).execute();
    await db.deleteFrom('devices').where('id', '=', ids[4]!).execute();
    const before = await fleet(farm);
    expect(before.tallied).toEqual(before.counted);
    expect(before.counted).toEqual([
      { status: 'busy', n: 2 },
      { status: 'idle', n: 1 },
      { status: 'offline', n: 1 },
    ]);
    expect((await fleet(other)).tallied).toEqual([{ status: 'offline', n: 1 }]);

    // A heartbeat writes the battery and the time it was heard: no tally row.
    const rows = async () => (await sql<{ n: number }>`select count(*)::int as n from device_tallies`.execute(db)).rows[0]!.n;
    const count = await rows();
    await db.updateTable('devices').set({ battery: 42, lastSeenAt: new Date() }).where('workspaceId', '=', farm).execute();
    await db.updateTable('devices').set({ status: 'busy' }).where('id', 'in', ids.slice(0, 2)).execute();
    expect(await rows()).toBe(count);

    await Promise.all([
      db.updateTable('devices').set({ status: 'offline' }).where('id', '=', ids[0]!).execute(),
      processTaskTally(undefined, deps()),
      db.updateTable('devices').set({ status: 'online' }).where('id', '=', ids[5]!).execute(),
      processTaskTally(undefined, deps()),
    ]);
    const after = await fleet(farm);
    expect(after.tallied).toEqual(after.counted);
    await processTaskTally(undefined, deps());
    expect(await fleet(farm)).toEqual(after);
    // No fresh rows left; two folds at once may each leave a row for one key, never more.
    const folded = await db.selectFrom('deviceTallies').select(['status', 'fresh']).where('workspaceId', '=', farm).execute();
    expect(folded.filter((row) => row.fresh)).toEqual([]);
    expect(folded.length).toBeGreaterThanOrEqual(after.counted.length);
    expect(folded.length).toBeLessThanOrEqual(after.counted.length * 2);

    await db.deleteFrom('workspaces').where('id', 'in', [farm, other]).execute();
    expect(await db.selectFrom('deviceTallies').select('status').where('workspaceId', 'in', [farm, other]).execute()).toEqual([]);
  });
});
