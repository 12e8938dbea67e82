/**
 * Reset links are for VAs: an operator cannot make one for another operator (that would take their account
 * silently), and the VA a link is made for is told: a notice at their next sign-in, an activity, a user.security alert.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages, type Activity } from '@farm/contracts';
import { buildTestApp, Client, signUp, type TestApp } from '../helpers/app.ts';
import { expectError, expectStatus } from '../helpers/assertions.ts';
import { buildInvitation, buildWebhook } from '../helpers/factories.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('who a reset link may be made for', () => {
  it('refuses a link for another operator and makes none', async () => {
    const operator = await signUp(t.app);
    const invitation = await buildInvitation(operator, { role: 'operator' });
    const second = await signUp(t.app, { role: 'operator', inviteToken: invitation.token, name: 'Sol Second' });
    expectError(await operator.post(`/api/users/${second.user!.id}/password-reset`), 409, messages.passwordResetOperator);
    const links = await t.db.selectFrom('passwordResets').select('id').where('userId', '=', second.user!.id).execute();
    expect(links).toEqual([]);
    expectStatus(await second.get('/api/auth/me'), 200);
  });

  it('makes one for a VA and tells the VA', async () => {
    const operator = await signUp(t.app);
    await buildWebhook(operator, { events: ['user.security'] });
    const invitation = await buildInvitation(operator);
    const va = await signUp(t.app, { role: 'va', inviteToken: invitation.token, name: 'Vic Told' });
    expectStatus(await operator.post(`/api/users/${va.user!.id}/password-reset`), 201);
    const me = await va.get<{ notices: { kind: string; message: string }[] }>('/api/auth/me');
    expect(me.body.notices).toEqual([
      expect.objectContaining({
        kind: 'password_reset.created',
        message: 'An operator made a password reset link for your account. If you did not ask for it, tell another operator.',
      }),
    ]);
    const activities = await operator.get<Activity[]>('/api/activities?limit=20');
    expect(activities.body.map((activity) => activity.action)).toContain('A password reset link was made for Vic Told');
    const deliveries = await t.db.selectFrom('webhookDeliveries').select('event').where('workspaceId', '=', operator.user!.workspaceId!).execute();
    expect(deliveries.map((row) => row.event)).toEqual(['user.security']);
    expect(new Client(t.app).cookie).toBeUndefined();
  });
});
