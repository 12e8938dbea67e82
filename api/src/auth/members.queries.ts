/**
 * A workspace's member as the sign-in rooms read them (password resets, reset requests, a person's sessions) and the
 * members list shows them: never a password hash. Here, below the features, so auth reads a member without importing
 * the users module that lists them.
 */
import type { Db } from '../shared/types.ts';

export const memberColumns = ['u.id', 'u.email', 'u.name', 'm.role', 'u.createdAt', 'm.deactivatedAt', 'm.lastOperatorAt'] as const;

/** One member of the workspace, active or not, or undefined for a person who is not one. */
export function findMember(db: Db, workspaceId: string, userId: string) {
  return db
    .selectFrom('workspaceMembers as m')
    .innerJoin('users as u', 'u.id', 'm.userId')
    .select(memberColumns)
    .where('m.workspaceId', '=', workspaceId)
    .where('m.userId', '=', userId)
    .executeTakeFirst();
}
