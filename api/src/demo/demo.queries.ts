/** The demo farm's people and their passwords, in SQL (the farm itself is written by seed.ts). */
import type { Db } from '../shared/types.ts';

/** Everyone of the demo operator's workspace, the operator too, with their password hashes. */
export function listDemoPeople(db: Db, operatorEmail: string) {
  return db
    .selectFrom('users as u')
    .innerJoin('workspaceMembers as m', 'm.userId', 'u.id')
    .innerJoin('workspaceMembers as om', 'om.workspaceId', 'm.workspaceId')
    .innerJoin('users as o', 'o.id', 'om.userId')
    .select(['u.id', 'u.passwordHash'])
    .where('o.email', '=', operatorEmail)
    .execute();
}

/** Sets a demo person's password unless it changed since it was read (they chose one meanwhile). */
export async function setDemoPasswordHash(db: Db, userId: string, previousHash: string, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ passwordHash }).where('id', '=', userId).where('passwordHash', '=', previousHash).execute();
}
