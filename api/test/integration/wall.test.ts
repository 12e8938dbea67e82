/** The wall screen: links an operator hands to a TV, the snapshot they show, and revoking them. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '@farm/contracts';
import { buildTestApp, inviteVa, signUp, Client, type TestApp } from '../helpers/app.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { buildDevice, buildSession, buildWallLink, reportFromPhone } from '../helpers/factories.ts';

const INVALID = 'This wall link is invalid or was revoked';

let t: TestApp;
let operator: Client;
let va: Client;
beforeAll(async () => {
  t = await buildTestApp({ publicUrl: 'https://console.example' });
  operator = await signUp(t.app, { name: 'Walt Wall' });
  va = await inviteVa(t.app, operator, 'Vic Viewer');
});
afterAll(async () => {
  await t?.close();
});

describe('wall links', () => {
  it('creates a link under the public URL, lists it without its token, and revokes it', async () => {
    const answer = await operator.post('/api/wall-links', { name: '  Floor TV ' });
    expectStatus(answer, 201);
    expect(answer.body).toMatchObject({ name: 'Floor TV', revokedAt: null });
    expect(answer.body.url).toBe(`https://console.example/monitor/wall?token=${answer.body.token}`);
    const listed = await operator.get<{ id: string; revokedAt: string | null }[]>('/api/wall-links');
    expect(listed.body.find((row) => row.id === answer.body.id)).toEqual({
      id: answer.body.id,
      name: 'Floor TV',
      createdAt: answer.body.createdAt,
      revokedAt: null,
    });
    expect(JSON.stringify(listed.body)).not.toContain(answer.body.token);

    expectStatus(await operator.delete(`/api/wall-links/${answer.body.id}`), 204);
    expect(
      (await operator.get<{ id: string; revokedAt: string | null }[]>('/api/wall-links')).body.find((row) => row.id === answer.body.id)?.revokedAt,
    ).not.toBeNull();
    expectError(await new Client(t.app).get(`/api/wall?token=${answer.body.token}`), 401, INVALID);
    expectError(await operator.delete(`/api/wall-links/${answer.body.id}`), 404, messages.notFound);
  });

  it('refuses an empty name and keeps links to operators', async () => {
    expectFieldError(await operator.post('/api/wall-links', { name: ' ' }), 'name', 'Name is required');
    expectStatus(await operator.post('/api/wall-links', {}), 201);
    expectError(await va.post('/api/wall-links', {}), 403, messages.forbidden);
    expectError(await va.get('/api/wall-links'), 403, messages.forbidden);
  });
});

describe('GET /api/wall', () => {
  it("shows every phone of the link's workspace, oldest first, with VA and current task", async () => {
    const owner = await signUp(t.app, { name: 'Tess Tiles' });
    const helper = await inviteVa(t.app, owner, 'Hal Helper');
    const first = await buildDevice(owner, { name: 'Phone 1', assignedToId: helper.user!.id });
    await reportFromPhone(t.db, first.id, { status: 'online', battery: 55 });
    const second = await buildDevice(owner, { name: 'Phone 2' });
    await buildSession(owner, first.id, { currentTask: 'Scrolling reels' });
    await buildDevice(operator, { name: 'Not theirs' });
    const link = await buildWallLink(owner);

    const wall = await new Client(t.app).get(`/api/wall?token=${link.token}`);
    expectStatus(wall, 200);
    expect(wall.body.workspaceName).toBe("Tess Tiles's Farm");
    expect(wall.body.tiles).toEqual([
      {
        id: first.id,
        name: 'Phone 1',
        status: 'busy',
        battery: 55,
        lastActive: expect.any(String),
        vaName: 'Hal Helper',
        currentTask: 'Scrolling reels',
        screenshotUrl: null,
        controlledByName: null,
      },
      {
        id: second.id,
        name: 'Phone 2',
        status: 'offline',
        battery: 100,
        lastActive: second.lastActive,
        vaName: null,
        currentTask: null,
        screenshotUrl: null,
        controlledByName: null,
      },
    ]);
    // A signed-in member sees their own workspace's wall without a token.
    expect((await helper.get('/api/wall')).body.tiles).toHaveLength(2);
  });

  it('answers 401 without a valid token or a workspace', async () => {
    expectError(await new Client(t.app).get('/api/wall'), 401, INVALID);
    expectError(await new Client(t.app).get('/api/wall?token=made-up'), 401, INVALID);
    const loner = await signUp(t.app, { role: 'va' });
    expectError(await loner.get('/api/wall'), 401, INVALID);
    expectFieldError(await new Client(t.app).get(`/api/wall?token=${'x'.repeat(201)}`), 'token', 'Token must be at most 200 characters');
  });

  it("shows one group's phones when asked, names the groups for the filter, and refuses a group not its own", async () => {
    const owner = await signUp(t.app, { name: 'Gail Groups' });
    const other = await signUp(t.app, { name: 'Otto Other' });
    const one = await buildDevice(owner, { name: 'Rack A 1' });
    await buildDevice(owner, { name: 'Rack B 1' });
    const three = await buildDevice(owner, { name: 'Rack A 2' });
    const rackA = (await owner.post('/api/groups', { name: 'Rack A', deviceIds: [one.id, three.id] })).body as { id: string };
    await owner.post('/api/groups', { name: 'vip', kind: 'tag' });
    const foreign = (await other.post('/api/groups', { name: 'Theirs' })).body as { id: string };
    const link = (await owner.post('/api/wall-links', {})).body as { token: string };
    const tv = new Client(t.app);

    const all = await tv.get(`/api/wall?token=${link.token}`);
    expect(all.body.groupId).toBeNull();
    expect(all.body.tiles).toHaveLength(3);
    expect(all.body.groups).toEqual([
      { id: rackA.id, name: 'Rack A', kind: 'group', phones: 2 },
      expect.objectContaining({ name: 'vip', kind: 'tag', phones: 0 }),
    ]);
    const filtered = await tv.get(`/api/wall?token=${link.token}&groupId=${rackA.id}`);
    expect(filtered.body.groupId).toBe(rackA.id);
    expect(filtered.body.tiles.map((tile: { name: string }) => tile.name)).toEqual(['Rack A 1', 'Rack A 2']);
    // The signed-in member's wall filters the same way.
    expect((await owner.get(`/api/wall?groupId=${rackA.id}`)).body.tiles).toHaveLength(2);

    expectError(await tv.get(`/api/wall?token=${link.token}&groupId=${foreign.id}`), 404, 'This group does not exist (it may have been removed)');
    expectFieldError(await tv.get(`/api/wall?token=${link.token}&groupId=rack-a`), 'groupId', 'Group id must be an id');
  });
});
