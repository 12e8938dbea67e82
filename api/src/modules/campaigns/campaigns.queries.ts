import { sql, type Insertable, type Updateable } from 'kysely';
import type { CampaignStatus, CampaignsTable } from '@farm/sql';
import type { Db, Tx } from '../../shared/types.ts';
import { decodeCursor, pastCursor } from '../../shared/paging.ts';

const accountIds = sql<string[]>`array(select ca.account_id from campaign_accounts ca where ca.campaign_id = campaigns.id order by ca.created_at)`.as(
  'accountIds',
);

export function listCampaigns(
  db: Db,
  workspaceId: string,
  filter: { status?: CampaignStatus | undefined; platform?: string | undefined; cursor?: string | undefined; limit: number },
) {
  const cursor = decodeCursor(filter.cursor);
  let query = db.selectFrom('campaigns').selectAll().select(accountIds).where('workspaceId', '=', workspaceId);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.platform) query = query.where('platform', '=', filter.platform as 'instagram');
  if (cursor) {
    query = query.where(pastCursor(cursor, 'newest'));
  }
  return query
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.limit + 1)
    .execute();
}

export function findCampaign(db: Db, workspaceId: string, id: string) {
  return db.selectFrom('campaigns').selectAll().select(accountIds).where('workspaceId', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

/** Locks the campaign's row for the rest of the transaction, so changes to one campaign happen one at a time. */
export function lockCampaign(db: Db, workspaceId: string, id: string) {
  return db.selectFrom('campaigns').select(['id', 'status']).where('workspaceId', '=', workspaceId).where('id', '=', id).forUpdate().executeTakeFirst();
}

export function insertCampaign(tx: Tx, workspaceId: string, createdById: string, values: Omit<Insertable<CampaignsTable>, 'workspaceId' | 'createdById'>) {
  return tx
    .insertInto('campaigns')
    .values({ ...values, workspaceId, createdById })
    .returning('id')
    .executeTakeFirstOrThrow();
}

/** Sets the campaign's fields; the caller has locked it in its workspace. */
export async function updateCampaign(tx: Tx, id: string, set: Updateable<CampaignsTable>) {
  await tx.updateTable('campaigns').set(set).where('id', '=', id).execute();
}

export function deleteCampaign(tx: Tx, workspaceId: string, id: string) {
  return tx.deleteFrom('campaigns').where('id', '=', id).where('workspaceId', '=', workspaceId).returning(['id', 'name']).executeTakeFirst();
}

/** The accounts linked to the campaign, in the order they were linked; the caller has found it in its workspace. */
export function listCampaignAccounts(db: Db, campaignId: string) {
  return db
    .selectFrom('campaignAccounts as ca')
    .innerJoin('accounts as a', 'a.id', 'ca.accountId')
    .selectAll('a')
    .where('ca.campaignId', '=', campaignId)
    .orderBy('ca.createdAt')
    .execute();
}

export function insertCampaignAccount(tx: Tx, workspaceId: string, campaignId: string, accountId: string) {
  return tx.insertInto('campaignAccounts').values({ workspaceId, campaignId, accountId }).returningAll().executeTakeFirstOrThrow();
}

export function deleteCampaignAccount(tx: Tx, workspaceId: string, campaignId: string, accountId: string) {
  return tx
    .deleteFrom('campaignAccounts')
    .where('campaignId', '=', campaignId)
    .where('accountId', '=', accountId)
    .where('workspaceId', '=', workspaceId)
    .executeTakeFirst();
}

/** The group, if it is one of the workspace's: what a campaign may take the phones' accounts of. */
export function findGroupId(db: Db | Tx, workspaceId: string, groupId: string) {
  return db.selectFrom('deviceGroups').select(['id', 'name']).where('workspaceId', '=', workspaceId).where('id', '=', groupId).executeTakeFirst();
}

/**
 * The accounts on the phones of the campaign's group now, of the campaign's platform: those its group routines run
 * for (the planner in @farm/workers campaigns/runs.ts reads the same rule when it plans and when a run falls due).
 */
export function listGroupAccounts(db: Db, workspaceId: string, campaign: { groupId: string | null; platform: string }) {
  if (!campaign.groupId) return Promise.resolve([]);
  return db
    .selectFrom('accounts as a')
    .innerJoin('deviceGroupMembers as m', 'm.deviceId', 'a.deviceId')
    .selectAll('a')
    .where('m.groupId', '=', campaign.groupId)
    .where('a.workspaceId', '=', workspaceId)
    .where('a.platform', '=', campaign.platform as 'instagram')
    .orderBy('a.username')
    .limit(1000)
    .execute();
}
