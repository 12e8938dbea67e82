/** What the live screens read of the database beside usage (modules/usage): people's rights now, a phone's controller. */
import type { Db } from '../shared/types.ts';

/**
 * What the live rules check a screen against, read together: the roles of the people (active members only, in each
 * of their workspaces) and the workspace and assignee of the phones.
 */
export async function rightsOf(db: Db, userIds: readonly string[], deviceIds: readonly string[]) {
  const [members, devices] = await Promise.all([
    userIds.length === 0
      ? []
      : db
          .selectFrom('workspaceMembers')
          .select(['workspaceId', 'userId', 'role'])
          .where('userId', 'in', [...userIds])
          .where('deactivatedAt', 'is', null)
          .execute(),
    deviceIds.length === 0
      ? []
      : db
          .selectFrom('devices')
          .select(['id', 'workspaceId', 'assignedToId'])
          .where('id', 'in', [...deviceIds])
          .execute(),
  ]);
  return { members, devices };
}

/** The control session open on the phone, if someone controls it. */
export function openControl(db: Db, workspaceId: string, deviceId: string) {
  return db
    .selectFrom('deviceUsage')
    .select(['id'])
    .where('deviceId', '=', deviceId)
    .where('workspaceId', '=', workspaceId)
    .where('mode', '=', 'control')
    .where('endedAt', 'is', null)
    .executeTakeFirst();
}

/** The phones of a group control session as its checks read them: name, whether online, the app in front. */
export function groupDevices(db: Db, workspaceId: string, deviceIds: readonly string[]) {
  if (deviceIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('devices')
    .select(['id', 'name', 'status', 'foregroundApp', 'controlledById', 'controlledByName'])
    .where('workspaceId', '=', workspaceId)
    .where('id', 'in', [...deviceIds])
    .execute();
}
