/** What the phone side reads and writes about devices: credentials, hellos and goodbyes, and the work ready for them. */
import { sql } from 'kysely';
import type { UiReaderKind } from '@farm/agent-protocol/values';
import { deviceColumns, type DeviceRow } from '@farm/sql';
import { GONE, helloStatus, readyWork } from '@farm/workers';
import { hashToken } from '../shared/tokens.ts';
import type { Db } from '../shared/types.ts';

export interface AgentDevice {
  id: string;
  workspaceId: string;
  name: string;
}

/** The device a credential speaks for, or nothing; marks the credential used. */
export async function findAgentDevice(db: Db, token: string): Promise<AgentDevice | undefined> {
  const device = await db
    .selectFrom('deviceCredentials as c')
    .innerJoin('devices as d', 'd.id', 'c.deviceId')
    .select(['d.id', 'd.workspaceId', 'd.name'])
    .where('c.tokenHash', '=', hashToken(token))
    .executeTakeFirst();
  if (device) await db.updateTable('deviceCredentials').set({ lastUsedAt: new Date() }).where('deviceId', '=', device.id).execute();
  return device;
}

/** The phone said hello: heard from now (its status by the rule in @farm/workers devices/status.ts), speaking this protocol. */
export function markHello(
  db: Db,
  device: AgentDevice,
  hello: {
    battery: number;
    protocol: number;
    agentVersion: string;
    model?: string | undefined;
    androidVersion?: string | undefined;
    screenOn?: boolean | undefined;
  },
): Promise<DeviceRow | undefined> {
  return db
    .updateTable('devices')
    .set({
      status: helloStatus(sql.ref('devices.id')),
      battery: hello.battery,
      lastActive: sql<Date>`now()`,
      lastSeenAt: sql<Date>`now()`,
      agentProtocol: hello.protocol,
      agentVersion: hello.agentVersion,
      ...(hello.model ? { model: hello.model } : {}),
      ...(hello.androidVersion ? { androidVersion: hello.androidVersion } : {}),
      ...(hello.screenOn !== undefined ? { screenOn: hello.screenOn } : {}),
    })
    .where('id', '=', device.id)
    .where('workspaceId', '=', device.workspaceId)
    .returning(deviceColumns)
    .executeTakeFirst();
}

/**
 * What the phone's hello said of its software: its UI reader and the versions of the apps recipes drive. An agent
 * that says nothing of them (older, or protocol 1) leaves them unknown, not as they were.
 */
export async function recordSoftware(
  db: Db,
  device: AgentDevice,
  hello: {
    agentVersion: string;
    uiReader?: { kind: UiReaderKind; version: string | null } | undefined;
    apps?: { package: string; version: string | null }[] | undefined;
  },
): Promise<void> {
  const values = {
    uiReader: hello.uiReader?.kind ?? null,
    uiReaderVersion: hello.uiReader?.version ?? null,
    apps: JSON.stringify(hello.apps ?? []),
    agentVersion: hello.agentVersion,
    reportedAt: sql<Date>`now()`,
  };
  await db
    .insertInto('deviceSoftware')
    .values({ deviceId: device.id, workspaceId: device.workspaceId, ...values })
    .onConflict((oc) => oc.column('deviceId').doUpdateSet(values))
    .execute();
}

/** The phone's last connection closed: offline. */
export function markGone(db: Db, device: AgentDevice): Promise<DeviceRow | undefined> {
  return db
    .updateTable('devices')
    .set({ status: GONE, lastActive: sql<Date>`now()` })
    .where('id', '=', device.id)
    .where('workspaceId', '=', device.workspaceId)
    .returning(deviceColumns)
    .executeTakeFirst();
}

/** Devices among `deviceIds` with work ready to hand over now and no attempt out. */
export async function devicesWithReadyWork(db: Db, deviceIds: string[]): Promise<string[]> {
  if (deviceIds.length === 0) return [];
  const rows = await readyWork(db).select('t.deviceId').distinct().where('t.deviceId', 'in', deviceIds).execute();
  return rows.map((row) => row.deviceId!).filter(Boolean);
}
