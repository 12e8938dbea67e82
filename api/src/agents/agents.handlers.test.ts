/**
 * Phones' results written together (`writeResults`), against a real database: PGlite always, PostgreSQL when
 * DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@farm/sql/testing';
import { createTasks, dispatchMany, Outboxes } from '@farm/workers';
import type { Change } from '@farm/workers';
import type { Db } from '../shared/types.ts';
import { type DeviceResult, writeResults } from './agents.handlers.ts';

let t: TestDatabase;
let db: Db;

beforeAll(async () => {
  t = await createTestDatabase();
  db = t.database.db;
});
afterAll(async () => {
  await t?.drop();
});

/** A workspace with `count` phones, each with one task of the automation out on it. */
async function farm(count: number) {
  const { id: workspaceId } = await db.insertInto('workspaces').values({ name: 'Farm' }).returning('id').executeTakeFirstOrThrow();
  const phones = await db
    .insertInto('devices')
    .values(Array.from({ length: count }, (_, i) => ({ workspaceId, name: `Pixel 7 #0${i + 1}`, status: 'online' as const, lastSeenAt: new Date() })))
    .returning(['id', 'workspaceId', 'name'])
    .execute();
  const tasks = await db.transaction().execute((tx) =>
    createTasks(
      tx,
      phones.map((phone, i) => ({
        workspaceId,
        title: `Publish reel ${i + 1}`,
        type: 'post' as const,
        priority: 'medium' as const,
        deviceId: phone.id,
        work: {
          kind: 'post.publish' as const,
          postId: crypto.randomUUID(),
          account: { id: crypto.randomUUID(), username: `reels${i + 1}`, platform: 'instagram' },
          caption: `Reel ${i + 1}`,
          hashtags: [],
          mediaUrls: [],
        },
        sourceKey: `test:${crypto.randomUUID()}`,
      })),
      new Outboxes(),
    ),
  );
  await dispatchMany(
    db,
    phones.map((phone) => phone.id),
  );
  const results: DeviceResult[] = phones.map((device) => ({
    device,
    result: { taskId: tasks.find((task) => task.deviceId === device.id)!.id, attempt: 1, status: 'completed' },
  }));
  return { workspaceId, phones, tasks, results };
}

function feed() {
  const changes: Change[] = [];
  return { changes, publish: (change: Change) => void changes.push(change), subscribe: () => () => undefined };
}

describe('writing phones’ results', () => {
  it('settles a batch in one go, with its activities and audit rows, and announces each change once', async () => {
    const { workspaceId, tasks, results } = await farm(3);
    const changes = feed();
    const answers = await writeResults(db, changes, results);
    expect(answers.map((answer) => ('verdict' in answer ? answer.verdict.kind : 'error'))).toEqual(['settled', 'settled', 'settled']);
    const activities = await db.selectFrom('activities').select(['action', 'type']).where('workspaceId', '=', workspaceId).orderBy('action').execute();
    expect(activities).toEqual([
      { action: 'Pixel 7 #01 completed "Publish reel 1"', type: 'success' },
      { action: 'Pixel 7 #02 completed "Publish reel 2"', type: 'success' },
      { action: 'Pixel 7 #03 completed "Publish reel 3"', type: 'success' },
    ]);
    const audited = await db.selectFrom('auditLog').select(['action', 'entityId']).where('workspaceId', '=', workspaceId).execute();
    expect(audited.map((row) => row.entityId).sort()).toEqual(tasks.map((task) => task.id).sort());
    expect(audited.every((row) => row.action === 'task.completed')).toBe(true);
    const events = (name: string) => changes.changes.filter((change) => change.event === name);
    expect(events('task.updated')).toHaveLength(3);
    expect(events('activity.created')).toHaveLength(3);
  });

  it('writes each result alone when the batch fails, so one it cannot take holds up no other', async () => {
    const { workspaceId, tasks, results } = await farm(3);
    // A result the batch cannot write (a time that is no time): the batch fails, then each is tried alone.
    results[1] = { ...results[1]!, result: { ...results[1]!.result, finishedAt: new Date(Number.NaN) } };
    const changes = feed();
    const answers = await writeResults(db, changes, results);
    expect(answers.map((answer) => ('verdict' in answer ? answer.verdict.kind : 'error'))).toEqual(['settled', 'error', 'settled']);
    const statuses = await db.selectFrom('tasks').select(['id', 'status']).where('workspaceId', '=', workspaceId).execute();
    expect(statuses.find((task) => task.id === tasks[1]!.id)!.status).toBe('pending');
    expect(statuses.filter((task) => task.status === 'completed')).toHaveLength(2);
    // Nothing of the failed batch was announced: each settled task once, with one activity.
    expect(changes.changes.filter((change) => change.event === 'task.updated')).toHaveLength(2);
    expect(changes.changes.filter((change) => change.event === 'activity.created')).toHaveLength(2);
    expect(await db.selectFrom('activities').select('id').where('workspaceId', '=', workspaceId).execute()).toHaveLength(2);
  });
});
