import { sql } from 'kysely';
import type { CampaignStatus } from '@farm/sql';
import type { Db } from '../../shared/types.ts';
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
