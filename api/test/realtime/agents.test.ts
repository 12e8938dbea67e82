import { io, type Socket } from 'socket.io-client';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal, SimulatedPhone, solidPng, type TaskDispatchV1 } from '@farm/agent-protocol';
import { Client } from '../helpers/app.ts';
import { buildAccount, buildTask } from '../helpers/factories.ts';
import { realtimeApp } from '../helpers/realtime.ts';
import { bareAgent, duePost, duePostTask, enrolledPhone, helloV1, send, until } from './phones.ts';
import { connect, connected, next, pause, record } from './sockets.ts';

const phones: SimulatedPhone[] = [];
// Short leases so silence shows within a test.
const { t, url, operator, stranger, sockets } = await realtimeApp({
  automation: { ackTimeoutMs: 400, progressWindowMs: 800, heartbeatMs: 1000, backoffBaseMs: 0 },
});

afterAll(async () => {
  for (const phone of phones) phone.close();
});

function agent(token: string, options?: { reconnection?: boolean }): Socket {
  const socket = bareAgent(url, token, options);
  sockets.push(socket);
  return socket;
}

const taskOf = async (id: string) => (await operator.get(`/api/tasks/${id}`)).body;

describe('phone agents', () => {
  it('refuses an agent without a valid device credential', async () => {
    await expect(connected(agent('dev_nope'))).rejects.toThrow('unauthorized');
    const { device } = await enrolledPhone(operator);
    const other = await stranger.post(`/api/devices/${device.id}/credentials`);
    expect(other.status).toBe(404);
  });

  it('brings the device online on hello, keeps battery live on heartbeats, and tells the heartbeat interval', async () => {
    const { device, token } = await enrolledPhone(operator, { name: 'Pixel hello' });
    const browser = connect(url, operator);
    sockets.push(browser);
    await connected(browser);
    const phone = agent(token);
    await connected(phone);
    const online = next<{ id: string; status: string; battery: number; agentProtocol: number }>(browser, 'device.updated');
    expect(await send(phone, 'agent.hello', { ...helloV1, battery: 77 })).toEqual({
      ok: true,
      protocol: 1,
      heartbeatMs: 1000,
      deviceId: device.id,
      deviceName: 'Pixel hello',
    });
    expect(await online).toMatchObject({ id: device.id, status: 'online', battery: 77, agentProtocol: 1 });
    const pulse = next<{ devices: { id: string; battery: number; status: string }[] }>(browser, 'devices.pulse');
    expect(await send(phone, 'agent.heartbeat', { battery: 76, status: 'busy' })).toEqual({ ok: true });
    expect((await pulse).devices).toEqual([expect.objectContaining({ id: device.id, battery: 76, status: 'busy' })]);
    expect((await operator.get(`/api/devices/${device.id}`)).body).toMatchObject({ status: 'busy', battery: 76 });
    expect((await operator.get(`/api/devices/${device.id}`)).body.lastSeenAt).not.toBeNull();

    // A heartbeat that changes nothing a screen shows is written (the phone was heard) and not announced.
    const calm = next<{ devices: { id: string; battery: number; status: string }[] }>(browser, 'devices.pulse');
    await send(phone, 'agent.heartbeat', { battery: 76, status: 'online' });
    expect((await calm).devices).toEqual([expect.objectContaining({ id: device.id, battery: 76, status: 'online' })]);
    const heard = async () => (await t.db.selectFrom('devices').select('lastSeenAt').where('id', '=', device.id).executeTakeFirstOrThrow()).lastSeenAt!;
    const before = await heard();
    const quiet = record(browser);
    await pause(20);
    await send(phone, 'agent.heartbeat', { battery: 76, status: 'online' });
    await until(async () => (await heard()) > before, 'the heartbeat to be written');
    await pause(300);
    const pulses = (quiet.get('devices.pulse') ?? []) as { devices: { id: string }[] }[];
    expect(pulses.filter((pulse) => pulse.devices.some((d) => d.id === device.id))).toEqual([]);
    // After a silence of two heartbeats or more it is announced whatever it says (the watchdog may just have taken
    // the phone offline).
    await t.db
      .updateTable('devices')
      .set({ lastSeenAt: new Date(Date.now() - 5000) })
      .where('id', '=', device.id)
      .execute();
    const back = next<{ devices: { id: string; battery: number; status: string }[] }>(browser, 'devices.pulse');
    await send(phone, 'agent.heartbeat', { battery: 76, status: 'online' });
    expect((await back).devices).toEqual([expect.objectContaining({ id: device.id, battery: 76, status: 'online' })]);
    // A point of battery is shown.
    const drained = next<{ devices: { id: string; battery: number; status: string }[] }>(browser, 'devices.pulse');
    await send(phone, 'agent.heartbeat', { battery: 75, status: 'online' });
    expect((await drained).devices).toEqual([expect.objectContaining({ id: device.id, battery: 75, status: 'online' })]);

    const refused = await send(phone, 'agent.heartbeat', { battery: 170, status: 'busy' });
    expect(refused.ok).toBe(false);
    expect(refused.ok === false && refused.error).toContain('battery');
  });

  it('refuses an agent speaking a protocol the server does not know, saying which it speaks', async () => {
    const { token } = await enrolledPhone(operator, { name: 'Pixel future' });
    const phone = agent(token);
    await connected(phone);
    const gone = new Promise<string>((resolve) => phone.once('disconnect', resolve));
    expect(await send(phone, 'agent.hello', { ...helloV1, protocol: 3 })).toEqual({
      ok: false,
      error: 'This server speaks agent protocols 1 and 2; this agent speaks 3. Update the server, or run an agent that speaks one of those.',
    });
    expect(await gone).toBe('io server disconnect');
  });

  it('stores a screenshot, counts it on the open session and announces it', async () => {
    const { device, token } = await enrolledPhone(operator, { name: 'Pixel shots' });
    const session = await operator.post('/api/sessions', { deviceId: device.id, currentTask: 'Scrolling' });
    const browser = connect(url, operator);
    sockets.push(browser);
    await connected(browser);
    const phone = agent(token);
    await connected(phone);
    const announced = next<{ deviceId: string; url: string; sessionId: string }>(browser, 'screenshot.added');
    const png = solidPng(4, 4, [10, 20, 30]);
    expect(await send(phone, 'agent.screenshot', { mime: 'image/png', data: png.toString('base64') })).toEqual({ ok: true });
    const shot = await announced;
    expect(shot).toMatchObject({ deviceId: device.id, sessionId: session.body.id });
    const image = await operator.app.inject({ method: 'GET', url: shot.url, headers: { cookie: `sid=${operator.cookie}` } });
    expect(image.statusCode).toBe(200);
    expect(image.rawPayload.equals(png)).toBe(true);
    expect((await operator.get(`/api/sessions/${session.body.id}`)).body.screenshots).toBe(1);
    expect((await operator.get(`/api/devices/${device.id}/screenshots`)).body[0].url).toBe(shot.url);
    expect((await stranger.app.inject({ method: 'GET', url: shot.url, headers: { cookie: `sid=${stranger.cookie}` } })).statusCode).toBe(404);
  });

  it('takes 12 screenshots a minute from a phone: a protocol 2 phone is told how long to wait, a protocol 1 phone’s extras are dropped', async () => {
    const png = solidPng(2, 2, [9, 9, 9]).toString('base64');
    const shotsOf = async (deviceId: string) => (await operator.get(`/api/devices/${deviceId}/screenshots?limit=100`)).body.length as number;
    const current = await enrolledPhone(operator, { name: 'Pixel chatty 2' });
    const modern = agent(current.token);
    await connected(modern);
    await send(modern, 'agent.hello', { ...helloV1, protocol: 2 });
    for (let n = 0; n < 12; n += 1) expect(await send(modern, 'agent.screenshot', { mime: 'image/png', data: png })).toEqual({ ok: true });
    const told = await send(modern, 'agent.screenshot', { mime: 'image/png', data: png });
    expect(told).toMatchObject({ ok: false, error: expect.stringMatching(/^Too many screenshots from this phone: send the next in \d+ s$/) });
    expect((told as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(50_000);
    expect(await shotsOf(current.device.id)).toBe(12);

    const old = await enrolledPhone(operator, { name: 'Pixel chatty 1' });
    const legacy = agent(old.token);
    await connected(legacy);
    await send(legacy, 'agent.hello', helloV1);
    for (let n = 0; n < 14; n += 1) expect(await send(legacy, 'agent.screenshot', { mime: 'image/png', data: png })).toEqual({ ok: true });
    expect(await shotsOf(old.device.id)).toBe(12);
  });

  it('protocol 1: keeps the lease of a phone that drops mid-task and takes its result when it is back', async () => {
    const { device, token } = await enrolledPhone(operator, { name: 'Pixel worker' });
    let phone = agent(token);
    await connected(phone);
    const dispatched = next<TaskDispatchV1>(phone, 'task.dispatch');
    await send(phone, 'agent.hello', helloV1);
    const { task, account } = await duePostTask(t, operator, device.id, 'Spring drop');
    const first = await dispatched;
    // Protocol 1 gets the v1 shape: the work in words.
    expect(first).toEqual({
      taskId: task.id,
      attempt: 1,
      type: 'post',
      title: `Publish post for @${account.username}`,
      description: `Publish on instagram as @${account.username}.\n\nSpring drop`,
      deadline: task.deadline!.toISOString(),
    });
    await send(phone, 'task.ack', first);
    expect((await taskOf(task.id)).status).toBe('in-progress');
    // This file's lease window is 800 ms so that silence shows quickly; a drop and a reconnect take longer than that on
    // a busy machine. The lease runs for a minute here, as a real window (two minutes by default) would.
    await t.db
      .updateTable('tasks')
      .set({ leaseExpiresAt: new Date(Date.now() + 60_000) })
      .where('id', '=', task.id)
      .execute();

    // The phone drops mid-task: the device is offline at once; the attempt keeps its lease for a while.
    phone.disconnect();
    await until(async () => (await operator.get(`/api/devices/${device.id}`)).body.status === 'offline', 'the device to go offline');
    expect(await taskOf(task.id)).toMatchObject({ status: 'in-progress', attempt: 1 });

    // Back, it reports what it did while away: the result of attempt 1 counts, once.
    phone = agent(token);
    const seen = record(phone);
    await connected(phone);
    await send(phone, 'agent.hello', helloV1);
    expect(await send(phone, 'task.result', { ...first, status: 'completed' })).toEqual({ ok: true });
    expect(await send(phone, 'task.result', { ...first, status: 'completed' })).toEqual({ ok: true });
    expect(await taskOf(task.id)).toMatchObject({ status: 'completed', attempt: 1 });
    await pause(300);
    expect(seen.get('task.dispatch')).toBeUndefined();
    const feed = (await operator.get('/api/activities')).body as { action: string }[];
    expect(feed.filter((a) => a.action === `Pixel worker completed "Publish post for @${account.username}"`)).toHaveLength(1);
  });

  it('protocol 1: a phone that takes a task and goes silent loses it; the next attempt goes out', async () => {
    const { device, token } = await enrolledPhone(operator, { name: 'Pixel silent' });
    const phone = agent(token);
    await connected(phone);
    const dispatches: TaskDispatchV1[] = [];
    phone.on('task.dispatch', (message: TaskDispatchV1) => dispatches.push(message));
    await send(phone, 'agent.hello', helloV1);
    const { task } = await duePostTask(t, operator, device.id);
    await until(async () => dispatches.length === 1, 'the first dispatch');
    await send(phone, 'task.ack', dispatches[0]);
    // No progress: the lease ends, and attempt 2 comes to the (still connected, still heartbeating) phone.
    const beating = setInterval(() => void send(phone, 'agent.heartbeat', { battery: 80, status: 'busy' }), 300);
    try {
      await until(async () => dispatches.length === 2, 'the second attempt', 20_000);
    } finally {
      clearInterval(beating);
    }
    expect(dispatches[1]).toMatchObject({ taskId: task.id, attempt: 2 });
    expect(await taskOf(task.id)).toMatchObject({ status: 'pending', attempt: 2, failureCode: 'lease_expired' });
    const history = (await operator.get(`/api/devices/${device.id}/history`)).body as {
      taskId: string;
      attempt: number;
      outcome: string | null;
      failureCode: string | null;
    }[];
    expect(history.filter((row) => row.taskId === task.id)).toEqual([
      expect.objectContaining({ attempt: 2, outcome: null }),
      expect.objectContaining({ attempt: 1, outcome: 'expired', failureCode: 'lease_expired' }),
    ]);
  });

  it("writes a phone's progress at most once an interval, the ack counting as a write; written reports keep the lease", async () => {
    const { device, token } = await enrolledPhone(operator, { name: 'Pixel progress' });
    const browser = connect(url, operator);
    sockets.push(browser);
    const seen = record(browser);
    await connected(browser);
    const phone = agent(token);
    await connected(phone);
    const dispatched = next<TaskDispatchV1>(phone, 'task.dispatch');
    await send(phone, 'agent.hello', helloV1);
    const { task } = await duePostTask(t, operator, device.id);
    const first = await dispatched;
    await send(phone, 'task.ack', first);
    const progress = (percent: number, note: string) => send(phone, 'task.progress', { ...first, percent, note });

    // The ack opened the attempt's first interval (a quarter of this test's 800 ms lease window): reports within it
    // wait, and the newest is written when it ends.
    await progress(10, 'Opening Instagram');
    await progress(40, 'Choosing the photo');
    await until(async () => (await taskOf(task.id)).progress === 40, 'the newest report to be written', 2000);
    expect(await taskOf(task.id)).toMatchObject({ status: 'in-progress', progressNote: 'Choosing the photo' });

    // After a quiet interval, the first report is written before its answer; the next wait, and the newest is written
    // when the interval ends. (Which are skipped is the gate's own test; a slow machine may let the interval end
    // between two of them.) Twice the 200 ms interval, well inside the 800 ms lease the last write renewed: a pause of
    // the whole window let a slow machine end the lease first.
    await pause(400);
    expect(await progress(50, 'Editing the photo')).toEqual({ ok: true });
    expect(await taskOf(task.id)).toMatchObject({ progress: 50, progressNote: 'Editing the photo' });
    await progress(60, 'Writing the caption');
    await progress(70, 'Writing the caption');
    await until(async () => (await taskOf(task.id)).progress === 70, 'the newest report to be written', 2000);
    // The browser hears of a write after it commits: wait for the newest to arrive, then look at what came before it.
    const shown = () =>
      ((seen.get('task.updated') ?? []) as { id: string; progress: number | null }[]).filter((row) => row.id === task.id && row.progress !== null);
    await until(async () => shown().at(-1)?.progress === 70, 'the browser to hear of the newest report', 2000);
    expect(shown().map((row) => row.progress)).toContain(50);

    // Reports every 150 ms for twice the lease window: the lease holds (no second attempt), as each write renews it.
    for (let i = 0; i < 11; i++) {
      await progress(71 + i, 'Uploading');
      await pause(150);
    }
    expect(await taskOf(task.id)).toMatchObject({ status: 'in-progress', attempt: 1 });
    expect(await send(phone, 'task.result', { ...first, status: 'completed' })).toEqual({ ok: true });
    expect(await taskOf(task.id)).toMatchObject({ status: 'completed', attempt: 1, progress: 100 });
  });

  it('protocol 2: typed work, the journal answers a second dispatch, and a deleted post is called off on the phone', async () => {
    const { device, token } = await enrolledPhone(operator, { name: 'Pixel v2' });
    const account = await buildAccount(operator, { deviceId: device.id, status: 'active' });
    const journal = new Journal();
    const phone = new SimulatedPhone({ url, token, journal, workMs: 1200, reconnectionDelayMs: 100 });
    phones.push(phone);
    const dispatched: unknown[] = [];
    const cancels: unknown[] = [];
    phone.socket.on('task.dispatch', (message) => dispatched.push(message));
    phone.socket.on('task.cancel', (message) => cancels.push(message));
    await until(async () => phone.connected, 'the simulated phone to say hello', 15_000);
    expect((await operator.get(`/api/devices/${device.id}`)).body.agentProtocol).toBe(2);

    const post = await duePost(t, operator, account.id, { caption: 'Spring drop', hashtags: ['#spring'] });
    await until(async () => dispatched.length === 1, 'the post to reach the phone', 15_000);
    expect(dispatched[0]).toMatchObject({
      protocol: 2,
      type: 'post',
      work: { kind: 'post.publish', postId: post.id, caption: 'Spring drop', hashtags: ['#spring'], account: { username: account.username } },
    });
    // Deleted while the phone works on it: the phone is told to drop it and publishes nothing.
    expect((await operator.delete(`/api/posts/${post.id}`)).status).toBe(204);
    await until(async () => cancels.length === 1, 'the phone to be told');
    expect(cancels[0]).toMatchObject({ code: 'cancelled', reason: 'The post was deleted' });
    await pause(1800);
    expect(phone.completed).toEqual([]);

    // A task run to the end and dispatched again is answered from the journal, not run twice.
    const { task } = await duePostTask(t, operator, device.id, 'Second post');
    await until(async () => (await taskOf(task.id)).status === 'completed', 'the phone to finish the task', 20_000);
    await t.db.updateTable('tasks').set({ status: 'pending', dispatchedAt: null, completedAt: null }).where('id', '=', task.id).execute();
    await t.db.updateTable('posts').set({ status: 'scheduled' }).where('id', '=', task.postId!).execute();
    await t.app.ctx.agents!.dispatcher.wake(device.id);
    await until(async () => (await taskOf(task.id)).status === 'completed', 'the journal to answer', 15_000);
    expect(journal.runCounts().get(task.id)).toBe(1);
  });

  it("leaves a task a person wrote to the phone's VA: no agent is handed it", async () => {
    const { device, token } = await enrolledPhone(operator, { name: 'Pixel manual' });
    const phone = agent(token);
    const seen = record(phone);
    await connected(phone);
    await send(phone, 'agent.hello', helloV1);
    const task = await buildTask(operator, { deviceId: device.id, title: 'Check the account by hand' });
    await pause(2500);
    expect(seen.get('task.dispatch')).toBeUndefined();
    expect(await taskOf(task.id)).toMatchObject({ status: 'pending', attempt: 0, dispatchedAt: null });
  });

  it('delivers operator commands to the phone', async () => {
    const { device, token } = await enrolledPhone(operator, { name: 'Pixel commands' });
    const phone = agent(token);
    await connected(phone);
    await pause(100);
    const command = next<{ name: string }>(phone, 'command');
    const answer = await operator.post(`/api/devices/${device.id}/commands`, { name: 'screenshot' });
    expect(answer).toMatchObject({ status: 202, body: { delivered: true } });
    expect(await command).toEqual({ name: 'screenshot' });
    phone.disconnect();
    await pause(200);
    expect((await operator.post(`/api/devices/${device.id}/commands`, { name: 'pause' })).body).toEqual({ delivered: false });
  });
});

describe('wall screen links', () => {
  it('shows the wall by token only, hears only device and session events, and stops at revocation', async () => {
    const { device, token } = await enrolledPhone(operator, { name: 'Pixel on the wall' });
    const created = await operator.post('/api/wall-links', { name: 'Floor TV' });
    expect(created.status).toBe(201);
    expect(created.body.url).toBe(`/monitor/wall?token=${created.body.token}`);
    const wallToken = created.body.token as string;

    const snapshot = await new Client(t.app).get(`/api/wall?token=${wallToken}`);
    expect(snapshot.status).toBe(200);
    expect(snapshot.body.tiles.map((tile: { id: string }) => tile.id)).toContain(device.id);
    expect(Object.keys(snapshot.body.tiles[0]).sort()).toEqual([
      'battery',
      'controlledByName',
      'currentTask',
      'id',
      'lastActive',
      'name',
      'screenshotUrl',
      'status',
      'vaName',
    ]);

    const wall = io(url, { forceNew: true, transports: ['websocket'], auth: { wallToken }, reconnection: false });
    sockets.push(wall);
    await connected(wall);
    const seen = record(wall);
    const phone = agent(token);
    await connected(phone);
    await send(phone, 'agent.hello', { ...helloV1, battery: 64 });
    await send(phone, 'agent.screenshot', { mime: 'image/png', data: solidPng(2, 2, [1, 2, 3]).toString('base64') });
    await buildTask(operator, { title: 'Not for the wall' });
    await pause(300);
    expect(seen.get('device.updated')?.length).toBeGreaterThan(0);
    const shot = seen.get('screenshot.added')?.[0] as { url: string };
    expect(shot).toBeDefined();
    const image = await t.app.inject({ method: 'GET', url: `${shot.url}?wall=${wallToken}` });
    expect(image.statusCode).toBe(200);
    for (const event of ['task.created', 'activity.created', 'stats.changed']) expect(seen.has(event), event).toBe(false);

    const gone = new Promise<string>((resolve) => wall.once('disconnect', (reason) => resolve(reason)));
    expect((await operator.delete(`/api/wall-links/${created.body.id}`)).status).toBe(204);
    expect(await gone).toBe('io server disconnect');
    expect((await t.app.inject({ method: 'GET', url: `/api/wall?token=${wallToken}` })).statusCode).toBe(401);
    const again = io(url, { forceNew: true, transports: ['websocket'], auth: { wallToken }, reconnection: false });
    sockets.push(again);
    await expect(connected(again)).rejects.toThrow('unauthorized');
    const list = await operator.get('/api/wall-links');
    expect(list.body[0]).toMatchObject({ id: created.body.id, name: 'Floor TV' });
    expect(list.body[0].revokedAt).not.toBeNull();
    expect(JSON.stringify(list.body)).not.toContain(wallToken);
  });
});
