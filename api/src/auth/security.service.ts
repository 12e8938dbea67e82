/**
 * Sign-in security facts for the audit log: logins (right and wrong), logouts, two-factor on and off, recovery
 * codes used and made anew, password changes and resets. A fact names the person and, in `data`, only what kind
 * of thing happened: never a password, a code or a token. A person without a workspace has no log to write to.
 */
import type { FastifyBaseLogger } from 'fastify';
import { raiseAlert } from '@farm/workers';
import type { RateLimit } from '../config.ts';
import { recordAudit, write, type WriteContext } from '../events/write.ts';
import type { Db } from '../shared/types.ts';
import { insertNotice, memberOfUser, workspaceOfUser } from './security.queries.ts';
import { forgiveSecondFactorAttempt, takeSecondFactorAttempt, type TwoFactorRow } from './two-factor.queries.ts';
import { verifySecondFactor } from './two-factor.service.ts';

export type SignInAction =
  | 'auth.login'
  | 'auth.login_failed'
  | 'auth.logout'
  | 'auth.two_factor_enabled'
  | 'auth.two_factor_disabled'
  | 'auth.recovery_code_used'
  | 'auth.recovery_codes_regenerated'
  | 'auth.password_changed'
  | 'auth.password_reset';

/** Records a sign-in fact of `userId` in their workspace's audit log, from the request's address. */
export async function auditSignIn(db: Db, userId: string, action: SignInAction, data: Record<string, string> = {}): Promise<void> {
  const workspaceId = await workspaceOfUser(db, userId);
  if (!workspaceId) return;
  await recordAudit(db, workspaceId, userId, { action, entityType: 'user', entityId: userId, data });
}

/**
 * A failed login of a known account, recorded without holding the answer: a wrong password for an account that
 * exists must take as long as one for an account that does not, or the time would tell which emails have accounts.
 */
export function auditFailedLogin(db: Db, log: FastifyBaseLogger, userId: string, reason: 'password' | 'code' | 'deactivated'): void {
  auditSignIn(db, userId, 'auth.login_failed', { reason }).catch((error: unknown) => log.error({ err: error }, 'audit of a failed login not written'));
}

/** Where changes are announced after commit (the change feed). */
type ChangeTarget = WriteContext['changes'];

/**
 * Tells a person something happened to their sign-in, the three ways this product has: a notice shown once at
 * their next sign-in, an activity in the workspace's feed, and a `user.security` alert to the webhooks of the
 * workspace's operators. `name` in the texts is filled with the person's name.
 */
export async function tellPerson(
  db: Db,
  changes: ChangeTarget,
  userId: string,
  told: { kind: string; notice: string; activity: (name: string) => string; alert: (name: string) => string; audit?: string },
  now = new Date(),
): Promise<void> {
  const person = await memberOfUser(db, userId);
  if (!person) return;
  const { workspaceId } = person;
  // A person without a workspace has no feed and no operators: the notice is all they are told.
  if (!workspaceId) {
    await insertNotice(db, userId, told.kind, told.notice, now);
    return;
  }
  await write({ db, changes }, workspaceId, async (tx, outbox) => {
    await insertNotice(tx, userId, told.kind, told.notice, now);
    await outbox.record(
      { userId, action: told.activity(person.name), type: 'warning' },
      told.audit ? { action: told.audit, entityType: 'user', entityId: userId } : undefined,
    );
    await raiseAlert(tx, workspaceId, 'user.security', {
      id: userId,
      at: now.toISOString(),
      text: told.alert(person.name),
      kind: told.kind,
      name: person.name,
    });
  });
}

function windowText(limit: RateLimit): string {
  const minutes = Math.round(limit.windowMs / 60_000);
  return minutes >= 120 && minutes % 60 === 0 ? `${minutes / 60} hours` : `${minutes} minutes`;
}

/**
 * The second factor of a login under the per-account cap on wrong codes (`secondFactorFailures`, counted over every
 * address together): once the cap is spent, the app's codes are refused ('paused') and only a recovery code signs
 * in. The wrong code that spends it tells the person. Answers which factor signed in, 'paused', or undefined (wrong).
 * The count is kept in the database, not with the request limits in Redis: a cap that Redis trouble lets through, or
 * that each API instance counts apart, would let guesses spread over instances past it.
 */
export async function checkLoginSecondFactor(
  deps: { db: Db; changes: ChangeTarget; limit: RateLimit | null; serverSecret: string },
  user: Pick<TwoFactorRow, 'id' | 'totpSecret'>,
  code: string,
): Promise<'app' | 'recovery' | 'paused' | undefined> {
  const limit = deps.limit;
  if (!limit) return verifySecondFactor(deps.db, user, code, deps.serverSecret);
  // Counted before the code is checked, so codes sent at once cannot all slip in under the cap.
  const attempt = await takeSecondFactorAttempt(deps.db, user.id, limit.windowMs);
  if (attempt > limit.max) {
    const recovery = await verifySecondFactor(deps.db, user, code, deps.serverSecret, { appCodes: false });
    if (recovery) await forgiveSecondFactorAttempt(deps.db, user.id);
    return recovery ?? 'paused';
  }
  const used = await verifySecondFactor(deps.db, user, code, deps.serverSecret);
  if (used) {
    await forgiveSecondFactorAttempt(deps.db, user.id);
    return used;
  }
  // Exactly one attempt reads the count that spends the cap, however many arrive at once: the person is told once.
  if (attempt === limit.max) {
    const window = windowText(limit);
    await tellPerson(deps.db, deps.changes, user.id, {
      kind: 'second_factor.paused',
      notice: `Wrong sign-in codes for your account were entered ${limit.max} times within ${window}, so codes from your app were refused for a while. If that was not you, your password is known to someone: change it in Settings and tell an operator.`,
      activity: (name) => `Sign-in codes for ${name} refused after ${limit.max} wrong codes in ${window}`,
      alert: (name) => `Sign-in codes for ${name} were refused after ${limit.max} wrong codes in ${window}: someone may know their password`,
      audit: 'auth.second_factor_paused',
    });
  }
  return undefined;
}
