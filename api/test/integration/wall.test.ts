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
});
