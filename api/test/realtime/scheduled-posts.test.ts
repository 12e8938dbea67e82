/**
 * A scheduled post, once due, becomes a task for its phone (its VA when no agent is online); finishing the task
 * settles the post; any change to the post calls off the task that is out, so nothing stale runs.
 */
import { describe, expect, it } from 'vitest';
import { buildAccount, buildDevice, buildPost } from '../helpers/factories.ts';
import { appWithPeople } from '../helpers/file-app.ts';

const { t, operator, va } = await appWithPeople({ runWorkers: true, redisUrl: undefined });

async function makeDue(postId: string) {
  await t.db
    .updateTable('posts')
    .set({ scheduledAt: new Date(Date.now() - 1000) })
    .where('id', '=', postId)
    .execute();
}

const later = () => new Date(Date.now() + 3600_000).toISOString();
const tasksOfPost = async (postId: string) => await t.db.selectFrom('tasks').selectAll().where('postId', '=', postId).orderBy('createdAt').execute();

async function duePost(overrides: Record<string, unknown> = {}) {
  const device = await buildDevice(operator, { assignedToId: va.user!.id, name: 'Pixel 7 #04' });
  const account = await buildAccount(operator, { deviceId: device.id, status: 'active' });
  const post = await buildPost(operator, account.id, { status: 'scheduled', scheduledAt: later(), ...overrides });
  await makeDue(post.id);
  await t.app.ctx.jobs!.runNow('posts.due');
  return { device, account, post };
}

describe('scheduled posts', () => {
  it('hands a due post to the VA of its phone once, says it waits for a person, and publishes it when the task completes', async () => {
    const { device, account, post } = await duePost({ hashtags: ['#spring'] });
    await t.app.ctx.jobs!.runNow('posts.due');

    const mine = (await va.get('/api/tasks?assignedToId=me')).body as {
      id: string;
      title: string;
      type: string;
      deviceId: string;
      description: string;
      postId: string;
    }[];
    const tasks = mine.filter((task) => task.title === `Publish post for @${account.username}`);
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({ type: 'post', deviceId: device.id, postId: post.id });
    expect(tasks[0]!.description).toContain('#spring');
    expect(t.changes.some((c) => c.event === 'task.assigned' && c.userId === va.user!.id)).toBe(true);
    expect((await operator.get(`/api/posts/${post.id}`)).body).toMatchObject({
      status: 'scheduled',
      waitingCode: 'no_agent',
      waitingMessage: 'Waiting for a person: Pixel 7 #04 has no phone agent connected',
    });

    await va.patch(`/api/tasks/${tasks[0]!.id}`, { status: 'in-progress' });
    await va.patch(`/api/tasks/${tasks[0]!.id}`, { status: 'completed' });
    const after = (await operator.get(`/api/posts/${post.id}`)).body;
    expect(after).toMatchObject({ status: 'published', waitingMessage: null });
    expect(after.publishedAt).not.toBeNull();
  });

  it('fails a due post whose account has no phone, saying why on the post', async () => {
    const account = await buildAccount(operator, { status: 'active' });
    const post = await buildPost(operator, account.id, { status: 'scheduled', scheduledAt: later() });
    await makeDue(post.id);
    await t.app.ctx.jobs!.runNow('posts.due');
    expect((await operator.get(`/api/posts/${post.id}`)).body).toMatchObject({
      status: 'failed',
      failureCode: 'no_device',
      failureMessage: `@${account.username} has no phone`,
    });
    const feed = (await operator.get('/api/activities')).body as { action: string }[];
    expect(feed.some((a) => a.action === `Post for @${account.username} failed: the account has no phone`)).toBe(true);
  });

  it('leaves alone a post that was unscheduled before its time', async () => {
    const device = await buildDevice(operator);
    const account = await buildAccount(operator, { deviceId: device.id });
    const post = await buildPost(operator, account.id, { status: 'scheduled', scheduledAt: later() });
    await operator.patch(`/api/posts/${post.id}`, { status: 'draft' });
    await makeDue(post.id);
    await t.app.ctx.jobs!.runNow('posts.due');
    expect((await operator.get(`/api/posts/${post.id}`)).body.status).toBe('draft');
    expect(await tasksOfPost(post.id)).toEqual([]);
  });

  it('calls off the task of a post deleted or unscheduled after it fell due, and it is never sent again', async () => {
    const deleted = await duePost();
    const unscheduled = await duePost();
    expect((await operator.delete(`/api/posts/${deleted.post.id}`)).status).toBe(204);
    expect((await operator.patch(`/api/posts/${unscheduled.post.id}`, { status: 'draft' })).status).toBe(200);
    const cancelled = await t.db.selectFrom('tasks').selectAll().where('deviceId', 'in', [deleted.device.id, unscheduled.device.id]).execute();
    expect(cancelled.map((task) => [task.status, task.failureMessage]).sort()).toEqual([
      ['cancelled', 'The post was deleted'],
      ['cancelled', 'The post was unscheduled'],
    ]);
    await t.app.ctx.jobs!.runNow('posts.due');
    expect(await tasksOfPost(unscheduled.post.id)).toHaveLength(1);
    expect((await operator.get(`/api/posts/${unscheduled.post.id}`)).body.status).toBe('draft');
  });

  it('sends an edited post again with its new content, and a post rescheduled after a failure is due again', async () => {
    const { post } = await duePost({ caption: 'First words' });
    expect((await operator.patch(`/api/posts/${post.id}`, { caption: 'Better words' })).status).toBe(200);
    await t.app.ctx.jobs!.runNow('posts.due');
    const tasks = await tasksOfPost(post.id);
    expect(tasks.map((task) => [task.status, (task.work as { caption: string }).caption])).toEqual([
      ['cancelled', 'First words'],
      ['pending', 'Better words'],
    ]);

    await va.patch(`/api/tasks/${tasks[1]!.id}`, { status: 'failed' });
    expect((await operator.get(`/api/posts/${post.id}`)).body).toMatchObject({
      status: 'failed',
      failureCode: 'unknown',
      failureMessage: 'Marked as failed by a person',
    });
    expect((await operator.patch(`/api/posts/${post.id}`, { status: 'scheduled', scheduledAt: later() })).body).toMatchObject({
      status: 'scheduled',
      failureCode: null,
    });
    await makeDue(post.id);
    await t.app.ctx.jobs!.runNow('posts.due');
    expect((await tasksOfPost(post.id)).map((task) => task.status)).toEqual(['cancelled', 'failed', 'pending']);
  });

  it('a person publishing a scheduled post by hand calls off its task', async () => {
    const { post } = await duePost();
    expect((await operator.patch(`/api/posts/${post.id}`, { status: 'published' })).body.status).toBe('published');
    expect((await tasksOfPost(post.id)).map((task) => [task.status, task.failureMessage])).toEqual([['cancelled', 'The post was published by a person']]);
  });
});
