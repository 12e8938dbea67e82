/** What sign-in security reads and writes beside the sessions themselves: whose workspace a person is in, in SQL. */
import type { Db } from '../shared/types.ts';

/** The workspace a person belongs to (active or not), or undefined for a person with none yet. */
export async function workspaceOfUser(db: Db, userId: string): Promise<string | undefined> {
  const row = await db.selectFrom('workspaceMembers').select('workspaceId').where('userId', '=', userId).executeTakeFirst();
  return row?.workspaceId;
}

/** The person's name and workspace, for what they are told and where (undefined without a workspace). */
export function memberOfUser(db: Db, userId: string) {
  return db
    .selectFrom('users as u')
    .leftJoin('workspaceMembers as m', 'm.userId', 'u.id')
    .select(['u.id', 'u.name', 'm.workspaceId'])
    .where('u.id', '=', userId)
    .executeTakeFirst();
}

/** Stores a notice for the person's next sign-in. */
export async function insertNotice(db: Db, userId: string, kind: string, message: string, now = new Date()): Promise<void> {
  await db.insertInto('userNotices').values({ userId, kind, message, createdAt: now }).execute();
}

/** The notices the person has not yet been shown, oldest first. */
export function listUnseenNotices(db: Db, userId: string) {
  return db
    .selectFrom('userNotices')
    .select(['id', 'kind', 'message', 'createdAt'])
    .where('userId', '=', userId)
    .where('seenAt', 'is', null)
    .orderBy('createdAt')
    .limit(50)
    .execute();
}

/** Marks the person's own notices seen; another person's ids change nothing. */
export async function markNoticesSeen(db: Db, userId: string, ids: readonly string[], now = new Date()): Promise<void> {
  await db.updateTable('userNotices').set({ seenAt: now }).where('userId', '=', userId).where('id', 'in', ids).where('seenAt', 'is', null).execute();
}

/** The person's live sessions (neither expired nor idle past the limit), most recently used first. */
export function listLiveSessions(db: Db, userId: string, idleSince: Date, now = new Date()) {
  return db
    .selectFrom('authSessions')
    .select(['id', 'createdAt', 'lastSeenAt', 'ip', 'userAgent'])
    .where('userId', '=', userId)
    .where('expiresAt', '>', now)
    .where('lastSeenAt', '>', idleSince)
    .orderBy('lastSeenAt', 'desc')
    .limit(100)
    .execute();
}

/** Ends one session of the person; answers whether it was theirs and live. */
export async function deleteSessionOfUser(db: Db, userId: string, sessionId: string): Promise<boolean> {
  const row = await db.deleteFrom('authSessions').where('id', '=', sessionId).where('userId', '=', userId).returning('id').executeTakeFirst();
  return row !== undefined;
}
