import type { ActivityType } from '@farm/sql';
import type { Db } from '../../shared/types.ts';
import { decodeCursor, pastCursor } from '../../shared/paging.ts';
import { jsonObject, jsonPage, type JsonPage } from '../../shared/json-rows.ts';
import type { Activity } from '@farm/contracts';

export interface ActivityFilter {
  type?: ActivityType | undefined;
  deviceId?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  cursor?: string | undefined;
  limit: number;
}

/** Newest first: a page of the feed as its response's JSON text (see json-rows.ts). */
export function listActivitiesJson(db: Db, workspaceId: string, filter: ActivityFilter): Promise<JsonPage> {
  const cursor = decodeCursor(filter.cursor);
  let query = db.selectFrom('activities').where('workspaceId', '=', workspaceId);
  if (filter.type) query = query.where('type', '=', filter.type);
  if (filter.deviceId) query = query.where('deviceId', '=', filter.deviceId);
  if (filter.from) query = query.where('createdAt', '>=', new Date(filter.from));
  if (filter.to) query = query.where('createdAt', '<', new Date(filter.to));
  if (cursor) query = query.where(pastCursor(cursor, 'newest'));
  return jsonPage(db, query, { json: activityJson, order: 'newest', limit: filter.limit });
}

/** An activity as its response shape, written by the database. */
const activityJson = jsonObject<Activity>('activities', { id: 'value', userId: 'value', action: 'value', deviceId: 'value', type: 'value', createdAt: 'time' });
