/**
 * Tenancy: another workspace's rows never show in lists, figures or filters; naming them in a path answers 404
 * and in a body 400; fields that would move a row between workspaces are ignored; and no answer carries
 * a password hash or a session token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages, type Account, type Campaign, type Device, type Post, type Task } from '@farm/contracts';
import { buildTestApp, inviteVa, signUp, Client, type TestApp } from '../helpers/app.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import {
  buildDevice,
  buildInvitation,
  buildLinkedCampaign,
  buildPost,
  buildRoutine,
  buildSession,
  buildTask,
  reportFromPhone,
  uploadImage,
} from '../helpers/factories.ts';
import { readRoutes } from '../helpers/route-table.ts';

/** Two workspaces, each with an operator and a VA, and the same kinds of rows in both. */
interface Side {
  operator: Client;
  va: Client;
  device: Device;
  task: Task;
  campaign: Campaign;
  account: Account;
  post: Post;
  routineId: string;
  sessionId: string;
  image: string;
}

let t: TestApp;
let ours: Side;
let theirs: Side;

async function side(name: string): Promise<Side> {
  const operator = await signUp(t.app, { name: `${name} Operator` });
  const va = await inviteVa(t.app, operator, `${name} Assistant`);
  const device = await buildDevice(operator, { name: `${name} Phone`, assignedToId: va.user!.id });
  await reportFromPhone(t.db, device.id, { status: 'online' });
  const task = await buildTask(operator, { title: `${name} task`, deviceId: device.id });
  const { campaign, account } = await buildLinkedCampaign(operator, { name: `${name} campaign` });
  const post = await buildPost(operator, account.id, { campaignId: campaign.id });
  const routine = await buildRoutine(operator, campaign.id, account.id);
  const session = await buildSession(operator, device.id, { taskId: task.id });
  const image = await uploadImage(operator);
  await t.db
    .insertInto('campaignSessions')
    .values({ workspaceId: operator.user!.workspaceId!, campaignId: campaign.id, routineId: routine.id, accountId: account.id })
    .execute();
  await buildInvitation(operator);
  return { operator, va, device, task, campaign, account, post, routineId: routine.id, sessionId: session.id, image };
}

beforeAll(async () => {
  t = await buildTestApp();
  ours = await side('North');
  theirs = await side('South');
});
afterAll(async () => {
  await t?.close();
});

describe('lists show only the caller’s workspace', () => {
  it.each([
    '/api/users',
    '/api/devices',
    '/api/tasks',
    '/api/sessions',
    '/api/activities',
    '/api/campaigns',
    '/api/routines',
    '/api/campaign-sessions',
    '/api/accounts',
    '/api/posts',
    '/api/invitations',
  ])('%s', async (path) => {
    for (const [me, other] of [
      [ours, theirs],
      [theirs, ours],
    ] as const) {
      const answer = await me.operator.get<Record<string, unknown>[]>(path);
      expectStatus(answer, 200);
      expect(answer.body.length).toBeGreaterThan(0);
      const text = JSON.stringify(answer.body);
      for (const foreignId of [
        other.operator.user!.id,
        other.va.user!.id,
        other.device.id,
        other.task.id,
        other.campaign.id,
        other.account.id,
        other.post.id,
        other.routineId,
        other.sessionId,
      ]) {
        expect(text).not.toContain(foreignId);
      }
    }
  });

  it('GET /api/users lists exactly the operator and VA of the workspace', async () => {
    const answer = await ours.va.get<{ id: string; name: string; role: string }[]>('/api/users');
    expect(answer.body.map((row) => [row.name, row.role])).toEqual([
      ['North Assistant', 'va'],
      ['North Operator', 'operator'],
    ]);
  });

  it('filters naming another workspace’s rows find nothing', async () => {
    for (const url of [
      `/api/tasks?deviceId=${theirs.device.id}`,
      `/api/tasks?assignedToId=${theirs.va.user!.id}`,
      `/api/devices?assignedToId=${theirs.va.user!.id}`,
      `/api/sessions?deviceId=${theirs.device.id}`,
      `/api/sessions?vaId=${theirs.va.user!.id}`,
      `/api/activities?deviceId=${theirs.device.id}`,
      `/api/accounts?deviceId=${theirs.device.id}`,
      `/api/posts?campaignId=${theirs.campaign.id}`,
      `/api/posts?accountId=${theirs.account.id}`,
      `/api/routines?campaignId=${theirs.campaign.id}`,
      `/api/campaign-sessions?campaignId=${theirs.campaign.id}`,
    ]) {
      const answer = await ours.operator.get(url);
      expect({ url, status: answer.status, body: answer.body }).toEqual({ url, status: 200, body: [] });
    }
    expect((await ours.operator.get(`/api/tasks/counts?deviceId=${theirs.device.id}`)).body).toMatchObject({ all: 0 });
  });

  it('figures count only the workspace', async () => {
    const before = (await theirs.operator.get('/api/analytics/stats')).body;
    await reportFromPhone(t.db, (await buildDevice(ours.operator)).id, { status: 'online' });
    await buildTask(ours.operator);
    const after = (await theirs.operator.get('/api/analytics/stats')).body;
    expect({ ...after, totalSessionTime: 0 }).toEqual({ ...before, totalSessionTime: 0 });
    expect(after).toMatchObject({ totalDevices: 1, onlineDevices: 1, totalTasks: 1, activeSessions: 1 });
    const performance = await theirs.operator.get<{ devices: { deviceId: string }[]; vas: { userId: string }[] }>('/api/analytics/performance');
    expect(performance.body.devices.map((row) => row.deviceId)).toEqual([theirs.device.id]);
    expect(performance.body.vas.map((row) => row.userId)).toEqual([theirs.va.user!.id]);
  });
});

interface PathCase {
  name: string;
  method: 'GET' | 'PATCH' | 'POST' | 'DELETE';
  url: (s: Side) => string;
  /** What the other workspace's VA gets. */
  va: 403 | 404;
  /** A read showing the row, unchanged after the refused write. */
  check?: (s: Side) => string;
}

describe('an id of another workspace in a path answers 404', () => {
  // A VA of the other workspace gets 404 too where the policy lets VAs make the call, 403 where it does not.
  it.each([
    { name: 'GET a user', method: 'GET', url: (s: Side) => `/api/users/${s.va.user!.id}`, va: 404 },
    { name: 'GET a device', method: 'GET', url: (s: Side) => `/api/devices/${s.device.id}`, va: 404 },
    { name: 'GET a task', method: 'GET', url: (s: Side) => `/api/tasks/${s.task.id}`, va: 404 },
    { name: 'GET a session', method: 'GET', url: (s: Side) => `/api/sessions/${s.sessionId}`, va: 404 },
    { name: 'GET a campaign', method: 'GET', url: (s: Side) => `/api/campaigns/${s.campaign.id}`, va: 404 },
    { name: "GET a campaign's accounts", method: 'GET', url: (s: Side) => `/api/campaigns/${s.campaign.id}/accounts`, va: 404 },
    { name: 'GET an account', method: 'GET', url: (s: Side) => `/api/accounts/${s.account.id}`, va: 404 },
    { name: 'GET a post', method: 'GET', url: (s: Side) => `/api/posts/${s.post.id}`, va: 404 },
    { name: 'GET an uploaded image', method: 'GET', url: (s: Side) => s.image, va: 404 },
    { name: 'PATCH a task', method: 'PATCH', url: (s: Side) => `/api/tasks/${s.task.id}`, va: 404, check: (s: Side) => `/api/tasks/${s.task.id}` },
    {
      name: 'PATCH a routine',
      method: 'PATCH',
      url: (s: Side) => `/api/routines/${s.routineId}`,
      va: 403,
      check: (s: Side) => `/api/routines?campaignId=${s.campaign.id}`,
    },
    {
      name: 'stop a session',
      method: 'POST',
      url: (s: Side) => `/api/sessions/${s.sessionId}/stop`,
      va: 404,
      check: (s: Side) => `/api/sessions/${s.sessionId}`,
    },
    {
      name: 'unlink an account',
      method: 'DELETE',
      url: (s: Side) => `/api/campaigns/${s.campaign.id}/accounts/${s.account.id}`,
      va: 403,
      check: (s: Side) => `/api/campaigns/${s.campaign.id}`,
    },
    { name: 'DELETE a post', method: 'DELETE', url: (s: Side) => `/api/posts/${s.post.id}`, va: 404, check: (s: Side) => `/api/posts/${s.post.id}` },
  ] satisfies PathCase[])('$name', async (row: PathCase) => {
    const body = row.method === 'PATCH' ? { intensity: 3 } : undefined;
    const check = row.check?.(theirs);
    const before = check ? (await theirs.operator.get(check)).body : undefined;
    expectError(await ours.operator.request(row.method, row.url(theirs), body), 404, messages.notFound);
    expectError(await ours.va.request(row.method, row.url(theirs), body), row.va, row.va === 404 ? messages.notFound : messages.forbidden);
    // Unchanged for its owner.
    if (check) expect((await theirs.operator.get(check)).body).toEqual(before);
  });

  it('and the same for every read route that names a row', async () => {
    for (const route of readRoutes.filter((candidate) => candidate.names)) {
      const url = await route.setup({ operator: theirs.operator, va: theirs.va });
      const answer = await ours.operator.get(url);
      expect({ path: route.path, status: answer.status, error: answer.body?.error }).toEqual({ path: route.path, status: 404, error: messages.notFound });
    }
  });
});

describe('an id of another workspace in a body answers 400 and writes nothing', () => {
  const names: Record<string, string> = { deviceId: 'Device', assignedToId: 'Assignee', taskId: 'Task', campaignId: 'Campaign', accountId: 'Account' };
  const noSuch = (field: string, what: string) =>
    what === 'member' ? `${names[field]} must be an active member of this workspace` : `${names[field]} must be one of this workspace's ${what}s`;

  it.each([
    [
      'POST /api/tasks deviceId',
      () => ours.operator.post('/api/tasks', { title: 'x', type: 'post', priority: 'low', deviceId: theirs.device.id }),
      'deviceId',
      noSuch('deviceId', 'device'),
    ],
    [
      'POST /api/tasks assignedToId',
      () => ours.operator.post('/api/tasks', { title: 'x', type: 'post', priority: 'low', assignedToId: theirs.va.user!.id }),
      'assignedToId',
      noSuch('assignedToId', 'member'),
    ],
    [
      'PATCH /api/tasks deviceId',
      () => ours.operator.patch(`/api/tasks/${ours.task.id}`, { deviceId: theirs.device.id }),
      'deviceId',
      noSuch('deviceId', 'device'),
    ],
    [
      'PATCH /api/devices assignedToId',
      () => ours.operator.patch(`/api/devices/${ours.device.id}`, { assignedToId: theirs.operator.user!.id }),
      'assignedToId',
      noSuch('assignedToId', 'member'),
    ],
    ['POST /api/sessions deviceId', () => ours.operator.post('/api/sessions', { deviceId: theirs.device.id }), 'deviceId', noSuch('deviceId', 'device')],
    [
      'PATCH /api/sessions taskId',
      () => ours.operator.patch(`/api/sessions/${ours.sessionId}`, { taskId: theirs.task.id }),
      'taskId',
      noSuch('taskId', 'task'),
    ],
    [
      'POST /api/routines campaignId',
      () => ours.operator.post('/api/routines', { campaignId: theirs.campaign.id, accountId: ours.account.id, type: 'warmup' }),
      'campaignId',
      noSuch('campaignId', 'campaign'),
    ],
    [
      'POST /api/routines accountId',
      () => ours.operator.post('/api/routines', { campaignId: ours.campaign.id, accountId: theirs.account.id, type: 'warmup' }),
      'accountId',
      noSuch('accountId', 'account'),
    ],
    [
      'POST /api/campaigns/:id/accounts accountId',
      () => ours.operator.post(`/api/campaigns/${ours.campaign.id}/accounts`, { accountId: theirs.account.id }),
      'accountId',
      noSuch('accountId', 'account'),
    ],
    [
      'POST /api/accounts deviceId',
      () => ours.operator.post('/api/accounts', { username: 'x', platform: 'instagram', deviceId: theirs.device.id }),
      'deviceId',
      noSuch('deviceId', 'device'),
    ],
    [
      'PATCH /api/accounts deviceId',
      () => ours.operator.patch(`/api/accounts/${ours.account.id}`, { deviceId: theirs.device.id }),
      'deviceId',
      noSuch('deviceId', 'device'),
    ],
    [
      'POST /api/accounts profileImages',
      () => ours.operator.post('/api/accounts', { username: 'x', platform: 'tinder', profileImages: [theirs.image, ours.image] }),
      'profileImages.0',
      'Profile images (item 1) must be an image uploaded to this workspace',
    ],
    [
      'PATCH /api/accounts profilePicture',
      () => ours.operator.patch(`/api/accounts/${ours.account.id}`, { profilePicture: theirs.image }),
      'profilePicture',
      'Profile picture must be an image uploaded to this workspace',
    ],
    [
      'POST /api/posts accountId',
      () => ours.operator.post('/api/posts', { accountId: theirs.account.id, caption: 'x' }),
      'accountId',
      noSuch('accountId', 'account'),
    ],
    [
      'POST /api/posts campaignId',
      () => ours.operator.post('/api/posts', { accountId: ours.account.id, campaignId: theirs.campaign.id, caption: 'x' }),
      'campaignId',
      noSuch('campaignId', 'campaign'),
    ],
    [
      'PATCH /api/posts campaignId',
      () => ours.operator.patch(`/api/posts/${ours.post.id}`, { campaignId: theirs.campaign.id }),
      'campaignId',
      noSuch('campaignId', 'campaign'),
    ],
    [
      'PUT /api/campaign-images imageURL',
      () => ours.operator.put('/api/campaign-images', { imageURL: theirs.image }),
      'imageURL',
      'Image URL must be an image uploaded to this workspace',
    ],
  ])('%s', async (_name, call, field, message) => {
    const before = await snapshot(ours.operator);
    expectFieldError(await call(), field, message);
    expect(await snapshot(ours.operator)).toEqual(before);
  });

  /** Everything a workspace holds, as its lists answer it (activities aside: reads do not write them). */
  async function snapshot(client: Client) {
    const paths = ['/api/devices', '/api/tasks', '/api/sessions', '/api/campaigns', '/api/routines', '/api/accounts', '/api/posts'];
    // A running session's duration grows with the clock, and a phone never heard from is put offline by the status
    // sweep when its silence passes the limit (on a slow machine, between two snapshots): everything else must stay.
    const withoutClock = (path: string) => (row: Record<string, unknown>) =>
      path === '/api/devices' ? { ...row, status: undefined, updatedAt: undefined } : { ...row, duration: undefined };
    return Promise.all(paths.map(async (path) => (await client.get<Record<string, unknown>[]>(path)).body.map(withoutClock(path))));
  }
});

describe('fields that would cross workspaces are ignored', () => {
  it('keeps new rows in the caller’s workspace and ids, authors and timestamps the server’s', async () => {
    const foreign = {
      workspaceId: theirs.operator.user!.workspaceId,
      id: '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b',
      createdById: theirs.operator.user!.id,
      createdAt: '2000-01-01T00:00:00.000Z',
    };
    const device = await ours.operator.post<Device>('/api/devices', { name: 'Smuggled', ...foreign });
    expectStatus(device, 201);
    expect(device.body.id).not.toBe(foreign.id);
    expect(device.body.createdAt).not.toBe(foreign.createdAt);
    const campaign = await ours.operator.post<Campaign>('/api/campaigns', { name: 'Smuggled', platform: 'instagram', niche: 'x', keywords: ['x'], ...foreign });
    expect(campaign.body.createdById).toBe(ours.operator.user!.id);
    expect((await theirs.operator.get<Device[]>('/api/devices')).body.map((row) => row.name)).not.toContain('Smuggled');
    expect((await theirs.operator.get<Campaign[]>('/api/campaigns')).body.map((row) => row.name)).not.toContain('Smuggled');
    const patched = await ours.operator.patch<Device>(`/api/devices/${device.body.id}`, { workspaceId: foreign.workspaceId, name: 'Still ours' });
    expect(patched.body.name).toBe('Still ours');
    expectStatus(await ours.operator.get(`/api/devices/${device.body.id}`), 200);
  });

  it('keeps a VA’s role: signup cannot pick a workspace', async () => {
    const va = await signUp(t.app, { role: 'va' });
    const answer = await va.patch('/api/users/me', { name: 'Sneaky', role: 'operator', workspaceId: ours.operator.user!.workspaceId });
    expectStatus(answer, 200);
    expect(answer.body.user).toMatchObject({ name: 'Sneaky', role: 'va', workspaceId: null });
  });
});

describe('no answer carries a password hash or a session token', () => {
  it('across every read route and the auth answers', async () => {
    const email = `secrets.${Date.now()}@example.test`;
    const person = new Client(t.app);
    const answers = [
      await person.post('/api/auth/signup', { email, password: 'correct horse battery', name: 'Sam Secret', role: 'operator' }),
      await person.post('/api/auth/login', { email, password: 'correct horse battery' }),
      await person.get('/api/auth/me'),
      await person.patch('/api/users/me', { name: 'Sam Secret' }),
    ];
    const va = await inviteVa(t.app, person);
    await buildDevice(person, { assignedToId: va.user!.id });
    for (const route of readRoutes.filter((candidate) => candidate.path !== '/api/objects/{id}')) {
      answers.push(await person.get(await route.setup({ operator: person, va })));
      answers.push(await va.get(await route.setup({ operator: person, va })));
    }
    answers.push(await person.patch(`/api/users/${va.user!.id}`, { role: 'va' }));
    const tokens = [person.cookie!, va.cookie!];
    for (const answer of answers) {
      const text = JSON.stringify(answer.body);
      expect(text).not.toMatch(/\$argon2/);
      // A field carrying a password or a hash of one; an audit entry may name the action `user.password_reset`.
      expect(text).not.toMatch(/"password"|password_?hash|tokenHash|token_hash/i);
      for (const token of tokens) expect(text).not.toContain(token);
    }
    // The invitation token is answered once, on creation, and never listed.
    const invitation = await buildInvitation(person);
    expect(JSON.stringify((await person.get('/api/invitations')).body)).not.toContain(invitation.token);
  });
});
