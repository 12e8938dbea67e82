/**
 * Days as the workspace lives them: daily plans, caps and targets count in the workspace's time zone.
 */
import { sql } from 'kysely';
import type { Db } from './db.ts';

/** The workspace's IANA time zone (Settings → Workspace). */
export async function workspaceTimeZone(db: Db, workspaceId: string): Promise<string> {
  const row = await db.selectFrom('workspaces').select('timeZone').where('id', '=', workspaceId).executeTakeFirst();
  return row?.timeZone ?? 'UTC';
}

/** The workspace's calendar date now, as an SQL date: for a statement that writes or reads by day. */
export function localDaySql(workspaceId: string) {
  return sql<string>`(now() at time zone coalesce((select time_zone from workspaces where id = ${workspaceId}), 'UTC'))::date`;
}
