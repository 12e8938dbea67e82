/** One-time password reset links, in SQL. A link is used once: the claim is one guarded statement. */
import type { Db, Tx } from '../shared/types.ts';
import { deleteSessionsOfUser, hashToken, newToken, setPasswordHash } from './auth.queries.ts';

/** A new link for a member, replacing any earlier unused one of theirs. */
export async function createPasswordReset(tx: Tx, values: { userId: string; workspaceId: string; createdById: string; expiresAt: Date }): Promise<string> {
  const { token, tokenHash } = newToken();
  await tx.deleteFrom('passwordResets').where('userId', '=', values.userId).where('usedAt', 'is', null).execute();
  await tx
    .insertInto('passwordResets')
    .values({ ...values, tokenHash })
    .execute();
  return token;
}

/** The person a live, unused link is for. */
export function findPasswordReset(db: Db, token: string, now = new Date()) {
  return db
    .selectFrom('passwordResets as r')
    .innerJoin('users as u', 'u.id', 'r.userId')
    .innerJoin('workspaceMembers as m', (join) => join.onRef('m.userId', '=', 'r.userId').onRef('m.workspaceId', '=', 'r.workspaceId'))
    .select(['r.id', 'r.userId', 'r.workspaceId', 'r.expiresAt', 'u.name', 'u.email'])
    .where('r.tokenHash', '=', hashToken(token))
    .where('r.usedAt', 'is', null)
    .where('r.expiresAt', '>', now)
    .where('m.deactivatedAt', 'is', null)
    .executeTakeFirst();
}

/** Uses the link; answers its person and workspace, or undefined when it was used (by a parallel call too) or expired. */
export async function claimPasswordReset(tx: Tx, resetId: string, now = new Date()) {
  return tx
    .updateTable('passwordResets')
    .set({ usedAt: now })
    .where('id', '=', resetId)
    .where('usedAt', 'is', null)
    .where('expiresAt', '>', now)
    .returning(['userId', 'workspaceId'])
    .executeTakeFirst();
}

/**
 * Uses a reset link once: of two parallel uses, one sets the password. Sets it and ends every session of the person;
 * answers the ended sessions' ids, or null when the link was already used.
 */
export function usePasswordReset(db: Db, resetId: string, passwordHash: string): Promise<string[] | null> {
  return db.transaction().execute(async (tx) => {
    const claimed = await claimPasswordReset(tx, resetId);
    if (!claimed) return null;
    await setPasswordHash(tx, claimed.userId, passwordHash);
    return deleteSessionsOfUser(tx, claimed.userId);
  });
}
