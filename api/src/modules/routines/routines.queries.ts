import { sql, type Insertable, type Updateable } from 'kysely';
import type { RoutinesTable } from '@farm/sql';
import type { Db, Tx } from '../../shared/types.ts';

/** The workspace's routines (of one campaign when given), in each campaign's order. */
export function listRoutines(db: Db, workspaceId: string, campaignId?: string) {
  let query = db.selectFrom('routines').selectAll().where('workspaceId', '=', workspaceId);
  if (campaignId) query = query.where('campaignId', '=', campaignId);
  return query.orderBy('campaignId').orderBy('sequence').orderBy('createdAt').limit(1000).execute();
}

/** The link between a campaign and an account, if the account is linked to it. */
export function findCampaignAccountLink(tx: Tx, campaignId: string, accountId: string) {
  return tx.selectFrom('campaignAccounts').select('id').where('campaignId', '=', campaignId).where('accountId', '=', accountId).executeTakeFirst();
}

/** The campaign a new routine joins, locked so routines added at once get distinct sequences. */
export function lockCampaignForRoutine(tx: Tx, campaignId: string) {
  return tx.selectFrom('campaigns').select(['platform', 'name', 'groupId']).where('id', '=', campaignId).forUpdate().executeTakeFirstOrThrow();
}

export function countCampaignRoutines(tx: Tx, campaignId: string) {
  return tx.selectFrom('routines').select(sql<number>`count(*)::int`.as('count')).where('campaignId', '=', campaignId).executeTakeFirstOrThrow();
}

export function insertRoutine(tx: Tx, workspaceId: string, values: Omit<Insertable<RoutinesTable>, 'workspaceId'>) {
  return tx
    .insertInto('routines')
    .values({ workspaceId, ...values })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findRoutineForUpdate(tx: Tx, workspaceId: string, id: string) {
  return tx.selectFrom('routines').selectAll().where('id', '=', id).where('workspaceId', '=', workspaceId).forUpdate().executeTakeFirst();
}

/** Sets the routine's fields; the caller has locked it in its workspace. */
export function updateRoutine(tx: Tx, id: string, set: Updateable<RoutinesTable>) {
  return tx.updateTable('routines').set(set).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** The routine's campaign and name, locked for its deletion. */
export function lockRoutineForDelete(tx: Tx, workspaceId: string, id: string) {
  return tx.selectFrom('routines').select(['campaignId', 'name']).where('id', '=', id).where('workspaceId', '=', workspaceId).forUpdate().executeTakeFirst();
}

export function deleteRoutine(tx: Tx, workspaceId: string, id: string) {
  return tx
    .deleteFrom('routines')
    .where('id', '=', id)
    .where('workspaceId', '=', workspaceId)
    .returning(['id', 'name', 'campaignId', 'sequence'])
    .executeTakeFirst();
}

/** Closes the gap a deleted routine left, so the campaign's sequences stay 1..n. */
export async function closeSequenceGap(tx: Tx, campaignId: string, sequence: number) {
  await tx.updateTable('routines').set({ sequence: sql<number>`sequence - 1` }).where('campaignId', '=', campaignId).where('sequence', '>', sequence).execute();
}

/** The workspace's campaign sessions (of one campaign when given), newest first. */
export function listCampaignSessions(db: Db, workspaceId: string, campaignId?: string) {
  let query = db.selectFrom('campaignSessions').selectAll().where('workspaceId', '=', workspaceId);
  if (campaignId) query = query.where('campaignId', '=', campaignId);
  return query.orderBy('createdAt', 'desc').limit(500).execute();
}
