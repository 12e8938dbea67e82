import type { ActivityType } from '@farm/sql';
import type { Db } from '../../shared/types.ts';
import { decodeCursor, pastCursor } from '../../shared/paging.ts';

/** The one writer of the feed and the audit log lives with the workers, who record facts too. */
export { recordActivity, recordAudit, type AuditFact, type NewActivity } from '@farm/workers';

export interface ActivityFilter {
  type?: ActivityType | undefined;
  deviceId?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  cursor?: string | undefined;
  limit: number;
}

/** Newest first. */
export async function listActivities(db: Db, workspaceId: string, filter: ActivityFilter) {
  const cursor = decodeCursor(filter.cursor);
  let query = db.selectFrom('activities').selectAll().where('workspaceId', '=', workspaceId);
  if (filter.type) query = query.where('type', '=', filter.type);
  if (filter.deviceId) query = query.where('deviceId', '=', filter.deviceId);
  if (filter.from) query = query.where('createdAt', '>=', new Date(filter.from));
  if (filter.to) query = query.where('createdAt', '<', new Date(filter.to));
  if (cursor) {
    query = query.where(pastCursor(cursor, 'newest'));
  }
  return query
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.limit + 1)
    .execute();
}
