/** What sign-in security reads and writes beside the sessions themselves: whose workspace a person is in, in SQL. */
import type { Db } from '../shared/types.ts';

/** The workspace a person belongs to (active or not), or undefined for a person with none yet. */
export async function workspaceOfUser(db: Db, userId: string): Promise<string | undefined> {
  const row = await db.selectFrom('workspaceMembers').select('workspaceId').where('userId', '=', userId).executeTakeFirst();
  return row?.workspaceId;
}
