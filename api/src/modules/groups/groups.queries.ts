/** Groups and tags of phones (0040): their rows, their members, and the phones of a workspace they may take. */
import { sql } from 'kysely';
import type { DeviceGroupKind } from '@farm/contracts';
import type { Db, Tx } from '../../shared/types.ts';

const groupColumns = ['g.id', 'g.name', 'g.kind', 'g.createdAt', 'g.updatedAt'] as const;

/** The group's phones, oldest member first, as a JSON array of ids. */
const memberIds = sql<
  string[]
>`coalesce((select json_agg(m.device_id order by m.added_at, m.device_id) from device_group_members m where m.group_id = g.id), '[]'::json)`;

/** Every group of the workspace with its phones, by name. */
export function listGroups(db: Db, workspaceId: string) {
  return db
    .selectFrom('deviceGroups as g')
    .select([...groupColumns, memberIds.as('deviceIds')])
    .where('g.workspaceId', '=', workspaceId)
    .orderBy(sql`lower(g.name)`)
    .orderBy('g.id')
    .execute();
}

export function findGroup(db: Db, workspaceId: string, id: string) {
  return db
    .selectFrom('deviceGroups as g')
    .select([...groupColumns, memberIds.as('deviceIds')])
    .where('g.workspaceId', '=', workspaceId)
    .where('g.id', '=', id)
    .executeTakeFirst();
}

/** Locks the group for a change of it or its members, so two changes of one group take turns. */
export function lockGroup(tx: Tx, workspaceId: string, id: string) {
  return tx.selectFrom('deviceGroups').select(['id', 'name']).where('workspaceId', '=', workspaceId).where('id', '=', id).forUpdate().executeTakeFirst();
}

/** Another group of the workspace already named so, compared without case. */
export function groupNamed(tx: Tx, workspaceId: string, name: string, exceptId?: string) {
  let query = tx.selectFrom('deviceGroups').select('id').where('workspaceId', '=', workspaceId).where(sql<boolean>`lower(name) = lower(${name})`);
  if (exceptId) query = query.where('id', '!=', exceptId);
  return query.executeTakeFirst();
}

export function insertGroup(tx: Tx, workspaceId: string, values: { name: string; kind: DeviceGroupKind }) {
  return tx
    .insertInto('deviceGroups')
    .values({ ...values, workspaceId })
    .returning('id')
    .executeTakeFirstOrThrow();
}

export function updateGroup(tx: Tx, id: string, values: { name?: string; kind?: DeviceGroupKind }) {
  return tx
    .updateTable('deviceGroups')
    .set({ ...values, updatedAt: new Date() })
    .where('id', '=', id)
    .execute();
}

export function deleteGroup(tx: Tx, workspaceId: string, id: string) {
  return tx.deleteFrom('deviceGroups').where('workspaceId', '=', workspaceId).where('id', '=', id).returning(['id', 'name']).executeTakeFirst();
}

/** Which of these ids are phones of the workspace. */
export async function devicesOfWorkspace(tx: Tx, workspaceId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await tx.selectFrom('devices').select('id').where('workspaceId', '=', workspaceId).where('id', 'in', ids).execute();
  return new Set(rows.map((row) => row.id));
}

/** Puts the phones in the group; answers how many were not in it yet. */
export async function addMembers(tx: Tx, workspaceId: string, groupId: string, deviceIds: readonly string[]): Promise<number> {
  if (deviceIds.length === 0) return 0;
  const rows = await tx
    .insertInto('deviceGroupMembers')
    .values(deviceIds.map((deviceId) => ({ groupId, deviceId, workspaceId })))
    .onConflict((oc) => oc.columns(['groupId', 'deviceId']).doNothing())
    .returning('deviceId')
    .execute();
  return rows.length;
}

/** Takes the phones out of the group; answers how many were in it. */
export async function removeMembers(tx: Tx, groupId: string, deviceIds: readonly string[]): Promise<number> {
  if (deviceIds.length === 0) return 0;
  const rows = await tx.deleteFrom('deviceGroupMembers').where('groupId', '=', groupId).where('deviceId', 'in', deviceIds).returning('deviceId').execute();
  return rows.length;
}

/** The group's phones, oldest member first, for acting on each. */
export async function memberDeviceIds(tx: Tx, groupId: string): Promise<string[]> {
  const rows = await tx.selectFrom('deviceGroupMembers').select('deviceId').where('groupId', '=', groupId).orderBy('addedAt').orderBy('deviceId').execute();
  return rows.map((row) => row.deviceId);
}
