/** The analytics figures of SPEC §9, and the range filter. Each test counts in a workspace of its own. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Performance, Stats } from '@farm/contracts';
import { buildTestApp, inviteVa, signUp, type Client, type TestApp } from '../helpers/app.ts';
import { expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { buildDevice, buildSession, buildTask, reportFromPhone } from '../helpers/factories.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

const DAY = 24 * 3600_000;
const stats = async (client: Client, query = '') => {
  const answer = await client.get<Stats>(`/api/analytics/stats${query}`);
  expectStatus(answer, 200);
  return answer.body;
};

async function tasks(client: Client, statuses: ('pending' | 'completed' | 'failed' | 'in-progress')[], overrides: Record<string, unknown> = {}) {
  const made = [];
  for (const status of statuses) {
    const task = await buildTask(client, overrides);
    if (status !== 'pending') expectStatus(await client.patch(`/api/tasks/${task.id}`, { status }), 200);
    made.push(task);
  }
  return made;
}

/** An ended session that ran `seconds`, started `agoMs` before now. */
async function endedSession(client: Client, seconds: number, agoMs = 0) {
  const device = await buildDevice(client);
  const session = await buildSession(client, device.id);
  await client.post(`/api/sessions/${session.id}/stop`);
  await t.db
    .updateTable('sessions')
    .set({ duration: seconds, startedAt: new Date(Date.now() - agoMs), endedAt: new Date(Date.now() - agoMs + seconds * 1000) })
    .where('id', '=', session.id)
    .execute();
  return session;
}

describe('GET /api/analytics/stats', () => {
  it('answers zeros for an empty workspace', async () => {
    const operator = await signUp(t.app);
    expect(await stats(operator)).toEqual({
      activeSessions: 0,
      totalDevices: 0,
      onlineDevices: 0,
      completedTasks: 0,
      totalTasks: 0,
      totalSessionTime: 0,
      successRate: 0,
      avgSessionTime: 0,
      range: null,
      from: null,
      to: null,
      timeZone: 'UTC',
      previous: null,
    });
  });

  it('gives the success rate as a percentage with one decimal', async () => {
    const operator = await signUp(t.app);
    await tasks(operator, ['completed', 'pending', 'failed']);
    expect(await stats(operator)).toMatchObject({ totalTasks: 3, completedTasks: 1, successRate: 33.3 });
    await tasks(operator, ['completed']);
    expect((await stats(operator)).successRate).toBe(50);
    await tasks(operator, ['completed', 'completed']);
    // 4 of 6
    expect((await stats(operator)).successRate).toBe(66.7);
  });

  it('counts phones, connected phones, open sessions and session time; average session time is per task', async () => {
    const operator = await signUp(t.app);
    await reportFromPhone(t.db, (await buildDevice(operator)).id, { status: 'online' });
    await reportFromPhone(t.db, (await buildDevice(operator)).id, { status: 'idle' });
    await buildDevice(operator);
    await endedSession(operator, 3600);
    await endedSession(operator, 1800);
    const running = await buildSession(operator, (await buildDevice(operator)).id);
    const paused = await buildSession(operator, (await buildDevice(operator)).id);
    await operator.patch(`/api/sessions/${paused.id}`, { isActive: false });
    await t.db.updateTable('sessions').set({ duration: 600 }).where('id', '=', paused.id).execute();
    await t.db
      .updateTable('sessions')
      .set({ duration: 0, activeSince: new Date(Date.now() - 100_000) })
      .where('id', '=', running.id)
      .execute();
    await tasks(operator, ['completed', 'pending', 'pending', 'pending']);

    const figures = await stats(operator);
    // Devices: 3 made here (2 with a connected agent: online and idle) + 2 for the ended sessions + 2 for the open ones,
    // none of them ever connected. Active sessions are the open ones, running or paused.
    expect(figures).toMatchObject({ totalDevices: 7, onlineDevices: 2, activeSessions: 2, totalTasks: 4, completedTasks: 1, successRate: 25 });
    // The Analytics page's cards (a window) count the fleet and the open sessions the same way.
    expect(await stats(operator, '?range=7d')).toMatchObject({ totalDevices: 7, onlineDevices: 2, activeSessions: 2 });
    // 3600 + 1800 + 600 + about 100 seconds of the running session.
    expect(figures.totalSessionTime).toBeGreaterThanOrEqual(6100);
    expect(figures.totalSessionTime).toBeLessThan(6130);
    expect(figures.avgSessionTime).toBe(Math.floor(figures.totalSessionTime / 4));
  });

  it('filters by range: tasks created and sessions started in it, while open sessions always count', async () => {
    const operator = await signUp(t.app);
    const [old, older] = await tasks(operator, ['completed', 'completed']);
    await tasks(operator, ['pending']);
    await t.db
      .updateTable('tasks')
      .set({ createdAt: new Date(Date.now() - 2 * DAY) })
      .where('id', '=', old!.id)
      .execute();
    await t.db
      .updateTable('tasks')
      .set({ createdAt: new Date(Date.now() - 20 * DAY) })
      .where('id', '=', older!.id)
      .execute();
    await endedSession(operator, 1000, 10 * DAY);
    await endedSession(operator, 200, 3600_000);

    expect(await stats(operator)).toMatchObject({
      totalTasks: 3,
      completedTasks: 2,
      successRate: 66.7,
      totalSessionTime: 1200,
      avgSessionTime: 400,
      range: null,
    });
    expect(await stats(operator, '?range=24h')).toMatchObject({
      totalTasks: 1,
      completedTasks: 0,
      successRate: 0,
      totalSessionTime: 200,
      avgSessionTime: 200,
      range: '24h',
    });
    expect(await stats(operator, '?range=7d')).toMatchObject({
      totalTasks: 2,
      completedTasks: 1,
      successRate: 50,
      totalSessionTime: 200,
      avgSessionTime: 100,
      range: '7d',
    });
    expect(await stats(operator, '?range=30d')).toMatchObject({ totalTasks: 3, completedTasks: 2, totalSessionTime: 1200, range: '30d' });
    expect(await stats(operator, '?range=90d')).toMatchObject({ totalTasks: 3, range: '90d' });
    // The fleet is counted as it is now, whatever the range.
    expect((await stats(operator, '?range=24h')).totalDevices).toBe(2);

    const open = await buildSession(operator, (await buildDevice(operator)).id);
    await t.db
      .updateTable('sessions')
      .set({ startedAt: new Date(Date.now() - 40 * DAY) })
      .where('id', '=', open.id)
      .execute();
    expect((await stats(operator, '?range=24h')).activeSessions).toBe(1);
  });

  it('refuses an unknown range', async () => {
    const operator = await signUp(t.app);
    expectFieldError(await operator.get('/api/analytics/stats?range=1y'), 'range', 'Time range must be one of 24h, 7d, 30d or 90d');
  });
});

describe('GET /api/analytics/performance', () => {
  it('ranks phones and VAs by tasks, with rounded success shares and VA hours, five at most', async () => {
    const operator = await signUp(t.app);
    const va = await inviteVa(t.app, operator, 'Ana Busy');
    const idle = await inviteVa(t.app, operator, 'Zed Idle');
    const phone = await buildDevice(operator, { name: 'Phone A', assignedToId: va.user!.id });
    await t.db
      .updateTable('devices')
      .set({ sessionTime: 5 * 3600 + 1900 })
      .where('id', '=', phone.id)
      .execute();
    await tasks(operator, ['completed', 'completed', 'pending'], { deviceId: phone.id });
    for (let n = 1; n <= 5; n += 1) await buildDevice(operator, { name: `Spare ${n}` });

    const answer = await operator.get<Performance>('/api/analytics/performance');
    expectStatus(answer, 200);
    expect(answer.body.devices).toHaveLength(5);
    expect(answer.body.devices[0]).toEqual({ deviceId: phone.id, name: 'Phone A', totalTasks: 3, completedTasks: 2, successRate: 67 });
    expect(answer.body.devices.slice(1).map((row) => row.name)).toEqual(['Spare 1', 'Spare 2', 'Spare 3', 'Spare 4']);
    expect(answer.body.vas).toEqual([
      { userId: va.user!.id, name: 'Ana Busy', totalTasks: 3, completedTasks: 2, successRate: 67, hours: 6 },
      { userId: idle.user!.id, name: 'Zed Idle', totalTasks: 0, completedTasks: 0, successRate: 0, hours: 0 },
    ]);

    const oldTask = (await operator.get<{ id: string }[]>(`/api/tasks?deviceId=${phone.id}`)).body[0]!;
    await t.db
      .updateTable('tasks')
      .set({ createdAt: new Date(Date.now() - 3 * DAY) })
      .where('id', '=', oldTask.id)
      .execute();
    const recent = await operator.get<Performance>('/api/analytics/performance?range=24h');
    expect(recent.body.devices[0]).toMatchObject({ deviceId: phone.id, totalTasks: 2 });
  });
});
