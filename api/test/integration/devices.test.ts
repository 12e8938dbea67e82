/** The device fleet: create, read, filter, assign to a VA, update, delete, restart a session. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages, type Device, type Session } from '@farm/contracts';
import { buildTestApp, inviteVa, signUp, type Client, type TestApp } from '../helpers/app.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { buildAccount, buildDevice, buildSession, buildTask, reportFromPhone } from '../helpers/factories.ts';

let t: TestApp;
let shared: { operator: Client; va: Client };
beforeAll(async () => {
  t = await buildTestApp();
  shared = await newWorkspace();
});
afterAll(async () => {
  await t?.close();
});

async function newWorkspace(): Promise<{ operator: Client; va: Client }> {
  const operator = await signUp(t.app);
  return { operator, va: await inviteVa(t.app, operator, 'Vera Assistant') };
}

/** The shared workspace: tests that only look at rows they made themselves. */
const workspace = async () => shared;

const ids = (rows: { id: string }[]) => rows.map((row) => row.id);

describe('POST /api/devices', () => {
  it('creates a device with the spec defaults and records the activity', async () => {
    const { operator } = await newWorkspace();
    const answer = await operator.post<Device>('/api/devices', { name: '  Pixel 7  ' });
    expectStatus(answer, 201);
    expect(answer.body).toMatchObject({ name: 'Pixel 7', status: 'offline', battery: 100, sessionTime: 0, assignedToId: null });
    expect(Object.keys(answer.body).sort()).toEqual([
      'agentProtocol',
      'androidVersion',
      'assignedToId',
      'battery',
      'controlledById',
      'controlledByName',
      'createdAt',
      'hostId',
      'id',
      'lastActive',
      'lastSeenAt',
      'model',
      'name',
      'screenOn',
      'serial',
      'sessionTime',
      'status',
      'updatedAt',
    ]);
    expect(answer.body).toMatchObject({ lastSeenAt: null, agentProtocol: null, controlledById: null, controlledByName: null });
    expect(Date.parse(answer.body.lastActive)).not.toBeNaN();
    const activities = await operator.get('/api/activities');
    expect(activities.body[0]).toMatchObject({ action: 'Device Pixel 7 added', type: 'success', deviceId: answer.body.id, userId: operator.user!.id });
  });

  it('assigns a member of the workspace', async () => {
    const { operator, va } = await workspace();
    // Status and battery are the phone's to report: typed ones are ignored.
    const device = await buildDevice(operator, { assignedToId: va.user!.id, status: 'online', battery: 64 });
    expect(device).toMatchObject({ assignedToId: va.user!.id, status: 'offline', battery: 100 });
  });

  it.each([
    ['name', { name: '' }, 'Name is required'],
    ['name', { name: '   ' }, 'Name is required'],
  ])('refuses a bad %s (%j)', async (field, body, message) => {
    const { operator } = await workspace();
    expectFieldError(await operator.post('/api/devices', body), field, message);
  });

  it('refuses to assign someone outside the workspace, or a deactivated member', async () => {
    const { operator, va } = await newWorkspace();
    const stranger = await signUp(t.app);
    expectFieldError(
      await operator.post('/api/devices', { name: 'P', assignedToId: stranger.user!.id }),
      'assignedToId',
      'Assignee must be an active member of this workspace',
    );
    expectFieldError(
      await operator.post('/api/devices', { name: 'P', assignedToId: 'nobody' }),
      'assignedToId',
      'Assignee must be an active member of this workspace',
    );
    await operator.patch(`/api/users/${va.user!.id}`, { isActive: false });
    expectFieldError(
      await operator.post('/api/devices', { name: 'P', assignedToId: va.user!.id }),
      'assignedToId',
      'Assignee must be an active member of this workspace',
    );
    expect((await operator.get('/api/devices')).body).toEqual([]);
  });
});

describe('GET /api/devices', () => {
  it('lists oldest first and filters by status, name (case-insensitive, literal) and VA', async () => {
    const { operator, va } = await newWorkspace();
    const a = await buildDevice(operator, { name: 'Pixel Alpha', assignedToId: va.user!.id });
    const b = await buildDevice(operator, { name: 'Galaxy Beta' });
    const c = await buildDevice(operator, { name: 'pixel 100%_x' });
    await reportFromPhone(t.db, a.id, { status: 'online' });
    await reportFromPhone(t.db, b.id, { status: 'busy' });
    await reportFromPhone(t.db, c.id, { status: 'online' });
    expect(ids((await operator.get('/api/devices')).body)).toEqual([a.id, b.id, c.id]);
    expect(ids((await operator.get('/api/devices?status=online')).body)).toEqual([a.id, c.id]);
    expect(ids((await operator.get('/api/devices?search=PIXEL')).body)).toEqual([a.id, c.id]);
    expect(ids((await operator.get(`/api/devices?search=${encodeURIComponent('100%_')}`)).body)).toEqual([c.id]);
    expect(ids((await operator.get(`/api/devices?search=${encodeURIComponent('%')}`)).body)).toEqual([c.id]);
    expect(ids((await operator.get(`/api/devices?assignedToId=${va.user!.id}`)).body)).toEqual([a.id]);
    expectFieldError(await operator.get('/api/devices?status=broken'), 'status', 'Status must be one of online, offline, busy or idle');
  });

  it('reads one device; an unknown or malformed id is 404', async () => {
    const { operator, va } = await workspace();
    const device = await buildDevice(operator);
    const answer = await va.get<Device>(`/api/devices/${device.id}`);
    expectStatus(answer, 200);
    expect(answer.body).toEqual(device);
    expectError(await operator.get('/api/devices/6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b'), 404, messages.notFound);
    expectError(await operator.get('/api/devices/not-a-uuid'), 404, messages.notFound);
  });
});

describe('PATCH /api/devices/:id', () => {
  it('renames it; status, battery and session time are not typed by people', async () => {
    const { operator } = await workspace();
    const device = await buildDevice(operator);
    const answer = await operator.patch<Device>(`/api/devices/${device.id}`, { status: 'online', battery: 15, sessionTime: 3600, name: 'Renamed' });
    expectStatus(answer, 200);
    expect(answer.body).toMatchObject({ id: device.id, status: 'offline', battery: 100, sessionTime: 0, name: 'Renamed' });
    expect(Date.parse(answer.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(device.updatedAt));
    expect((await operator.get(`/api/devices/${device.id}`)).body).toEqual(answer.body);
  });

  it('assigns and unassigns a VA, with an activity each time', async () => {
    const { operator, va } = await newWorkspace();
    const device = await buildDevice(operator, { name: 'Pixel Nine' });
    expect((await operator.patch(`/api/devices/${device.id}`, { assignedToId: va.user!.id })).body.assignedToId).toBe(va.user!.id);
    expect((await operator.patch(`/api/devices/${device.id}`, { assignedToId: null })).body.assignedToId).toBeNull();
    const actions = (await operator.get<{ action: string }[]>('/api/activities')).body.map((row) => row.action);
    expect(actions.slice(0, 2)).toEqual(['Pixel Nine unassigned', 'Pixel Nine assigned to Vera Assistant']);
  });

  it('answers the device unchanged for an empty body', async () => {
    const { operator } = await workspace();
    const device = await buildDevice(operator);
    const answer = await operator.patch(`/api/devices/${device.id}`, {});
    expectStatus(answer, 200);
    expect(answer.body).toEqual(device);
  });

  it('refuses bad values and unknown ids', async () => {
    const { operator } = await workspace();
    const device = await buildDevice(operator);
    expectFieldError(await operator.patch(`/api/devices/${device.id}`, { name: '' }), 'name', 'Name is required');
    expectError(await operator.patch('/api/devices/6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b', { battery: 1 }), 404, messages.notFound);
    expect((await operator.get(`/api/devices/${device.id}`)).body).toEqual(device);
  });
});

describe('DELETE /api/devices/:id', () => {
  it('removes the device; its tasks and accounts stay, without a device', async () => {
    const { operator } = await newWorkspace();
    const device = await buildDevice(operator, { name: 'Old Phone' });
    const task = await buildTask(operator, { deviceId: device.id });
    const account = await buildAccount(operator, { deviceId: device.id });
    expectStatus(await operator.delete(`/api/devices/${device.id}`), 204);
    expectError(await operator.get(`/api/devices/${device.id}`), 404, messages.notFound);
    expectError(await operator.delete(`/api/devices/${device.id}`), 404, messages.notFound);
    expect((await operator.get(`/api/tasks/${task.id}`)).body.deviceId).toBeNull();
    expect((await operator.get(`/api/accounts/${account.id}`)).body.deviceId).toBeNull();
    expect((await operator.get('/api/activities')).body[0]).toMatchObject({ action: 'Device Old Phone removed', type: 'warning' });
  });
});

describe('POST /api/devices/:id/restart-session', () => {
  it('ends the open session and starts a fresh one with the same task', async () => {
    const { operator, va } = await workspace();
    const device = await buildDevice(operator, { assignedToId: va.user!.id });
    const task = await buildTask(operator, { deviceId: device.id, title: 'Daily browse' });
    const first = await buildSession(operator, device.id, { taskId: task.id });
    const answer = await va.post<Session>(`/api/devices/${device.id}/restart-session`);
    expectStatus(answer, 201);
    expect(answer.body.id).not.toBe(first.id);
    expect(answer.body).toMatchObject({ deviceId: device.id, vaId: va.user!.id, taskId: task.id, currentTask: 'Daily browse', isActive: true, endedAt: null });
    const old = await operator.get<Session>(`/api/sessions/${first.id}`);
    expect(old.body.isActive).toBe(false);
    expect(old.body.endedAt).not.toBeNull();
    expect((await operator.get(`/api/sessions?deviceId=${device.id}&active=true`)).body).toHaveLength(1);
  });

  it('starts a session on a phone that had none', async () => {
    const { operator } = await workspace();
    const device = await buildDevice(operator);
    await reportFromPhone(t.db, device.id, { status: 'online' });
    const answer = await operator.post<Session>(`/api/devices/${device.id}/restart-session`);
    expectStatus(answer, 201);
    expect(answer.body).toMatchObject({ deviceId: device.id, taskId: null, currentTask: null, isActive: true });
    expect((await operator.get(`/api/devices/${device.id}`)).body.status).toBe('busy');
  });

  it('refuses a VA on a phone that is not theirs', async () => {
    const { operator, va } = await workspace();
    const device = await buildDevice(operator);
    const session = await buildSession(operator, device.id);
    expectError(await va.post(`/api/devices/${device.id}/restart-session`), 403, 'You can only work sessions on the device assigned to you');
    expect((await operator.get(`/api/sessions/${session.id}`)).body.endedAt).toBeNull();
  });
});

describe("a phone's agent link", () => {
  it('issues a credential shown once; a new one replaces it', async () => {
    const { operator } = await workspace();
    const device = await buildDevice(operator);
    const first = await operator.post<{ deviceId: string; token: string; createdAt: string }>(`/api/devices/${device.id}/credentials`);
    expectStatus(first, 201);
    expect(first.body).toEqual({ deviceId: device.id, token: expect.stringMatching(/^dev_[A-Za-z0-9_-]{32}$/), createdAt: expect.any(String) });
    const second = await operator.post<{ token: string }>(`/api/devices/${device.id}/credentials`);
    expect(second.body.token).not.toBe(first.body.token);
    expect(JSON.stringify((await operator.get(`/api/devices/${device.id}`)).body)).not.toContain(first.body.token.slice(4));
    expectError(await operator.post('/api/devices/6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b/credentials'), 404, messages.notFound);
  });

  it('takes a command for a phone with no agent connected, answering that it was not delivered', async () => {
    const { operator, va } = await workspace();
    const device = await buildDevice(operator, { assignedToId: va.user!.id });
    const answer = await va.post(`/api/devices/${device.id}/commands`, { name: 'screenshot' });
    expectStatus(answer, 202);
    expect(answer.body).toEqual({ delivered: false });
    expectFieldError(
      await operator.post(`/api/devices/${device.id}/commands`, { name: 'self_destruct' }),
      'name',
      'Name must be one of screenshot, pause, resume, stop or restart_session',
    );
    const other = await buildDevice(operator);
    expectError(await va.post(`/api/devices/${other.id}/commands`, { name: 'pause' }), 403, 'You can only work sessions on the device assigned to you');
  });

  it('lists no screenshots for a phone that sent none; an unknown phone is 404', async () => {
    const { operator } = await workspace();
    const device = await buildDevice(operator);
    const answer = await operator.get(`/api/devices/${device.id}/screenshots`);
    expectStatus(answer, 200);
    expect(answer.body).toEqual([]);
    expectError(await operator.get('/api/devices/6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b/screenshots'), 404, messages.notFound);
    expectFieldError(await operator.get(`/api/devices/${device.id}/screenshots?limit=0`), 'limit', 'Limit must be at least 1');
  });
});
