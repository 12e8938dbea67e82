/**
 * Farm hosts: PCs with phones on USB, each speaking with its own credential for the phones it registered. What the
 * console manages is here; what the host's socket reads and writes is in agents/agents.hosts.queries.ts.
 */
import { sql } from 'kysely';
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
export function markHostRevoked(tx: Tx, workspaceId: string, id: string) {
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

/** How many hosts the workspace has had (revoked included): a new host's default name counts on from them. */
export async function countHosts(tx: Tx, workspaceId: string): Promise<number> {
  const row = await tx
    .selectFrom('hosts')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('workspaceId', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
