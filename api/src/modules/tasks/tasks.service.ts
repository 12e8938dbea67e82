/**
 * Tasks: who they go to, and how their status may move. Work given to a phone goes to the VA
 * assigned to that phone unless someone is named; a VA moves only the status of their own tasks.
 */
import type { TaskRow, TaskStatus } from '@farm/sql';
import { taskTransitions, type CreateTaskBody, type UpdateTaskBody } from '../../contracts/index.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Outbox } from '../../realtime/outbox.ts';
import { assertMember, assertOwned } from '../../shared/refs.ts';
import { serialize } from '../../shared/serialize.ts';
import type { Actor, Tx } from '../../shared/types.ts';
import { recordActivity } from '../activities/activities.queries.ts';
import { settlePostOfTask, settleRunOfTask } from '@farm/workers';

type TaskInput = Omit<CreateTaskBody, 'deadline'> & { deadline?: string | null | undefined };

async function resolveAssignee(tx: Tx, actor: Actor, deviceId: string | null | undefined, assignedToId: string | null | undefined) {
  if (deviceId) await assertOwned(tx, 'devices', actor.workspaceId, deviceId, 'deviceId');
  if (assignedToId) return (await assertMember(tx, actor.workspaceId, assignedToId, 'assignedToId')).id;
  if (assignedToId === undefined && deviceId) {
    const device = await tx.selectFrom('devices').select('assignedToId').where('id', '=', deviceId).executeTakeFirstOrThrow();
    return device.assignedToId;
  }
  return null;
}

export async function createTask(tx: Tx, actor: Actor, body: TaskInput, outbox: Outbox): Promise<TaskRow> {
  const assignedToId = await resolveAssignee(tx, actor, body.deviceId, body.assignedToId);
  const row = await tx
    .insertInto('tasks')
    .values({
      workspaceId: actor.workspaceId,
      title: body.title,
      description: body.description ?? null,
      type: body.type,
      priority: body.priority,
      deviceId: body.deviceId ?? null,
      assignedToId,
      deadline: body.deadline ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  outbox.add('task.created', serialize(row));
  if (assignedToId) outbox.add('task.assigned', serialize(row), assignedToId);
  await recordActivity(
    tx,
    { workspaceId: actor.workspaceId, userId: actor.userId, action: `Task "${row.title}" created`, deviceId: row.deviceId, type: 'info' },
    { action: 'task.created', entityType: 'task', entityId: row.id },
    outbox,
  );
  return row;
}

export async function updateTask(tx: Tx, actor: Actor, id: string, body: Omit<UpdateTaskBody, 'deadline'> & { deadline?: string | null | undefined }, outbox: Outbox): Promise<TaskRow> {
  const before = await tx.selectFrom('tasks').selectAll().where('id', '=', id).where('workspaceId', '=', actor.workspaceId).forUpdate().executeTakeFirst();
  if (!before) throw notFound();
  if (actor.role === 'va') {
    if (before.assignedToId !== actor.userId) throw new AppError(403, 'You can only update tasks assigned to you');
    const allowed = new Set(['status']);
    const other = Object.keys(body).find((key) => !allowed.has(key) && body[key as keyof typeof body] !== undefined);
    if (other) throw new AppError(403, `A virtual assistant may change only a task's status, not ${other}`);
  }
  const changes: Partial<Record<string, unknown>> = {};
  for (const key of ['title', 'description', 'type', 'priority', 'deadline'] as const) {
    if (body[key] !== undefined) changes[key] = body[key];
  }
  if (body.deviceId !== undefined || body.assignedToId !== undefined) {
    if (body.deviceId !== undefined) changes.deviceId = body.deviceId;
    changes.assignedToId =
      body.assignedToId !== undefined || body.deviceId
        ? await resolveAssignee(tx, actor, body.deviceId ?? null, body.assignedToId)
        : before.assignedToId;
  }
  const status = body.status;
  if (status !== undefined && status !== before.status) {
    if (!taskTransitions[before.status].includes(status)) {
      throw new AppError(409, `A ${before.status} task cannot become ${status}`);
    }
    const now = new Date();
    changes.status = status;
    if (status === 'in-progress') changes.startedAt = before.startedAt ?? now;
    if (status === 'completed' || status === 'failed') changes.completedAt = now;
    if (status === 'pending') changes.completedAt = null;
  }
  // Nothing to change (an empty body, the same status): an UPDATE with no SET is invalid SQL.
  if (Object.keys(changes).length === 0) return before;
  const row = await tx.updateTable('tasks').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  outbox.add('task.updated', serialize(row));
  if (row.assignedToId && row.assignedToId !== before.assignedToId) {
    outbox.add('task.assigned', serialize(row), row.assignedToId);
    await recordActivity(tx, { workspaceId: actor.workspaceId, userId: actor.userId, action: `Task "${row.title}" assigned`, deviceId: row.deviceId, type: 'info' }, { action: 'task.assigned', entityType: 'task', entityId: id, data: { assignedToId: row.assignedToId } }, outbox);
  }
  if (status === 'completed' || status === 'failed') {
    const post = await settlePostOfTask(tx, id, status);
    if (post) outbox.add('post.updated', serialize(post));
    await settleRunOfTask(tx, id, status);
  }
  if (status !== undefined && status !== before.status) {
    await recordActivity(
      tx,
      { workspaceId: actor.workspaceId, userId: actor.userId, action: statusAction(row.title, status), deviceId: row.deviceId, type: statusType(status) },
      { action: 'task.status', entityType: 'task', entityId: id, data: { from: before.status, to: status } },
      outbox,
    );
  }
  return row;
}

function statusAction(title: string, status: TaskStatus): string {
  const verb = { pending: 'returned to pending', 'in-progress': 'started', completed: 'completed', failed: 'failed' }[status];
  return `Task "${title}" ${verb}`;
}

function statusType(status: TaskStatus) {
  return status === 'completed' ? ('success' as const) : status === 'failed' ? ('error' as const) : ('info' as const);
}
