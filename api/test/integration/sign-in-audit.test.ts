/**
 * Sign-in security in the audit log: logins right and wrong, logouts, two-factor on and off, recovery codes used
 * and made anew, password changes and resets. A wrong password for an unknown email answers exactly as one for a
 * known account, and no entry ever holds a password or a code.
 */
import { describe, expect, it } from 'vitest';
import { messages, type AuditEntry } from '@farm/contracts';
import { currentCode } from '../../src/auth/two-factor.service.ts';
import { Client, signUp, uniqueEmail } from '../helpers/app.ts';
import { expectError, expectStatus } from '../helpers/assertions.ts';
import { buildInvitation } from '../helpers/factories.ts';
import { fileApp } from '../helpers/file-app.ts';
import { codeAt, fixedClock } from '../helpers/two-factor.ts';

const PASSWORD = 'correct horse battery';
// Codes and their checks read one instant: none turns stale during a request.
fixedClock();
const t = await fileApp();

async function authEntries(operator: Client, userId: string): Promise<AuditEntry[]> {
  const answer = await operator.get<AuditEntry[]>(`/api/audit-log?action=auth.&entityId=${userId}&limit=100`);
  expectStatus(answer, 200);
  return answer.body.slice().reverse();
}

describe('the audit log of sign-ins', () => {
  it('records logins, a failed password, a password change and a logout, with the address and no secret', async () => {
    const email = uniqueEmail('audited');
    const operator = await signUp(t.app, { email, password: PASSWORD });
    const id = operator.user!.id;
    expectError(await new Client(t.app).post('/api/auth/login', { email, password: 'wrong password here' }), 401, messages.invalidCredentials);
    const again = new Client(t.app);
    expectStatus(await again.post('/api/auth/login', { email, password: PASSWORD }), 200);
    expectStatus(await again.post('/api/auth/logout'), 204);
    expectStatus(await operator.patch('/api/users/me', { currentPassword: PASSWORD, password: 'a newer password' }), 200);

    await expect
      .poll(async () => (await authEntries(operator, id)).map((entry) => entry.action))
      .toEqual(['auth.login_failed', 'auth.login', 'auth.logout', 'auth.password_changed']);
    const entries = await authEntries(operator, id);
    expect(entries[0]).toMatchObject({ actorId: id, entityType: 'user', entityId: id, data: { reason: 'password' }, ip: '127.0.0.1' });
    expect(entries[1]).toMatchObject({ data: { secondFactor: 'none' } });
    const text = JSON.stringify(entries);
    for (const secret of [PASSWORD, 'wrong password here', 'a newer password']) expect(text).not.toContain(secret);
  });

  it('answers an unknown email as a wrong password and writes nothing to any workspace', async () => {
    const operator = await signUp(t.app);
    const before = await t.db
      .selectFrom('auditLog')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('action', 'like', 'auth.%')
      .executeTakeFirstOrThrow();
    const unknown = await new Client(t.app).post('/api/auth/login', { email: uniqueEmail('nobody'), password: PASSWORD });
    const known = await new Client(t.app).post('/api/auth/login', { email: operator.user!.email, password: 'not the password' });
    expect(unknown.status).toBe(known.status);
    expect(unknown.body).toEqual(known.body);
    await expect.poll(async () => (await authEntries(operator, operator.user!.id)).map((entry) => entry.action)).toEqual(['auth.login_failed']);
    const after = await t.db
      .selectFrom('auditLog')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('action', 'like', 'auth.%')
      .executeTakeFirstOrThrow();
    expect(Number(after.n) - Number(before.n)).toBe(1);
  });

  it('records two-factor turned on, a wrong code, a recovery code used, new codes made, and two-factor turned off', async () => {
    const email = uniqueEmail('audited2fa');
    const operator = await signUp(t.app, { email, password: PASSWORD });
    const id = operator.user!.id;
    const setup = await operator.post<{ secret: string }>('/api/auth/two-factor/setup');
    const enabled = await operator.post<{ recoveryCodes: string[] }>('/api/auth/two-factor/enable', {
      code: await codeAt(setup.body.secret, -1),
    });
    expectStatus(enabled, 200);
    const [first, second] = enabled.body.recoveryCodes;

    const login = new Client(t.app);
    const step = await login.post<{ challenge: string }>('/api/auth/login', { email, password: PASSWORD });
    expectError(await login.post('/api/auth/login/two-factor', { challenge: step.body.challenge, code: '000000' }), 401, messages.twoFactorCodeWrong);
    expectStatus(await login.post('/api/auth/login/two-factor', { challenge: step.body.challenge, code: first }), 200);
    const fresh = await login.post<{ recoveryCodes: string[] }>('/api/auth/two-factor/recovery-codes', { code: second });
    expectStatus(fresh, 200);
    expectStatus(await login.post('/api/auth/two-factor/disable', { password: PASSWORD, code: currentCode(setup.body.secret) }), 200);

    await expect
      .poll(async () =>
        (await authEntries(operator, id)).map((entry) => `${entry.action}${entry.data.secondFactor ? `:${String(entry.data.secondFactor)}` : ''}`),
      )
      .toEqual([
        'auth.two_factor_enabled',
        'auth.login_failed',
        'auth.recovery_code_used',
        'auth.login:recovery',
        'auth.recovery_code_used',
        'auth.recovery_codes_regenerated',
        'auth.two_factor_disabled',
      ]);
    const text = JSON.stringify(await authEntries(operator, id));
    for (const code of [first, second, ...fresh.body.recoveryCodes, setup.body.secret]) expect(text).not.toContain(code);
  });

  it('records a password reset link used, in the member workspace', async () => {
    const operator = await signUp(t.app);
    const invitation = await buildInvitation(operator);
    const member = await signUp(t.app, { role: 'va', inviteToken: invitation.token, password: PASSWORD });
    const link = await operator.post<{ token: string }>(`/api/users/${member.user!.id}/password-reset`);
    expectStatus(link, 201);
    expectStatus(await new Client(t.app).post('/api/auth/password-reset', { token: link.body.token, password: 'a fresh password' }), 200);
    const entries = await authEntries(operator, member.user!.id);
    expect(entries.map((entry) => entry.action)).toEqual(['auth.password_reset']);
    expect(entries[0]).toMatchObject({ actorId: member.user!.id, data: { sessionsEnded: '1' } });
  });
});
