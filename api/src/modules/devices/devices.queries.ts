import { sql } from 'kysely';
import type { DeviceStatus } from '@farm/sql';
import type { Db } from '../../shared/types.ts';
import { decodeCursor, pastCursor } from '../../shared/paging.ts';

export interface DeviceFilter {
  status?: DeviceStatus | undefined;
  search?: string | undefined;
  assignedToId?: string | undefined;
  cursor?: string | undefined;
  limit: number;
}

/** Oldest first, so a phone keeps its place in the grid as others are added. */
export function listDevices(db: Db, workspaceId: string, filter: DeviceFilter) {
  const cursor = decodeCursor(filter.cursor);
  let query = db.selectFrom('devices').selectAll().where('workspaceId', '=', workspaceId);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.assignedToId) query = query.where('assignedToId', '=', filter.assignedToId);
  if (filter.search) query = query.where('name', 'ilike', `%${escapeLike(filter.search)}%`);
  if (cursor) {
    query = query.where(pastCursor(cursor, 'oldest'));
  }
  return query.orderBy('createdAt').orderBy('id').limit(filter.limit + 1).execute();
}

export function findDevice(db: Db, workspaceId: string, id: string) {
  return db.selectFrom('devices').selectAll().where('workspaceId', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}

export function deviceCounts(db: Db, workspaceId: string) {
  return db
    .selectFrom('devices')
    .select([
      sql<number>`count(*)::int`.as('total'),
      sql<number>`(count(*) filter (where status = 'online'))::int`.as('online'),
    ])
    .where('workspaceId', '=', workspaceId)
    .executeTakeFirstOrThrow();
}
