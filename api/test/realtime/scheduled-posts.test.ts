/** A scheduled post, once due, becomes a task for its phone's VA; finishing the task settles the post. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, people, type Client, type TestApp } from '../helpers/app.ts';
import { buildAccount, buildDevice, buildPost } from '../helpers/factories.ts';

let t: TestApp;
let operator: Client;
let va: Client;

beforeAll(async () => {
  t = await buildTestApp({ runWorkers: true, redisUrl: undefined });
  ({ operator, va } = await people(t.app));
});
afterAll(async () => {
  await t?.close();
});

async function makeDue(postId: string) {
  await t.db.updateTable('posts').set({ scheduledAt: new Date(Date.now() - 1000) }).where('id', '=', postId).execute();
}

describe('scheduled posts', () => {
  it('hands a due post to the VA of its phone once, and publishes it when the task completes', async () => {
    const device = await buildDevice(operator, { assignedToId: va.user!.id });
    const account = await buildAccount(operator, { deviceId: device.id, status: 'active' });
    const post = await buildPost(operator, account.id, { status: 'scheduled', scheduledAt: new Date(Date.now() + 3600_000).toISOString(), hashtags: ['#spring'] });
    await makeDue(post.id);
    await t.app.ctx.jobs!.runNow('posts.due');
    await t.app.ctx.jobs!.runNow('posts.due');

    const mine = (await va.get('/api/tasks?assignedToId=me')).body as { id: string; title: string; type: string; deviceId: string; description: string }[];
    const tasks = mine.filter((task) => task.title === `Publish post for @${account.username}`);
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({ type: 'post', deviceId: device.id });
    expect(tasks[0]!.description).toContain('#spring');
    expect(t.changes.some((c) => c.event === 'task.assigned' && c.userId === va.user!.id)).toBe(true);

    await va.patch(`/api/tasks/${tasks[0]!.id}`, { status: 'in-progress' });
    await va.patch(`/api/tasks/${tasks[0]!.id}`, { status: 'completed' });
    const after = (await operator.get(`/api/posts/${post.id}`)).body;
    expect(after.status).toBe('published');
    expect(after.publishedAt).not.toBeNull();
  });

  it('fails a due post whose account has no phone, saying why', async () => {
    const account = await buildAccount(operator, { status: 'active' });
    const post = await buildPost(operator, account.id, { status: 'scheduled', scheduledAt: new Date(Date.now() + 3600_000).toISOString() });
    await makeDue(post.id);
    await t.app.ctx.jobs!.runNow('posts.due');
    expect((await operator.get(`/api/posts/${post.id}`)).body.status).toBe('failed');
    const feed = (await operator.get('/api/activities')).body as { action: string }[];
    expect(feed.some((a) => a.action === `Post for @${account.username} failed: the account has no phone`)).toBe(true);
  });

  it('leaves alone a post that was unscheduled before its time', async () => {
    const device = await buildDevice(operator);
    const account = await buildAccount(operator, { deviceId: device.id });
    const post = await buildPost(operator, account.id, { status: 'scheduled', scheduledAt: new Date(Date.now() + 3600_000).toISOString() });
    await operator.patch(`/api/posts/${post.id}`, { status: 'draft' });
    await makeDue(post.id);
    await t.app.ctx.jobs!.runNow('posts.due');
    expect((await operator.get(`/api/posts/${post.id}`)).body.status).toBe('draft');
    expect(((await operator.get('/api/tasks')).body as { title: string }[]).some((task) => task.title === `Publish post for @${account.username}`)).toBe(false);
  });
});
