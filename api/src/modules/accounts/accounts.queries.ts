import { sql, type Insertable } from 'kysely';
import type { AccountsTable, AccountStatus } from '@farm/sql';
import type { Platform } from '@farm/contracts';
import type { Db, Tx } from '../../shared/types.ts';
import { type decodeCursor, pastCursor } from '../../shared/paging.ts';
import { escapeLike } from '../devices/devices.queries.ts';

export interface AccountFilter {
  platform?: Platform | undefined;
  status?: AccountStatus | undefined;
  deviceId?: string | undefined;
  search?: string | undefined;
  cursor: ReturnType<typeof decodeCursor>;
  limit: number;
}

/** A page of the workspace's accounts, newest first; one row more than the limit says another page follows. */
export function listAccounts(db: Db, workspaceId: string, filter: AccountFilter) {
  const { platform, status, deviceId, search, cursor, limit } = filter;
  let query = db.selectFrom('accounts').selectAll().where('workspaceId', '=', workspaceId);
  if (platform) query = query.where('platform', '=', platform);
  if (status) query = query.where('status', '=', status);
  if (deviceId) query = query.where('deviceId', '=', deviceId);
  if (search) query = query.where('username', 'ilike', `%${escapeLike(search)}%`);
  if (cursor) {
    query = query.where(pastCursor(cursor, 'newest'));
  }
  return query
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
}

export function findAccount(db: Db, workspaceId: string, id: string) {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).where('workspaceId', '=', workspaceId).executeTakeFirst();
}

/** Locks the phone's row, so accounts added to it at once are counted one after the other. */
export async function lockDevice(tx: Tx, deviceId: string) {
  await tx.selectFrom('devices').select('id').where('id', '=', deviceId).forUpdate().execute();
}

/** How many accounts of the platform the phone holds (leaving one account out when given). */
export function countDeviceAccounts(tx: Tx, deviceId: string, platform: Platform, exceptAccountId?: string) {
  let query = tx.selectFrom('accounts').select(sql<number>`count(*)::int`.as('count')).where('deviceId', '=', deviceId).where('platform', '=', platform);
  if (exceptAccountId) query = query.where('id', '!=', exceptAccountId);
  return query.executeTakeFirstOrThrow();
}

/** The account's tasks that wait, or are out on its phone, locked so they can follow it to another phone. */
export function movableTasksForUpdate(tx: Tx, accountId: string) {
  return tx
    .selectFrom('tasks')
    .selectAll()
    .where('accountId', '=', accountId)
    .where((eb) => eb.or([eb('status', '=', 'pending'), eb.and([eb('status', '=', 'in-progress'), eb('dispatchedAt', 'is not', null)])]))
    .forUpdate()
    .execute();
}

export function setTaskDevice(tx: Tx, taskId: string, deviceId: string | null) {
  return tx.updateTable('tasks').set({ deviceId }).where('id', '=', taskId).returningAll().executeTakeFirstOrThrow();
}

export function insertAccount(tx: Tx, workspaceId: string, values: Omit<Insertable<AccountsTable>, 'workspaceId'>) {
  return tx
    .insertInto('accounts')
    .values({ ...values, workspaceId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findAccountForUpdate(tx: Tx, workspaceId: string, id: string) {
  return tx.selectFrom('accounts').selectAll().where('id', '=', id).where('workspaceId', '=', workspaceId).forUpdate().executeTakeFirst();
}

/** Who the phone is assigned to; the caller has found it through an account of its workspace. */
export function deviceAssignee(tx: Tx, deviceId: string) {
  return tx.selectFrom('devices').select('assignedToId').where('id', '=', deviceId).executeTakeFirst();
}

/** Sets the account's fields; the caller has locked it in its workspace. */
export function updateAccount(tx: Tx, id: string, changes: Record<string, unknown>) {
  return tx.updateTable('accounts').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export function lockAccount(tx: Tx, workspaceId: string, id: string) {
  return tx.selectFrom('accounts').select('id').where('id', '=', id).where('workspaceId', '=', workspaceId).forUpdate().executeTakeFirst();
}

export function deleteAccount(tx: Tx, workspaceId: string, id: string) {
  return tx.deleteFrom('accounts').where('id', '=', id).where('workspaceId', '=', workspaceId).returning(['id', 'username', 'platform']).executeTakeFirst();
}
