/** Tasks: who they go to, how their status may move, what a VA may do, the lists and their counts. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages, taskTransitions, type Task, type TaskStatus } from '@farm/contracts';
import { buildTestApp, inviteVa, signUp, type Client, type TestApp } from '../helpers/app.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { buildDevice, buildTask } from '../helpers/factories.ts';

let t: TestApp;
let operator: Client;
let va: Client;
let otherVa: Client;
beforeAll(async () => {
  t = await buildTestApp();
  operator = await signUp(t.app);
  va = await inviteVa(t.app, operator, 'Vera Assistant');
  otherVa = await inviteVa(t.app, operator, 'Otto Other');
});
afterAll(async () => {
  await t?.close();
});

const ids = (rows: { id: string }[]) => rows.map((row) => row.id);

/** Puts a fresh task into `status` through the moves a person makes. */
async function taskIn(status: TaskStatus): Promise<Task> {
  const task = await buildTask(operator);
  const path: Record<TaskStatus, TaskStatus[]> = {
    pending: [],
    'in-progress': ['in-progress'],
    completed: ['completed'],
    failed: ['failed'],
    cancelled: ['cancelled'],
  };
  for (const step of path[status]) expectStatus(await operator.patch(`/api/tasks/${task.id}`, { status: step }), 200);
  return (await operator.get<Task>(`/api/tasks/${task.id}`)).body;
}

describe('POST /api/tasks', () => {
  it('creates a pending task with its fields', async () => {
    const deadline = '2030-05-01T09:30:00.000Z';
    const answer = await operator.post<Task>('/api/tasks', { title: ' Post reel ', description: 'Spring drop', type: 'post', priority: 'high', deadline });
    expectStatus(answer, 201);
    expect(answer.body).toMatchObject({
      title: 'Post reel',
      description: 'Spring drop',
      type: 'post',
      priority: 'high',
      status: 'pending',
      deviceId: null,
      assignedToId: null,
      deadline,
      startedAt: null,
      completedAt: null,
    });
  });

  it("gives a task for a phone to that phone's VA", async () => {
    const device = await buildDevice(operator, { assignedToId: va.user!.id });
    const task = await buildTask(operator, { deviceId: device.id });
    expect(task.assignedToId).toBe(va.user!.id);
    expect(t.changes).toContainEqual(
      expect.objectContaining({ event: 'task.assigned', userId: va.user!.id, payload: expect.objectContaining({ id: task.id }) }),
    );
  });

  it('lets the operator name someone else, or nobody, for a phone with a VA', async () => {
    const device = await buildDevice(operator, { assignedToId: va.user!.id });
    expect((await buildTask(operator, { deviceId: device.id, assignedToId: otherVa.user!.id })).assignedToId).toBe(otherVa.user!.id);
    expect((await buildTask(operator, { deviceId: device.id, assignedToId: null })).assignedToId).toBeNull();
  });

  it.each([
    ['title', { title: '' }, 'Title is required'],
    ['type', { type: 'dance' }, 'Type must be one of post, engage, warmup or monitor'],
    ['priority', { priority: 'urgent' }, 'Priority must be one of high, medium or low'],
    ['deadline', { deadline: 'tomorrow' }, 'Deadline must be a date and time, like 2026-05-01T09:30:00Z'],
    ['deviceId', { deviceId: '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b' }, "Device must be one of this workspace's devices"],
    ['assignedToId', { assignedToId: '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b' }, 'Assignee must be an active member of this workspace'],
  ])('refuses a bad %s (%j)', async (field, overrides, message) => {
    expectFieldError(await operator.post('/api/tasks', { title: 'T', type: 'post', priority: 'low', ...overrides }), field, message);
  });

  it('refuses a missing type or priority', async () => {
    const answer = await operator.post<{ details: { field: string }[] }>('/api/tasks', { title: 'T' });
    expectStatus(answer, 400);
    expect(answer.body.details.map((detail) => detail.field)).toEqual(['type', 'priority']);
  });
});

describe('status moves', () => {
  const moves = (Object.keys(taskTransitions) as TaskStatus[]).flatMap((from) =>
    (['pending', 'in-progress', 'completed', 'failed'] as const)
      .filter((to) => to !== from)
      .map((to) => ({ from, to, allowed: taskTransitions[from].includes(to) })),
  );

  it.each(moves.filter((move) => move.allowed))('$from → $to is allowed', async ({ from, to }) => {
    const task = await taskIn(from);
    const answer = await operator.patch<Task>(`/api/tasks/${task.id}`, { status: to });
    expectStatus(answer, 200);
    expect(answer.body.status).toBe(to);
    if (to === 'completed' || to === 'failed') expect(Date.parse(answer.body.completedAt!)).toBeGreaterThan(Date.now() - 60_000);
    if (to === 'pending') expect(answer.body.completedAt).toBeNull();
    if (to === 'in-progress') expect(answer.body.startedAt).not.toBeNull();
  });

  it.each(moves.filter((move) => !move.allowed))('$from → $to is refused with 409', async ({ from, to }) => {
    const task = await taskIn(from);
    expectError(await operator.patch(`/api/tasks/${task.id}`, { status: to }), 409, `A ${from} task cannot become ${to}`);
    expect((await operator.get(`/api/tasks/${task.id}`)).body).toEqual(task);
  });

  it('answers the task unchanged for the same status or an empty body', async () => {
    const task = await taskIn('in-progress');
    const same = await operator.patch(`/api/tasks/${task.id}`, { status: 'in-progress' });
    expectStatus(same, 200);
    expect(same.body).toEqual(task);
    const empty = await operator.patch(`/api/tasks/${task.id}`, {});
    expectStatus(empty, 200);
    expect(empty.body).toEqual(task);
  });

  it('keeps the first start time when work resumes', async () => {
    const task = await taskIn('in-progress');
    await operator.patch(`/api/tasks/${task.id}`, { status: 'pending' });
    const again = await operator.patch<Task>(`/api/tasks/${task.id}`, { status: 'in-progress' });
    expect(again.body.startedAt).toBe(task.startedAt);
  });

  it('records a completed task as a success and a failed one as an error', async () => {
    const done = await buildTask(operator, { title: 'Finish me' });
    const broken = await buildTask(operator, { title: 'Break me' });
    await operator.patch(`/api/tasks/${done.id}`, { status: 'completed' });
    await operator.patch(`/api/tasks/${broken.id}`, { status: 'failed' });
    const activities = (await operator.get<{ action: string; type: string }[]>('/api/activities')).body;
    expect(activities).toContainEqual(expect.objectContaining({ action: 'Task "Finish me" completed', type: 'success' }));
    expect(activities).toContainEqual(expect.objectContaining({ action: 'Task "Break me" failed', type: 'error' }));
  });
});

describe('a VA and tasks', () => {
  it('moves the status of a task assigned to them', async () => {
    const task = await buildTask(operator, { assignedToId: va.user!.id });
    expect((await va.patch<Task>(`/api/tasks/${task.id}`, { status: 'in-progress' })).body.status).toBe('in-progress');
    const done = await va.patch<Task>(`/api/tasks/${task.id}`, { status: 'completed' });
    expectStatus(done, 200);
    expect(done.body.completedAt).not.toBeNull();
    expectError(await va.patch(`/api/tasks/${task.id}`, { status: 'pending' }), 409, 'A completed task cannot become pending');
  });

  it('changes nothing but the status', async () => {
    const task = await buildTask(operator, { assignedToId: va.user!.id });
    expectError(await va.patch(`/api/tasks/${task.id}`, { title: 'Mine now' }), 403, "A virtual assistant may change only a task's status, not title");
    expectError(
      await va.patch(`/api/tasks/${task.id}`, { status: 'completed', priority: 'low' }),
      403,
      "A virtual assistant may change only a task's status, not priority",
    );
    expectError(
      await va.patch(`/api/tasks/${task.id}`, { assignedToId: otherVa.user!.id }),
      403,
      "A virtual assistant may change only a task's status, not assignedToId",
    );
    expect((await operator.get(`/api/tasks/${task.id}`)).body).toEqual(task);
  });

  it("cannot touch another person's or an unassigned task", async () => {
    const others = await buildTask(operator, { assignedToId: otherVa.user!.id });
    const nobodys = await buildTask(operator);
    expectError(await va.patch(`/api/tasks/${others.id}`, { status: 'completed' }), 403, 'You can only update tasks assigned to you');
    expectError(await va.patch(`/api/tasks/${nobodys.id}`, { status: 'completed' }), 403, 'You can only update tasks assigned to you');
    expect((await operator.get(`/api/tasks/${others.id}`)).body.status).toBe('pending');
  });

  it('cannot create or delete tasks, but reads them', async () => {
    const task = await buildTask(operator);
    expectError(await va.post('/api/tasks', { title: 'T', type: 'post', priority: 'low' }), 403, messages.forbidden);
    expectError(await va.delete(`/api/tasks/${task.id}`), 403, messages.forbidden);
    expectStatus(await va.get(`/api/tasks/${task.id}`), 200);
  });
});

describe('reassigning', () => {
  it("moves a task to another phone and so to that phone's VA", async () => {
    const first = await buildDevice(operator, { assignedToId: va.user!.id });
    const second = await buildDevice(operator, { assignedToId: otherVa.user!.id });
    const task = await buildTask(operator, { deviceId: first.id });
    const moved = await operator.patch<Task>(`/api/tasks/${task.id}`, { deviceId: second.id });
    expectStatus(moved, 200);
    expect(moved.body).toMatchObject({ deviceId: second.id, assignedToId: otherVa.user!.id });
    const unassigned = await operator.patch<Task>(`/api/tasks/${task.id}`, { assignedToId: null });
    expect(unassigned.body).toMatchObject({ deviceId: second.id, assignedToId: null });
    const cleared = await operator.patch<Task>(`/api/tasks/${task.id}`, { deviceId: null, title: 'Renamed' });
    expect(cleared.body).toMatchObject({ deviceId: null, assignedToId: null, title: 'Renamed' });
  });
});

describe('lists', () => {
  it('lists newest first, filters, and counts the tabs', async () => {
    const owner = await signUp(t.app);
    const helper = await inviteVa(t.app, owner);
    const a = await buildTask(owner, { title: 'Engage hashtags', type: 'engage', priority: 'high', assignedToId: helper.user!.id });
    const b = await buildTask(owner, { title: 'Post carousel', type: 'post', priority: 'low' });
    const c = await buildTask(owner, { title: 'Post story', type: 'post', priority: 'high' });
    await owner.patch(`/api/tasks/${b.id}`, { status: 'completed' });
    await owner.patch(`/api/tasks/${c.id}`, { status: 'in-progress' });

    expect(ids((await owner.get('/api/tasks')).body)).toEqual([c.id, b.id, a.id]);
    expect(ids((await owner.get('/api/tasks?type=post')).body)).toEqual([c.id, b.id]);
    expect(ids((await owner.get('/api/tasks?priority=high')).body)).toEqual([c.id, a.id]);
    expect(ids((await owner.get('/api/tasks?status=completed')).body)).toEqual([b.id]);
    expect(ids((await owner.get('/api/tasks?search=post')).body)).toEqual([c.id, b.id]);
    expect(ids((await helper.get('/api/tasks?assignedToId=me')).body)).toEqual([a.id]);
    expect(ids((await owner.get(`/api/tasks?assignedToId=${helper.user!.id}`)).body)).toEqual([a.id]);

    expect((await owner.get('/api/tasks/counts')).body).toEqual({ all: 3, pending: 1, inProgress: 1, completed: 1, failed: 0, cancelled: 0 });
    expect((await owner.get('/api/tasks/counts?type=post')).body).toEqual({ all: 2, pending: 0, inProgress: 1, completed: 1, failed: 0, cancelled: 0 });
    expect((await helper.get('/api/tasks/counts?assignedToId=me')).body).toEqual({ all: 1, pending: 1, inProgress: 0, completed: 0, failed: 0, cancelled: 0 });
  });

  it('reads one task; unknown and malformed ids are 404', async () => {
    const task = await buildTask(operator);
    expect((await operator.get(`/api/tasks/${task.id}`)).body).toEqual(task);
    expectError(await operator.get('/api/tasks/6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b'), 404, messages.notFound);
    expectError(await operator.get('/api/tasks/42'), 404, messages.notFound);
  });
});

describe('DELETE /api/tasks/:id', () => {
  it('removes the task once', async () => {
    const task = await buildTask(operator);
    expectStatus(await operator.delete(`/api/tasks/${task.id}`), 204);
    expectError(await operator.get(`/api/tasks/${task.id}`), 404, messages.notFound);
    expectError(await operator.delete(`/api/tasks/${task.id}`), 404, messages.notFound);
  });
});
