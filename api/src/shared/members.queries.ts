/**
 * A person as a member of a workspace, looked up by id: the one query the member list, the checks of ids named in a
 * body (refs.ts) and the sign-in rooms read. Never a password hash; a deactivated member is found too, with the time.
 */
import type { Db } from './types.ts';

/** What the console shows of a member, and what the rules about them read. */
export const memberColumns = ['u.id', 'u.email', 'u.name', 'm.role', 'u.createdAt', 'm.deactivatedAt', 'm.lastOperatorAt'] as const;

/** The member of the workspace with this user id, active or not; undefined for a person of another workspace. */
export function findMember(db: Db, workspaceId: string, userId: string) {
  return db
    .selectFrom('workspaceMembers as m')
    .innerJoin('users as u', 'u.id', 'm.userId')
    .select(memberColumns)
    .where('m.workspaceId', '=', workspaceId)
    .where('m.userId', '=', userId)
    .executeTakeFirst();
}

export type MemberRow = NonNullable<Awaited<ReturnType<typeof findMember>>>;
