/**
 * Reset links are for VAs: an operator cannot make one for another operator (that would take their account
 * silently), nor for one demoted in the last 30 days (demote, reset, take over, promote back), and the VA a link is
 * made for is told: a notice at their next sign-in, an activity, a user.security alert.
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

  it('refuses a link for a peer demoted to VA a moment ago, takes it through a second operator, and allows it 30 days on', async () => {
    const operator = await signUp(t.app);
    const invitation = await buildInvitation(operator, { role: 'operator' });
    const peer = await signUp(t.app, { role: 'operator', inviteToken: invitation.token, name: 'Pia Peer' });
    expectStatus(await operator.patch(`/api/users/${peer.user!.id}`, { role: 'va' }), 200);

    // The attack: demoted, then reset by the one who demoted them.
    expectError(await operator.post(`/api/users/${peer.user!.id}/password-reset`), 409, messages.passwordResetRecentOperator);
    // The member list says so, so the console offers the two-operator request instead of a link.
    const listed = (await operator.get('/api/users')).body as { id: string; resetsAsOperator?: boolean }[];
    expect(listed.find((member) => member.id === peer.user!.id)?.resetsAsOperator).toBe(true);
    // Promoting back and forth does not wash the time away.
    expectStatus(await operator.patch(`/api/users/${peer.user!.id}`, { role: 'operator' }), 200);
    expectStatus(await operator.patch(`/api/users/${peer.user!.id}`, { role: 'va' }), 200);
    expectError(await operator.post(`/api/users/${peer.user!.id}/password-reset`), 409, messages.passwordResetRecentOperator);
    expect(await t.db.selectFrom('passwordResets').select('id').where('userId', '=', peer.user!.id).execute()).toEqual([]);
    // Two operators may still reset them, as they would an operator.
    expectStatus(await operator.post(`/api/users/${peer.user!.id}/reset-requests`), 201);
    await t.db.deleteFrom('passwordResetRequests').where('userId', '=', peer.user!.id).execute();

    await t.db
      .updateTable('workspaceMembers')
      .set({ lastOperatorAt: new Date(Date.now() - (30 * 24 + 1) * 3600_000) })
      .where('userId', '=', peer.user!.id)
      .execute();
    const later = (await operator.get('/api/users')).body as { id: string; resetsAsOperator?: boolean }[];
    expect(later.find((member) => member.id === peer.user!.id)?.resetsAsOperator).toBe(false);
    expectStatus(await operator.post(`/api/users/${peer.user!.id}/password-reset`), 201);
  });

  it('stamps the demotion whichever way it comes, and never a VA who was never an operator', async () => {
    const operator = await signUp(t.app);
    const va = await signUp(t.app, { role: 'va', inviteToken: (await buildInvitation(operator)).token });
    const invited = await signUp(t.app, { role: 'operator', inviteToken: (await buildInvitation(operator, { role: 'operator' })).token });
    // A VA's role set to VA again, or their deactivation, is no demotion.
    expectStatus(await operator.patch(`/api/users/${va.user!.id}`, { role: 'va' }), 200);
    // An operator deactivated and demoted in one change is one all the same.
    expectStatus(await operator.patch(`/api/users/${invited.user!.id}`, { role: 'va', isActive: false }), 200);
    expectStatus(await operator.patch(`/api/users/${invited.user!.id}`, { isActive: true }), 200);
    const rows = await t.db
      .selectFrom('workspaceMembers')
      .select(['userId', 'lastOperatorAt'])
      .where('userId', 'in', [va.user!.id, invited.user!.id])
      .execute();
    expect(rows.find((row) => row.userId === va.user!.id)?.lastOperatorAt).toBeNull();
    expect(rows.find((row) => row.userId === invited.user!.id)?.lastOperatorAt).toBeInstanceOf(Date);
    expectError(await operator.post(`/api/users/${invited.user!.id}/password-reset`), 409, messages.passwordResetRecentOperator);
    expectStatus(await operator.post(`/api/users/${va.user!.id}/password-reset`), 201);
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
