/** Device records' SQL: the list and its filters (bulk actions and exports filter the same way), one device, its software, its row's writes. */
import { sql, type SelectQueryBuilder } from 'kysely';
import { deviceColumns, type DB, type DeviceStatus } from '@farm/sql';
import type { CreateDeviceBody, UpdateDeviceBody } from '@farm/contracts';
import { jsonPage, type JsonPage } from '../../shared/json-rows.ts';
import type { Db, Tx } from '../../shared/types.ts';
import { decodeCursor, pastCursor } from '../../shared/paging.ts';

export interface DeviceFilter {
  status?: DeviceStatus | undefined;
  search?: string | undefined;
  assignedToId?: string | undefined;
  /** Only the phones of this group or tag (0040). */
  groupId?: string | undefined;
  cursor?: string | undefined;
  limit: number;
}

/** The list's filters, on any query over `devices`. */
export function filteredDevices<O>(query: SelectQueryBuilder<DB, 'devices', O>, workspaceId: string, filter: Omit<DeviceFilter, 'cursor' | 'limit'>) {
  let q = query.where('workspaceId', '=', workspaceId);
  if (filter.status) q = q.where('status', '=', filter.status);
  if (filter.assignedToId) q = q.where('assignedToId', '=', filter.assignedToId);
  if (filter.search) q = q.where('name', 'ilike', `%${escapeLike(filter.search)}%`);
  if (filter.groupId) q = q.where(inGroup(filter.groupId));
  return q;
}

/** The phone is in the group (its membership rows carry the workspace, matched by the filter above). */
function inGroup(groupId: string) {
  return sql<boolean>`exists (select 1 from device_group_members m where m.device_id = devices.id and m.group_id = ${groupId})`;
}

/** Oldest first, so a phone keeps its place in the grid as others are added. */
function devicesAfter<O>(query: SelectQueryBuilder<DB, 'devices', O>, workspaceId: string, filter: DeviceFilter) {
  const cursor = decodeCursor(filter.cursor);
  const q = filteredDevices(query, workspaceId, filter);
  return cursor ? q.where(pastCursor(cursor, 'oldest')) : q;
}

/**
 * A page of the list as its response's JSON text (see json-rows.ts). Each row's text is already in the row, written by
 * the database whenever the phone changes (migration 0025_device_answers.sql), so a read only joins them.
 */
export function listDevicesJson(db: Db, workspaceId: string, filter: DeviceFilter): Promise<JsonPage> {
  return jsonPage(db, devicesAfter(db.selectFrom('devices'), workspaceId, filter), {
    json: sql<string>`devices.answer_json`,
    order: 'oldest',
    limit: filter.limit,
  });
}

export function findDevice(db: Db, workspaceId: string, id: string) {
  return db.selectFrom('devices').select(deviceColumns).where('workspaceId', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}

export function updateDevice(tx: Tx, id: string, changes: UpdateDeviceBody) {
  return tx.updateTable('devices').set(changes).where('id', '=', id).returning(deviceColumns).executeTakeFirstOrThrow();
}

export function deleteDevice(tx: Tx, workspaceId: string, id: string) {
  return tx.deleteFrom('devices').where('id', '=', id).where('workspaceId', '=', workspaceId).returning(['id', 'name']).executeTakeFirst();
}

/** The query of the ids a bulk action's filter names (see `selectIds`). */
export function deviceIdsMatching(tx: Tx, workspaceId: string, filter: Omit<DeviceFilter, 'cursor' | 'limit'>) {
  return filteredDevices(tx.selectFrom('devices').select('id'), workspaceId, filter);
}

export function insertDevice(tx: Tx, workspaceId: string, values: Omit<CreateDeviceBody, 'assignedToId'> & { assignedToId: string | null }) {
  return tx
    .insertInto('devices')
    .values({ ...values, workspaceId })
    .returning(deviceColumns)
    .executeTakeFirstOrThrow();
}

/** The phone's work already handed to it and not finished, locked for the write that takes it back. */
export function dispatchedOpenTasksForUpdate(tx: Tx, workspaceId: string, deviceId: string) {
  return tx
    .selectFrom('tasks')
    .selectAll()
    .where('deviceId', '=', deviceId)
    .where('workspaceId', '=', workspaceId)
    .where('dispatchedAt', 'is not', null)
    .where('status', 'in', ['pending', 'in-progress'])
    .forUpdate()
    .execute();
}

/** The phone's session still open (not ended), if any; the caller has found the phone in its workspace. */
export function findOpenSession(tx: Tx, deviceId: string) {
  return tx.selectFrom('sessions').selectAll().where('deviceId', '=', deviceId).where('endedAt', 'is', null).executeTakeFirst();
}

/** What the phone's agent last said of its software (no row: nothing yet), for a device of the workspace. */
export function findDeviceSoftware(db: Db, workspaceId: string, deviceId: string) {
  return db
    .selectFrom('devices as d')
    .leftJoin('deviceSoftware as s', 's.deviceId', 'd.id')
    .select(['d.id', 's.uiReader', 's.uiReaderVersion', 's.apps', 's.agentVersion', 's.reportedAt'])
    .where('d.id', '=', deviceId)
    .where('d.workspaceId', '=', workspaceId)
    .executeTakeFirst();
}
