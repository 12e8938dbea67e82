/**
 * Bulk actions on tasks, phones and posts: one request, one transaction, a result per item, nothing written
 * unless every item is allowed; ids or the list's filter.
 */
import { describe, expect, it } from 'vitest';
import type { BulkResult, Post, Task } from '@farm/contracts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { buildAccount, buildDevice, buildPost, buildSession, buildTask } from '../helpers/factories.ts';
import { appWithPeople } from '../helpers/file-app.ts';

const { t, operator, va, stranger, anonymous } = await appWithPeople();

const inADay = () => new Date(Date.now() + 86_400_000).toISOString();

describe('POST /api/tasks/bulk', () => {
  it('assigns many tasks to a VA through the task rules, with an audit entry each', async () => {
    const tasks = [await buildTask(operator), await buildTask(operator), await buildTask(operator)];
    const answer = await operator.post<BulkResult>('/api/tasks/bulk', {
      ids: tasks.map((task) => task.id),
      action: 'update',
      changes: { assignedToId: va.user!.id },
    });
    expectStatus(answer, 200);
    expect(answer.body).toEqual({ results: tasks.map((task) => ({ id: task.id, ok: true })) });
    for (const task of tasks) expect((await operator.get<Task>(`/api/tasks/${task.id}`)).body.assignedToId).toBe(va.user!.id);
    const audit = await t.db
      .selectFrom('auditLog')
      .select('entityId')
      .where('action', '=', 'task.assigned')
      .where(
        'entityId',
        'in',
        tasks.map((task) => task.id),
      )
      .execute();
    expect(audit).toHaveLength(3);
  });

  it('writes nothing when any item is refused, and says which', async () => {
    const mine = await buildTask(operator, { priority: 'low' });
    const theirs = await buildTask(stranger, { priority: 'low' });
    const answer = await operator.post<BulkResult & { error: string }>('/api/tasks/bulk', {
      ids: [mine.id, theirs.id, 'not-an-id'],
      action: 'update',
      changes: { priority: 'high' },
    });
    expectStatus(answer, 409);
    expect(answer.body).toEqual({
      error: 'Nothing was changed: 2 of 3 items were refused',
      results: [
        { id: mine.id, ok: true },
        { id: theirs.id, ok: false, error: 'Not found' },
        { id: 'not-an-id', ok: false, error: 'Not found' },
      ],
    });
    expect((await operator.get<Task>(`/api/tasks/${mine.id}`)).body.priority).toBe('low');
    expect((await stranger.get<Task>(`/api/tasks/${theirs.id}`)).body.priority).toBe('low');
  });

  it('takes the list filter instead of ids, and deletes', async () => {
    const device = await buildDevice(operator, { name: 'Filter phone' });
    const onDevice = [await buildTask(operator, { deviceId: device.id }), await buildTask(operator, { deviceId: device.id })];
    const other = await buildTask(operator);
    const answer = await operator.post<BulkResult>('/api/tasks/bulk', { filter: { deviceId: device.id }, action: 'delete' });
    expectStatus(answer, 200);
    expect(answer.body.results.map((result) => result.id).sort()).toEqual(onDevice.map((task) => task.id).sort());
    for (const task of onDevice) expectStatus(await operator.get(`/api/tasks/${task.id}`), 404);
    expectStatus(await operator.get(`/api/tasks/${other.id}`), 200);
    expectFieldError(await operator.post('/api/tasks/bulk', { filter: { deviceId: device.id }, action: 'delete' }), 'filter', 'Filter matches no items');
  });

  it('cancels open tasks, and refuses bodies it cannot act on', async () => {
    const cancelled = await buildTask(operator);
    const answer = await operator.post<BulkResult>('/api/tasks/bulk', { ids: [cancelled.id], action: 'cancel' });
    expectStatus(answer, 200);
    expect(answer.body.results).toEqual([{ id: cancelled.id, ok: true }]);
    expect((await operator.get<{ status: string }>(`/api/tasks/${cancelled.id}`)).body.status).toBe('cancelled');
    const task = await buildTask(operator);
    expectFieldError(await operator.post('/api/tasks/bulk', { action: 'delete' }), 'ids', 'Give exactly one of ids or filter');
    expectFieldError(await operator.post('/api/tasks/bulk', { ids: [task.id], filter: {}, action: 'delete' }), 'ids', 'Give exactly one of ids or filter');
    expectFieldError(await operator.post('/api/tasks/bulk', { ids: [], action: 'delete' }), 'ids', 'Choose at least one item');
    expectFieldError(await operator.post('/api/tasks/bulk', { ids: [task.id], action: 'update', changes: {} }), 'changes', 'Name at least one change');
    expectFieldError(
      await operator.post('/api/tasks/bulk', { ids: [task.id], action: 'update', changes: { priority: 'urgent' } }),
      'changes.priority',
      'Priority must be one of high, medium or low',
    );
    const unknownAction = await operator.post('/api/tasks/bulk', { ids: [task.id], action: 'explode' });
    expectStatus(unknownAction, 400);
    expect(unknownAction.body.details[0].field).toBe('action');
    expectFieldError(
      await operator.post('/api/tasks/bulk', { filter: { status: 'lost' }, action: 'delete' }),
      'filter.status',
      'Status must be one of pending, in-progress, completed, failed or cancelled',
    );
    expectStatus(await operator.get(`/api/tasks/${task.id}`), 200);
  });

  it('is the operator’s: a VA gets 403 and a visitor 401', async () => {
    const task = await buildTask(operator);
    expectError(await va.post('/api/tasks/bulk', { ids: [task.id], action: 'delete' }), 403, 'You do not have permission to do this');
    expectError(await anonymous.post('/api/tasks/bulk', { ids: [task.id], action: 'delete' }), 401, 'Not signed in');
    expectStatus(await operator.get(`/api/tasks/${task.id}`), 200);
  });
});

describe('POST /api/devices/bulk', () => {
  it('assigns a VA to many phones, sends commands and deletes', async () => {
    const phones = [await buildDevice(operator, { name: 'Bulk A' }), await buildDevice(operator, { name: 'Bulk B' })];
    const ids = phones.map((phone) => phone.id);
    expectStatus(await operator.post('/api/devices/bulk', { ids, action: 'update', changes: { assignedToId: va.user!.id } }), 200);
    const rows = await t.db.selectFrom('devices').select('assignedToId').where('id', 'in', ids).execute();
    expect(rows.map((row) => row.assignedToId)).toEqual([va.user!.id, va.user!.id]);

    expect(
      (await operator.post<BulkResult>('/api/devices/bulk', { ids, action: 'command', command: 'screenshot' })).body.results.every((result) => result.ok),
    ).toBe(true);
    const session = await buildSession(operator, phones[0]!.id);
    expectStatus(await operator.post('/api/devices/bulk', { ids: [phones[0]!.id], action: 'command', command: 'restart_session' }), 200);
    const open = await t.db.selectFrom('sessions').select(['id']).where('deviceId', '=', phones[0]!.id).where('endedAt', 'is', null).execute();
    expect(open).toHaveLength(1);
    expect(open[0]!.id).not.toBe(session.id);
    expectFieldError(
      await operator.post('/api/devices/bulk', { ids, action: 'command', command: 'self_destruct' }),
      'command',
      'Command must be one of screenshot or restart_session',
    );

    expectStatus(await operator.post('/api/devices/bulk', { filter: { search: 'Bulk ' }, action: 'delete' }), 200);
    expect(await t.db.selectFrom('devices').select('id').where('id', 'in', ids).execute()).toEqual([]);
  });

  it('refuses an unknown VA for every phone and changes none', async () => {
    const phone = await buildDevice(operator);
    const answer = await operator.post<BulkResult>('/api/devices/bulk', { ids: [phone.id], action: 'update', changes: { assignedToId: stranger.user!.id } });
    expectStatus(answer, 409);
    expect(answer.body.results).toEqual([{ id: phone.id, ok: false, error: 'Assignee must be an active member of this workspace' }]);
    expectError(await va.post('/api/devices/bulk', { ids: [phone.id], action: 'delete' }), 403, 'You do not have permission to do this');
  });
});

describe('POST /api/posts/bulk', () => {
  it('moves scheduled posts by an offset, unschedules and deletes; a draft has no schedule to move', async () => {
    const account = await buildAccount(operator, { status: 'active' });
    const at = inADay();
    const scheduled = [
      await buildPost(operator, account.id, { status: 'scheduled', scheduledAt: at }),
      await buildPost(operator, account.id, { status: 'scheduled', scheduledAt: at }),
    ];
    const ids = scheduled.map((post) => post.id);
    const moved = await operator.post<BulkResult>('/api/posts/bulk', { ids, action: 'reschedule', offsetMinutes: 90 });
    expectStatus(moved, 200);
    for (const id of ids) expect((await operator.get<Post>(`/api/posts/${id}`)).body.scheduledAt).toBe(new Date(Date.parse(at) + 90 * 60_000).toISOString());

    const draft = await buildPost(operator, account.id);
    const refused = await operator.post<BulkResult>('/api/posts/bulk', { ids: [...ids, draft.id], action: 'reschedule', offsetMinutes: -30 });
    expectStatus(refused, 409);
    expect(refused.body.results.at(-1)).toEqual({ id: draft.id, ok: false, error: 'A draft post has no schedule to move' });
    expect((await operator.get<Post>(`/api/posts/${ids[0]}`)).body.scheduledAt).toBe(new Date(Date.parse(at) + 90 * 60_000).toISOString());

    const past = await operator.post<BulkResult>('/api/posts/bulk', { ids, action: 'reschedule', offsetMinutes: -3 * 24 * 60 });
    expect(past.body.results[0]).toEqual({ id: ids[0], ok: false, error: 'Schedule Date & Time must be in the future' });

    expectStatus(await operator.post('/api/posts/bulk', { ids, action: 'update', changes: { status: 'draft' } }), 200);
    for (const id of ids) expect((await operator.get<Post>(`/api/posts/${id}`)).body).toMatchObject({ status: 'draft', scheduledAt: null });
    expectStatus(await operator.post('/api/posts/bulk', { filter: { accountId: account.id }, action: 'delete' }), 200);
    expect((await operator.get<Post[]>(`/api/posts?accountId=${account.id}`)).body).toEqual([]);
  });

  it('refuses an offset of zero or a fraction', async () => {
    const account = await buildAccount(operator, { status: 'active' });
    const post = await buildPost(operator, account.id, { status: 'scheduled', scheduledAt: inADay() });
    expectFieldError(
      await operator.post('/api/posts/bulk', { ids: [post.id], action: 'reschedule', offsetMinutes: 0 }),
      'offsetMinutes',
      'Offset must not be 0 minutes',
    );
    expectFieldError(
      await operator.post('/api/posts/bulk', { ids: [post.id], action: 'reschedule', offsetMinutes: 1.5 }),
      'offsetMinutes',
      'Offset must be a whole number of minutes',
    );
    expectError(await anonymous.post('/api/posts/bulk', { ids: [post.id], action: 'delete' }), 401, 'Not signed in');
  });
});
