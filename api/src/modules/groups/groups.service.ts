/**
 * Groups and tags of phones (issue #42): made, renamed and removed by operators, given phones of their own workspace
 * only, names unique per workspace without regard to case. Every change is one `write()`, announced (`group.*`) and
 * audited; a group's phones are given to a VA through each device's own change, all or nothing.
 */
import {
  groupNameTaken,
  type AssignDeviceGroupBody,
  type CreateDeviceGroupBody,
  type DeviceGroup,
  type DeviceGroupMembersBody,
  type UpdateDeviceGroupBody,
} from '@farm/contracts';
import { badRequest, conflict, notFound } from '../../errors.ts';
import { runBulk } from '../../events/bulk.ts';
import { write, type WriteContext, type WriteOutbox } from '../../events/write.ts';
import type { Actor, Tx } from '../../shared/types.ts';
import { changeDeviceIn } from '../devices/devices.service.ts';
import {
  addMembers,
  deleteGroup,
  devicesOfWorkspace,
  findGroup,
  groupNamed,
  insertGroup,
  lockGroup,
  memberDeviceIds,
  removeMembers,
  updateGroup,
} from './groups.queries.ts';

type GroupRow = NonNullable<Awaited<ReturnType<typeof findGroup>>>;

export function toGroup(row: GroupRow): DeviceGroup {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    deviceIds: row.deviceIds,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** A unique violation of the name's index (a race the check before it lost) is the same sentence as the check. */
async function guardName<T>(name: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if ((error as { code?: unknown }).code === '23505') throw conflict(groupNameTaken(name));
    throw error;
  }
}

/** Refuses ids that are not phones of the workspace, naming the field; nothing is written. */
async function assertDevices(tx: Tx, workspaceId: string, ids: readonly string[], field: string): Promise<void> {
  const found = await devicesOfWorkspace(tx, workspaceId, ids);
  const missing = [...new Set(ids)].filter((id) => !found.has(id));
  if (missing.length === 0) return;
  const count = missing.length === 1 ? '1 phone was' : `${missing.length} phones were`;
  throw badRequest(field, `${count} not found in this workspace: ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''}`);
}

async function announce(tx: Tx, actor: Actor, id: string, event: 'group.created' | 'group.updated', outbox: WriteOutbox): Promise<DeviceGroup> {
  const row = await findGroup(tx, actor.workspaceId, id);
  if (!row) throw notFound();
  const group = toGroup(row);
  outbox.add(event, group);
  return group;
}

export function createGroup(ctx: WriteContext, actor: Actor, body: CreateDeviceGroupBody): Promise<DeviceGroup> {
  return write(ctx, actor.workspaceId, async (tx, outbox) => {
    const name = body.name.trim();
    if (await groupNamed(tx, actor.workspaceId, name)) throw conflict(groupNameTaken(name));
    const deviceIds = body.deviceIds ?? [];
    await assertDevices(tx, actor.workspaceId, deviceIds, 'deviceIds');
    const { id } = await guardName(name, () => insertGroup(tx, actor.workspaceId, { name, kind: body.kind ?? 'group' }));
    await addMembers(tx, actor.workspaceId, id, [...new Set(deviceIds)]);
    const kind = body.kind === 'tag' ? 'Tag' : 'Group';
    await outbox.record(
      { userId: actor.userId, action: `${kind} ${name} created`, type: 'info' },
      { action: 'group.created', entityType: 'device_group', entityId: id, data: { name, devices: deviceIds.length } },
    );
    return announce(tx, actor, id, 'group.created', outbox);
  });
}

export function changeGroup(ctx: WriteContext, actor: Actor, id: string, body: UpdateDeviceGroupBody): Promise<DeviceGroup> {
  return write(ctx, actor.workspaceId, async (tx, outbox) => {
    const before = await lockGroup(tx, actor.workspaceId, id);
    if (!before) throw notFound();
    const name = body.name?.trim();
    if (name !== undefined && (await groupNamed(tx, actor.workspaceId, name, id))) throw conflict(groupNameTaken(name));
    if (name === undefined && body.kind === undefined) return announce(tx, actor, id, 'group.updated', outbox);
    await guardName(name ?? before.name, () => updateGroup(tx, id, { ...(name !== undefined ? { name } : {}), ...(body.kind ? { kind: body.kind } : {}) }));
    if (name !== undefined && name !== before.name)
      await outbox.record(
        { userId: actor.userId, action: `Group ${before.name} renamed to ${name}`, type: 'info' },
        { action: 'group.renamed', entityType: 'device_group', entityId: id, data: { from: before.name, to: name } },
      );
    return announce(tx, actor, id, 'group.updated', outbox);
  });
}

export async function removeGroup(ctx: WriteContext, actor: Actor, id: string): Promise<void> {
  await write(ctx, actor.workspaceId, async (tx, outbox) => {
    const removed = await deleteGroup(tx, actor.workspaceId, id);
    if (!removed) throw notFound();
    outbox.add('group.deleted', { id: removed.id });
    await outbox.record(
      { userId: actor.userId, action: `Group ${removed.name} removed`, type: 'warning' },
      { action: 'group.deleted', entityType: 'device_group', entityId: removed.id, data: { name: removed.name } },
    );
  });
}

const phones = (count: number): string => `${count} ${count === 1 ? 'phone' : 'phones'}`;

/** "2 phones added to Hub A", "1 phone taken out of Hub A", or both. */
export function membersSentence(name: string, added: number, removed: number): string {
  const parts = [added > 0 ? `${phones(added)} added to` : '', removed > 0 ? `${phones(removed)} taken out of` : ''].filter(Boolean);
  return `${parts.join(' and ')} ${name}`;
}

/** Adds and takes out phones in one change; a phone not of the workspace refuses all of it. */
export function changeMembers(ctx: WriteContext, actor: Actor, id: string, body: DeviceGroupMembersBody): Promise<DeviceGroup> {
  return write(ctx, actor.workspaceId, async (tx, outbox) => {
    const group = await lockGroup(tx, actor.workspaceId, id);
    if (!group) throw notFound();
    const add = [...new Set(body.add ?? [])];
    const remove = [...new Set(body.remove ?? [])];
    const both = add.filter((deviceId) => remove.includes(deviceId));
    if (both.length > 0) throw badRequest('remove', 'A phone cannot be added and taken out in the same change');
    await assertDevices(tx, actor.workspaceId, add, 'add');
    const added = await addMembers(tx, actor.workspaceId, id, add);
    const removed = await removeMembers(tx, id, remove);
    // Phones already in (or already out of) the group change nothing, and say nothing.
    if (added + removed > 0)
      await outbox.record(
        { userId: actor.userId, action: membersSentence(group.name, added, removed), type: 'info' },
        { action: 'group.members', entityType: 'device_group', entityId: id, data: { add, remove } },
      );
    return announce(tx, actor, id, 'group.updated', outbox);
  });
}

/**
 * Every phone of the group to one VA (or unassigned), each through the device's own assignment, all or nothing: a
 * phone refused is reported in its place and nothing changes.
 */
export function assignGroup(ctx: WriteContext, actor: Actor, id: string, body: AssignDeviceGroupBody): ReturnType<typeof runBulk> {
  const { assignedToId } = body;
  return runBulk(ctx, actor.workspaceId, async (tx, outbox) => {
    // The group is held while its phones change hands, so a phone joining meanwhile waits for this to end.
    if (!(await lockGroup(tx, actor.workspaceId, id))) throw notFound();
    const ids = await memberDeviceIds(tx, id);
    if (ids.length === 0) throw badRequest('id', 'This group has no phones yet');
    return { ids, apply: async (deviceId: string) => void (await changeDeviceIn(tx, actor, deviceId, { assignedToId }, outbox)) };
  });
}
