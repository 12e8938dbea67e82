/**
 * Resetting an operator's password takes two operators: A asks, a different operator B approves, then the link is
 * made (both steps audited); the operator reset is told. A request cannot be approved by whoever made it, expires
 * after 24 hours, is one at a time per person, and is never seen or approved from another workspace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Activity, CreatedPasswordReset, PasswordResetRequest } from '@farm/contracts';
import { buildTestApp, signUp, type Client, type TestApp } from '../helpers/app.ts';
import { expectError, expectStatus } from '../helpers/assertions.ts';
import { buildInvitation, buildWebhook } from '../helpers/factories.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

async function crew() {
  const a = await signUp(t.app, { name: 'Ada Asker' });
  const operator = async (name: string): Promise<Client> =>
    signUp(t.app, { role: 'operator', inviteToken: (await buildInvitation(a, { role: 'operator' })).token, name });
  const b = await operator('Ben Approver');
  const target = await operator('Tess Target');
  const va = await signUp(t.app, { role: 'va', inviteToken: (await buildInvitation(a)).token, name: 'Val Va' });
  return { a, b, target, va };
}

describe("an operator's reset, approved by a second operator", () => {
  it('is asked by one operator, approved by another, then the link is made and the operator told', async () => {
    const { a, b, target } = await crew();
    await buildWebhook(a, { events: ['user.security'] });
    const asked = await a.post<PasswordResetRequest>(`/api/users/${target.user!.id}/reset-requests`);
    expectStatus(asked, 201);
    expect(asked.body).toMatchObject({ userId: target.user!.id, userName: 'Tess Target', requestedByName: 'Ada Asker' });
    // No link yet, and no notice: nothing has happened to the account.
    expect(await t.db.selectFrom('passwordResets').select('id').where('userId', '=', target.user!.id).execute()).toEqual([]);

    const pending = await b.get<PasswordResetRequest[]>('/api/reset-requests');
    expect(pending.body.map((row) => row.id)).toEqual([asked.body.id]);
    expectError(await a.post(`/api/reset-requests/${asked.body.id}/approve`), 403, 'A different operator must approve this reset: you asked for it');
    expectError(
      await a.post(`/api/users/${target.user!.id}/reset-requests`),
      409,
      "A reset of Tess Target's password is already waiting for another operator's approval",
    );

    const link = await b.post<CreatedPasswordReset>(`/api/reset-requests/${asked.body.id}/approve`);
    expectStatus(link, 201);
    expect(link.body.url).toContain('/reset-password?token=');
    expectError(await b.post(`/api/reset-requests/${asked.body.id}/approve`), 404, 'Not found');
    expect((await b.get<PasswordResetRequest[]>('/api/reset-requests')).body).toEqual([]);

    // The link works.
    const used = await t.app.inject({
      method: 'POST',
      url: '/api/auth/password-reset',
      payload: { token: link.body.token, password: 'a fresh password here' },
    });
    expect(used.statusCode).toBe(200);
    const audit = await t.db
      .selectFrom('auditLog')
      .select(['action', 'actorId'])
      .where('entityId', '=', target.user!.id)
      .where('action', 'in', ['user.password_reset_requested', 'user.password_reset_approved'])
      .orderBy('createdAt')
      .execute();
    expect(audit).toEqual([
      { action: 'user.password_reset_requested', actorId: a.user!.id },
      { action: 'user.password_reset_approved', actorId: b.user!.id },
    ]);
    const activities = await a.get<Activity[]>('/api/activities?limit=20');
    expect(activities.body.map((row) => row.action)).toContain('A password reset link was made for Tess Target, approved by two operators');
    const notices = await t.db.selectFrom('userNotices').select(['kind', 'message']).where('userId', '=', target.user!.id).execute();
    expect(notices).toEqual([
      {
        kind: 'password_reset.created',
        message: 'Two operators made a password reset link for your account. If you did not ask for it, tell another operator.',
      },
    ]);
    const deliveries = await t.db.selectFrom('webhookDeliveries').select('event').where('workspaceId', '=', a.user!.workspaceId!).execute();
    expect(deliveries.map((row) => row.event)).toEqual(['user.security']);
  });

  it('is for operators only, not for oneself, and a VA may neither ask nor approve', async () => {
    const { a, b, va } = await crew();
    expectError(
      await a.post(`/api/users/${va.user!.id}/reset-requests`),
      409,
      'Only an operator’s reset needs a second operator: make a VA’s reset link directly',
    );
    expectError(await a.post(`/api/users/${a.user!.id}/reset-requests`), 409, 'Change your own password in Settings, under Profile');
    const asked = await a.post<PasswordResetRequest>(`/api/users/${b.user!.id}/reset-requests`);
    expectStatus(asked, 201);
    // The operator to be reset cannot approve their own reset.
    expectError(await b.post(`/api/reset-requests/${asked.body.id}/approve`), 409, 'Change your own password in Settings, under Profile');
    expectError(await va.post(`/api/reset-requests/${asked.body.id}/approve`), 403, 'You do not have permission to do this');
    expectError(await va.get('/api/reset-requests'), 403, 'You do not have permission to do this');
  });

  it('expires after 24 hours, and is never seen or approved from another workspace', async () => {
    const { a, b, target } = await crew();
    const asked = await a.post<PasswordResetRequest>(`/api/users/${target.user!.id}/reset-requests`);
    const stranger = await signUp(t.app, { name: 'Sam Stranger' });
    expect((await stranger.get<PasswordResetRequest[]>('/api/reset-requests')).body).toEqual([]);
    expectError(await stranger.post(`/api/reset-requests/${asked.body.id}/approve`), 404, 'Not found');

    await t.db
      .updateTable('passwordResetRequests')
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where('id', '=', asked.body.id)
      .execute();
    expectError(await b.post(`/api/reset-requests/${asked.body.id}/approve`), 409, 'This reset request has expired or was already approved');
    expect((await b.get<PasswordResetRequest[]>('/api/reset-requests')).body).toEqual([]);
    // An expired request makes way for a new one.
    expectStatus(await a.post(`/api/users/${target.user!.id}/reset-requests`), 201);
  });

  it('makes one link when two operators approve at once', async () => {
    const { a, b, target } = await crew();
    const c = await signUp(t.app, { role: 'operator', inviteToken: (await buildInvitation(a, { role: 'operator' })).token, name: 'Cal Third' });
    const asked = await a.post<PasswordResetRequest>(`/api/users/${target.user!.id}/reset-requests`);
    const answers = await Promise.all([b.post(`/api/reset-requests/${asked.body.id}/approve`), c.post(`/api/reset-requests/${asked.body.id}/approve`)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 404]);
    expect(await t.db.selectFrom('passwordResets').select('id').where('userId', '=', target.user!.id).execute()).toHaveLength(1);
  });
});
