/**
 * Secrets never reach the logs: the log of a whole session of use (at trace level, the most the server writes) is
 * captured and searched for every secret that passed through: passwords, session cookies, authorization headers,
 * wall-link, invitation and password-reset tokens, upload signatures, two-factor secrets, codes and login steps,
 * and a phone's device credential.
 */
import { Writable } from 'node:stream';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION, solidPng, type Ack } from '@farm/agent-protocol';
import { currentCode } from '../../src/auth/two-factor.service.ts';
import { buildTestApp, Client, signUp, uniqueEmail, type TestApp } from '../helpers/app.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { buildDevice, buildInvitation, buildWallLink, PNG } from '../helpers/factories.ts';
import { listen } from '../realtime/sockets.ts';

const PASSWORD = 'a password nobody logs';
let t: TestApp;
let url: string;
let log = '';
const sockets: Socket[] = [];

beforeAll(async () => {
  const capture = new Writable({
    write(chunk: Buffer, _encoding, done) {
      log += chunk.toString();
      done();
    },
  });
  t = await buildTestApp({ logLevel: 'trace' }, { logStream: capture });
  url = await listen(t.app);
});
afterAll(async () => {
  for (const socket of sockets) socket.disconnect();
  await t?.close();
});

describe('the log', () => {
  it('holds none of the secrets that passed through it', async () => {
    const secrets: Record<string, string> = {};
    const email = uniqueEmail('secretive');
    const operator = new Client(t.app);
    expectStatus(await operator.post('/api/auth/signup', { email, password: PASSWORD, name: 'Sid Secret', role: 'operator' }), 201);
    secrets.password = PASSWORD;
    secrets.cookie = operator.cookie!;
    expectStatus(await new Client(t.app).post('/api/auth/login', { email, password: PASSWORD }), 200);
    expectStatus(await operator.get('/api/devices'), 200);
    const bearer = 'Bearer sk_live_never_in_a_log_123456';
    await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: bearer, cookie: `sid=${operator.cookie}` } });
    secrets.authorization = 'sk_live_never_in_a_log_123456';

    const invitation = await buildInvitation(operator);
    secrets.invitation = invitation.token;
    expectStatus(await new Client(t.app).get(`/api/invitations/lookup/${invitation.token}`), 200);
    await t.app.inject({ method: 'GET', url: `/signup?invite=${invitation.token}` });
    const va = await signUp(t.app, { role: 'va', inviteToken: invitation.token, password: PASSWORD });

    const wall = await buildWallLink(operator);
    secrets.wall = wall.token;
    expectStatus(await new Client(t.app).get(`/api/wall?token=${wall.token}`), 200);
    await t.app.inject({ method: 'GET', url: `/monitor/wall?token=${wall.token}` });

    const reserved = await operator.post<{ url: string }>('/api/objects/upload', {});
    secrets.signature = new URL(reserved.body.url, 'http://x').searchParams.get('signature')!;
    expectStatus(await operator.put(reserved.body.url, PNG, { 'content-type': 'image/png' }), 200);

    const reset = await operator.post<{ token: string }>(`/api/users/${va.user!.id}/password-reset`);
    secrets.reset = reset.body.token;
    expectStatus(await new Client(t.app).get(`/api/password-resets/lookup/${reset.body.token}`), 200);
    await t.app.inject({ method: 'GET', url: `/reset-password?token=${reset.body.token}` });
    expectStatus(await new Client(t.app).post('/api/auth/password-reset', { token: reset.body.token, password: 'a new secret password' }), 200);
    secrets.newPassword = 'a new secret password';

    const setup = await operator.post<{ secret: string }>('/api/auth/two-factor/setup');
    secrets.totpSecret = setup.body.secret;
    const enabled = await operator.post<{ recoveryCodes: string[] }>('/api/auth/two-factor/enable', { code: currentCode(setup.body.secret) });
    expectStatus(enabled, 200);
    secrets.recoveryCode = enabled.body.recoveryCodes[0]!;
    const step = await new Client(t.app).post<{ challenge: string }>('/api/auth/login', { email, password: PASSWORD });
    secrets.challenge = step.body.challenge;
    const second = new Client(t.app);
    expectStatus(await second.post('/api/auth/login/two-factor', { challenge: step.body.challenge, code: enabled.body.recoveryCodes[0] }), 200);
    secrets.secondCookie = second.cookie!;

    const device = await buildDevice(operator, { name: 'Pixel quiet' });
    const credential = await operator.post<{ token: string }>(`/api/devices/${device.id}/credentials`);
    secrets.deviceCredential = credential.body.token;
    const phone = io(`${url}/agent`, { forceNew: true, transports: ['websocket'], auth: { token: credential.body.token }, reconnection: false });
    sockets.push(phone);
    await new Promise<void>((resolve, reject) => {
      phone.once('connect', () => resolve());
      phone.once('connect_error', reject);
    });
    const hello = await new Promise<Ack>((resolve) => phone.emit('agent.hello', { protocol: PROTOCOL_VERSION, agentVersion: 'test', battery: 50 }, resolve));
    expect(hello).toMatchObject({ ok: true });
    const shot = await new Promise<Ack>((resolve) =>
      phone.emit('agent.screenshot', { mime: 'image/png', data: solidPng(4, 4, [1, 2, 3]).toString('base64') }, resolve),
    );
    expect(shot).toEqual({ ok: true });
    const screenshots = await operator.get<{ url: string }[]>(`/api/devices/${device.id}/screenshots`);
    expectStatus(await new Client(t.app).get(`${screenshots.body[0]!.url}?wall=${wall.token}`), 200);
    // A wrong token is logged too, as a refusal: masked all the same.
    await new Client(t.app).get(`/api/wall?token=${wall.token}x`);

    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(log).toContain('/api/wall?token=[redacted]');
    expect(log).toContain('/api/invitations/lookup/[redacted]');
    expect(log).toContain('signature=[redacted]');
    for (const [name, secret] of Object.entries(secrets)) {
      expect(secret.length, name).toBeGreaterThan(5);
      expect(log.includes(secret), `${name} appears in the log`).toBe(false);
    }
  });

  it("names the workspace and the person on a signed-in request's lines, and nobody on a signed-out one", async () => {
    const operator = await signUp(t.app, { name: 'Lena Logged' });
    const marker = `marker${Date.now()}`;
    expectStatus(await operator.get(`/api/devices?search=${marker}`), 200);
    expectStatus(await operator.patch(`/api/devices/00000000-0000-4000-8000-000000000000`, { name: marker }), 404);
    expectStatus(await new Client(t.app).get(`/api/devices?search=${marker}`), 401);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const lines = log
      .split('\n')
      .filter((line) => line.includes(marker) || line.includes('00000000-0000-4000-8000-000000000000'))
      .map((line) => JSON.parse(line) as { msg: string; reqId: string; workspaceId?: string; userId?: string; res?: { statusCode: number } });
    const completed = lines.filter((line) => line.msg === 'request completed');
    expect(completed.map((line) => line.res?.statusCode)).toEqual([200, 404, 401]);
    for (const line of completed.slice(0, 2)) {
      expect(line).toMatchObject({ workspaceId: operator.user!.workspaceId, userId: operator.user!.id });
      expect(line.reqId).toBeTruthy();
    }
    expect(completed[2]).not.toHaveProperty('workspaceId');
    expect(completed[2]).not.toHaveProperty('userId');
  });
});
