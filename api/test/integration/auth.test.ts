/**
 * Signing up, in and out: workspaces for operators, invitations for VAs, the session cookie, login throttling,
 * deactivation, changing one's own name and password, and refusing cookie writes from another site.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages, type Me } from '@farm/contracts';
import { defaultRateLimits } from '../../src/config.ts';
import { buildTestApp, Client, signUp, uniqueEmail, type Answer, type TestApp } from '../helpers/app.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { buildDevice, buildInvitation } from '../helpers/factories.ts';

const PUBLIC_URL = 'https://console.example';
const PASSWORD = 'correct horse battery';
/** Failed logins one address may make, whatever the account (production's default is 100; fewer keeps the test short). */
const ADDRESS_FAILURES = 15;

let t: TestApp;
beforeAll(async () => {
  // A public URL, as behind a proxy: its origin is accepted for cookie writes and invitation links use it.
  // Behind a proxy (TRUST_PROXY=1: one hop) the client address comes from X-Forwarded-For: the throttle tests vary it.
  t = await buildTestApp({
    publicUrl: PUBLIC_URL,
    trustProxy: 1,
    rateLimits: {
      ...defaultRateLimits(),
      signup: null,
      login: null,
      uploads: null,
      writes: null,
      agentEnroll: null,
      loginFailuresAddress: { max: ADDRESS_FAILURES, windowMs: 900_000 },
    },
  });
});
afterAll(async () => {
  await t?.close();
});

/** Each caller of the login route gets its own address, so the per-IP throttle of one test never reaches another. */
let address = 0;
function freshIp(): Record<string, string> {
  address += 1;
  return { 'x-forwarded-for': `198.51.${Math.floor(address / 250)}.${(address % 250) + 1}` };
}

function login(client: Client, email: string, password: string, ip: Record<string, string> = freshIp()) {
  return client.post<{ user: Me }>('/api/auth/login', { email, password }, ip);
}

function setCookieHeader(answer: Answer): string {
  const header = answer.headers['set-cookie'];
  return Array.isArray(header) ? header.join('\n') : String(header ?? '');
}

function signupBody(overrides: Record<string, unknown> = {}) {
  return { email: uniqueEmail('signup'), password: PASSWORD, name: 'Nora New', role: 'operator', ...overrides };
}

describe('POST /api/auth/signup', () => {
  it('creates an operator with a workspace of their own and signs them in', async () => {
    const client = new Client(t.app);
    const email = uniqueEmail('Olga');
    const answer = await client.post<{ user: Me }>('/api/auth/signup', signupBody({ email: `  ${email.toUpperCase()} `, name: '  Olga Ops ' }));
    expectStatus(answer, 201);
    expect(answer.body.user).toMatchObject({
      email: email.toLowerCase(),
      name: 'Olga Ops',
      role: 'operator',
      isActive: true,
      workspaceName: "Olga Ops's Farm",
    });
    expect(answer.body.user.workspaceId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.keys(answer.body.user).sort()).toEqual(['createdAt', 'email', 'id', 'isActive', 'name', 'role', 'workspaceId', 'workspaceName']);
    expect(client.cookie).toBeTruthy();

    const me = await client.get<{ user: Me }>('/api/auth/me');
    expectStatus(me, 200);
    expect(me.body.user).toEqual(answer.body.user);
    const activities = await client.get<{ action: string; type: string }[]>('/api/activities');
    expect(activities.body).toEqual([expect.objectContaining({ action: 'Olga Ops created the workspace', type: 'success', userId: answer.body.user.id })]);
  });

  it('gives a VA without an invitation an account but no workspace: data routes answer 403', async () => {
    const client = new Client(t.app);
    const answer = await client.post<{ user: Me }>('/api/auth/signup', signupBody({ role: 'va', name: 'Val Alone' }));
    expectStatus(answer, 201);
    expect(answer.body.user).toMatchObject({ role: 'va', workspaceId: null, workspaceName: null });
    expectStatus(await client.get('/api/auth/me'), 200);
    for (const url of ['/api/devices', '/api/tasks', '/api/users', '/api/analytics/stats']) {
      expectError(await client.get(url), 403, messages.noWorkspace);
    }
    expectError(await client.post('/api/posts', { accountId: '00000000-0000-4000-8000-000000000000', caption: 'x' }), 403, messages.noWorkspace);
  });

  it('refuses a second account with the same email, whatever its case', async () => {
    const email = uniqueEmail('twice');
    expectStatus(await new Client(t.app).post('/api/auth/signup', signupBody({ email })), 201);
    const again = await new Client(t.app).post('/api/auth/signup', signupBody({ email: email.toUpperCase(), role: 'va' }));
    expectError(again, 409, messages.emailTaken);
  });

  it.each([
    ['role', { role: undefined }, messages.roleRequired],
    ['role', { role: 'admin' }, 'Role must be operator or va'],
    ['email', { email: 'not-an-email' }, 'Email must be a valid email address'],
    ['password', { password: 'short' }, 'Password must be at least 8 characters'],
    ['name', { name: '   ' }, 'Name is required'],
  ])('refuses a bad %s with its message (%j)', async (field, overrides, message) => {
    const client = new Client(t.app);
    expectFieldError(await client.post('/api/auth/signup', signupBody(overrides)), field, message);
    expect(client.cookie).toBeUndefined();
  });

  it('names every missing field', async () => {
    const answer = await new Client(t.app).post<{ details: { field: string }[] }>('/api/auth/signup', {});
    expectStatus(answer, 400);
    expect(answer.body.details.map((detail) => detail.field)).toEqual(['email', 'password', 'name', 'role']);
    expect(answer.body.details).toContainEqual({ field: 'role', message: messages.roleRequired });
  });
});

describe('invitations', () => {
  it('creates a link under the public URL that previews the workspace, then lets a VA join it', async () => {
    const operator = await signUp(t.app, { name: 'Ivy Inviter' });
    const invitation = await buildInvitation(operator);
    expect(invitation.role).toBe('va');
    expect(invitation.url).toBe(`${PUBLIC_URL}/signup?invite=${invitation.token}`);
    const days = (Date.parse(invitation.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);

    const preview = await new Client(t.app).get(`/api/invitations/lookup/${invitation.token}`);
    expectStatus(preview, 200);
    expect(preview.body).toEqual({ workspaceName: "Ivy Inviter's Farm", role: 'va', email: null, expiresAt: invitation.expiresAt });

    const va = await signUp(t.app, { role: 'va', name: 'Joy Joiner', inviteToken: invitation.token });
    expect(va.user).toMatchObject({ role: 'va', workspaceId: operator.user!.workspaceId, workspaceName: "Ivy Inviter's Farm" });
    expectStatus(await va.get('/api/devices'), 200);

    const list = await operator.get<{ id: string; status: string }[]>('/api/invitations');
    expect(list.body).toEqual([expect.objectContaining({ id: invitation.id, status: 'accepted', role: 'va' })]);
  });

  it('gives the role of the invitation, not the one picked on the form', async () => {
    const operator = await signUp(t.app);
    const invitation = await buildInvitation(operator, { role: 'operator' });
    const joined = await signUp(t.app, { role: 'va', inviteToken: invitation.token });
    expect(joined.user).toMatchObject({ role: 'operator', workspaceId: operator.user!.workspaceId });
    expectStatus(await joined.post('/api/devices', { name: 'Pixel' }), 201);
  });

  it('refuses a wrong token: lookup 404, signup 400, and creates nobody', async () => {
    const wrong = 'not-a-token-we-gave';
    expectError(await new Client(t.app).get(`/api/invitations/lookup/${wrong}`), 404, messages.invitationInvalid);
    const email = uniqueEmail('wrongtoken');
    expectFieldError(
      await new Client(t.app).post('/api/auth/signup', signupBody({ email, role: 'va', inviteToken: wrong })),
      'inviteToken',
      messages.invitationInvalid,
    );
    expectError(await login(new Client(t.app), email, PASSWORD), 401, messages.invalidCredentials);
  });

  it('refuses a token that was already used', async () => {
    const operator = await signUp(t.app);
    const invitation = await buildInvitation(operator);
    await signUp(t.app, { role: 'va', inviteToken: invitation.token });
    expectError(await new Client(t.app).get(`/api/invitations/lookup/${invitation.token}`), 404, messages.invitationInvalid);
    const again = await new Client(t.app).post('/api/auth/signup', signupBody({ role: 'va', inviteToken: invitation.token }));
    expectFieldError(again, 'inviteToken', messages.invitationInvalid);
  });

  it('refuses an expired or withdrawn token', async () => {
    const operator = await signUp(t.app);
    const expired = await buildInvitation(operator);
    await t.db
      .updateTable('invitations')
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where('id', '=', expired.id)
      .execute();
    expectError(await new Client(t.app).get(`/api/invitations/lookup/${expired.token}`), 404, messages.invitationInvalid);
    expectFieldError(
      await new Client(t.app).post('/api/auth/signup', signupBody({ role: 'va', inviteToken: expired.token })),
      'inviteToken',
      messages.invitationInvalid,
    );
    const listed = await operator.get<{ id: string; status: string }[]>('/api/invitations');
    expect(listed.body.find((row) => row.id === expired.id)?.status).toBe('expired');

    const withdrawn = await buildInvitation(operator);
    expectStatus(await operator.delete(`/api/invitations/${withdrawn.id}`), 204);
    expectError(await new Client(t.app).get(`/api/invitations/lookup/${withdrawn.token}`), 404, messages.invitationInvalid);
    expectError(await operator.delete(`/api/invitations/${withdrawn.id}`), 404, messages.notFound);
  });

  it('keeps an invitation sent to an address for that address', async () => {
    const operator = await signUp(t.app);
    const email = uniqueEmail('Addressed');
    const invitation = await buildInvitation(operator, { email: email.toUpperCase() });
    const preview = await new Client(t.app).get(`/api/invitations/lookup/${invitation.token}`);
    expect(preview.body.email).toBe(email.toLowerCase());
    const other = await new Client(t.app).post('/api/auth/signup', signupBody({ role: 'va', inviteToken: invitation.token }));
    expectFieldError(other, 'email', 'This invitation was sent to another email address');
    const joined = await signUp(t.app, { role: 'va', email, inviteToken: invitation.token });
    expect(joined.user!.workspaceId).toBe(operator.user!.workspaceId);
  });

  it('checks the email of an invitation', async () => {
    const operator = await signUp(t.app);
    expectFieldError(await operator.post('/api/invitations', { email: 'nope' }), 'email', 'Email must be a valid email address');
  });
});

describe('POST /api/auth/login', () => {
  it('signs in with the right password, any case of email, and sets a fresh session cookie', async () => {
    const email = uniqueEmail('login');
    const person = await signUp(t.app, { email, name: 'Lena Login' });
    const client = new Client(t.app);
    const answer = await login(client, email.toUpperCase(), PASSWORD);
    expectStatus(answer, 200);
    expect(answer.body.user).toEqual(person.user);
    expect(client.cookie).toBeTruthy();
    expect(client.cookie).not.toBe(person.cookie);
    expectStatus(await client.get('/api/auth/me'), 200);
    // The signup session lives on: two browsers, two sessions.
    expectStatus(await person.get('/api/auth/me'), 200);
  });

  it('answers 401 with the same message for a wrong password and an unknown email', async () => {
    const email = uniqueEmail('wrong');
    await signUp(t.app, { email });
    const client = new Client(t.app);
    expectError(await login(client, email, 'not the password'), 401, messages.invalidCredentials);
    expectError(await login(client, uniqueEmail('nobody'), PASSWORD), 401, messages.invalidCredentials);
    expect(client.cookie).toBeUndefined();
  });

  it('asks for both fields', async () => {
    expectFieldError(await login(new Client(t.app), '', PASSWORD), 'email', 'Email is required');
    expectFieldError(await login(new Client(t.app), uniqueEmail(), ''), 'password', 'Password is required');
  });

  it('replaces the session a browser already had', async () => {
    const email = uniqueEmail('rotate');
    const client = await signUp(t.app, { email });
    const before = client.cookie!;
    expectStatus(await login(client, email, PASSWORD), 200);
    expect(client.cookie).not.toBe(before);
    expectError(await new Client(t.app, before).get('/api/auth/me'), 401, messages.notSignedIn);
  });

  it('throttles one address at one account to 429 after 10 failures, even with the right password; the person still signs in from elsewhere', async () => {
    const email = uniqueEmail('victim');
    await signUp(t.app, { email });
    const client = new Client(t.app);
    const attacker = freshIp();
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      expectError(await login(client, email, `guess ${attempt}`, attacker), 401, messages.invalidCredentials);
    }
    const refused = await login(client, email, 'guess 11', attacker);
    expectError(refused, 429, messages.tooManyAttempts);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expectError(await login(client, email, PASSWORD, attacker), 429, messages.tooManyAttempts);
    // Failing on purpose from one address never locks the real person out: from their own address they sign in.
    expectStatus(await login(new Client(t.app), email, PASSWORD), 200);
    // And the attacker's address may still try other accounts (its own budget is larger).
    const other = uniqueEmail('bystander');
    await signUp(t.app, { email: other });
    expectStatus(await login(client, other, PASSWORD, attacker), 200);
  });

  it('throttles one address to 429 after its budget of failures, whatever the email', async () => {
    const ip = freshIp();
    const client = new Client(t.app);
    for (let attempt = 1; attempt <= ADDRESS_FAILURES; attempt += 1) {
      expectError(await login(client, uniqueEmail('spray'), PASSWORD, ip), 401, messages.invalidCredentials);
    }
    const email = uniqueEmail('real');
    await signUp(t.app, { email });
    expectError(await login(client, email, PASSWORD, ip), 429, messages.tooManyAttempts);
    expectStatus(await login(client, email, PASSWORD), 200);
  });

  it('cannot be dodged by sending X-Forwarded-For: only the proxy hop in front is believed', async () => {
    const client = new Client(t.app);
    const proxy = freshIp()['x-forwarded-for']!;
    // The proxy appends the address it saw; whatever the client wrote before it is not believed.
    const through = (forged: number) => ({ 'x-forwarded-for': `10.9.${forged % 250}.${(forged % 200) + 1}, ${proxy}` });
    for (let attempt = 1; attempt <= ADDRESS_FAILURES; attempt += 1) {
      expectError(await login(client, uniqueEmail('spray'), PASSWORD, through(attempt)), 401, messages.invalidCredentials);
    }
    const email = uniqueEmail('rotate');
    await signUp(t.app, { email });
    expectError(await login(client, email, PASSWORD, through(99)), 429, messages.tooManyAttempts);
  });
});

describe('the session cookie', () => {
  it('is httpOnly, SameSite=Lax, for the whole site, and never in a body', async () => {
    const client = new Client(t.app);
    const answer = await client.post('/api/auth/signup', signupBody());
    const header = setCookieHeader(answer);
    expect(header).toMatch(/^sid=[A-Za-z0-9_-]{40,};/);
    expect(header).toContain('HttpOnly');
    expect(header).toContain('SameSite=Lax');
    expect(header).toContain('Path=/');
    expect(header).toContain('Max-Age=2592000');
    expect(answer.headers['set-cookie']).not.toContain('Secure');
    expect(JSON.stringify(answer.body)).not.toContain(client.cookie!);
    const me = await client.get('/api/auth/me');
    expect(JSON.stringify(me.body)).not.toContain(client.cookie!);
  });

  it('is Secure and __Host- prefixed over HTTPS, and the unprefixed cookie of before still signs in for one release', async () => {
    const https = await buildTestApp({ secureCookies: true, publicUrl: 'https://farm.example' });
    try {
      const origin = { origin: 'https://farm.example', host: 'farm.example' };
      const signup = await https.app.inject({
        method: 'POST',
        url: '/api/auth/signup',
        payload: signupBody({ email: uniqueEmail('secure') }),
        headers: origin,
      });
      expect(signup.statusCode).toBe(201);
      const cookies = signup.cookies;
      const session = cookies.find((cookie) => cookie.name === '__Host-sid');
      expect(session).toMatchObject({ secure: true, httpOnly: true, path: '/', sameSite: 'Lax' });
      expect(session?.domain).toBeUndefined();
      // The old name is cleared when the new one is set.
      expect(cookies.find((cookie) => cookie.name === 'sid')?.value).toBe('');
      const token = session!.value;
      for (const cookie of [`__Host-sid=${token}`, `sid=${token}`]) {
        const me = await https.app.inject({ method: 'GET', url: '/api/auth/me', headers: { cookie } });
        expect(me.statusCode, cookie).toBe(200);
      }
      const logout = await https.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie: `sid=${token}`, ...origin } });
      expect(logout.statusCode).toBe(204);
      expect(logout.cookies.map((cookie) => [cookie.name, cookie.value]).sort()).toEqual([
        ['__Host-sid', ''],
        ['sid', ''],
      ]);
      expect((await https.app.inject({ method: 'GET', url: '/api/auth/me', headers: { cookie: `__Host-sid=${token}` } })).statusCode).toBe(401);
    } finally {
      await https.close();
    }
  });

  it('is refused once the person logs out, and logout clears it', async () => {
    const client = await signUp(t.app, { name: 'Leo Leaving' });
    const old = client.cookie!;
    const answer = await client.post('/api/auth/logout');
    expectStatus(answer, 204);
    expect(setCookieHeader(answer)).toMatch(/^sid=;/);
    expect(client.cookie).toBeUndefined();
    expectError(await new Client(t.app, old).get('/api/auth/me'), 401, messages.notSignedIn);
    expectError(await new Client(t.app, old).get('/api/devices'), 401, messages.notSignedIn);
    expect(t.changes).toContainEqual(expect.objectContaining({ workspaceId: client.user!.workspaceId, event: 'auth.revoked' }));
  });

  it('lets a signed-out browser log out again without error', async () => {
    expectStatus(await new Client(t.app).post('/api/auth/logout'), 204);
    expectStatus(await new Client(t.app, 'made-up-token').post('/api/auth/logout'), 204);
  });

  it('answers 401 for a made-up cookie', async () => {
    expectError(await new Client(t.app, 'made-up-token').get('/api/auth/me'), 401, messages.notSignedIn);
  });

  it('ends an idle or expired session', async () => {
    const idle = await signUp(t.app);
    await t.db
      .updateTable('authSessions')
      .set({ lastSeenAt: new Date(Date.now() - 8 * 24 * 3600_000) })
      .where('userId', '=', idle.user!.id)
      .execute();
    expectError(await idle.get('/api/auth/me'), 401, messages.notSignedIn);
    const expired = await signUp(t.app);
    await t.db
      .updateTable('authSessions')
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where('userId', '=', expired.user!.id)
      .execute();
    expectError(await expired.get('/api/auth/me'), 401, messages.notSignedIn);
  });
});

describe('deactivation', () => {
  it("ends a deactivated person's sessions, refuses their login, frees their phones; reactivation lets them back", async () => {
    const operator = await signUp(t.app);
    const email = uniqueEmail('leaver');
    const invitation = await buildInvitation(operator);
    const va = await signUp(t.app, { role: 'va', email, inviteToken: invitation.token });
    const device = await buildDevice(operator, { assignedToId: va.user!.id });

    const answer = await operator.patch(`/api/users/${va.user!.id}`, { isActive: false });
    expectStatus(answer, 200);
    expect(answer.body).toMatchObject({ id: va.user!.id, isActive: false });
    expectError(await va.get('/api/auth/me'), 401, messages.notSignedIn);
    expectError(await va.get('/api/tasks'), 401, messages.notSignedIn);
    expectError(await login(new Client(t.app), email, PASSWORD), 401, messages.invalidCredentials);
    expect((await operator.get(`/api/devices/${device.id}`)).body.assignedToId).toBeNull();
    // The realtime gateway hears of it, so it can close the person's sockets.
    expect(t.changes).toContainEqual(expect.objectContaining({ event: 'auth.revoked', workspaceId: operator.user!.workspaceId }));

    expectStatus(await operator.patch(`/api/users/${va.user!.id}`, { isActive: true }), 200);
    expectStatus(await login(new Client(t.app), email, PASSWORD), 200);
  });

  it('keeps at least one active operator', async () => {
    const operator = await signUp(t.app);
    const self = operator.user!.id;
    expectError(await operator.patch(`/api/users/${self}`, { isActive: false }), 409, 'A workspace needs at least one active operator');
    expectError(await operator.patch(`/api/users/${self}`, { role: 'va' }), 409, 'A workspace needs at least one active operator');
    expectStatus(await operator.get('/api/auth/me'), 200);
  });
});

describe('PATCH /api/users/me', () => {
  it('changes the name, trimmed', async () => {
    const person = await signUp(t.app, { name: 'Old Name' });
    const answer = await person.patch<{ user: Me }>('/api/users/me', { name: '  New Name ' });
    expectStatus(answer, 200);
    expect(answer.body.user).toMatchObject({ id: person.user!.id, name: 'New Name' });
    expectFieldError(await person.patch('/api/users/me', { name: '' }), 'name', 'Name is required');
  });

  it('changes the password only with the current one', async () => {
    const email = uniqueEmail('rekey');
    const person = await signUp(t.app, { email });
    expectFieldError(
      await person.patch('/api/users/me', { password: 'a brand new secret' }),
      'currentPassword',
      'Current password is required to change the password',
    );
    expectFieldError(
      await person.patch('/api/users/me', { currentPassword: 'not it at all', password: 'a brand new secret' }),
      'currentPassword',
      messages.currentPasswordWrong,
    );
    expectFieldError(
      await person.patch('/api/users/me', { currentPassword: PASSWORD, password: 'short' }),
      'password',
      'Password must be at least 8 characters',
    );
    expectError(await login(new Client(t.app), email, 'a brand new secret'), 401, messages.invalidCredentials);

    expectStatus(await person.patch('/api/users/me', { currentPassword: PASSWORD, password: 'a brand new secret' }), 200);
    expectStatus(await login(new Client(t.app), email, 'a brand new secret'), 200);
    expectError(await login(new Client(t.app), email, PASSWORD), 401, messages.invalidCredentials);
  });

  it('works for a VA with no workspace yet, and needs a session', async () => {
    const loner = await signUp(t.app, { role: 'va' });
    expectStatus(await loner.patch('/api/users/me', { name: 'Still Alone' }), 200);
    expectError(await new Client(t.app).patch('/api/users/me', { name: 'Ghost' }), 401, messages.notSignedIn);
  });
});

describe('cross-site requests', () => {
  it('refuses a cookie write from another origin and changes nothing', async () => {
    const operator = await signUp(t.app);
    const answer = await operator.post('/api/devices', { name: 'Forged' }, { origin: 'https://evil.example' });
    expectError(answer, 403, 'Cross-site request refused');
    const sameSiteFetch = await operator.post('/api/devices', { name: 'Forged' }, { 'sec-fetch-site': 'cross-site' });
    expectError(sameSiteFetch, 403, 'Cross-site request refused');
    expect((await operator.get('/api/devices')).body).toEqual([]);
    // Logging out is a write too: a forged logout is refused.
    expectError(await operator.post('/api/auth/logout', {}, { origin: 'https://evil.example' }), 403, 'Cross-site request refused');
    expectStatus(await operator.get('/api/auth/me'), 200);
  });

  it('accepts writes from the same host and from the public URL, and reads from anywhere', async () => {
    const operator = await signUp(t.app);
    expectStatus(await operator.post('/api/devices', { name: 'Same host' }, { host: 'farm.internal', origin: 'http://farm.internal' }), 201);
    expectStatus(await operator.post('/api/devices', { name: 'Public URL' }, { host: 'farm.internal', origin: PUBLIC_URL }), 201);
    expectStatus(await operator.post('/api/devices', { name: 'No origin' }), 201);
    const read = await operator.request('GET', '/api/devices', undefined, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
    expectStatus(read, 200);
    expect(read.body).toHaveLength(3);
  });
});

describe('GET /api/config', () => {
  it('shows no demo credentials outside demo mode', async () => {
    const answer = await new Client(t.app).get('/api/config');
    expectStatus(answer, 200);
    expect(answer.body).toEqual({ demo: false, demoCredentials: null });
  });

  it('never serves the demo operator’s password in production, even with the demo on', async () => {
    const production = await buildTestApp({ env: 'production', demo: true });
    try {
      const answer = await new Client(production.app).get('/api/config');
      expectStatus(answer, 200);
      expect(answer.body).toEqual({ demo: true, demoCredentials: null });
    } finally {
      await production.close();
    }
  });
});
