/** Live sessions on phones: start, pause, resume, stop; one open session per phone; what a VA may work. */
import { describe, expect, it } from 'vitest';
import { messages, type Device, type Session } from '@farm/contracts';
import { inviteVa, signUp } from '../helpers/app.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { buildDevice, buildSession, buildTask, reportFromPhone } from '../helpers/factories.ts';
import { appWithTeam } from '../helpers/file-app.ts';

const ONE_SESSION = 'This device already has a session; stop it first';
const NOT_THEIR_PHONE = 'You can only work sessions on the device assigned to you';

const { t, operator, va } = await appWithTeam();

const deviceOf = async (id: string) => (await operator.get<Device>(`/api/devices/${id}`)).body;

/** Moves a running session's start back, as if it had run `seconds` already. */
async function ranFor(sessionId: string, seconds: number): Promise<void> {
  await t.db
    .updateTable('sessions')
    .set({ activeSince: new Date(Date.now() - seconds * 1000) })
    .where('id', '=', sessionId)
    .execute();
}

describe('POST /api/sessions', () => {
  it("starts a running session on the phone, for the phone's VA, and marks the phone busy", async () => {
    const device = await buildDevice(operator, { assignedToId: va.user!.id, name: 'Pixel Live' });
    // A connected phone: its status follows a person's session (an offline one stays offline).
    await reportFromPhone(t.db, device.id, { status: 'online' });
    const task = await buildTask(operator, { title: 'Warm up @glow', deviceId: device.id });
    const answer = await operator.post<Session>('/api/sessions', { deviceId: device.id, taskId: task.id });
    expectStatus(answer, 201);
    expect(answer.body).toMatchObject({
      deviceId: device.id,
      vaId: va.user!.id,
      taskId: task.id,
      currentTask: 'Warm up @glow',
      duration: 0,
      screenshots: 0,
      isActive: true,
      endedAt: null,
    });
    expect(Object.keys(answer.body).sort()).toEqual([
      'currentTask',
      'deviceId',
      'duration',
      'endedAt',
      'id',
      'isActive',
      'screenshots',
      'startedAt',
      'taskId',
      'vaId',
    ]);
    expect((await deviceOf(device.id)).status).toBe('busy');
    const activities = (await operator.get<{ action: string }[]>(`/api/activities?deviceId=${device.id}`)).body;
    expect(activities[0]).toMatchObject({ action: 'Session started on Pixel Live', type: 'info' });
  });

  it('keeps a current task given in words', async () => {
    const device = await buildDevice(operator);
    const session = await buildSession(operator, device.id, { currentTask: 'Scrolling reels' });
    expect(session).toMatchObject({ currentTask: 'Scrolling reels', taskId: null, vaId: null });
  });

  it('allows one open session per phone: a second start is 409, running or paused', async () => {
    const device = await buildDevice(operator);
    const session = await buildSession(operator, device.id);
    expectError(await operator.post('/api/sessions', { deviceId: device.id }), 409, ONE_SESSION);
    await operator.patch(`/api/sessions/${session.id}`, { isActive: false });
    expectError(await operator.post('/api/sessions', { deviceId: device.id }), 409, ONE_SESSION);
    await operator.post(`/api/sessions/${session.id}/stop`);
    expectStatus(await operator.post('/api/sessions', { deviceId: device.id }), 201);
    expect((await operator.get(`/api/sessions?deviceId=${device.id}`)).body).toHaveLength(2);
  });

  it('refuses an unknown phone or task', async () => {
    const device = await buildDevice(operator);
    expectFieldError(
      await operator.post('/api/sessions', { deviceId: '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b' }),
      'deviceId',
      "Device must be one of this workspace's devices",
    );
    expectFieldError(
      await operator.post('/api/sessions', { deviceId: device.id, taskId: '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b' }),
      'taskId',
      "Task must be one of this workspace's tasks",
    );
    expectFieldError(await operator.post('/api/sessions', {}), 'deviceId', 'Device is required');
    expect((await operator.get(`/api/sessions?deviceId=${device.id}`)).body).toEqual([]);
  });
});

describe('pause, resume, stop', () => {
  it('pauses (phone idle), resumes (phone busy) and stops (phone online, its session time grows)', async () => {
    const device = await buildDevice(operator, { name: 'Pixel Cycle' });
    // A connected phone: its status follows a person's session (an offline one stays offline).
    await reportFromPhone(t.db, device.id, { status: 'online' });
    const session = await buildSession(operator, device.id);
    await ranFor(session.id, 90);

    const paused = await operator.patch<Session>(`/api/sessions/${session.id}`, { isActive: false });
    expectStatus(paused, 200);
    expect(paused.body.isActive).toBe(false);
    expect(paused.body.endedAt).toBeNull();
    expect(paused.body.duration).toBeGreaterThanOrEqual(90);
    expect(paused.body.duration).toBeLessThan(120);
    expect((await deviceOf(device.id)).status).toBe('idle');
    // A paused session does not count time.
    await t.db
      .updateTable('sessions')
      .set({ startedAt: new Date(Date.now() - 3600_000) })
      .where('id', '=', session.id)
      .execute();
    expect((await operator.get<Session>(`/api/sessions/${session.id}`)).body.duration).toBe(paused.body.duration);

    const resumed = await operator.patch<Session>(`/api/sessions/${session.id}`, { isActive: true });
    expect(resumed.body).toMatchObject({ isActive: true, duration: paused.body.duration });
    expect((await deviceOf(device.id)).status).toBe('busy');

    const stopped = await operator.post<Session>(`/api/sessions/${session.id}/stop`);
    expectStatus(stopped, 200);
    expect(stopped.body.isActive).toBe(false);
    expect(stopped.body.endedAt).not.toBeNull();
    expect(stopped.body.duration).toBeGreaterThanOrEqual(paused.body.duration);
    const after = await deviceOf(device.id);
    expect(after.status).toBe('online');
    expect(after.sessionTime).toBe(stopped.body.duration);

    const actions = (await operator.get<{ action: string }[]>(`/api/activities?deviceId=${device.id}`)).body.map((row) => row.action);
    expect(actions.slice(0, 4)).toEqual([
      'Session stopped on Pixel Cycle',
      'Session resumed on Pixel Cycle',
      'Session paused on Pixel Cycle',
      'Session started on Pixel Cycle',
    ]);
  });

  it('counts a running session up to now on every read', async () => {
    const device = await buildDevice(operator);
    const session = await buildSession(operator, device.id);
    await ranFor(session.id, 30);
    const read = await operator.get<Session>(`/api/sessions/${session.id}`);
    expect(read.body.duration).toBeGreaterThanOrEqual(30);
  });

  it('pausing twice or resuming a running session changes nothing', async () => {
    const device = await buildDevice(operator);
    const session = await buildSession(operator, device.id);
    const running = await operator.patch<Session>(`/api/sessions/${session.id}`, { isActive: true });
    expect(running.body).toMatchObject({ id: session.id, isActive: true });
    await operator.patch(`/api/sessions/${session.id}`, { isActive: false });
    const again = await operator.patch<Session>(`/api/sessions/${session.id}`, { isActive: false });
    expectStatus(again, 200);
    expect(again.body.isActive).toBe(false);
  });

  it('refuses to change an ended session; stopping it again answers it as it was', async () => {
    const device = await buildDevice(operator);
    const session = await buildSession(operator, device.id);
    const stopped = await operator.post<Session>(`/api/sessions/${session.id}/stop`);
    expectError(await operator.patch(`/api/sessions/${session.id}`, { isActive: true }), 409, 'This session has ended');
    const again = await operator.post<Session>(`/api/sessions/${session.id}/stop`);
    expectStatus(again, 200);
    expect(again.body).toEqual(stopped.body);
  });

  it('updates the current task in words or by task', async () => {
    const device = await buildDevice(operator);
    const session = await buildSession(operator, device.id);
    const task = await buildTask(operator);
    const answer = await operator.patch<Session>(`/api/sessions/${session.id}`, { currentTask: 'Replying to DMs', taskId: task.id });
    expect(answer.body).toMatchObject({ currentTask: 'Replying to DMs', taskId: task.id, isActive: true });
    expectFieldError(
      await operator.patch(`/api/sessions/${session.id}`, { taskId: '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b' }),
      'taskId',
      "Task must be one of this workspace's tasks",
    );
  });

  it('answers 404 for unknown sessions', async () => {
    const unknown = '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b';
    expectError(await operator.get(`/api/sessions/${unknown}`), 404, messages.notFound);
    expectError(await operator.patch(`/api/sessions/${unknown}`, { isActive: false }), 404, messages.notFound);
    expectError(await operator.post(`/api/sessions/${unknown}/stop`), 404, messages.notFound);
  });
});

describe('a VA and sessions', () => {
  it('works sessions on the phone assigned to them', async () => {
    const device = await buildDevice(operator, { assignedToId: va.user!.id });
    const started = await va.post<Session>('/api/sessions', { deviceId: device.id });
    expectStatus(started, 201);
    expect(started.body.vaId).toBe(va.user!.id);
    expectStatus(await va.patch(`/api/sessions/${started.body.id}`, { isActive: false }), 200);
    expectStatus(await va.patch(`/api/sessions/${started.body.id}`, { isActive: true, currentTask: 'Back at it' }), 200);
    expectStatus(await va.post(`/api/sessions/${started.body.id}/stop`), 200);
  });

  it('cannot start, pause, retitle or stop a session on a phone that is not theirs', async () => {
    const device = await buildDevice(operator);
    expectError(await va.post('/api/sessions', { deviceId: device.id }), 403, NOT_THEIR_PHONE);
    const session = await buildSession(operator, device.id);
    expectError(await va.patch(`/api/sessions/${session.id}`, { isActive: false }), 403, NOT_THEIR_PHONE);
    expectError(await va.patch(`/api/sessions/${session.id}`, { currentTask: 'Hijack' }), 403, NOT_THEIR_PHONE);
    expectError(await va.post(`/api/sessions/${session.id}/stop`), 403, NOT_THEIR_PHONE);
    expect((await operator.get(`/api/sessions/${session.id}`)).body).toMatchObject({ isActive: true, endedAt: null, currentTask: null });
  });
});

describe('GET /api/sessions', () => {
  it('lists newest first and filters open and ended sessions, by phone and by VA', async () => {
    const owner = await signUp(t.app);
    const helper = await inviteVa(t.app, owner);
    const first = await buildDevice(owner, { assignedToId: helper.user!.id });
    const second = await buildDevice(owner);
    const ended = await buildSession(owner, first.id);
    await owner.post(`/api/sessions/${ended.id}/stop`);
    const open = await buildSession(owner, first.id);
    const other = await buildSession(owner, second.id);
    const ids = async (url: string) => (await owner.get<Session[]>(url)).body.map((row) => row.id);
    expect(await ids('/api/sessions')).toEqual([other.id, open.id, ended.id]);
    expect(await ids('/api/sessions?active=true')).toEqual([other.id, open.id]);
    expect(await ids('/api/sessions?active=false')).toEqual([ended.id]);
    expect(await ids(`/api/sessions?deviceId=${first.id}`)).toEqual([open.id, ended.id]);
    expect(await ids(`/api/sessions?vaId=${helper.user!.id}`)).toEqual([open.id, ended.id]);
    expectFieldError(await owner.get('/api/sessions?active=maybe'), 'active', 'Active must be one of true or false');
  });
});
