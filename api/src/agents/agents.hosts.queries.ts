/**
 * A farm host as the /agent namespace sees it: its credential, its presence, its fleet settings and the phones it
 * speaks for.
 */
import { sql } from 'kysely';
import { defaultHostFleetSettings, hostFleetSettings, type HostFleetSettings } from '@farm/contracts';
import { deviceColumns, type DeviceRow } from '@farm/sql';
import { hashToken } from '../shared/tokens.ts';
import { automation } from '@farm/workers';
import type { Db } from '../shared/types.ts';

export interface AgentHost {
  id: string;
  workspaceId: string;
  name: string;
}

/** The live host a credential speaks for, or nothing. */
export function findHostByToken(db: Db, token: string): Promise<AgentHost | undefined> {
  return db
    .selectFrom('hosts')
    .select(['id', 'workspaceId', 'name'])
    .where('tokenHash', '=', hashToken(token))
    .where('revokedAt', 'is', null)
    .executeTakeFirst();
}

export function touchHost(db: Db, hostId: string) {
  return db.updateTable('hosts').set({ lastSeenAt: sql<Date>`now()` }).where('id', '=', hostId).execute();
}

/** A host's settings as stored; the defaults where it has none (or a stored value this version no longer reads). */
export function settingsOf(stored: Record<string, unknown> | null): HostFleetSettings {
  if (!stored) return defaultHostFleetSettings;
  const parsed = hostFleetSettings.safeParse(stored);
  return parsed.success ? parsed.data : defaultHostFleetSettings;
}

export async function hostSettings(db: Db, hostId: string): Promise<HostFleetSettings> {
  const row = await db.selectFrom('hosts').select('fleetSettings').where('id', '=', hostId).executeTakeFirst();
  return settingsOf(row?.fleetSettings ?? null);
}

export type HostPhone = { device: DeviceRow; created: boolean } | { refused: string };

/**
 * Why a host may not register one more phone, or null: a host holds at most `phonesPerHost` (a USB bus holds about
 * 28 on powered hubs; more means a misbehaving host) and a workspace at most `devicesPerWorkspace`, so one tenant
 * cannot fill the farm's tables. Counted under a lock of the workspace's row, so phones racing in are counted in turn.
 */
async function roomForNewPhone(db: Db, host: AgentHost): Promise<string | null> {
  const { phonesPerHost, devicesPerWorkspace } = automation();
  return db.transaction().execute(async (tx) => {
    await tx.selectFrom('workspaces').select('id').where('id', '=', host.workspaceId).forUpdate().executeTakeFirst();
    const counts = await tx
      .selectFrom('devices')
      .select((eb) => [eb.fn.countAll<string>().as('inWorkspace'), eb.fn.count<string>(eb.case().when('hostId', '=', host.id).then(1).end()).as('onHost')])
      .where('workspaceId', '=', host.workspaceId)
      .executeTakeFirstOrThrow();
    if (Number(counts.onHost) >= phonesPerHost) return `This host already has ${phonesPerHost} phones, the most one host may have`;
    if (Number(counts.inWorkspace) >= devicesPerWorkspace) return `This workspace already has ${devicesPerWorkspace} devices, the most it may have`;
    return null;
  });
}

/**
 * The device a host's phone is, by serial: created on first sight (named by its model and serial), found again
 * after; a phone registered through another live host is not this host's to speak for. Two hosts racing over one new
 * serial create it once (the serial is unique per workspace).
 */
export async function hostPhone(
  db: Db,
  host: AgentHost,
  phone: { serial: string; model?: string | undefined; androidVersion?: string | undefined },
): Promise<HostPhone> {
  const name = `${phone.model ?? 'Phone'} · ${phone.serial.slice(-6)}`;
  const known = await db
    .selectFrom('devices')
    .select('hostId')
    .where('workspaceId', '=', host.workspaceId)
    .where('serial', '=', phone.serial)
    .executeTakeFirst();
  if (!known) {
    const full = await roomForNewPhone(db, host);
    if (full) return { refused: full };
  }
  const created = await db
    .insertInto('devices')
    .values({
      workspaceId: host.workspaceId,
      name,
      hostId: host.id,
      serial: phone.serial,
      model: phone.model ?? null,
      androidVersion: phone.androidVersion ?? null,
    })
    .onConflict((oc) => oc.columns(['workspaceId', 'serial']).where('serial', 'is not', null).doNothing())
    .returning(deviceColumns)
    .executeTakeFirst();
  if (created) return { device: created, created: true };
  const existing = await db
    .selectFrom('devices as d')
    .leftJoin('hosts as h', 'h.id', 'd.hostId')
    .selectAll('d')
    .select('h.revokedAt as hostRevokedAt')
    .where('d.workspaceId', '=', host.workspaceId)
    .where('d.serial', '=', phone.serial)
    .executeTakeFirst();
  if (!existing) return { refused: 'This phone could not be registered; try again' };
  const { hostRevokedAt, ...device } = existing;
  if (device.hostId === host.id) return { device, created: false };
  // A phone of a revoked host (or of none) is taken over; one on another live host is not.
  if (device.hostId !== null && hostRevokedAt === null) return { refused: 'This phone is registered through another host' };
  // Nor one enrolled on its own: its agent would be kicked off by every connection the host makes for it. An operator
  // who wants the host to have it revokes the phone's own credential first.
  const enrolled = await db.selectFrom('deviceCredentials').select('deviceId').where('deviceId', '=', device.id).executeTakeFirst();
  if (enrolled) return { refused: 'This phone is enrolled with its own credential; an operator can revoke that credential to let this host take it' };
  const taken = await db
    .updateTable('devices')
    .set({ hostId: host.id, ...(phone.model ? { model: phone.model } : {}), ...(phone.androidVersion ? { androidVersion: phone.androidVersion } : {}) })
    .where('id', '=', device.id)
    .returning(deviceColumns)
    .executeTakeFirstOrThrow();
  return { device: taken, created: false };
}
