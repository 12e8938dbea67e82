/**
 * A live session on a phone: started, paused (isActive false, not ended), resumed, stopped (ended for good).
 * `duration` counts only running time; while running, the seconds since `activeSince` are added on read. Each change
 * is one `write()`, and the phone hears its command once it has committed; starting and stopping are also
 * `…In(tx, …)` inside a caller's write (a device's session restarted).
 */
import { sql } from 'kysely';
import type { UpdateSessionBody } from '@farm/contracts';
import { deviceColumns, isUuid, type SessionRow } from '@farm/sql';
// A phone's status follows a person's session only while its agent is connected (the rule: devices/status.ts there).
import { whileConnected } from '@farm/workers';
import type { Agents } from '../../agents/agents.socket.ts';
import { AppError, badRequest, notFound } from '../../errors.ts';
import type { Actor, Db, Tx } from '../../shared/types.ts';
import { serialize } from '../../shared/serialize.ts';
import { write, type WriteContext, type WriteOutbox } from '../../events/write.ts';
import { assertOwned } from '../../shared/refs.ts';
import { type decodeCursor, pastCursor } from '../../shared/paging.ts';

/** What a session starts with: its phone, and the task (or free-text work) it starts on. */
type SessionStart = { deviceId: string; taskId?: string | null | undefined; currentTask?: string | null | undefined };

export function liveDuration(row: Pick<SessionRow, 'duration' | 'isActive' | 'activeSince'>, now = Date.now()): number {
  if (!row.isActive || !row.activeSince) return row.duration;
  return row.duration + Math.max(0, Math.floor((now - row.activeSince.getTime()) / 1000));
}

export function toSession(row: SessionRow) {
  return {
    id: row.id,
    deviceId: row.deviceId,
    vaId: row.vaId,
    taskId: row.taskId,
    currentTask: row.currentTask,
    duration: liveDuration(row),
    screenshots: row.screenshots,
    isActive: row.isActive,
    startedAt: row.startedAt.toISOString(),
    endedAt: row.endedAt?.toISOString() ?? null,
  };
}

/** A VA works only sessions on the phone assigned to them. */
export async function assertMayWorkDevice(db: Db, actor: Actor, deviceId: string): Promise<void> {
  if (actor.role === 'operator') return;
  const device = await db
    .selectFrom('devices')
    .select('assignedToId')
    .where('id', '=', deviceId)
    .where('workspaceId', '=', actor.workspaceId)
    .executeTakeFirst();
  if (!device) throw notFound();
  if (device.assignedToId !== actor.userId) throw new AppError(403, 'You can only work sessions on the device assigned to you');
}

export async function findSessionForUpdate(tx: Tx, workspaceId: string, id: string) {
  const row = await tx.selectFrom('sessions').selectAll().where('id', '=', id).where('workspaceId', '=', workspaceId).forUpdate().executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

/** Starts a session on a phone of the workspace (a VA's, on their own phone). Answers the session. */
export function startSession(ctx: WriteContext, actor: Actor, input: SessionStart): Promise<SessionRow> {
  return write(ctx, actor.workspaceId, (tx, outbox) => startSessionIn(tx, actor, input, outbox));
}

/** `startSession` inside the caller's write. */
export async function startSessionIn(tx: Tx, actor: Actor, input: SessionStart, outbox: WriteOutbox): Promise<SessionRow> {
  // An id that cannot exist is refused like an unknown one, before it reaches the database as a malformed uuid.
  const device = isUuid(input.deviceId)
    ? await tx
        .selectFrom('devices')
        .select(['id', 'name', 'assignedToId'])
        .where('id', '=', input.deviceId)
        .where('workspaceId', '=', actor.workspaceId)
        .forUpdate()
        .executeTakeFirst()
    : undefined;
  if (!device) throw badRequest('deviceId', "Device must be one of this workspace's devices");
  if (actor.role === 'va' && device.assignedToId !== actor.userId) throw new AppError(403, 'You can only work sessions on the device assigned to you');
  const running = await tx.selectFrom('sessions').select('id').where('deviceId', '=', device.id).where('endedAt', 'is', null).executeTakeFirst();
  if (running) throw new AppError(409, 'This device already has a session; stop it first');
  let currentTask = input.currentTask ?? null;
  if (input.taskId) {
    const task = isUuid(input.taskId)
      ? await tx.selectFrom('tasks').select('title').where('id', '=', input.taskId).where('workspaceId', '=', actor.workspaceId).executeTakeFirst()
      : undefined;
    if (!task) throw badRequest('taskId', "Task must be one of this workspace's tasks");
    currentTask ??= task.title;
  }
  const now = new Date();
  const row = await tx
    .insertInto('sessions')
    .values({
      workspaceId: actor.workspaceId,
      deviceId: device.id,
      vaId: device.assignedToId ?? (actor.role === 'va' ? actor.userId : null),
      taskId: input.taskId ?? null,
      currentTask,
      activeSince: now,
      startedAt: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const updatedDevice = await tx
    .updateTable('devices')
    .set({ status: whileConnected('busy'), lastActive: now })
    .where('id', '=', device.id)
    .returning(deviceColumns)
    .executeTakeFirstOrThrow();
  outbox.add('session.started', toSession(row));
  outbox.add('device.updated', serialize(updatedDevice));
  await outbox.record(
    { userId: actor.userId, action: `Session started on ${device.name}`, deviceId: device.id, type: 'info' },
    { action: 'session.started', entityType: 'session', entityId: row.id },
  );
  return row;
}

/** Pause (running → paused) or resume (paused → running); an ended session cannot change. */
export async function setSessionRunning(tx: Tx, actor: Actor, id: string, running: boolean, outbox: WriteOutbox): Promise<SessionRow> {
  const row = await findSessionForUpdate(tx, actor.workspaceId, id);
  await assertMayWorkDevice(tx, actor, row.deviceId);
  if (row.endedAt) throw new AppError(409, 'This session has ended');
  if (row.isActive === running) return row;
  const now = new Date();
  const updated = await tx
    .updateTable('sessions')
    .set(running ? { isActive: true, activeSince: now } : { isActive: false, activeSince: null, duration: liveDuration(row, now.getTime()) })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  const device = await tx
    .updateTable('devices')
    .set({ status: whileConnected(running ? 'busy' : 'idle'), lastActive: now })
    .where('id', '=', row.deviceId)
    .returning(deviceColumns)
    .executeTakeFirstOrThrow();
  outbox.add('session.updated', toSession(updated));
  outbox.add('device.updated', serialize(device));
  await outbox.record(
    { userId: actor.userId, action: `Session ${running ? 'resumed' : 'paused'} on ${device.name}`, deviceId: row.deviceId, type: running ? 'info' : 'warning' },
    undefined,
  );
  return updated;
}

/** Ends a session for good; the phone is told to stop once the write has committed. Answers the session. */
export async function stopSession(ctx: WriteContext & { agents?: Agents | undefined }, actor: Actor, id: string): Promise<SessionRow> {
  const row = await write(ctx, actor.workspaceId, (tx, outbox) => stopSessionIn(tx, actor, id, outbox));
  void ctx.agents?.command(row.deviceId, 'stop');
  return row;
}

/** `stopSession` inside the caller's write (which tells the phone what it must after commit); an ended session stays as it is. */
export async function stopSessionIn(tx: Tx, actor: Actor, id: string, outbox: WriteOutbox): Promise<SessionRow> {
  const row = await findSessionForUpdate(tx, actor.workspaceId, id);
  await assertMayWorkDevice(tx, actor, row.deviceId);
  if (row.endedAt) return row;
  const now = new Date();
  const duration = liveDuration(row, now.getTime());
  const updated = await tx
    .updateTable('sessions')
    .set({ isActive: false, activeSince: null, duration, endedAt: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  const device = await tx
    .updateTable('devices')
    .set({ status: whileConnected('online'), lastActive: now, sessionTime: sql<number>`session_time + ${duration}` })
    .where('id', '=', row.deviceId)
    .returning(deviceColumns)
    .executeTakeFirstOrThrow();
  outbox.add('session.ended', toSession(updated));
  outbox.add('device.updated', serialize(device));
  await outbox.record(
    { userId: actor.userId, action: `Session stopped on ${device.name}`, deviceId: row.deviceId, type: 'info' },
    { action: 'session.stopped', entityType: 'session', entityId: id, data: { duration } },
  );
  return updated;
}

/**
 * A person's change to a session: pause or resume it, and what it works on now (a task of the workspace). Answers the
 * session as it stands; the phone is told to pause or resume once the write has committed.
 */
export async function changeSession(
  ctx: WriteContext & { agents?: Agents | undefined },
  actor: Actor,
  id: string,
  body: UpdateSessionBody,
): Promise<SessionRow> {
  const row = await write(ctx, actor.workspaceId, async (tx, outbox) => {
    const { isActive, currentTask, taskId } = body;
    let current = isActive === undefined ? await findSessionForUpdate(tx, actor.workspaceId, id) : await setSessionRunning(tx, actor, id, isActive, outbox);
    if (currentTask === undefined && taskId === undefined) return current;
    await assertMayWorkDevice(tx, actor, current.deviceId);
    if (taskId) await assertOwned(tx, 'tasks', actor.workspaceId, taskId, 'taskId');
    current = await setSessionWork(tx, current.id, { currentTask, taskId });
    outbox.add('session.updated', toSession(current));
    return current;
  });
  const { isActive } = body;
  if (isActive !== undefined) void ctx.agents?.command(row.deviceId, isActive ? 'resume' : 'pause');
  return row;
}

export interface SessionFilter {
  active?: 'true' | 'false' | undefined;
  deviceId?: string | undefined;
  vaId?: string | undefined;
  cursor: ReturnType<typeof decodeCursor>;
  limit: number;
}

/** A page of the workspace's sessions, newest first; one row more than the limit says another page follows. */
export function listSessions(db: Db, workspaceId: string, filter: SessionFilter) {
  const { active, deviceId, vaId, cursor, limit } = filter;
  let query = db.selectFrom('sessions').selectAll().where('workspaceId', '=', workspaceId);
  if (active === 'true') query = query.where('endedAt', 'is', null);
  if (active === 'false') query = query.where('endedAt', 'is not', null);
  if (deviceId) query = query.where('deviceId', '=', deviceId);
  if (vaId) query = query.where('vaId', '=', vaId);
  if (cursor) {
    query = query.where(pastCursor(cursor, 'newest', 'started_at'));
  }
  return query
    .orderBy('startedAt', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
}

export function findSession(db: Db, workspaceId: string, id: string) {
  return db.selectFrom('sessions').selectAll().where('id', '=', id).where('workspaceId', '=', workspaceId).executeTakeFirst();
}

/** Sets what the session is working on (its free-text task and/or its task), leaving whatever is not given. */
export function setSessionWork(tx: Tx, id: string, work: { currentTask?: string | null | undefined; taskId?: string | null | undefined }) {
  const { currentTask, taskId } = work;
  return tx
    .updateTable('sessions')
    .set({ ...(currentTask !== undefined ? { currentTask } : {}), ...(taskId !== undefined ? { taskId } : {}) })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
