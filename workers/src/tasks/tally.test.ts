import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '@farm/sql/testing';
import type { Db } from '../db.ts';
import { device, workspace } from '../../test/farm.ts';
import { processTaskTally } from './tally.ts';

let t: TestDatabase;
let db: Db;
beforeAll(async () => {
  t = await createTestDatabase();
  db = t.database.db;
});
afterAll(() => t?.drop());

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
      .where(
        'id',
        'in',
        tasks.slice(0, 10).map((task) => task.id),
      )
      .execute();
    await db
      .updateTable('tasks')
      .set({ status: 'completed' })
      .where(
        'id',
        'in',
        tasks.slice(0, 4).map((task) => task.id),
      )
      .execute();
    await db.updateTable('tasks').set({ status: 'failed' }).where('id', '=', tasks[4]!.id).execute();
    // A change that is not a status change adds nothing.
    await db.updateTable('tasks').set({ progress: 50 }).where('workspaceId', '=', farm).execute();
    await db
      .deleteFrom('tasks')
      .where(
        'id',
        'in',
        tasks.slice(30).map((task) => task.id),
      )
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
