/**
 * posts.due against a real database: every due post gets exactly one task per schedule version; a post that failed
 * and is rescheduled is due again; a post whose phone has no agent says it waits for a person. With PostgreSQL and
 * Redis, two BullMQ workers race over 1,000 due posts.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@farm/sql/testing';
import type { Db } from '../db.ts';
import { account, device, recorder, scheduledPosts, workspace } from '../../test/farm.ts';
import { processPostsDue } from './posts.due.ts';

let t: TestDatabase;
let db: Db;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  db = t.database.db;
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await t?.drop();
});

const tasksOf = (postIds: string[]) => db.selectFrom('tasks').select(['id', 'postId', 'sourceKey', 'status', 'work']).where('postId', 'in', postIds).execute();

describe('posts.due', () => {
  it('turns every due post into one task, and a second run into nothing', async () => {
    const ws = await workspace(db);
    const phone = await device(db, ws);
    const acct = await account(db, ws, phone.id);
    const posts = await scheduledPosts(db, ws, acct.id, 30);
    const { changes, deps } = recorder(db);
    expect(await processPostsDue(undefined, deps)).toEqual({ tasks: 30, failed: 0 });
    expect(await processPostsDue(undefined, deps)).toEqual({ tasks: 0, failed: 0 });
    const tasks = await tasksOf(posts.map((p) => p.id));
    expect(new Set(tasks.map((task) => task.postId)).size).toBe(30);
    expect(tasks[0]!.work).toMatchObject({ kind: 'post.publish', account: { username: acct.username, platform: 'instagram' }, hashtags: ['#farm'] });
    expect(changes.filter((c) => c.event === 'task.created')).toHaveLength(30);
    // The phone has a live agent: its VA is not rung for work the phone will do.
    expect(changes.filter((c) => c.event === 'task.assigned')).toHaveLength(0);
    expect(changes.filter((c) => c.event === 'activity.created').map((c) => (c.payload as { action: string }).action)).toContain(
      '30 scheduled posts are due: sent to their phones',
    );
  });

  it('makes a post due again when it is rescheduled after a failure (a new version)', async () => {
    const ws = await workspace(db);
    const phone = await device(db, ws);
    const acct = await account(db, ws, phone.id);
    const [post] = await scheduledPosts(db, ws, acct.id, 1);
    const { deps } = recorder(db);
    await processPostsDue(undefined, deps);
    await db.updateTable('tasks').set({ status: 'failed', failureCode: 'app_crashed' }).where('postId', '=', post!.id).execute();
    await db.updateTable('posts').set({ status: 'failed' }).where('id', '=', post!.id).execute();
    expect(await processPostsDue(undefined, deps)).toEqual({ tasks: 0, failed: 0 });
    await db
      .updateTable('posts')
      .set({ status: 'scheduled', scheduleVersion: 1, scheduledAt: new Date(Date.now() - 1000) })
      .where('id', '=', post!.id)
      .execute();
    expect(await processPostsDue(undefined, deps)).toEqual({ tasks: 1, failed: 0 });
    expect((await tasksOf([post!.id])).map((task) => task.sourceKey).sort()).toEqual([`post:${post!.id}:0`, `post:${post!.id}:1`]);
  });

  it('fails a post whose account has no phone, leaves a paused account alone, and says when a post waits for a person', async () => {
    const ws = await workspace(db);
    const orphan = await account(db, ws, null);
    const [lonely] = await scheduledPosts(db, ws, orphan.id, 1);
    const paused = await account(db, ws, (await device(db, ws)).id, { status: 'paused' });
    const [held] = await scheduledPosts(db, ws, paused.id, 1);
    const silent = await device(db, ws, { name: 'Pixel 7 #09', seen: false });
    const waiting = await account(db, ws, silent.id);
    const [queued] = await scheduledPosts(db, ws, waiting.id, 1);
    const { changes, deps } = recorder(db);
    expect(await processPostsDue(undefined, deps)).toEqual({ tasks: 1, failed: 1 });
    const post = (id: string) => db.selectFrom('posts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(await post(lonely!.id)).toMatchObject({ status: 'failed', failureCode: 'no_device', failureMessage: `@${orphan.username} has no phone` });
    expect(await post(held!.id)).toMatchObject({ status: 'scheduled' });
    expect(await post(queued!.id)).toMatchObject({
      status: 'scheduled',
      waitingCode: 'no_agent',
      waitingMessage: 'Waiting for a person: Pixel 7 #09 has no phone agent connected',
    });
    // Nobody will run it but a person: the task is pushed to the phone's VA (none assigned here, so nobody is rung).
    expect(changes.filter((c) => c.event === 'task.created')).toHaveLength(1);
  });
});

// Only where PostgreSQL and Redis are: real workers racing on a real queue.
if (process.env.TEST_DB === 'postgres' && process.env.REDIS_URL)
  describe('posts.due on BullMQ', () => {
    it('two workers racing on one queue dispatch 1,000 due posts once each', async () => {
      const ws = await workspace(db);
      const phone = await device(db, ws);
      const acct = await account(db, ws, phone.id);
      const posts = await scheduledPosts(db, ws, acct.id, 1000);
      const { startBullmq } = await import('../bullmq.ts');
      const queue = `farm-test-${randomBytes(4).toString('hex')}`;
      const started = Date.now();
      const a = await startBullmq(process.env.REDIS_URL!, { db }, { queue });
      const b = await startBullmq(process.env.REDIS_URL!, { db }, { queue });
      cleanups.push(async () => {
        await a.queue.obliterate({ force: true });
        await a.close();
        await b.close();
      });
      let tasks = await tasksOf(posts.map((p) => p.id));
      while (tasks.length < 1000 && Date.now() - started < 30_000) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        tasks = await tasksOf(posts.map((p) => p.id));
      }
      expect(tasks).toHaveLength(1000);
      expect(new Set(tasks.map((task) => task.postId)).size).toBe(1000);
    });
  });
