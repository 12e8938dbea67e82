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
