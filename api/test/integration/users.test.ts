/** The people of a workspace: who is listed, roles and deactivation, the workspace's name, its invitations. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages, type User } from '@farm/contracts';
import { buildTestApp, inviteVa, signUp, type Client, type TestApp } from '../helpers/app.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { buildInvitation } from '../helpers/factories.ts';

let t: TestApp;
let operator: Client;
let va: Client;
beforeAll(async () => {
  t = await buildTestApp();
  operator = await signUp(t.app, { name: 'Olga Operator' });
  va = await inviteVa(t.app, operator, 'Vera Assistant');
});
afterAll(async () => {
  await t?.close();
});

describe('GET /api/users', () => {
  it('lists the members of the caller’s workspace by name, and nothing secret', async () => {
    const owner = await signUp(t.app, { name: 'Zoe Owner' });
    const helper = await inviteVa(t.app, owner, 'Adam Helper');
    await signUp(t.app, { name: 'Nina Elsewhere' });
    for (const reader of [owner, helper]) {
      const answer = await reader.get<User[]>('/api/users');
      expectStatus(answer, 200);
      expect(answer.body).toEqual([
        {
          id: helper.user!.id,
          email: helper.user!.email,
          name: 'Adam Helper',
          role: 'va',
          isActive: true,
          createdAt: helper.user!.createdAt,
          resetsAsOperator: false,
        },
        {
          id: owner.user!.id,
          email: owner.user!.email,
          name: 'Zoe Owner',
          role: 'operator',
          isActive: true,
          createdAt: owner.user!.createdAt,
          resetsAsOperator: true,
        },
      ]);
    }
  });

  it('filters by role and by name or email, and shows deactivated members as inactive', async () => {
    const owner = await signUp(t.app, { name: 'Zoe Owner' });
    const maria = await inviteVa(t.app, owner, 'Maria Santos');
    const james = await inviteVa(t.app, owner, 'James Okafor');
    const names = async (url: string) => (await owner.get<User[]>(url)).body.map((row) => row.name);
    expect(await names('/api/users?role=va')).toEqual(['James Okafor', 'Maria Santos']);
    expect(await names('/api/users?role=operator')).toEqual(['Zoe Owner']);
    expect(await names('/api/users?search=SANTOS')).toEqual(['Maria Santos']);
    expect(await names(`/api/users?search=${encodeURIComponent(james.user!.email.slice(0, 12))}`)).toEqual(['James Okafor']);
    expect(await names('/api/users?search=%25')).toEqual([]);
    await owner.patch(`/api/users/${maria.user!.id}`, { isActive: false });
    expect((await owner.get<User[]>('/api/users?role=va')).body.map((row) => [row.name, row.isActive])).toEqual([
      ['James Okafor', true],
      ['Maria Santos', false],
    ]);
    expectFieldError(await owner.get('/api/users?role=admin'), 'role', 'Role must be one of operator or va');
  });

  it('reads one member; someone of another workspace is 404', async () => {
    const answer = await va.get<User>(`/api/users/${operator.user!.id}`);
    expect(answer.body).toMatchObject({ id: operator.user!.id, name: 'Olga Operator', role: 'operator' });
    const stranger = await signUp(t.app);
    expectError(await operator.get(`/api/users/${stranger.user!.id}`), 404, messages.notFound);
  });
});

describe('PATCH /api/users/:id', () => {
  it('promotes a VA to operator and back; the change applies to their next request', async () => {
    const helper = await inviteVa(t.app, operator, 'Pia Promoted');
    expectError(await helper.post('/api/devices', { name: 'Before' }), 403, messages.forbidden);
    const promoted = await operator.patch<User>(`/api/users/${helper.user!.id}`, { role: 'operator' });
    expectStatus(promoted, 200);
    expect(promoted.body).toMatchObject({ id: helper.user!.id, role: 'operator', isActive: true });
    expectStatus(await helper.post('/api/devices', { name: 'After' }), 201);
    expect((await helper.get('/api/auth/me')).body.user.role).toBe('operator');
    expect((await operator.patch<User>(`/api/users/${helper.user!.id}`, { role: 'va' })).body.role).toBe('va');
    expectError(await helper.post('/api/devices', { name: 'Again' }), 403, messages.forbidden);
  });

  it('answers the member unchanged for an empty body', async () => {
    const helper = await inviteVa(t.app, operator, 'Una Unchanged');
    const answer = await operator.patch<User>(`/api/users/${helper.user!.id}`, {});
    expectStatus(answer, 200);
    expect(answer.body).toMatchObject({ id: helper.user!.id, role: 'va', isActive: true });
    expectStatus(await helper.get('/api/auth/me'), 200);
  });

  it('refuses a bad role and an unknown member', async () => {
    expectFieldError(await operator.patch(`/api/users/${va.user!.id}`, { role: 'admin' }), 'role', 'Role must be one of operator or va');
    expectFieldError(await operator.patch(`/api/users/${va.user!.id}`, { isActive: 'no' }), 'isActive', 'Active must be true or false');
    expectError(await operator.patch('/api/users/6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b', { isActive: false }), 404, messages.notFound);
  });
});

describe('the workspace', () => {
  it('is read by every member and renamed by an operator', async () => {
    const owner = await signUp(t.app, { name: 'Rita Renamer' });
    const helper = await inviteVa(t.app, owner);
    const read = await helper.get('/api/workspace');
    expectStatus(read, 200);
    expect(read.body).toEqual({
      id: owner.user!.workspaceId,
      name: "Rita Renamer's Farm",
      timeZone: 'UTC',
      createdAt: expect.any(String),
      requireTwoFactor: false,
      retention: expect.objectContaining({ screenshotsDays: 14 }),
    });
    const renamed = await owner.patch('/api/workspace', { name: '  North Farm ' });
    expect(renamed.body.name).toBe('North Farm');
    expect((await helper.get('/api/auth/me')).body.user.workspaceName).toBe('North Farm');
    expectError(await helper.patch('/api/workspace', { name: 'Mine' }), 403, messages.forbidden);
    expectFieldError(await owner.patch('/api/workspace', { name: ' ' }), 'name', 'Name is required');
  });
});

describe('invitations', () => {
  it('are listed, newest first, to operators only, with their status and without their token', async () => {
    const owner = await signUp(t.app);
    const helper = await inviteVa(t.app, owner);
    const pending = await buildInvitation(owner, { email: 'later@example.test' });
    const answer = await owner.get<{ id: string; status: string; email: string | null; role: string }[]>('/api/invitations');
    expectStatus(answer, 200);
    expect(answer.body.map((row) => [row.status, row.email])).toEqual([
      ['pending', 'later@example.test'],
      ['accepted', null],
    ]);
    expect(answer.body[0]!.id).toBe(pending.id);
    expect(JSON.stringify(answer.body)).not.toContain(pending.token);
    expectError(await helper.get('/api/invitations'), 403, messages.forbidden);
    expectError(await helper.post('/api/invitations', { role: 'va' }), 403, messages.forbidden);
  });

  it('refuses a bad role', async () => {
    expectFieldError(await operator.post('/api/invitations', { role: 'boss' }), 'role', 'Role must be one of operator or va');
  });
});

describe('PUT /api/workspace/retention', () => {
  it('shows the defaults, saves new ones for the operator, and names the field it refuses', async () => {
    const owner = await signUp(t.app, { name: 'Rita Retention' });
    expect((await owner.get('/api/workspace')).body.retention).toEqual({
      screenshotsDays: 14,
      screenshotsPerDevice: 1000,
      activityDays: 180,
      finishedTasksDays: 180,
    });
    const saved = await owner.put('/api/workspace/retention', { screenshotsDays: 3, screenshotsPerDevice: 200, activityDays: 30, finishedTasksDays: 60 });
    expectStatus(saved, 200);
    expect(saved.body.retention).toEqual({ screenshotsDays: 3, screenshotsPerDevice: 200, activityDays: 30, finishedTasksDays: 60 });
    expect((await owner.get('/api/workspace')).body.retention.screenshotsPerDevice).toBe(200);
    expectFieldError(
      await owner.put('/api/workspace/retention', { screenshotsDays: 0, screenshotsPerDevice: 200, activityDays: 30, finishedTasksDays: 60 }),
      'screenshotsDays',
      'Screenshots are kept 1 to 3650 days',
    );
    expectFieldError(
      await owner.put('/api/workspace/retention', { screenshotsDays: 3, screenshotsPerDevice: 2.5, activityDays: 30, finishedTasksDays: 60 }),
      'screenshotsPerDevice',
      'Screenshots per phone is a whole number',
    );
    expectFieldError(
      await owner.put('/api/workspace/retention', { screenshotsDays: 3, screenshotsPerDevice: 200, activityDays: 1, finishedTasksDays: 60 }),
      'activityDays',
      'Activity is kept 7 to 3650 days',
    );
    expect((await owner.put('/api/workspace/retention', { screenshotsDays: 3 })).status).toBe(400);
    const helper = await inviteVa(t.app, owner, 'Ivan Intern');
    expectStatus(await helper.put('/api/workspace/retention', { screenshotsDays: 3, screenshotsPerDevice: 200, activityDays: 30, finishedTasksDays: 60 }), 403);
  });
});
