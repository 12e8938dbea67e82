import { io } from 'socket.io-client';
import { describe, expect, it } from 'vitest';
import type { Client } from '../helpers/app.ts';
import { BATCH_EVENT } from '@farm/contracts';
import { buildAccount, buildCampaign, buildDevice, buildTask } from '../helpers/factories.ts';
import { realtimeApp } from '../helpers/realtime.ts';
import { connect, connected, next, pause, record } from './sockets.ts';

const { t, url, operator, va, stranger, sockets, browserSocket: open } = await realtimeApp();

describe('browser sockets', () => {
  it('refuses a handshake without a session', async () => {
    await expect(connected(open())).rejects.toThrow('unauthorized');
    const forged = connect(url, { cookie: 'not-a-session' } as Client);
    sockets.push(forged);
    await expect(connected(forged)).rejects.toThrow('unauthorized');
  });

  it('refuses a handshake from another site’s page, on the console’s and the live screen’s namespaces, never a phone agent for it', async () => {
    const host = new URL(url).host;
    const from = (origin: string | undefined, namespace = '') => {
      const headers: Record<string, string> = { cookie: `sid=${operator.cookie}`, ...(origin ? { origin } : {}) };
      const socket = io(`${url}${namespace}`, { forceNew: true, transports: ['websocket'], reconnection: false, extraHeaders: headers });
      sockets.push(socket);
      return connected(socket);
    };
    await expect(from('https://evil.example')).rejects.toThrow('cross-site');
    await expect(from('https://evil.example', '/live')).rejects.toThrow('cross-site');
    await expect(from(`http://${host}.evil.example`)).rejects.toThrow('cross-site');
    await expect(from(`http://${host}`)).resolves.toBeUndefined();
    await expect(from(`http://${host}`, '/live')).resolves.toBeUndefined();
    await expect(from(undefined)).resolves.toBeUndefined();
    // A phone agent's handshake is judged by its credential only: a bad one is 'unauthorized', whatever the Origin.
    const agent = io(`${url}/agent`, {
      forceNew: true,
      transports: ['websocket'],
      reconnection: false,
      auth: { token: 'not-a-credential' },
      extraHeaders: { origin: 'https://evil.example' },
    });
    sockets.push(agent);
    await expect(connected(agent)).rejects.not.toThrow('cross-site');
  });

  it('pushes every kind of change to its own workspace and none to another', async () => {
    const mine = open(operator);
    const theirs = open(stranger);
    await Promise.all([connected(mine), connected(theirs)]);
    const seenMine = record(mine);
    const seenTheirs = record(theirs);

    const device = await buildDevice(operator, { assignedToId: va.user!.id });
    await operator.patch(`/api/devices/${device.id}`, { name: 'Pixel renamed' });
    const task = await buildTask(operator, { deviceId: device.id });
    await operator.patch(`/api/tasks/${task.id}`, { status: 'in-progress' });
    const session = await operator.post('/api/sessions', { deviceId: device.id, taskId: task.id });
    await operator.patch(`/api/sessions/${session.body.id}`, { isActive: false });
    await operator.post(`/api/sessions/${session.body.id}/stop`);
    const campaign = await buildCampaign(operator);
    const account = await buildAccount(operator);
    await operator.post(`/api/campaigns/${campaign.id}/accounts`, { accountId: account.id });
    await operator.post('/api/posts', { accountId: account.id, caption: 'Hi', status: 'draft' });
    await operator.delete(`/api/tasks/${task.id}`);
    await pause(1500);

    for (const event of [
      'device.created',
      'device.updated',
      'task.created',
      'task.updated',
      'task.deleted',
      'session.started',
      'session.updated',
      'session.ended',
      'activity.created',
      'campaign.created',
      'campaign.updated',
      'account.created',
      'post.created',
      'stats.changed',
    ]) {
      expect(seenMine.get(event)?.length ?? 0, event).toBeGreaterThan(0);
    }
    const updated = seenMine.get('device.updated')!.at(0) as { id: string; battery: number; workspaceId?: string };
    expect(updated).toMatchObject({ id: device.id, name: 'Pixel renamed' });
    expect(updated.workspaceId).toBeUndefined();
    expect([...seenTheirs.keys()]).toEqual([]);
  });

  it('pushes a task assigned to a VA to that VA at once', async () => {
    const vaSocket = open(va);
    await connected(vaSocket);
    const arriving = next<{ id: string; title: string }>(vaSocket, 'task.assigned');
    const task = await buildTask(operator, { title: 'Reply to comments', assignedToId: va.user!.id });
    expect(await arriving).toMatchObject({ id: task.id, title: 'Reply to comments' });
  });

  it('sends the changes one turn announces for a room as one message, in order', async () => {
    const socket = open(operator);
    await connected(socket);
    const messages: string[] = [];
    socket.onAny((name: string) => messages.push(name));
    const seen = record(socket);
    const tasks = await Promise.all([1, 2, 3].map((n) => buildTask(operator, { title: `Batch ${n}` })));
    await pause(300);
    messages.length = 0;
    seen.clear();
    const workspaceId = operator.user!.workspaceId!;
    for (const task of tasks) t.app.ctx.changes.publish({ workspaceId, event: 'task.updated', payload: { ...task, title: `${task.title} again` } });
    await pause(300);
    expect(messages).toEqual([BATCH_EVENT]);
    expect((seen.get('task.updated') as { title: string }[]).map((task) => task.title)).toEqual(['Batch 1 again', 'Batch 2 again', 'Batch 3 again']);
  });

  it('disconnects the sockets of a session that logged out, and refuses it again', async () => {
    const { signUp } = await import('../helpers/app.ts');
    const leaving = await signUp(t.app, { role: 'operator', name: 'Leaving Soon' });
    const cookie = leaving.cookie;
    const socket = open(leaving);
    await connected(socket);
    const gone = new Promise<string>((resolve) => socket.once('disconnect', (reason) => resolve(reason)));
    await leaving.post('/api/auth/logout');
    expect(await gone).toBe('io server disconnect');
    const again = connect(url, { cookie } as Client);
    sockets.push(again);
    await expect(connected(again)).rejects.toThrow('unauthorized');
  });

  it('gives a socket that dropped for a moment what it missed', async () => {
    const socket = open(operator);
    await connected(socket);
    const seen = record(socket);
    // Recovery resumes from the last event the socket saw.
    const first = next(socket, 'device.created');
    await buildDevice(operator, { name: 'Seen before the drop' });
    await first;
    // Listening before the drop: under load the socket may be back before the device below is made.
    const back = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.io.engine.close();
    await buildDevice(operator, { name: 'Made while away' });
    await back;
    await pause(200);
    expect(socket.recovered).toBe(true);
    const created = (seen.get('device.created') ?? []) as { name: string }[];
    expect(created.map((d) => d.name)).toContain('Made while away');
  });
});
