/**
 * An operator resets a member's password: a one-time link, valid one hour, that the member opens to choose a new
 * password; using it ends every session the member had. Changing one's own password stays in Settings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages, type Me } from '@farm/contracts';
import { buildTestApp, Client, inviteVa, signUp, uniqueEmail, type TestApp } from '../helpers/app.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { buildInvitation } from '../helpers/factories.ts';
import { http, serve, statuses, together } from '../helpers/http.ts';

const PASSWORD = 'correct horse battery';
const PUBLIC_URL = 'https://console.example';
let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp({ publicUrl: PUBLIC_URL });
});
afterAll(async () => {
  await t?.close();
});

async function member(operator: Client): Promise<{ client: Client; email: string }> {
  const email = uniqueEmail('member');
  const invitation = await buildInvitation(operator);
  const client = await signUp(t.app, { role: 'va', email, password: PASSWORD, inviteToken: invitation.token, name: 'Mia Member' });
  return { client, email };
}

async function resetLink(operator: Client, userId: string): Promise<{ token: string; url: string; expiresAt: string }> {
  const answer = await operator.post<{ token: string; url: string; expiresAt: string }>(`/api/users/${userId}/password-reset`);
  expectStatus(answer, 201);
  return answer.body;
}

describe('a password reset link', () => {
  it('lets the member choose a new password once, within the hour, and ends their sessions', async () => {
    const operator = await signUp(t.app);
    const { client, email } = await member(operator);
    const elsewhere = new Client(t.app);
    expectStatus(await elsewhere.post('/api/auth/login', { email, password: PASSWORD }), 200);

    const link = await resetLink(operator, client.user!.id);
    expect(link.url).toBe(`${PUBLIC_URL}/reset-password?token=${link.token}`);
    const hours = (Date.parse(link.expiresAt) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(0.95);
    expect(hours).toBeLessThanOrEqual(1);
    const preview = await new Client(t.app).get(`/api/password-resets/lookup/${link.token}`);
    expectStatus(preview, 200);
    expect(preview.body).toEqual({ name: 'Mia Member', email, expiresAt: link.expiresAt });
    // Making the link ends nothing yet.
    expectStatus(await client.get('/api/auth/me'), 200);

    expectFieldError(
      await new Client(t.app).post('/api/auth/password-reset', { token: link.token, password: 'short' }),
      'password',
      'Password must be at least 8 characters',
    );
    expectStatus(await new Client(t.app).post('/api/auth/password-reset', { token: link.token, password: 'a fresh password' }), 200);
    expectError(await client.get('/api/auth/me'), 401, messages.notSignedIn);
    expectError(await elsewhere.get('/api/auth/me'), 401, messages.notSignedIn);
    expect(t.changes).toContainEqual(expect.objectContaining({ event: 'auth.revoked', workspaceId: operator.user!.workspaceId }));
    expectError(await new Client(t.app).post('/api/auth/login', { email, password: PASSWORD }), 401, messages.invalidCredentials);
    const login = await new Client(t.app).post<{ user: Me }>('/api/auth/login', { email, password: 'a fresh password' });
    expectStatus(login, 200);

    // Once only.
    expectError(
      await new Client(t.app).post('/api/auth/password-reset', { token: link.token, password: 'another password' }),
      404,
      messages.passwordResetInvalid,
    );
    expectError(await new Client(t.app).get(`/api/password-resets/lookup/${link.token}`), 404, messages.passwordResetInvalid);
  });

  it('lapses after an hour, and a newer link replaces an older one', async () => {
    const operator = await signUp(t.app);
    const { client } = await member(operator);
    const expired = await resetLink(operator, client.user!.id);
    await t.db
      .updateTable('passwordResets')
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where('userId', '=', client.user!.id)
      .execute();
    expectError(
      await new Client(t.app).post('/api/auth/password-reset', { token: expired.token, password: 'a fresh password' }),
      404,
      messages.passwordResetInvalid,
    );
    const older = await resetLink(operator, client.user!.id);
    const newer = await resetLink(operator, client.user!.id);
    expectError(await new Client(t.app).get(`/api/password-resets/lookup/${older.token}`), 404, messages.passwordResetInvalid);
    expectStatus(await new Client(t.app).get(`/api/password-resets/lookup/${newer.token}`), 200);
    expectError(await new Client(t.app).get('/api/password-resets/lookup/made-up'), 404, messages.passwordResetInvalid);
  });

  it('is not for oneself, nor for a deactivated member, nor for another workspace', async () => {
    const operator = await signUp(t.app);
    expectError(await operator.post(`/api/users/${operator.user!.id}/password-reset`), 409, messages.passwordResetSelf);
    const va = await inviteVa(t.app, operator);
    expectStatus(await operator.patch(`/api/users/${va.user!.id}`, { isActive: false }), 200);
    expectError(await operator.post(`/api/users/${va.user!.id}/password-reset`), 409, messages.passwordResetDeactivated);
    expectError(await (await signUp(t.app)).post(`/api/users/${va.user!.id}/password-reset`), 404, messages.notFound);
  });

  it('stops working when the member is deactivated after it was made', async () => {
    const operator = await signUp(t.app);
    const { client } = await member(operator);
    const link = await resetLink(operator, client.user!.id);
    expectStatus(await operator.patch(`/api/users/${client.user!.id}`, { isActive: false }), 200);
    expectError(
      await new Client(t.app).post('/api/auth/password-reset', { token: link.token, password: 'a fresh password' }),
      404,
      messages.passwordResetInvalid,
    );
  });

  it('sets one password when used several times at once', async () => {
    const operator = await signUp(t.app);
    const { client, email } = await member(operator);
    const link = await resetLink(operator, client.user!.id);
    const base = await serve(t.app);
    const answers = await together(4, (index) =>
      http(base, 'POST', '/api/auth/password-reset', { body: { token: link.token, password: `racing password ${index}` } }),
    );
    expect(statuses(answers)).toEqual({ 200: 1, 404: 3 });
    const winner = answers.findIndex((answer) => answer.status === 200);
    expectStatus(await new Client(t.app).post('/api/auth/login', { email, password: `racing password ${winner}` }), 200);
  });
});
