/** The devices settings in bulk reach: selected ones or a group's, each with the host (and serial) its phone hangs on. */
import { sql } from 'kysely';
import type { Db } from '../../shared/types.ts';

export interface SettingsDevice {
  id: string;
  name: string;
  serial: string | null;
  hostId: string | null;
  assignedToId: string | null;
}

/** These devices of the workspace (those that are not its own are left out: the caller compares). */
export function devicesByIds(db: Db, workspaceId: string, ids: readonly string[]): Promise<SettingsDevice[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('devices')
    .select(['id', 'name', 'serial', 'hostId', 'assignedToId'])
    .where('workspaceId', '=', workspaceId)
    .where('id', 'in', [...new Set(ids)])
    .orderBy('createdAt')
    .execute();
}

/** The devices of the workspace's group now; undefined when the group is not the workspace's. */
export async function devicesOfGroup(db: Db, workspaceId: string, groupId: string): Promise<SettingsDevice[] | undefined> {
  const group = await db.selectFrom('deviceGroups').select('id').where('workspaceId', '=', workspaceId).where('id', '=', groupId).executeTakeFirst();
  if (!group) return undefined;
  return db
    .selectFrom('devices as d')
    .select(['d.id', 'd.name', 'd.serial', 'd.hostId', 'd.assignedToId'])
    .where('d.workspaceId', '=', workspaceId)
    .where(sql<boolean>`exists (select 1 from device_group_members m where m.device_id = d.id and m.group_id = ${groupId})`)
    .orderBy('d.createdAt')
    .limit(1000)
    .execute();
}
