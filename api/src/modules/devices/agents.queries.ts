/** What the phone side reads and writes about devices: credentials, hellos and goodbyes, screenshots. */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { deviceColumns, type DeviceRow, type SessionRow } from '@farm/sql';
import { phoneHasWorkSql, readyWork } from '@farm/workers';
import { hashToken } from '../../auth/auth.queries.ts';
import type { Db } from '../../shared/types.ts';

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

/** The phone said hello: heard from now (online, or busy if work of its own still runs), speaking this protocol. */
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
      status: sql<'online' | 'busy'>`case when ${phoneHasWorkSql('devices.id')} then 'busy' else 'online' end`,
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

/** The phone's last connection closed: offline. */
export function markGone(db: Db, device: AgentDevice): Promise<DeviceRow | undefined> {
  return db
    .updateTable('devices')
    .set({ status: 'offline', lastActive: sql<Date>`now()` })
    .where('id', '=', device.id)
    .where('workspaceId', '=', device.workspaceId)
    .returning(deviceColumns)
    .executeTakeFirst();
}

/** Stores a screenshot's record (its bytes are already in storage under `key`) and counts it on the open session. */
export async function recordScreenshot(
  db: Db,
  device: AgentDevice,
  shot: { key: string; mime: string; size: number; capturedAt: Date },
): Promise<{ session: SessionRow | undefined; sessionId: string | null; capturedAt: Date }> {
  return db.transaction().execute(async (tx) => {
    await tx
      .insertInto('storedObjects')
      .values({ key: shot.key, workspaceId: device.workspaceId, contentType: shot.mime, size: shot.size, uploadedAt: new Date() })
      .execute();
    const session = await tx
      .updateTable('sessions')
      .set({ screenshots: sql<number>`screenshots + 1` })
      .where('deviceId', '=', device.id)
      .where('endedAt', 'is', null)
      .returningAll()
      .executeTakeFirst();
    const row = await tx
      .insertInto('screenshots')
      .values({ workspaceId: device.workspaceId, deviceId: device.id, sessionId: session?.id ?? null, objectKey: shot.key, capturedAt: shot.capturedAt })
      .returning(['sessionId', 'capturedAt'])
      .executeTakeFirstOrThrow();
    return { session, sessionId: row.sessionId, capturedAt: row.capturedAt };
  });
}

export const newObjectKey = () => randomUUID();

/** Devices among `deviceIds` with work ready to hand over now and no attempt out. */
export async function devicesWithReadyWork(db: Db, deviceIds: string[]): Promise<string[]> {
  if (deviceIds.length === 0) return [];
  const rows = await readyWork(db).select('t.deviceId').distinct().where('t.deviceId', 'in', deviceIds).execute();
  return rows.map((row) => row.deviceId!).filter(Boolean);
}
