/**
 * Comments are a VA's work: a phone whose routine reached a post to comment on hands it over (`task.handover`), and
 * the phone's VA gets a task "Comment on @author's post from @account" at once, with the post's address, the author's
 * profile and the frame. Sent twice, it makes one task; marked done, it counts one comment toward the account's day.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { PhoneAgent, type PhoneBackend } from '@farm/agent-protocol';
import { INSTAGRAM, SimulatedPhoneUi } from '@farm/agent-protocol/simphone';
import type { Task } from '@farm/contracts';
import { realtimeApp } from '../helpers/realtime.ts';
import { bareAgent, duePostTask, enrolledPhone, helloV1, send, until } from '../realtime/phones.ts';
import { connected, next, pause } from '../realtime/sockets.ts';

const { t, url, operator, va, sockets, closers, browserSocket } = await realtimeApp({
  automation: { ackTimeoutMs: 5000, progressWindowMs: 10_000, heartbeatMs: 1000, backoffBaseMs: 0 },
});

let frame: { mime: 'image/jpeg'; data: Buffer; width: number; height: number };
beforeAll(async () => {
  // The screen the phone handed over: the simulated phone's Instagram feed (test/fixtures/real/instagram/feed.xml).
  const ui = new SimulatedPhoneUi({ width: 720, height: 1440 });
  await ui.launchApp(INSTAGRAM);
  const shot = await ui.frame({ maxSide: 720 });
  frame = { mime: 'image/jpeg', data: Buffer.from(shot.data), width: shot.width, height: shot.height };
  await ui.close();
});

interface Dispatch {
  taskId: string;
  attempt: number;
}

/** A protocol 2 phone of the VA's, given work for an account; answers its socket, what it was given and the account. */
async function phoneAtWork(name: string) {
  const { device, token } = await enrolledPhone(operator, { name, assignedToId: va.user!.id });
  const socket = bareAgent(url, token);
  sockets.push(socket);
  await connected(socket);
  await send(socket, 'agent.hello', { ...helloV1, protocol: 2 });
  const dispatched = next<Dispatch>(socket, 'task.dispatch');
  const work = await duePostTask(t, operator, device.id);
  const given = await dispatched;
  await send(socket, 'task.ack', given);
  return { device, socket, given, account: work.account as { id: string; username: string } };
}

const handOvers = (taskId: string) => t.db.selectFrom('tasks').selectAll().where('sourceKey', 'like', `handover:${taskId}:%`).orderBy('sourceKey').execute();

const commentsToday = async (accountId: string) =>
  (await t.db.selectFrom('accountDailyActions').select('comments').where('accountId', '=', accountId).execute()).reduce((sum, row) => sum + row.comments, 0);

describe('a comment handed to a VA', () => {
  it('becomes one task for the phone’s VA, pushed live, with the post’s address, the profile and the frame; done, it counts one comment', async () => {
    const { device, socket, given, account } = await phoneAtWork('Pixel comments');
    const vaSocket = browserSocket(va);
    await connected(vaSocket);
    const arriving = next<Task>(vaSocket, 'task.assigned');

    const item = { ...given, index: 0, kind: 'comment', author: 'sunny.trails', link: 'https://www.instagram.com/p/C0ffee/', frame };
    expect(await send(socket, 'task.handover', item)).toEqual({ ok: true });
    const pushed = await arriving;
    const title = `Comment on @sunny.trails's post from @${account.username}`;
    expect(pushed).toMatchObject({
      title,
      type: 'engage',
      status: 'pending',
      deviceId: device.id,
      assignedToId: va.user!.id,
      accountId: account.id,
      handOver: {
        kind: 'comment',
        author: 'sunny.trails',
        account: account.username,
        platform: 'instagram',
        link: 'https://www.instagram.com/p/C0ffee/',
        profileUrl: 'https://www.instagram.com/sunny.trails/',
        frame: { url: expect.stringMatching(/^\/api\/objects\//), width: frame.width, height: frame.height },
      },
    });
    expect(pushed.description).toContain('comments are written by a VA, the phone never types them');
    expect(pushed.description).toContain('Post: https://www.instagram.com/p/C0ffee/');

    // Sent again (the phone did not hear the answer): one task still.
    expect(await send(socket, 'task.handover', item)).toEqual({ ok: true });
    expect(await handOvers(given.taskId)).toHaveLength(1);
    // A second post of the same run is a task of its own; an unknown address is said so.
    expect(await send(socket, 'task.handover', { ...given, index: 1, kind: 'comment', author: 'north.shore.surf' })).toEqual({ ok: true });
    const both = await handOvers(given.taskId);
    expect(both.map((row) => row.title)).toEqual([title, `Comment on @north.shore.surf's post from @${account.username}`]);
    expect(both[1]!.handOver).toMatchObject({ link: null, frame: null });
    expect(both[1]!.description).toContain("The phone could not read the post's address");

    // The VA's task view reads it, frame included.
    const listed = await va.get<Task[]>(`/api/tasks?assignedToId=me&search=${encodeURIComponent('Comment on @sunny')}`);
    expect(listed.status).toBe(200);
    expect(listed.body.map((one) => one.handOver?.frame?.url)).toEqual([pushed.handOver!.frame!.url]);
    expect((await va.get<Task>(`/api/tasks/${pushed.id}`)).body.handOver).toEqual(pushed.handOver);
    const image = await va.get(pushed.handOver!.frame!.url);
    expect(image.status).toBe(200);

    // Nothing counted until the VA says it is done; then one comment, once.
    expect(await commentsToday(account.id)).toBe(0);
    const done = await va.patch(`/api/tasks/${pushed.id}`, { status: 'completed' });
    expect(done.status).toBe(200);
    expect(await commentsToday(account.id)).toBe(1);
  });

  it('is refused for an attempt the phone was not given, and the phone’s own result still goes through without any', async () => {
    const { socket, given } = await phoneAtWork('Pixel strangers');
    const answer = await send(socket, 'task.handover', { ...given, attempt: given.attempt + 1, index: 0, kind: 'comment', author: 'sunny.trails' });
    expect(answer).toEqual({ ok: false, error: 'This phone was not given that attempt of the task' });
    expect(await handOvers(given.taskId)).toEqual([]);
    // A bad handle is refused by the message's schema, naming the field.
    const bad = await send(socket, 'task.handover', { ...given, index: 0, kind: 'comment', author: '@no spaces' });
    expect(bad).toMatchObject({ ok: false, error: expect.stringContaining('author') });
    // An agent that never hands anything over (protocol 1 or an older one) finishes as before.
    expect(await send(socket, 'task.result', { ...given, status: 'completed', engagement: { likes: 2 } })).toEqual({ ok: true });
    await pause(50);
    expect(await handOvers(given.taskId)).toEqual([]);
  });

  it('goes from the reference agent as its run reaches the post, before the run’s own result', async () => {
    const { device, token } = await enrolledPhone(operator, { name: 'Pixel agent', assignedToId: va.user!.id });
    const finished: string[] = [];
    // A phone whose run hands one post over, then completes (the recipe's side is agent-protocol's tests).
    const backend: PhoneBackend = {
      describe: () => ({ model: 'Test', androidVersion: '14', agentVersion: 'test/2' }),
      state: () => ({ battery: 90, charging: false, screenOn: true, status: 'online' }),
      screenshot: async () => undefined,
      run: async (_work, context) => {
        await context.handOver?.({ index: 0, kind: 'comment', author: 'sunny.trails', frame });
        finished.push(context.taskId);
        return { status: 'completed', engagement: { likes: 1 } };
      },
    };
    const agent = new PhoneAgent({ url, token, backend, reconnectionDelayMs: 100 });
    closers.push(() => agent.close());
    await until(async () => agent.connected, 'agent connected');
    const { account, task } = await duePostTask(t, operator, device.id);
    const made = await until(async () => (await handOvers(task.id))[0], 'the hand-over task');
    expect(made).toMatchObject({ title: `Comment on @sunny.trails's post from @${account.username}`, assignedToId: va.user!.id, status: 'pending' });
    await until(
      async () => finished.length > 0 && (await t.db.selectFrom('tasks').select('status').where('id', '=', task.id).executeTakeFirst())?.status === 'completed',
      'the run’s result',
    );
    expect(await handOvers(task.id)).toHaveLength(1);
  });
});
