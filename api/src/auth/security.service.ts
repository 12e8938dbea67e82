/**
 * Sign-in security facts for the audit log: logins (right and wrong), logouts, two-factor on and off, recovery
 * codes used and made anew, password changes and resets. A fact names the person and, in `data`, only what kind
 * of thing happened: never a password, a code or a token. A person without a workspace has no log to write to.
 */
import type { FastifyBaseLogger } from 'fastify';
import { recordAudit } from '../modules/activities/activities.queries.ts';
import type { Db } from '../shared/types.ts';
import { workspaceOfUser } from './security.queries.ts';

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
