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

/** The workspace's calendar date at `at` (now by default), as an SQL date: for a statement that writes or reads by day. */
export function localDaySql(workspaceId: string, at?: Date) {
  return sql<string>`(${at ?? sql`now()`}::timestamptz at time zone coalesce((select time_zone from workspaces where id = ${workspaceId}), 'UTC'))::date`;
}

/** The workspace's calendar date (YYYY-MM-DD) at `at` (now by default), in one round trip. */
export async function localDay(db: Db, workspaceId: string, at?: Date): Promise<string> {
  const { rows } = await sql<{ day: string }>`select to_char(${localDaySql(workspaceId, at)}, 'YYYY-MM-DD') as day`.execute(db);
  return rows[0]!.day;
}
