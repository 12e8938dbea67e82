import type { ActivityType } from '@farm/sql';
import type { Db } from '../../shared/types.ts';
import { decodeCursor, pastCursor } from '../../shared/paging.ts';
import { serialize } from '../../shared/serialize.ts';
import type { Outbox } from '../../realtime/outbox.ts';

export interface NewActivity {
  workspaceId: string;
  userId: string | null;
  action: string;
  deviceId?: string | null;
  type?: ActivityType;
}

/** Writes what a person (or a phone) did to the workspace's feed, and the same fact to the audit log. */
export async function recordActivity(
  db: Db,
  activity: NewActivity,
  audit?: { action: string; entityType: string; entityId: string; data?: Record<string, unknown> },
  outbox?: Outbox,
) {
  const row = await db
    .insertInto('activities')
    .values({
      workspaceId: activity.workspaceId,
      userId: activity.userId,
      action: activity.action,
      deviceId: activity.deviceId ?? null,
      type: activity.type ?? 'info',
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (audit) {
    await db
      .insertInto('auditLog')
      .values({
        workspaceId: activity.workspaceId,
        actorId: activity.userId,
        action: audit.action,
        entityType: audit.entityType,
        entityId: audit.entityId,
        data: JSON.stringify(audit.data ?? {}),
      })
      .execute();
  }
  outbox?.add('activity.created', serialize(row));
  return row;
}

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
  return query.orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(filter.limit + 1).execute();
}
