import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION, solidPng, type Ack } from '@farm/agent-protocol';
import { buildTestApp, people, type Client, type TestApp } from '../helpers/app.ts';
import { buildDevice, buildTask } from '../helpers/factories.ts';
import { connect, connected, listen, next, pause, record } from './sockets.ts';

let t: TestApp;
let url: string;
let operator: Client;
let stranger: Client;
const sockets: Socket[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  url = await listen(t.app);
  ({ operator, stranger } = await people(t.app));
});
afterAll(async () => {
  for (const socket of sockets) socket.disconnect();
  await t?.close();
});

function agent(token: string): Socket {
  const socket = io(`${url}/agent`, { forceNew: true, transports: ['websocket'], auth: { token }, reconnection: false });
  sockets.push(socket);
  return socket;
}

function send(socket: Socket, event: string, message: unknown): Promise<Ack> {
  return new Promise((resolve) => socket.emit(event, message, resolve));
}

async function enrolledPhone(name: string) {
  const device = await buildDevice(operator, { name });
  const credential = await operator.post(`/api/devices/${device.id}/credentials`);
  expect(credential.status).toBe(201);
  return { device, token: credential.body.token as string };
}

describe('phone agents', () => {
  it('refuses an agent without a valid device credential', async () => {
    await expect(connected(agent('dev_nope'))).rejects.toThrow('unauthorized');
    const { device } = await enrolledPhone('Pixel refused');
    const other = await stranger.post(`/api/devices/${device.id}/credentials`);
    expect(other.status).toBe(404);
  });

  it('brings the device online on hello and keeps battery live on heartbeats', async () => {
    const { device, token } = await enrolledPhone('Pixel hello');
    const browser = connect(url, operator);
    sockets.push(browser);
    await connected(browser);
    const phone = agent(token);
    await connected(phone);
    const online = next<{ id: string; status: string; battery: number }>(browser, 'device.updated');
    expect(await send(phone, 'agent.hello', { protocol: PROTOCOL_VERSION, agentVersion: 'test', battery: 77 })).toEqual({ ok: true });
    expect(await online).toMatchObject({ id: device.id, status: 'online', battery: 77 });
    const pulse = next<{ devices: { id: string; battery: number; status: string }[] }>(browser, 'devices.pulse');
    expect(await send(phone, 'agent.heartbeat', { battery: 76, status: 'busy' })).toEqual({ ok: true });
    expect((await pulse).devices).toEqual([expect.objectContaining({ id: device.id, battery: 76, status: 'busy' })]);
    expect((await operator.get(`/api/devices/${device.id}`)).body).toMatchObject({ status: 'busy', battery: 76 });
    const refused = await send(phone, 'agent.heartbeat', { battery: 170, status: 'busy' });
    expect(refused.ok).toBe(false);
    expect(refused.ok === false && refused.error).toContain('battery');
  });

  it('stores a screenshot, counts it on the open session and announces it', async () => {
    const { device, token } = await enrolledPhone('Pixel shots');
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

  it('leases tasks to the phone: one result counts once, a dropped phone gets a new attempt', async () => {
    const { device, token } = await enrolledPhone('Pixel worker');
    let phone = agent(token);
    await connected(phone);
    await send(phone, 'agent.hello', { protocol: PROTOCOL_VERSION, agentVersion: 'test', battery: 90 });
    const dispatched = next<{ taskId: string; attempt: number }>(phone, 'task.dispatch');
    const task = await buildTask(operator, { deviceId: device.id, title: 'Warm up on phone' });
    const first = await dispatched;
    expect(first).toMatchObject({ taskId: task.id, attempt: 1 });
    await send(phone, 'task.ack', first);
    expect((await operator.get(`/api/tasks/${task.id}`)).body.status).toBe('in-progress');

    // The phone drops mid-task: the lease ends and the task waits again.
    phone.disconnect();
    await pause(300);
    expect((await operator.get(`/api/tasks/${task.id}`)).body.status).toBe('pending');
    expect((await operator.get(`/api/devices/${device.id}`)).body.status).toBe('offline');

    phone = agent(token);
    const again = next<{ taskId: string; attempt: number }>(phone, 'task.dispatch');
    await connected(phone);
    await send(phone, 'agent.hello', { protocol: PROTOCOL_VERSION, agentVersion: 'test', battery: 89 });
    const second = await again;
    expect(second).toMatchObject({ taskId: task.id, attempt: 2 });

    // A late result of the first attempt changes nothing.
    expect(await send(phone, 'task.result', { ...first, status: 'failed' })).toEqual({ ok: true });
    expect((await operator.get(`/api/tasks/${task.id}`)).body.status).toBe('pending');

    await send(phone, 'task.ack', second);
    await send(phone, 'task.result', { ...second, status: 'completed' });
    await send(phone, 'task.result', { ...second, status: 'completed' });
    const done = (await operator.get(`/api/tasks/${task.id}`)).body;
    expect(done.status).toBe('completed');
    expect(done.completedAt).not.toBeNull();
    const feed = (await operator.get('/api/activities')).body as { action: string }[];
    expect(feed.filter((a) => a.action === 'Pixel worker completed "Warm up on phone"')).toHaveLength(1);
  });

  it('delivers operator commands to the phone', async () => {
    const { device, token } = await enrolledPhone('Pixel commands');
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
    const { device, token } = await enrolledPhone('Pixel on the wall');
    const created = await operator.post('/api/wall-links', { name: 'Floor TV' });
    expect(created.status).toBe(201);
    expect(created.body.url).toBe(`/monitor/wall?token=${created.body.token}`);
    const wallToken = created.body.token as string;

    const snapshot = await new (await import('../helpers/app.ts')).Client(t.app).get(`/api/wall?token=${wallToken}`);
    expect(snapshot.status).toBe(200);
    expect(snapshot.body.tiles.map((tile: { id: string }) => tile.id)).toContain(device.id);
    expect(Object.keys(snapshot.body.tiles[0]).sort()).toEqual(['battery', 'currentTask', 'id', 'lastActive', 'name', 'screenshotUrl', 'status', 'vaName']);

    const wall = io(url, { forceNew: true, transports: ['websocket'], auth: { wallToken }, reconnection: false });
    sockets.push(wall);
    await connected(wall);
    const seen = record(wall);
    const phone = agent(token);
    await connected(phone);
    await send(phone, 'agent.hello', { protocol: PROTOCOL_VERSION, agentVersion: 'test', battery: 64 });
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
