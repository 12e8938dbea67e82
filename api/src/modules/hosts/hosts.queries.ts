/** Farm hosts: PCs with phones on USB, each speaking with its own credential for the phones it registered. */
import { sql } from 'kysely';
import { deviceColumns, type DeviceRow } from '@farm/sql';
import { hashToken } from '../../auth/auth.queries.ts';
import type { Db, Tx } from '../../shared/types.ts';

export function createHost(tx: Tx, workspaceId: string, name: string, createdById: string) {
  return tx.insertInto('hosts').values({ workspaceId, name, createdById }).returning(['id', 'name']).executeTakeFirstOrThrow();
}

/** Hosts of the workspace, newest first, with how many phones each registered and how many are online. */
export function listHosts(db: Db, workspaceId: string) {
  return db
    .selectFrom('hosts as h')
    .select(['h.id', 'h.name', 'h.enrolledAt', 'h.lastSeenAt', 'h.revokedAt', 'h.createdAt'])
    .select((eb) => [
      eb.selectFrom('devices as d').select(sql<number>`count(*)::int`.as('n')).whereRef('d.hostId', '=', 'h.id').as('phones'),
      eb
        .selectFrom('devices as d')
        .select(sql<number>`count(*)::int`.as('n'))
        .whereRef('d.hostId', '=', 'h.id')
        .where('d.status', '<>', 'offline')
        .as('phonesOnline'),
    ])
    .where('h.workspaceId', '=', workspaceId)
    .orderBy('h.createdAt', 'desc')
    .limit(500)
    .execute();
}

export function findHost(db: Db, workspaceId: string, id: string) {
  return db.selectFrom('hosts').selectAll().where('workspaceId', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

/** Revokes the host: its credential stops working (its phones' connections are closed by the caller). */
export function revokeHost(tx: Tx, workspaceId: string, id: string) {
  return tx
    .updateTable('hosts')
    .set({ revokedAt: sql<Date>`coalesce(revoked_at, now())`, tokenHash: null })
    .where('workspaceId', '=', workspaceId)
    .where('id', '=', id)
    .returning(['id', 'name'])
    .executeTakeFirst();
}

/** The host exchanged its code: this is the credential it speaks with from now on. */
export function setHostToken(tx: Tx, hostId: string, token: string) {
  return tx
    .updateTable('hosts')
    .set({ tokenHash: hashToken(token), enrolledAt: sql<Date>`now()` })
    .where('id', '=', hostId)
    .where('revokedAt', 'is', null)
    .executeTakeFirst();
}

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

export type HostPhone = { device: DeviceRow; created: boolean } | { refused: string };

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
  // A phone moved from a revoked host (or enrolled on its own) is taken over; one on another live host is not.
  if (device.hostId !== null && hostRevokedAt === null) return { refused: 'This phone is registered through another host' };
  const taken = await db
    .updateTable('devices')
    .set({ hostId: host.id, ...(phone.model ? { model: phone.model } : {}), ...(phone.androidVersion ? { androidVersion: phone.androidVersion } : {}) })
    .where('id', '=', device.id)
    .returning(deviceColumns)
    .executeTakeFirstOrThrow();
  return { device: taken, created: false };
}

/** How many hosts the workspace has had (revoked included): a new host's default name counts on from them. */
export async function countHosts(tx: Tx, workspaceId: string): Promise<number> {
  const row = await tx
    .selectFrom('hosts')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('workspaceId', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
