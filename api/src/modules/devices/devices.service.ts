/**
 * Device records' writes: add, change (and assign to a VA), remove, restart a session, and the bulk actions over
 * them. Each is one `write()`; the phone hears its command, or its connection closes, once it has committed. A change,
 * a removal and a restart are also `…In(tx, …)` inside a caller's write, so a bulk action and a group's assignment
 * reuse them with the same rules, events and audit entries.
 */
import type { CreateDeviceBody, DeviceBulkBody, UpdateDeviceBody } from '@farm/contracts';
import type { DeviceRow, SessionRow } from '@farm/sql';
import { withdrawTask } from '@farm/workers';
import type { Agents } from '../../agents/agents.socket.ts';
import { notFound } from '../../errors.ts';
import { runBulk, selectIds } from '../../events/bulk.ts';
import { write, type WriteContext, type WriteOutbox } from '../../events/write.ts';
import { assertMember } from '../../shared/refs.ts';
import { serialize } from '../../shared/serialize.ts';
import type { Actor, Tx } from '../../shared/types.ts';
import { assertMayWorkDevice, startSessionIn, stopSessionIn } from '../sessions/sessions.service.ts';
import { deleteDevice, deviceIdsMatching, dispatchedOpenTasksForUpdate, findDevice, findOpenSession, insertDevice, updateDevice } from './devices.queries.ts';

/** A new device of the workspace, given to a VA of it when the body names one. */
export function addDevice(ctx: WriteContext, actor: Actor, body: CreateDeviceBody): Promise<DeviceRow> {
  return write(ctx, actor.workspaceId, async (tx, outbox) => {
    const { assignedToId, ...fields } = body;
    if (assignedToId) await assertMember(tx, actor.workspaceId, assignedToId, 'assignedToId');
    const created = await insertDevice(tx, actor.workspaceId, { ...fields, assignedToId: assignedToId ?? null });
    outbox.add('device.created', serialize(created));
    await outbox.record(
      { userId: actor.userId, action: `Device ${created.name} added`, deviceId: created.id, type: 'success' },
      { action: 'device.created', entityType: 'device', entityId: created.id },
    );
    return created;
  });
}

/** One device's change (PATCH). */
export function changeDevice(ctx: WriteContext, actor: Actor, id: string, body: UpdateDeviceBody): Promise<DeviceRow> {
  return write(ctx, actor.workspaceId, (tx, outbox) => changeDeviceIn(tx, actor, id, body, outbox));
}

/** One device's change inside the caller's write, as PATCH, the bulk actions and a group's assignment make it. */
export async function changeDeviceIn(tx: Tx, actor: Actor, id: string, body: UpdateDeviceBody, outbox: WriteOutbox): Promise<DeviceRow> {
  const before = await findDevice(tx, actor.workspaceId, id);
  if (!before) throw notFound();
  const { assignedToId } = body;
  const member = assignedToId ? await assertMember(tx, actor.workspaceId, assignedToId, 'assignedToId') : undefined;
  // Nothing to change (an empty body, or only unknown fields): an UPDATE with no SET is invalid SQL.
  if (Object.keys(body).length === 0) return before;
  const updated = await updateDevice(tx, before.id, body);
  outbox.add('device.updated', serialize(updated));
  if (assignedToId !== undefined && assignedToId !== before.assignedToId) {
    await outbox.record(
      {
        userId: actor.userId,
        action: member ? `${updated.name} assigned to ${member.name}` : `${updated.name} unassigned`,
        deviceId: updated.id,
        type: 'info',
      },
      { action: 'device.assigned', entityType: 'device', entityId: updated.id, data: { assignedToId } },
    );
    if (member) outbox.add('device.assigned', serialize(updated), member.id);
  }
  return updated;
}

/** Removes a device (as `removeDeviceIn`); its phone's connection, wherever it is, closes once the write has committed. */
export async function removeDevice(ctx: WriteContext & { agents?: Agents | undefined }, actor: Actor, id: string): Promise<void> {
  await write(ctx, actor.workspaceId, (tx, outbox) => removeDeviceIn(tx, actor, id, outbox));
  ctx.agents?.disconnect(id);
}

/**
 * Removes a device inside the caller's write; work out on its phone is taken back first (it waits, without a phone, to
 * be moved). The caller closes the phone's connection once the write has committed.
 */
export async function removeDeviceIn(tx: Tx, actor: Actor, id: string, outbox: WriteOutbox): Promise<void> {
  const out = await dispatchedOpenTasksForUpdate(tx, actor.workspaceId, id);
  for (const task of out) await withdrawTask(tx, task, 'The phone was removed', outbox);
  const removed = await deleteDevice(tx, actor.workspaceId, id);
  if (!removed) throw notFound();
  outbox.add('device.deleted', { id: removed.id });
  await outbox.record(
    { userId: actor.userId, action: `Device ${removed.name} removed`, type: 'warning' },
    { action: 'device.deleted', entityType: 'device', entityId: removed.id },
  );
}

/**
 * Ends the device's open session (if any) and starts a fresh one with the same VA and task; the phone is told to
 * restart its session once the write has committed. Answers the new session.
 */
export async function restartSession(ctx: WriteContext & { agents?: Agents | undefined }, actor: Actor, id: string): Promise<SessionRow> {
  const row = await write(ctx, actor.workspaceId, (tx, outbox) => restartSessionIn(tx, actor, id, outbox));
  void ctx.agents?.command(row.deviceId, 'restart_session');
  return row;
}

/** `restartSession` inside the caller's write, which tells the phone once it has committed (a bulk command). */
export async function restartSessionIn(tx: Tx, actor: Actor, id: string, outbox: WriteOutbox): Promise<SessionRow> {
  const target = await findDevice(tx, actor.workspaceId, id);
  if (!target) throw notFound();
  await assertMayWorkDevice(tx, actor, target.id);
  const open = await findOpenSession(tx, target.id);
  if (open) await stopSessionIn(tx, actor, open.id, outbox);
  return startSessionIn(tx, actor, { deviceId: target.id, taskId: open?.taskId ?? null, currentTask: open?.currentTask ?? null }, outbox);
}

/**
 * Many devices at once: assign a VA, delete, or send a command (screenshot, restart session); all or nothing. Once the
 * writes are committed, the phones hear their command, and removed phones' connections close.
 */
export async function bulkDevices(ctx: WriteContext & { agents?: Agents | undefined }, actor: Actor, body: DeviceBulkBody) {
  const commanded: string[] = [];
  const answer = await runBulk(ctx, actor.workspaceId, async (tx, outbox) => {
    // Run again after a deadlock, the commands gathered start afresh.
    commanded.length = 0;
    return {
      ids: body.ids ?? (await selectIds(deviceIdsMatching(tx, actor.workspaceId, body.filter ?? {}))),
      apply: async (id: string) => {
        if (body.action === 'delete') return removeDeviceIn(tx, actor, id, outbox);
        if (body.action === 'update') return void (await changeDeviceIn(tx, actor, id, body.changes, outbox));
        if (body.command === 'restart_session') await restartSessionIn(tx, actor, id, outbox);
        else if (!(await findDevice(tx, actor.workspaceId, id))) throw notFound();
        commanded.push(id);
      },
    };
  });
  if (answer.refused) return answer;
  if (body.action === 'command') for (const id of commanded) void ctx.agents?.command(id, body.command);
  if (body.action === 'delete') for (const id of answer.body.results.filter((result) => result.ok).map((result) => result.id)) ctx.agents?.disconnect(id);
  return answer;
}
