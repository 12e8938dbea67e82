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

/** The workspace's calendar date (YYYY-MM-DD) at `at` (now by default). */
export async function localDay(db: Db, workspaceId: string, at?: Date): Promise<string> {
  const zone = await workspaceTimeZone(db, workspaceId);
  const { rows } = await sql<{ day: string }>`select to_char((${at ?? sql`now()`}::timestamptz at time zone ${zone})::date, 'YYYY-MM-DD') as day`.execute(db);
  return rows[0]!.day;
}
