/**
 * The phone's newer results from its socket to the task, the post and the account; a person's answer to a post the
 * phone could not confirm; and what the phone says of its software in its hello.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { TaskDispatchV1 } from '@farm/agent-protocol';
import type { Account, DeviceSoftware, Post, Task, TaskAnswerResult } from '@farm/contracts';
import { inviteVa, type Client } from '../helpers/app.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { buildUnconfirmedPost } from '../helpers/factories.ts';
import { statuses, together } from '../helpers/http.ts';
import { realtimeApp } from '../helpers/realtime.ts';
import { bareAgent, duePostTask, enrolledPhone, helloV1, send, until } from './phones.ts';
import { connected, next, pause, record } from './sockets.ts';

let otherVa: Client;
const { t, url, operator, va, stranger, sockets } = await realtimeApp({
  automation: { ackTimeoutMs: 2000, progressWindowMs: 5000, heartbeatMs: 1000, backoffBaseMs: 0 },
});

beforeAll(async () => {
  otherVa = await inviteVa(t.app, operator, 'Otto Other');
});

async function phoneOf(name: string, assignedToId: string | null = null) {
  const { device, token } = await enrolledPhone(operator, { name, assignedToId });
  const socket = bareAgent(url, token);
  sockets.push(socket);
  await connected(socket);
  return { device, socket };
}

const get = async <T>(path: string) => (await operator.get<T>(path)).body;

describe('a phone’s newer results, from its socket', () => {
  it.each([
    ['post_unconfirmed', 'Not confirmed', 1],
    ['app_changed', 'The app changed: the recipe no longer finds its screens', 0],
    ['app_version_untested', "The app's version is not one the recipe was tested on", 0],
    ['wrong_account', 'Another account is signed in on the phone', 1],
    ['device_locked', 'The phone is locked with a PIN', 1],
    ['language_untested', "The phone's language is not one the recipe was written for", 0],
    ['unsupported', 'The phone cannot do this kind of work', 0],
  ] as const)('%s: the task fails once, the post shows why, the account keeps running', async (code, reason, asked) => {
    const { device, socket } = await phoneOf(`Pixel ${code}`, va.user!.id);
    const dispatched = next<TaskDispatchV1>(socket, 'task.dispatch');
    await send(socket, 'agent.hello', helloV1);
    const { task, post, account } = await duePostTask(t, operator, device.id);
    const first = await dispatched;
    await send(socket, 'task.ack', first);
    const seen = record(socket);
    // The phone says to try again; these codes are never tried again without a person.
    expect(await send(socket, 'task.result', { ...first, status: 'failed', failure: { code, retryable: true } })).toEqual({ ok: true });
    expect(await get<Task>(`/api/tasks/${task.id}`)).toMatchObject({ status: 'failed', failureCode: code, attempt: 1 });
    const failed = await get<Post>(`/api/posts/${post.id}`);
    expect(failed).toMatchObject({ status: 'failed', failureCode: code });
    expect(failed.failureMessage).toBe(reason);
    expect(await get<Account>(`/api/accounts/${account.id}`)).toMatchObject({ status: 'active' });
    const mine = (await va.get<Task[]>(`/api/tasks?assignedToId=me&deviceId=${device.id}`)).body;
    expect(mine.filter((one) => one.id !== task.id)).toHaveLength(asked);
    await pause(200);
    expect(seen.get('task.dispatch')).toBeUndefined();
  });
});

describe('POST /api/tasks/{id}/answer', () => {
  it('lets the VA holding the question say "It is up" with a time: the post is published then, once', async () => {
    const made = await buildUnconfirmedPost(operator, { assignedToId: va.user!.id });
    const question = await get<Task>(`/api/tasks/${made.questionId}`);
    expect(question).toMatchObject({ type: 'post', priority: 'high', status: 'pending', assignedToId: va.user!.id, unconfirmedTaskId: made.publishTaskId });
    expect(await get<Post>(`/api/posts/${made.post.id}`)).toMatchObject({ status: 'failed', failureCode: 'post_unconfirmed', failureMessage: 'Not confirmed' });

    expectError(await otherVa.post(`/api/tasks/${made.questionId}/answer`, { answer: 'up' }), 403, 'You can only answer tasks assigned to you');
    expectError(await stranger.post(`/api/tasks/${made.questionId}/answer`, { answer: 'up' }), 404, 'Not found');

    // A few seconds ago, but not before this minute began: the attempt started moments ago, and times count from its minute.
    const at = new Date(Math.max(Date.now() - 5_000, Math.floor(Date.now() / 60_000) * 60_000)).toISOString();
    const before = t.changes.length;
    const answer = await va.post<TaskAnswerResult>(`/api/tasks/${made.questionId}/answer`, { answer: 'up', publishedAt: at });
    expectStatus(answer, 200);
    expect(answer.body.task).toMatchObject({ id: made.questionId, status: 'completed' });
    expect(answer.body.post).toMatchObject({ id: made.post.id, status: 'published', publishedAt: at, failureCode: null });
    expect(await get<Task>(`/api/tasks/${made.publishTaskId}`)).toMatchObject({ status: 'completed', failureCode: null });
    const events = t.changes.slice(before).map((change) => change.event);
    expect(events).toEqual(expect.arrayContaining(['task.updated', 'post.updated', 'activity.created']));
    const feed = (await operator.get<{ action: string }[]>('/api/activities')).body;
    expect(feed.map((row) => row.action)).toContain(`Vera Assistant confirmed the post of @${made.account.username} is up (the phone could not confirm it)`);

    expectError(
      await va.post(`/api/tasks/${made.questionId}/answer`, { answer: 'not' }),
      409,
      'This question was already answered (the task is completed); nothing changed.',
    );
    expect((await get<Post>(`/api/posts/${made.post.id}`)).status).toBe('published');
  });

  it('lets an operator say "It is not": the post goes out again on its own task, attempt 2', async () => {
    const { device, socket } = await phoneOf('Pixel again');
    const dispatches: TaskDispatchV1[] = [];
    socket.on('task.dispatch', (message: TaskDispatchV1) => dispatches.push(message));
    await send(socket, 'agent.hello', helloV1);
    const { task, post } = await duePostTask(t, operator, device.id);
    await until(async () => dispatches.length === 1, 'the first dispatch');
    await send(socket, 'task.ack', dispatches[0]);
    await send(socket, 'task.result', { ...dispatches[0], status: 'failed', failure: { code: 'post_unconfirmed' } });
    const question = (await operator.get<Task[]>(`/api/tasks?deviceId=${device.id}&type=post`)).body.find((one) => one.unconfirmedTaskId === task.id)!;
    expect(question.assignedToId).toBeNull();

    const answer = await operator.post<TaskAnswerResult>(`/api/tasks/${question.id}/answer`, { answer: 'not' });
    expectStatus(answer, 200);
    expect(answer.body.post).toMatchObject({ status: 'scheduled', failureCode: null });
    await until(async () => dispatches.length === 2, 'the second dispatch');
    expect(dispatches[1]).toMatchObject({ taskId: task.id, attempt: 2 });
    await send(socket, 'task.ack', dispatches[1]);
    await send(socket, 'task.result', { ...dispatches[1], status: 'completed' });
    expect((await get<Post>(`/api/posts/${post.id}`)).status).toBe('published');
  });

  it('refuses a time in the future, before the attempt, or with "It is not", and an answer it does not know', async () => {
    const made = await buildUnconfirmedPost(operator, { assignedToId: va.user!.id });
    const path = `/api/tasks/${made.questionId}/answer`;
    expectFieldError(await va.post(path, { answer: 'maybe' }), 'answer', 'Answer "up" (the post is up) or "not" (it is not)');
    expectFieldError(
      await va.post(path, { answer: 'up', publishedAt: 'yesterday' }),
      'publishedAt',
      'Published date must be a date and time, like 2026-05-01T09:30:00Z',
    );
    expectFieldError(
      await va.post(path, { answer: 'up', publishedAt: new Date(Date.now() + 3_600_000).toISOString() }),
      'publishedAt',
      'The time it went up cannot be in the future',
    );
    expectFieldError(await va.post(path, { answer: 'not', publishedAt: new Date().toISOString() }), 'publishedAt', 'A time goes only with "It is up"');
    const early = await va.post(path, { answer: 'up', publishedAt: new Date(Date.now() - 86_400_000).toISOString() });
    expect(early.status).toBe(400);
    expect(early.body.error).toMatch(/^The time it went up cannot be before the phone began publishing it \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)$/);
    expect((await get<Task>(`/api/tasks/${made.questionId}`)).status).toBe('pending');
    expect((await get<Post>(`/api/posts/${made.post.id}`)).status).toBe('failed');
    expectError(
      await operator.post(`/api/tasks/${made.publishTaskId}/answer`, { answer: 'up' }),
      409,
      'This task asks nothing to answer: only a check of a post its phone could not confirm takes "It is up" or "It is not".',
    );
  });

  it('refuses to answer for a post that moved on since', async () => {
    const made = await buildUnconfirmedPost(operator, { assignedToId: va.user!.id });
    await t.db.updateTable('posts').set({ status: 'draft', failureCode: null, failureMessage: null }).where('id', '=', made.post.id).execute();
    expectError(
      await va.post(`/api/tasks/${made.questionId}/answer`, { answer: 'up' }),
      409,
      'The post changed since its phone reported it (it is draft now); nothing to answer. Mark this task done or cancel it.',
    );
  });

  it('takes exactly one of answers racing', async () => {
    const made = await buildUnconfirmedPost(operator, { assignedToId: va.user!.id });
    const answers = await together(4, (i) => (i % 2 === 0 ? va : operator).post(`/api/tasks/${made.questionId}/answer`, { answer: i < 2 ? 'up' : 'not' }));
    expect(statuses(answers)).toEqual({ 200: 1, 409: 3 });
    const post = await get<Post>(`/api/posts/${made.post.id}`);
    expect(['published', 'scheduled']).toContain(post.status);
  });
});

describe('GET /api/devices/{id}/software', () => {
  it('shows the UI reader and the app versions the hello said, and unknown for agents that say nothing', async () => {
    const { device, socket } = await phoneOf('Pixel software');
    expect(await get<DeviceSoftware>(`/api/devices/${device.id}/software`)).toEqual({
      deviceId: device.id,
      uiReader: null,
      apps: [],
      agentVersion: null,
      reportedAt: null,
    });
    const apps = [
      { package: 'com.instagram.android', version: '360.0.0.52.192' },
      { package: 'com.zhiliaoapp.musically', version: null },
    ];
    expect(
      await send(socket, 'agent.hello', {
        ...helloV1,
        protocol: 2,
        agentVersion: 'host/2',
        uiReader: { kind: 'ui-server', version: '7.1.4', seesToasts: true },
        apps,
      }),
    ).toMatchObject({ ok: true });
    const said = await get<DeviceSoftware>(`/api/devices/${device.id}/software`);
    expect(said).toMatchObject({ uiReader: { kind: 'ui-server', version: '7.1.4' }, apps, agentVersion: 'host/2', reportedAt: expect.any(String) });
    // Read by a VA too; another workspace's operator sees nothing of it.
    expectStatus(await va.get(`/api/devices/${device.id}/software`), 200);
    expectError(await stranger.get(`/api/devices/${device.id}/software`), 404, 'Not found');

    // An older agent on the same phone says nothing of them: unknown, not what the last one said.
    socket.disconnect();
    const again = bareAgent(url, (await operator.post(`/api/devices/${device.id}/credentials`)).body.token as string);
    sockets.push(again);
    await connected(again);
    await send(again, 'agent.hello', helloV1);
    expect(await get<DeviceSoftware>(`/api/devices/${device.id}/software`)).toMatchObject({ uiReader: null, apps: [], agentVersion: 'test-v1' });
  });

  it('refuses a hello whose app list is not a list of packages and versions', async () => {
    const { socket } = await phoneOf('Pixel bad apps');
    const answer = await send(socket, 'agent.hello', { ...helloV1, apps: [{ package: 'rm -rf /', version: '1' }] });
    expect(answer).toMatchObject({ ok: false });
  });
});
