import { sql } from 'kysely';
import type { Db } from '../../shared/types.ts';
import { badRequest } from '../../errors.ts';
import { escapeLike } from '../devices/devices.queries.ts';

export interface AuditFilter {
  actorId?: string | undefined;
  action?: string | undefined;
  entityType?: string | undefined;
  entityId?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  cursor?: string | undefined;
  limit: number;
}

/** Audit rows are numbered, not uuids: their cursor is the last row's time and number. */
export function encodeAuditCursor(at: Date, id: string): string {
  return Buffer.from(JSON.stringify([at.toISOString(), id])).toString('base64url');
}

function decodeAuditCursor(cursor: string | undefined): { at: Date; id: string } | undefined {
  if (!cursor) return undefined;
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof at !== 'string' || typeof id !== 'string' || Number.isNaN(Date.parse(at)) || !/^\d{1,19}$/.test(id)) throw new Error('bad');
    return { at: new Date(at), id };
  } catch {
    throw badRequest('cursor', 'Cursor is not one this server gave; start again from the first page');
  }
}

/** Newest first, with the actor's name; `action` matches a prefix (post. finds every post action). */
export function listAuditLog(db: Db, workspaceId: string, filter: AuditFilter) {
  const cursor = decodeAuditCursor(filter.cursor);
  let query = db
    .selectFrom('auditLog as a')
    .leftJoin('users as u', 'u.id', 'a.actorId')
    .select(['a.id', 'a.actorId', 'u.name as actorName', 'a.action', 'a.entityType', 'a.entityId', 'a.data', 'a.ip', 'a.createdAt'])
    .where('a.workspaceId', '=', workspaceId);
  if (filter.actorId) query = query.where('a.actorId', '=', filter.actorId);
  if (filter.action) query = query.where('a.action', 'like', `${escapeLike(filter.action)}%`);
  if (filter.entityType) query = query.where('a.entityType', '=', filter.entityType);
  if (filter.entityId) query = query.where('a.entityId', '=', filter.entityId);
  if (filter.from) query = query.where('a.createdAt', '>=', new Date(filter.from));
  if (filter.to) query = query.where('a.createdAt', '<', new Date(filter.to));
  if (cursor) query = query.where(sql<boolean>`(a.created_at, a.id) < (${cursor.at}, ${cursor.id}::bigint)`);
  return query
    .orderBy('a.createdAt', 'desc')
    .orderBy('a.id', 'desc')
    .limit(filter.limit + 1)
    .execute();
}

/** The distinct actions and entity types the workspace's log holds, for the filters' choices. */
export async function auditFacets(db: Db, workspaceId: string) {
  const [actions, entityTypes] = await Promise.all([
    db.selectFrom('auditLog').select('action').distinct().where('workspaceId', '=', workspaceId).orderBy('action').limit(500).execute(),
    db.selectFrom('auditLog').select('entityType').distinct().where('workspaceId', '=', workspaceId).orderBy('entityType').limit(100).execute(),
  ]);
  return { actions: actions.map((row) => row.action), entityTypes: entityTypes.map((row) => row.entityType) };
}
