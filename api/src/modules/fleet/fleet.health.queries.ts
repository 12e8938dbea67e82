/**
 * Fleet health as hosts report it (migration 0039): per-phone health rows, the host's USB report and settings. What a
 * host's control connection reads of its settings as it connects is the transport's (agents/agents.hosts.queries.ts).
 */
import { sql } from 'kysely';
import type { HostFleetSettings, HostUsb, PhoneHealth } from '@farm/contracts';
import type { Db, Tx } from '../../shared/types.ts';

export interface HostDeviceRef {
  id: string;
  name: string;
  assignedToId: string | null;
}

/** The host's phone by serial, or nothing (a serial the host never registered is not its to report on). */
export function findHostDevice(db: Db | Tx, host: { id: string; workspaceId: string }, serial: string): Promise<HostDeviceRef | undefined> {
  return db
    .selectFrom('devices')
    .select(['id', 'name', 'assignedToId'])
    .where('workspaceId', '=', host.workspaceId)
    .where('hostId', '=', host.id)
    .where('serial', '=', serial)
    .executeTakeFirst();
}

export function currentHealth(db: Db | Tx, deviceId: string) {
  return db.selectFrom('deviceHealth').select(['unresponsiveReason', 'healthAt']).where('deviceId', '=', deviceId).executeTakeFirst();
}

type HealthColumns = Partial<{
  batteryLevel: number | null;
  temperatureC: number | null;
  batteryHealth: string | null;
  freeBytes: number | null;
  totalBytes: number | null;
  uptimeSeconds: number | null;
  androidVersion: string | null;
  appVersions: string;
  unresponsiveReason: string | null;
  vitalsAt: Date;
  healthAt: Date;
  usbController: string | null;
  usbHub: string | null;
  usbPort: number | null;
  reconnectingSince: Date | null;
}>;

/** Writes some of a phone's health columns, creating its row on first report. */
export function upsertHealth(db: Db | Tx, device: { id: string; workspaceId: string }, columns: HealthColumns) {
  return db
    .insertInto('deviceHealth')
    .values({ deviceId: device.id, workspaceId: device.workspaceId, ...columns })
    .onConflict((oc) => oc.column('deviceId').doUpdateSet(columns))
    .execute();
}

/** The host's USB report; answers the warnings it held before, to tell new ones from old. */
export async function saveUsb(tx: Tx, hostId: string, usb: HostUsb): Promise<string[]> {
  const before = await tx.selectFrom('hosts').select('usb').where('id', '=', hostId).forUpdate().executeTakeFirst();
  await tx
    .updateTable('hosts')
    .set({ usb: JSON.stringify(usb), usbAt: sql<Date>`now()` })
    .where('id', '=', hostId)
    .execute();
  const warnings = (before?.usb as { warnings?: { message: string }[] } | null)?.warnings ?? [];
  return warnings.map((warning) => warning.message);
}

/** Places the host's phones on its bus (their health rows), by serial; answers the phones whose place changed. */
export async function placePhones(tx: Tx, host: { id: string; workspaceId: string }, phones: HostUsb['phones']): Promise<string[]> {
  const moved: string[] = [];
  for (const phone of phones) {
    const device = await findHostDevice(tx, host, phone.serial);
    if (!device) continue;
    const was = await tx.selectFrom('deviceHealth').select(['usbController', 'usbHub', 'usbPort']).where('deviceId', '=', device.id).executeTakeFirst();
    if (was?.usbController === phone.controllerId && was.usbHub === phone.hubLocation && was.usbPort === phone.port) continue;
    moved.push(device.id);
    await upsertHealth(
      tx,
      { id: device.id, workspaceId: host.workspaceId },
      { usbController: phone.controllerId, usbHub: phone.hubLocation, usbPort: phone.port },
    );
  }
  return moved;
}

/** An open replug task for the phone already asks the person: no second one. */
export async function openTaskTitled(tx: Tx, deviceId: string, title: string): Promise<boolean> {
  const row = await tx
    .selectFrom('tasks')
    .select('id')
    .where('deviceId', '=', deviceId)
    .where('title', '=', title)
    .where('status', 'in', ['pending', 'in-progress'])
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * A replug task's source key: host, hub and port first, so the open tasks of one hub are found by prefix; the phone and
 * the time last, so each ask is its own task (source keys are unique for good, closed tasks included).
 */
export function replugSourceKey(hostId: string, place: { hubLocation: string; port: number } | null, deviceId: string, at: Date): string {
  return `replug:${hostId}:${place ? `${place.hubLocation}:${place.port}` : '-:-'}:${deviceId}:${at.getTime()}`;
}

/** The open replug tasks of the phones of one hub of a host, each with its phone's name and port, oldest first. */
export async function openHubReplugTasks(tx: Tx, workspaceId: string, hostId: string, hubLocation: string) {
  const rows = await tx
    .selectFrom('tasks')
    .innerJoin('devices', 'devices.id', 'tasks.deviceId')
    .select(['tasks.id', 'tasks.sourceKey', 'tasks.deviceId', 'devices.name', 'devices.assignedToId'])
    .where('tasks.workspaceId', '=', workspaceId)
    // Hub locations are digits, dashes and dots and host ids uuids: nothing LIKE reads as a wildcard.
    .where('tasks.sourceKey', 'like', `replug:${hostId}:${hubLocation}:%`)
    .where('tasks.status', 'in', ['pending', 'in-progress'])
    .orderBy('tasks.createdAt')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    deviceId: row.deviceId,
    name: row.name,
    assignedToId: row.assignedToId,
    port: Number(row.sourceKey?.split(':')[3]),
  }));
}

/** Rewrites an open task's description; answers the task as it now is. */
export function setTaskDescription(tx: Tx, taskId: string, description: string) {
  return tx.updateTable('tasks').set({ description }).where('id', '=', taskId).returningAll().executeTakeFirstOrThrow();
}

const num = (value: string | number | null) => (value === null ? null : Number(value));

/** Every phone of a host with its health, for Settings → Phone hosts. */
export async function hostPhonesHealth(db: Db, workspaceId: string, hostId: string) {
  const rows = await db
    .selectFrom('devices as d')
    .leftJoin('deviceHealth as h', 'h.deviceId', 'd.id')
    .select(['d.id as deviceId', 'd.name', 'd.serial'])
    .select([
      'h.batteryLevel',
      'h.temperatureC',
      'h.batteryHealth',
      'h.freeBytes',
      'h.totalBytes',
      'h.uptimeSeconds',
      'h.androidVersion',
      'h.appVersions',
      'h.unresponsiveReason',
      'h.vitalsAt',
      'h.healthAt',
      'h.usbController',
      'h.usbHub',
      'h.usbPort',
      'h.reconnectingSince',
    ])
    .where('d.workspaceId', '=', workspaceId)
    .where('d.hostId', '=', hostId)
    .orderBy('d.name')
    .limit(1000)
    .execute();
  return rows.map((row) => ({ ...healthOut(row), name: row.name, serial: row.serial }));
}

export async function deviceInWorkspace(db: Db, workspaceId: string, deviceId: string): Promise<boolean> {
  const row = await db.selectFrom('devices').select('id').where('workspaceId', '=', workspaceId).where('id', '=', deviceId).executeTakeFirst();
  return row !== undefined;
}

/** One phone's health (null: its host never reported any). */
export async function deviceHealth(db: Db | Tx, workspaceId: string, deviceId: string): Promise<PhoneHealth | null> {
  const row = await db.selectFrom('deviceHealth').selectAll().where('workspaceId', '=', workspaceId).where('deviceId', '=', deviceId).executeTakeFirst();
  return row ? healthOut(row) : null;
}

/** Every phone's health in the workspace, for the Devices grid. */
export async function workspaceHealth(db: Db, workspaceId: string): Promise<PhoneHealth[]> {
  const rows = await db.selectFrom('deviceHealth').selectAll().where('workspaceId', '=', workspaceId).limit(5000).execute();
  return rows.map(healthOut);
}

type HealthRow = {
  deviceId: string;
  batteryLevel: number | null;
  temperatureC: number | null;
  batteryHealth: string | null;
  freeBytes: string | number | null;
  totalBytes: string | number | null;
  uptimeSeconds: number | null;
  androidVersion: string | null;
  appVersions: Record<string, string> | null;
  unresponsiveReason: string | null;
  vitalsAt: Date | null;
  healthAt: Date | null;
  usbController: string | null;
  usbHub: string | null;
  usbPort: number | null;
  reconnectingSince: Date | null;
};

function healthOut(row: HealthRow): PhoneHealth {
  return {
    deviceId: row.deviceId,
    batteryLevel: row.batteryLevel,
    temperatureC: row.temperatureC === null ? null : Number(row.temperatureC),
    batteryHealth: (row.batteryHealth as PhoneHealth['batteryHealth']) ?? null,
    freeBytes: num(row.freeBytes),
    totalBytes: num(row.totalBytes),
    uptimeSeconds: row.uptimeSeconds === null ? null : Number(row.uptimeSeconds),
    androidVersion: row.androidVersion,
    appVersions: row.appVersions ?? {},
    unresponsiveReason: row.unresponsiveReason,
    vitalsAt: row.vitalsAt?.toISOString() ?? null,
    healthAt: row.healthAt?.toISOString() ?? null,
    usbController: row.usbController,
    usbHub: row.usbHub,
    usbPort: row.usbPort,
    reconnectingSince: row.reconnectingSince?.toISOString() ?? null,
  };
}

export function hostUsbOf(db: Db, workspaceId: string, hostId: string) {
  return db
    .selectFrom('hosts')
    .select(['id', 'usb', 'usbAt', 'fleetSettings', 'revokedAt'])
    .where('workspaceId', '=', workspaceId)
    .where('id', '=', hostId)
    .executeTakeFirst();
}

export function saveSettings(tx: Tx, workspaceId: string, hostId: string, settings: HostFleetSettings) {
  return tx
    .updateTable('hosts')
    .set({ fleetSettings: JSON.stringify(settings) })
    .where('workspaceId', '=', workspaceId)
    .where('id', '=', hostId)
    .where('revokedAt', 'is', null)
    .returning(['id', 'name'])
    .executeTakeFirst();
}
