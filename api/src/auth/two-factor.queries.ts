/** Two-factor sign-in, its pending login steps and its recovery codes, in SQL. Every change is one guarded statement. */
import { sql } from 'kysely';
import type { Db, Tx } from '../shared/types.ts';
import { hashToken, newToken } from './auth.queries.ts';

/** A login step lives this long, and takes this many codes. */
export const CHALLENGE_MS = 5 * 60_000;
export const CHALLENGE_ATTEMPTS = 5;

/** A person's two-factor state, and whether their workspace requires it of them (an active operator of a workspace with the rule). */
export async function findTwoFactor(db: Db, userId: string) {
  return db
    .selectFrom('users as u')
    .leftJoin('workspaceMembers as m', 'm.userId', 'u.id')
    .leftJoin('workspaces as w', 'w.id', 'm.workspaceId')
    .select([
      'u.id',
      'u.email',
      'u.totpSecret',
      'u.totpPendingSecret',
      'u.totpEnabledAt',
      'm.deactivatedAt',
      sql<boolean>`coalesce(w.require_two_factor and m.role = 'operator' and m.deactivated_at is null, false)`.as('required'),
    ])
    .where('u.id', '=', userId)
    .executeTakeFirstOrThrow();
}

export type TwoFactorRow = Awaited<ReturnType<typeof findTwoFactor>>;

export async function setPendingSecret(db: Db, userId: string, sealed: string): Promise<void> {
  await db.updateTable('users').set({ totpPendingSecret: sealed }).where('id', '=', userId).execute();
}

/** Turns the pending secret on, if it is still the one the code was checked against; answers whether it did. */
export async function enableTwoFactor(tx: Tx, userId: string, pendingSealed: string, step: number): Promise<boolean> {
  const row = await tx
    .updateTable('users')
    .set({ totpSecret: pendingSealed, totpPendingSecret: null, totpEnabledAt: new Date(), totpLastStep: step })
    .where('id', '=', userId)
    .where('totpPendingSecret', '=', pendingSealed)
    .where('totpEnabledAt', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function disableTwoFactor(tx: Tx, userId: string): Promise<void> {
  await tx.updateTable('users').set({ totpSecret: null, totpPendingSecret: null, totpEnabledAt: null, totpLastStep: null }).where('id', '=', userId).execute();
  await tx.deleteFrom('recoveryCodes').where('userId', '=', userId).execute();
}

/** Accepts a code's time step once: a code seen before (a replay, or a second tab) is refused. */
export async function acceptStep(db: Db, userId: string, step: number): Promise<boolean> {
  const row = await db
    .updateTable('users')
    .set({ totpLastStep: step })
    .where('id', '=', userId)
    .where((eb) => eb.or([eb('totpLastStep', 'is', null), eb('totpLastStep', '<', step)]))
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function replaceRecoveryCodes(tx: Tx, userId: string, hashes: readonly string[]): Promise<void> {
  await tx.deleteFrom('recoveryCodes').where('userId', '=', userId).execute();
  await tx
    .insertInto('recoveryCodes')
    .values(hashes.map((codeHash) => ({ userId, codeHash })))
    .execute();
}

/** Uses a recovery code once; answers whether it was an unused code of this person. */
export async function useRecoveryCode(db: Db, userId: string, codeHash: string): Promise<boolean> {
  const row = await db
    .updateTable('recoveryCodes')
    .set({ usedAt: new Date() })
    .where('userId', '=', userId)
    .where('codeHash', '=', codeHash)
    .where('usedAt', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function countRecoveryCodes(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectFrom('recoveryCodes')
    .select(sql<number>`count(*)::int`.as('count'))
    .where('userId', '=', userId)
    .where('usedAt', 'is', null)
    .executeTakeFirstOrThrow();
  return row.count;
}

/** A pending second step of a login; its token goes to the browser once. Older steps of the person go. */
export async function createChallenge(db: Db, userId: string, now = new Date()): Promise<string> {
  const { token, tokenHash } = newToken();
  await db.deleteFrom('loginChallenges').where('userId', '=', userId).where('expiresAt', '<=', now).execute();
  await db
    .insertInto('loginChallenges')
    .values({ tokenHash, userId, expiresAt: new Date(now.getTime() + CHALLENGE_MS) })
    .execute();
  return token;
}

/** The live step behind a token, with attempts left. */
export function findChallenge(db: Db, token: string, now = new Date()) {
  return db
    .selectFrom('loginChallenges')
    .select(['id', 'userId', 'attempts'])
    .where('tokenHash', '=', hashToken(token))
    .where('expiresAt', '>', now)
    .where('attempts', '<', CHALLENGE_ATTEMPTS)
    .executeTakeFirst();
}

/** Counts one code tried against a step; answers false when the step has no attempts left (parallel guesses included). */
export async function countChallengeAttempt(db: Db, challengeId: string): Promise<boolean> {
  const row = await db
    .updateTable('loginChallenges')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', challengeId)
    .where('attempts', '<', CHALLENGE_ATTEMPTS)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Ends a step: the login it belonged to is done. Answers whether this call ended it (a step completes once). */
export async function deleteChallenge(db: Db, challengeId: string): Promise<boolean> {
  const row = await db.deleteFrom('loginChallenges').where('id', '=', challengeId).returning('id').executeTakeFirst();
  return row !== undefined;
}

export async function setWorkspaceTwoFactor(db: Db, workspaceId: string, required: boolean): Promise<void> {
  await db.updateTable('workspaces').set({ requireTwoFactor: required }).where('id', '=', workspaceId).execute();
}

/** Ends the sessions of the workspace's active operators who have no second factor; answers the session ids. */
export async function endSessionsWithoutTwoFactor(db: Db, workspaceId: string): Promise<string[]> {
  const rows = await db
    .deleteFrom('authSessions')
    .where('userId', 'in', (eb) =>
      eb
        .selectFrom('workspaceMembers as m')
        .innerJoin('users as u', 'u.id', 'm.userId')
        .select('u.id')
        .where('m.workspaceId', '=', workspaceId)
        .where('m.role', '=', 'operator')
        .where('m.deactivatedAt', 'is', null)
        .where('u.totpEnabledAt', 'is', null),
    )
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}

/** The window of `windowMs` ending now, as SQL: a row whose window started before it has lapsed. */
const windowOpenSince = (windowMs: number) => sql<Date>`now() - ${windowMs}::integer * interval '1 millisecond'`;

/**
 * Counts one second-factor code of the person as wrong before it is checked, and answers the count of the current
 * window (1 when the last one lapsed); a right code is forgiven after. One upsert: the row's lock orders requests at
 * once, from any API instance, so each reads its own count and no more codes than the cap are ever checked.
 */
export async function takeSecondFactorAttempt(db: Db, userId: string, windowMs: number): Promise<number> {
  const lapsed = sql<boolean>`second_factor_failures.window_start <= ${windowOpenSince(windowMs)}`;
  const row = await db
    .insertInto('secondFactorFailures')
    .values({ userId, windowStart: sql<Date>`now()`, failures: 1 })
    .onConflict((oc) =>
      oc.column('userId').doUpdateSet({
        failures: sql<number>`case when ${lapsed} then 1 else second_factor_failures.failures + 1 end`,
        windowStart: sql<Date>`case when ${lapsed} then now() else second_factor_failures.window_start end`,
      }),
    )
    .returning('failures')
    .executeTakeFirstOrThrow();
  return row.failures;
}

/** Takes back an attempt whose code was right. */
export async function forgiveSecondFactorAttempt(db: Db, userId: string): Promise<void> {
  await db.updateTable('secondFactorFailures').set({ failures: sql<number>`greatest(failures - 1, 0)` }).where('userId', '=', userId).execute();
}
