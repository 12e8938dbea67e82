/**
 * Tasks as people move them: who they go to, and how their status may move. Work given to a phone goes to the VA
 * assigned to that phone unless someone is named; a VA moves only the status of their own tasks. Every status move
 * goes through the task lifecycle, so a person and a phone never both settle a task, and a phone holding an attempt
 * of a task a person took over, moved or settled is told to drop it. Each write is one `write()` (a bulk action one for
 * all its tasks, each through the same `…In(tx, …)` as a single task's).
 */
import type { TaskRow, TaskStatus } from '@farm/sql';
import { answerUnconfirmed, cancelTasks, createTasks, lockQuestion, moveTaskByPerson, Outboxes, withdrawTask } from '@farm/workers';
import { taskTransitions, type CreateTaskBody, type TaskAnswerBody, type TaskBulkBody, type UpdateTaskBody } from '@farm/contracts';
import { AppError, badRequest, conflict, notFound } from '../../errors.ts';
import { FUTURE_GRACE_MS, isFuture } from '../../shared/time.ts';
import { assertMember, assertOwned } from '../../shared/refs.ts';
import { serialize } from '../../shared/serialize.ts';
import type { Actor, Tx } from '../../shared/types.ts';
import { deleteTaskRow, memberName, taskIdsMatching } from './tasks.queries.ts';
import { runBulk, selectIds } from '../../events/bulk.ts';
import { write, type WriteContext, type WriteOutbox } from '../../events/write.ts';

type TaskInput = Omit<CreateTaskBody, 'deadline'> & { deadline?: string | null | undefined };
type TaskChanges = Omit<UpdateTaskBody, 'deadline'> & { deadline?: string | null | undefined };

/** Minutes a task made by a person is expected to take on a phone. */
const MANUAL_TASK_SECONDS = 10 * 60;

async function resolveAssignee(tx: Tx, actor: Actor, deviceId: string | null | undefined, assignedToId: string | null | undefined) {
  if (deviceId) await assertOwned(tx, 'devices', actor.workspaceId, deviceId, 'deviceId');
  if (assignedToId) return (await assertMember(tx, actor.workspaceId, assignedToId, 'assignedToId')).id;
  if (assignedToId === undefined && deviceId) {
    const device = await tx.selectFrom('devices').select('assignedToId').where('id', '=', deviceId).executeTakeFirstOrThrow();
    return device.assignedToId;
  }
  return null;
}

/** A filter's `assignedToId: 'me'` names the person asking. */
export function withMe<T extends { assignedToId?: string | undefined }>(query: T, userId: string): T {
  return query.assignedToId === 'me' ? { ...query, assignedToId: userId } : query;
}

const deadlineInPast = () => badRequest('deadline', 'Deadline must be in the future');

/** A task made by a person; it goes to the VA of its phone unless the body names someone. */
export function createTask(ctx: WriteContext, actor: Actor, body: TaskInput): Promise<TaskRow> {
  return write(ctx, actor.workspaceId, async (tx, outbox) => {
    if (body.deadline && !isFuture(body.deadline)) throw deadlineInPast();
    const assignedToId = await resolveAssignee(tx, actor, body.deviceId, body.assignedToId);
    const [row] = await createTasks(
      tx,
      [
        {
          workspaceId: actor.workspaceId,
          title: body.title,
          description: body.description ?? null,
          type: body.type,
          priority: body.priority,
          deviceId: body.deviceId ?? null,
          assignedToId,
          deadline: body.deadline ?? null,
          work: { kind: 'manual', description: body.description ?? null },
          expectedSeconds: MANUAL_TASK_SECONDS,
        },
      ],
      Outboxes.of(outbox),
    );
    await outbox.record(
      { userId: actor.userId, action: `Task "${row!.title}" created`, deviceId: row!.deviceId, type: 'info' },
      { action: 'task.created', entityType: 'task', entityId: row!.id },
    );
    return row!;
  });
}

/** A person's change to a task (a VA's: only the status of their own). Answers the task as it stands. */
export function updateTask(ctx: WriteContext, actor: Actor, id: string, body: TaskChanges): Promise<TaskRow> {
  return write(ctx, actor.workspaceId, (tx, outbox) => updateTaskIn(tx, actor, id, body, outbox));
}

/** `updateTask` inside the caller's write, as a bulk action changes each of its tasks. */
export async function updateTaskIn(tx: Tx, actor: Actor, id: string, body: TaskChanges, outbox: WriteOutbox): Promise<TaskRow> {
  const before = await tx.selectFrom('tasks').selectAll().where('id', '=', id).where('workspaceId', '=', actor.workspaceId).forUpdate().executeTakeFirst();
  if (!before) throw notFound();
  if (actor.role === 'va') {
    if (before.assignedToId !== actor.userId) throw new AppError(403, 'You can only update tasks assigned to you');
    const allowed = new Set(['status']);
    const other = Object.keys(body).find((key) => !allowed.has(key) && body[key as keyof typeof body] !== undefined);
    if (other) throw new AppError(403, `A virtual assistant may change only a task's status, not ${other}`);
  }
  const status = body.status;
  if (status !== undefined && status !== before.status && !taskTransitions[before.status].includes(status)) {
    throw new AppError(409, `A ${before.status} task cannot become ${status}`);
  }
  // A deadline that passed may stay as it is; a new one must lie ahead.
  if (body.deadline && body.deadline !== before.deadline?.toISOString() && !isFuture(body.deadline)) throw deadlineInPast();
  let current = before;
  const changes: Partial<Record<string, unknown>> = {};
  for (const key of ['title', 'description', 'type', 'priority', 'deadline'] as const) {
    if (body[key] !== undefined) changes[key] = body[key];
  }
  if (body.deviceId !== undefined || body.assignedToId !== undefined) {
    if (body.deviceId !== undefined && body.deviceId !== before.deviceId) {
      // Moved to another phone: the attempt out on the old one is taken back.
      current = await withdrawTask(tx, current, 'The task was moved to another phone', outbox);
      changes.deviceId = body.deviceId;
    }
    changes.assignedToId =
      body.assignedToId !== undefined || body.deviceId ? await resolveAssignee(tx, actor, body.deviceId ?? null, body.assignedToId) : before.assignedToId;
  }
  if (Object.keys(changes).length > 0) {
    current = await tx.updateTable('tasks').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
    outbox.add('task.updated', serialize(current));
    if (changes.deviceId && current.status === 'pending') outbox.internal('device.wake', { deviceId: current.deviceId! });
  }
  if (current.assignedToId && current.assignedToId !== before.assignedToId) {
    outbox.add('task.assigned', serialize(current), current.assignedToId);
    await outbox.record(
      { userId: actor.userId, action: `Task "${current.title}" assigned`, deviceId: current.deviceId, type: 'info' },
      { action: 'task.assigned', entityType: 'task', entityId: id, data: { assignedToId: current.assignedToId } },
    );
  }
  if (status !== undefined && status !== before.status) {
    current = await moveTaskByPerson(tx, current, status, outbox);
    await outbox.record(
      { userId: actor.userId, action: statusAction(current.title, status), deviceId: current.deviceId, type: statusType(status) },
      { action: 'task.status', entityType: 'task', entityId: id, data: { from: before.status, to: status } },
    );
  }
  return current;
}

/** Deletes a task; an attempt out on a phone is cancelled first (the phone is told), with what that means for its post. */
export async function deleteTask(ctx: WriteContext, actor: Actor, id: string): Promise<void> {
  await write(ctx, actor.workspaceId, (tx, outbox) => deleteTaskIn(tx, actor, id, outbox));
}

/** `deleteTask` inside the caller's write, as a bulk action deletes each of its tasks. */
export async function deleteTaskIn(tx: Tx, actor: Actor, id: string, outbox: WriteOutbox): Promise<void> {
  const task = await tx.selectFrom('tasks').select('id').where('id', '=', id).where('workspaceId', '=', actor.workspaceId).forUpdate().executeTakeFirst();
  if (!task) throw notFound();
  await cancelTasks(tx, { taskIds: [id] }, { message: 'The task was deleted', cause: 'person' }, Outboxes.of(outbox));
  const removed = await deleteTaskRow(tx, actor.workspaceId, id);
  if (!removed) throw notFound();
  outbox.add('task.deleted', { id: removed.id });
  await outbox.record(
    { userId: actor.userId, action: `Task "${removed.title}" deleted`, deviceId: removed.deviceId, type: 'warning' },
    { action: 'task.deleted', entityType: 'task', entityId: removed.id },
  );
}

/** Many tasks at once, each through the same rules as one: assign, reprioritise, cancel, delete; all or nothing. */
export function bulkTasks(ctx: WriteContext, actor: Actor, body: TaskBulkBody): ReturnType<typeof runBulk> {
  return runBulk(ctx, actor.workspaceId, async (tx, outbox) => ({
    ids: body.ids ?? (await selectIds(taskIdsMatching(tx, actor.workspaceId, withMe(body.filter ?? {}, actor.userId)))),
    apply: async (id) => {
      if (body.action === 'delete') return deleteTaskIn(tx, actor, id, outbox);
      // Cancelling goes through the lifecycle as one task's would: a phone holding one is told to drop it.
      if (body.action === 'cancel') return void (await updateTaskIn(tx, actor, id, { status: 'cancelled' }, outbox));
      await updateTaskIn(tx, actor, id, body.changes, outbox);
    },
  }));
}

function statusAction(title: string, status: TaskStatus): string {
  const verb = { pending: 'returned to pending', 'in-progress': 'started', completed: 'completed', failed: 'failed', cancelled: 'cancelled' }[status];
  return `Task "${title}" ${verb}`;
}

function statusType(status: TaskStatus) {
  return status === 'completed'
    ? ('success' as const)
    : status === 'failed'
      ? ('error' as const)
      : status === 'cancelled'
        ? ('warning' as const)
        : ('info' as const);
}

/** "2026-11-26 21:40 UTC": a time in a sentence. */
const inWords = (at: Date) => `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * A person answers the question a post its phone could not confirm left (`post_unconfirmed`): the VA holding the
 * task, or an operator. "up" publishes the post (at `publishedAt`, not in the future, not before the phone began
 * publishing it; else now); "not" sends it out again. An answer given already, or racing another, changes nothing.
 */
export function answerTask(ctx: WriteContext, actor: Actor, id: string, body: TaskAnswerBody) {
  return write(ctx, actor.workspaceId, async (tx, outbox) => {
    const publishedAt = body.publishedAt === undefined ? undefined : new Date(body.publishedAt);
    if (publishedAt && publishedAt.getTime() > Date.now() + FUTURE_GRACE_MS) throw badRequest('publishedAt', 'The time it went up cannot be in the future');
    const question = await lockQuestion(tx, actor.workspaceId, id);
    if (!question) throw notFound();
    if (actor.role === 'va' && question.assignedToId !== actor.userId) throw new AppError(403, 'You can only answer tasks assigned to you');
    const given = body.answer === 'up' ? { answer: 'up' as const, publishedAt } : { answer: 'not' as const };
    const verdict = await answerUnconfirmed(tx, question, given, { userId: actor.userId, name: await memberName(tx, actor.userId) }, Outboxes.of(outbox));
    switch (verdict.kind) {
      case 'answered':
        return { task: verdict.question, post: verdict.post ?? null };
      case 'not-found':
        throw notFound();
      case 'not-a-question':
        throw conflict('This task asks nothing to answer: only a check of a post its phone could not confirm takes "It is up" or "It is not".');
      case 'settled':
        throw conflict(`This question was already answered (the task is ${verdict.question.status}); nothing changed.`);
      case 'moved-on':
        throw conflict(
          `The post changed since its phone reported it${verdict.postStatus ? ` (it is ${verdict.postStatus} now)` : ' (it was deleted)'}; nothing to answer. Mark this task done or cancel it.`,
        );
      case 'too-early':
        throw badRequest('publishedAt', `The time it went up cannot be before the phone began publishing it (${inWords(verdict.earliest)})`);
    }
  });
}
