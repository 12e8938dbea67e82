/**
 * Two-factor sign-in: setting it up from Settings (a QR code, a first code, recovery codes shown once), the login
 * step that asks for a code, recovery codes used once, turning it off, and a workspace that requires it of its
 * operators (who then set it up at their next login).
 */
import { describe, expect, it } from 'vitest';
import { messages, type Me } from '@farm/contracts';
import { currentCode } from '../../src/auth/two-factor.service.ts';
import { Client, inviteVa, signUp, uniqueEmail } from '../helpers/app.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { buildInvitation } from '../helpers/factories.ts';
import { http, serve, statuses } from '../helpers/http.ts';
import { fileApp } from '../helpers/file-app.ts';
import { codeAt, fixedClock } from '../helpers/two-factor.ts';

const PASSWORD = 'correct horse battery';
// Codes and their checks read one instant: none turns stale during a request.
fixedClock();
const t = await fileApp();

async function withTwoFactor(name = 'Tess Two'): Promise<{ person: Client; email: string; secret: string; recoveryCodes: string[] }> {
  const email = uniqueEmail('two');
  const person = await signUp(t.app, { email, name, password: PASSWORD });
  const setup = await person.post<{ secret: string }>('/api/auth/two-factor/setup');
  const enabled = await person.post<{ recoveryCodes: string[] }>('/api/auth/two-factor/enable', { code: await codeAt(setup.body.secret, -1) });
  expectStatus(enabled, 200);
  return { person, email, secret: setup.body.secret, recoveryCodes: enabled.body.recoveryCodes };
}

async function passwordStep(email: string): Promise<{ client: Client; challenge: string; twoFactor: string }> {
  const client = new Client(t.app);
  const answer = await client.post<{ challenge: string; twoFactor: string }>('/api/auth/login', { email, password: PASSWORD });
  expectStatus(answer, 200);
  return { client, ...answer.body };
}

describe('setting two-factor sign-in up', () => {
  it('shows a QR code and the secret, takes the first code, and answers ten recovery codes once', async () => {
    const person = await signUp(t.app);
    expect((await person.get('/api/auth/two-factor')).body).toEqual({ enabled: false, required: false, recoveryCodesLeft: 0 });
    expectError(await person.post('/api/auth/two-factor/enable', { code: '123456' }), 409, messages.twoFactorNotStarted);
    const setup = await person.post<{ secret: string; otpauthUrl: string; qrCode: string }>('/api/auth/two-factor/setup');
    expectStatus(setup, 200);
    expect(setup.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(setup.body.otpauthUrl).toMatch(/^otpauth:\/\/totp\/Phone%20Farm%20Console:.+\?.*secret=[A-Z2-7]+/);
    expect(setup.body.qrCode).toMatch(/^data:image\/png;base64,/);
    expectFieldError(await person.post('/api/auth/two-factor/enable', { code: '000000' }), 'code', messages.twoFactorCodeWrong);
    expectFieldError(await person.post('/api/auth/two-factor/enable', { code: '' }), 'code', 'Code is required');
    const enabled = await person.post<{ recoveryCodes: string[] }>('/api/auth/two-factor/enable', { code: currentCode(setup.body.secret) });
    expectStatus(enabled, 200);
    expect(enabled.body.recoveryCodes).toHaveLength(10);
    for (const code of enabled.body.recoveryCodes) expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    expect(new Set(enabled.body.recoveryCodes).size).toBe(10);
    expect((await person.get('/api/auth/two-factor')).body).toEqual({ enabled: true, required: false, recoveryCodesLeft: 10 });
    expectError(await person.post('/api/auth/two-factor/setup'), 409, messages.twoFactorAlreadyOn);
    // Only hashes are kept.
    const stored = await t.db.selectFrom('recoveryCodes').select('codeHash').where('userId', '=', person.user!.id).execute();
    expect(stored.map((row) => row.codeHash)).not.toContain(enabled.body.recoveryCodes[0]);
  });
});

describe('logging in with two-factor sign-in on', () => {
  it('asks for a code after the password, and signs in only with a right one', async () => {
    const { email, secret, person } = await withTwoFactor();
    const { client, challenge, twoFactor } = await passwordStep(email);
    expect(twoFactor).toBe('code');
    expect(client.cookie).toBeUndefined();
    expectError(await client.get('/api/auth/me'), 401, messages.notSignedIn);
    expectError(await client.post('/api/auth/login/two-factor', { challenge, code: '000000' }), 401, messages.twoFactorCodeWrong);
    const answer = await client.post<{ user: Me }>('/api/auth/login/two-factor', { challenge, code: currentCode(secret) });
    expectStatus(answer, 200);
    expect(answer.body.user).toEqual(person.user);
    expect(answer.body).not.toHaveProperty('recoveryCodes');
    expectStatus(await client.get('/api/auth/me'), 200);
    // The step is done: it cannot sign in a second browser.
    expectError(await new Client(t.app).post('/api/auth/login/two-factor', { challenge, code: currentCode(secret) }), 401, messages.loginStepExpired);
  });

  it('takes each code once: a code just used does not sign in again', async () => {
    const { email, secret } = await withTwoFactor();
    const code = currentCode(secret);
    const first = await passwordStep(email);
    expectStatus(await first.client.post('/api/auth/login/two-factor', { challenge: first.challenge, code }), 200);
    const again = await passwordStep(email);
    expectError(await again.client.post('/api/auth/login/two-factor', { challenge: again.challenge, code }), 401, messages.twoFactorCodeWrong);
  });

  it('takes a recovery code once, in any case and with or without its dash', async () => {
    const { email, recoveryCodes, person } = await withTwoFactor();
    const first = await passwordStep(email);
    expectStatus(
      await first.client.post('/api/auth/login/two-factor', { challenge: first.challenge, code: recoveryCodes[0]!.toUpperCase().replace('-', ' ') }),
      200,
    );
    expect((await person.get('/api/auth/two-factor')).body.recoveryCodesLeft).toBe(9);
    const again = await passwordStep(email);
    expectError(
      await again.client.post('/api/auth/login/two-factor', { challenge: again.challenge, code: recoveryCodes[0] }),
      401,
      messages.twoFactorCodeWrong,
    );
  });

  it('gives a login step five tries and five minutes', async () => {
    const { email, secret } = await withTwoFactor();
    const { client, challenge } = await passwordStep(email);
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      expectError(await client.post('/api/auth/login/two-factor', { challenge, code: '000000' }), 401, messages.twoFactorCodeWrong);
    }
    expectError(await client.post('/api/auth/login/two-factor', { challenge, code: currentCode(secret) }), 401, messages.loginStepExpired);
    const late = await passwordStep(email);
    await t.db
      .updateTable('loginChallenges')
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where('attempts', '=', 0)
      .execute();
    expectError(await late.client.post('/api/auth/login/two-factor', { challenge: late.challenge, code: currentCode(secret) }), 401, messages.loginStepExpired);
    expectError(await new Client(t.app).post('/api/auth/login/two-factor', { challenge: 'made-up', code: '123456' }), 401, messages.loginStepExpired);
  });

  it('ends a login step when the person is deactivated meanwhile', async () => {
    const owner = await signUp(t.app);
    const email = uniqueEmail('leaver');
    const invitation = await buildInvitation(owner, { role: 'operator' });
    const leaver = await signUp(t.app, { role: 'operator', email, password: PASSWORD, inviteToken: invitation.token });
    const setup = await leaver.post<{ secret: string }>('/api/auth/two-factor/setup');
    expectStatus(await leaver.post('/api/auth/two-factor/enable', { code: await codeAt(setup.body.secret, -1) }), 200);
    const { client, challenge } = await passwordStep(email);
    expectStatus(await owner.patch(`/api/users/${leaver.user!.id}`, { isActive: false }), 200);
    expectError(await client.post('/api/auth/login/two-factor', { challenge, code: currentCode(setup.body.secret) }), 401, messages.loginStepExpired);
  });

  it('completes one login step once when two right answers arrive at once', async () => {
    const { email, recoveryCodes } = await withTwoFactor();
    const { challenge } = await passwordStep(email);
    const base = await serve(t.app);
    const answers = await Promise.all(recoveryCodes.slice(0, 2).map((code) => http(base, 'POST', '/api/auth/login/two-factor', { body: { challenge, code } })));
    expect(statuses(answers)).toEqual({ 200: 1, 401: 1 });
  });
});

describe('recovery codes and turning it off', () => {
  it('makes new recovery codes with a code, and the old ones stop working', async () => {
    const { email, person, secret, recoveryCodes } = await withTwoFactor();
    expectFieldError(await person.post('/api/auth/two-factor/recovery-codes', { code: '000000' }), 'code', messages.twoFactorCodeWrong);
    const fresh = await person.post<{ recoveryCodes: string[] }>('/api/auth/two-factor/recovery-codes', { code: currentCode(secret) });
    expectStatus(fresh, 200);
    expect(fresh.body.recoveryCodes).toHaveLength(10);
    const step = await passwordStep(email);
    expectError(await step.client.post('/api/auth/login/two-factor', { challenge: step.challenge, code: recoveryCodes[1] }), 401, messages.twoFactorCodeWrong);
    expectStatus(await step.client.post('/api/auth/login/two-factor', { challenge: step.challenge, code: fresh.body.recoveryCodes[1] }), 200);
  });

  it('turns off with the password and a code; the login then asks for the password only', async () => {
    const { email, person, recoveryCodes } = await withTwoFactor();
    expectFieldError(await person.post('/api/auth/two-factor/disable', { password: 'not it', code: recoveryCodes[0] }), 'password', messages.passwordWrong);
    expectFieldError(await person.post('/api/auth/two-factor/disable', { password: PASSWORD, code: '000000' }), 'code', messages.twoFactorCodeWrong);
    expectStatus(await person.post('/api/auth/two-factor/disable', { password: PASSWORD, code: recoveryCodes[0] }), 200);
    expect((await person.get('/api/auth/two-factor')).body).toEqual({ enabled: false, required: false, recoveryCodesLeft: 0 });
    expectError(await person.post('/api/auth/two-factor/disable', { password: PASSWORD, code: recoveryCodes[1] }), 409, messages.twoFactorNotOn);
    const login = await new Client(t.app).post<{ user: Me }>('/api/auth/login', { email, password: PASSWORD });
    expectStatus(login, 200);
    expect(login.body.user.email).toBe(email);
  });
});

describe('a workspace that requires two-factor sign-in of its operators', () => {
  it('is turned on only by an operator who has it, ends other operators’ sessions, and has them set it up at login', async () => {
    const owner = await signUp(t.app, { password: PASSWORD });
    expectError(await owner.request('PUT', '/api/workspace/two-factor', { required: true }), 409, messages.twoFactorSelfFirst);
    const setup = await owner.post<{ secret: string }>('/api/auth/two-factor/setup');
    expectStatus(await owner.post('/api/auth/two-factor/enable', { code: currentCode(setup.body.secret) }), 200);

    const colleagueEmail = uniqueEmail('colleague');
    const invitation = await buildInvitation(owner, { role: 'operator' });
    const colleague = await signUp(t.app, { role: 'operator', email: colleagueEmail, password: PASSWORD, inviteToken: invitation.token });
    const vaEmail = uniqueEmail('va');
    const vaInvitation = await buildInvitation(owner, { role: 'va' });
    const va = await signUp(t.app, { role: 'va', email: vaEmail, password: PASSWORD, inviteToken: vaInvitation.token });

    const turnedOn = await owner.request('PUT', '/api/workspace/two-factor', { required: true });
    expectStatus(turnedOn, 200);
    expect(turnedOn.body).toEqual({ required: true });
    expect((await owner.get('/api/workspace')).body.requireTwoFactor).toBe(true);
    expectStatus(await owner.get('/api/auth/me'), 200);
    expectError(await colleague.get('/api/auth/me'), 401, messages.notSignedIn);
    expectStatus(await va.get('/api/auth/me'), 200);
    expect(t.changes).toContainEqual(expect.objectContaining({ event: 'auth.revoked', workspaceId: owner.user!.workspaceId }));

    // The colleague sets it up as the second step of their next login.
    const step = await passwordStep(colleagueEmail);
    expect(step.twoFactor).toBe('setup');
    const theirs = await step.client.post<{ secret: string; qrCode: string }>('/api/auth/login/two-factor/setup', { challenge: step.challenge });
    expectStatus(theirs, 200);
    expect(theirs.body.qrCode).toMatch(/^data:image\/png;base64,/);
    expectError(await step.client.post('/api/auth/login/two-factor', { challenge: step.challenge, code: '000000' }), 401, messages.twoFactorCodeWrong);
    const done = await step.client.post<{ user: Me; recoveryCodes: string[] }>('/api/auth/login/two-factor', {
      challenge: step.challenge,
      code: currentCode(theirs.body.secret),
    });
    expectStatus(done, 200);
    expect(done.body.recoveryCodes).toHaveLength(10);
    expect((await step.client.get('/api/auth/two-factor')).body).toEqual({ enabled: true, required: true, recoveryCodesLeft: 10 });
    // Required: it cannot be turned off.
    expectError(
      await step.client.post('/api/auth/two-factor/disable', { password: PASSWORD, code: done.body.recoveryCodes[0] }),
      409,
      messages.twoFactorRequiredByWorkspace,
    );

    // A VA of the workspace signs in with the password alone.
    const vaLogin = await new Client(t.app).post<{ user: Me }>('/api/auth/login', { email: vaEmail, password: PASSWORD });
    expect(vaLogin.body.user.email).toBe(vaEmail);
    // A login step for setup is not a way around a set-up factor.
    expectError(await step.client.post('/api/auth/login/two-factor/setup', { challenge: step.challenge }), 401, messages.loginStepExpired);

    expectStatus(await owner.request('PUT', '/api/workspace/two-factor', { required: false }), 200);
    expect((await owner.get('/api/workspace')).body.requireTwoFactor).toBe(false);
  });

  it('leaves VAs and people outside the workspace alone, and only operators may set it', async () => {
    const owner = await signUp(t.app);
    const va = await inviteVa(t.app, owner);
    expectError(await va.request('PUT', '/api/workspace/two-factor', { required: true }), 403, messages.forbidden);
    expectFieldError(await owner.request('PUT', '/api/workspace/two-factor', { required: 'yes' }), 'required', 'Required must be true or false');
  });
});
