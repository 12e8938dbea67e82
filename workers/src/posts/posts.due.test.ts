/**
 * posts.due against a real database: every due post gets exactly one task per schedule version; a post that failed
 * and is rescheduled is due again; a post whose phone has no agent says it waits for a person, and one no recipe can
 * publish is a person's task. With PostgreSQL and Redis, two BullMQ workers race over 1,000 due posts.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { shippedRecipes } from '@farm/agent-protocol/recipes';
import type { Db } from '../db.ts';
import { account, device, recorder, scheduledPosts, useTestDatabase, workspace } from '../../test/farm.ts';
import { Outboxes } from '../outbox.ts';
import { dispatchMany, settleTask } from '../tasks/lifecycle.ts';
import { processPostsDue } from './posts.due.ts';

let db: Db;
const cleanups: (() => Promise<void>)[] = [];

useTestDatabase((opened) => (db = opened));
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
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

  it('makes a post no recipe can publish a task for the phone’s VA, which the phone is never given and which publishes the post when done', async () => {
    const ws = await workspace(db);
    const va = await db
      .insertInto('users')
      .values({ email: `va-${crypto.randomUUID()}@farm.test`, name: 'Vera', passwordHash: 'x', role: 'va' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const phone = await device(db, ws);
    await db.updateTable('devices').set({ assignedToId: va.id }).where('id', '=', phone.id).execute();
    const channel = await account(db, ws, phone.id, { username: 'learnwithlee', platform: 'youtube' });
    const [post] = await scheduledPosts(db, ws, channel.id, 1);
    await db
      .updateTable('posts')
      .set({ mediaUrls: ['/uploads/clip.mp4'] })
      .where('id', '=', post!.id)
      .execute();
    const { changes, deps } = recorder(db);
    expect(await processPostsDue(undefined, deps)).toEqual({ tasks: 1, failed: 0 });

    const [task] = await db.selectFrom('tasks').selectAll().where('postId', '=', post!.id).execute();
    expect(task).toMatchObject({ title: `Publish post for @learnwithlee (by hand)`, assignedToId: va.id, sourceKey: `post:${post!.id}:0` });
    expect(task!.work).toEqual({ kind: 'manual', description: task!.description });
    expect(task!.description).toMatch(
      /^No recipe automates posts on YouTube: do this on the phone by hand, then mark the task done\.\n\nPublish on youtube as @learnwithlee\./,
    );
    expect(task!.description).toContain('Media: /uploads/clip.mp4');
    // The phone's agent is live, but the work is a person's: the VA is rung, and the post says who it waits for.
    expect(changes.filter((c) => c.event === 'task.assigned').map((c) => c.userId)).toEqual([va.id]);
    expect(changes.filter((c) => c.event === 'activity.created').map((c) => (c.payload as { action: string }).action)).toContain(
      'Scheduled post for @learnwithlee is due: no recipe publishes on YouTube, so it is a task to post by hand',
    );
    const waiting = await db.selectFrom('posts').selectAll().where('id', '=', post!.id).executeTakeFirstOrThrow();
    expect(waiting).toMatchObject({
      status: 'scheduled',
      waitingCode: null,
      waitingMessage: 'Waiting for a person: no recipe publishes on this platform, so it is posted by hand',
    });

    expect((await dispatchMany(db, [phone.id])).size).toBe(0);
    expect(await processPostsDue(undefined, deps)).toEqual({ tasks: 0, failed: 0 });

    // The VA posted it and marks the task done: the post is published.
    await db.transaction().execute((tx) => settleTask(tx, task!, 'completed', { cause: 'person' }, new Outboxes()));
    expect(await db.selectFrom('posts').selectAll().where('id', '=', post!.id).executeTakeFirstOrThrow()).toMatchObject({
      status: 'published',
      waitingMessage: null,
    });
  });

  it('sends a post to the phone when the workspace has its own recipe for the platform, and says how many of a batch are by hand', async () => {
    const ws = await workspace(db);
    const phone = await device(db, ws);
    const channel = await account(db, ws, phone.id, { platform: 'youtube' });
    const page = await account(db, ws, phone.id, { platform: 'facebook' });
    const gram = await account(db, ws, phone.id, { platform: 'instagram' });
    const recipe = shippedRecipes().find((r) => r.platform === 'instagram' && r.routines.includes('create_post'))!;
    await db
      .insertInto('workspaceRecipes')
      .values({
        workspaceId: ws,
        recipeId: 'youtube-post',
        version: 1,
        name: 'YouTube post',
        platform: 'youtube',
        routines: ['create_post'],
        body: JSON.stringify({ ...recipe, id: 'youtube-post', platform: 'youtube', version: 1 }),
        enabled: true,
      })
      .execute();
    const posts = [
      ...(await scheduledPosts(db, ws, channel.id, 1)),
      ...(await scheduledPosts(db, ws, page.id, 2)),
      ...(await scheduledPosts(db, ws, gram.id, 1)),
    ];
    const { changes, deps } = recorder(db);
    expect(await processPostsDue(undefined, deps)).toEqual({ tasks: 4, failed: 0 });
    const kinds = new Map((await tasksOf(posts.map((p) => p.id))).map((task) => [task.postId, (task.work as { kind: string }).kind]));
    expect(posts.map((p) => kinds.get(p.id))).toEqual(['post.publish', 'manual', 'manual', 'post.publish']);
    expect(changes.filter((c) => c.event === 'activity.created').map((c) => (c.payload as { action: string }).action)).toContain(
      '4 scheduled posts are due: 2 sent to their phones, 2 to post by hand (no recipe publishes them)',
    );
  });

  it('takes more posts than a batch holds in one run, each once, when they fall due at the same moment', async () => {
    const ws = await workspace(db);
    const phone = await device(db, ws);
    const acct = await account(db, ws, phone.id);
    const held = await account(db, ws, phone.id, { status: 'paused' });
    const dueAt = new Date(Date.now() - 5000);
    // A paused account's posts sit among them (passed over by every batch), and half the posts share one instant.
    const paused = await scheduledPosts(db, ws, held.id, 40, dueAt);
    const posts = [
      ...(await scheduledPosts(db, ws, acct.id, 600, dueAt)),
      ...(await scheduledPosts(db, ws, acct.id, 10, new Date(dueAt.getTime() - 1000))),
      ...(await scheduledPosts(db, ws, acct.id, 590, new Date(dueAt.getTime() + 1000))),
    ];
    const { deps } = recorder(db);
    expect(await processPostsDue(undefined, deps)).toEqual({ tasks: 1200, failed: 0 });
    expect(new Set((await tasksOf(posts.map((p) => p.id))).map((task) => task.postId)).size).toBe(1200);
    expect(await tasksOf(paused.map((p) => p.id))).toEqual([]);
    expect(await processPostsDue(undefined, deps)).toEqual({ tasks: 0, failed: 0 });
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
