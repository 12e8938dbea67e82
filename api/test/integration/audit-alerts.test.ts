/**
 * The audit log (every write leaves an entry with who, what, which entity and from which address; operators
 * read it with filters and pages) and Settings → Alerts (webhooks, a test delivery to a local endpoint, the
 * delivery log, the paused-account alert). Also the calendar window, post editing and Retry, the task deadline
 * rule and the workspace time zone.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertEventValues as workerEvents, configureAutomation } from '@farm/workers';
import { alertEventValues, type AuditEntry, type Post, type Webhook, type WebhookDelivery } from '@farm/contracts';
import { buildTestApp, people, signUp, uniqueEmail, Client, type TestApp } from '../helpers/app.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { buildAccount, buildDevice, buildPost, buildTask, buildWebhook, uploadImage } from '../helpers/factories.ts';
import { send, writeRoutes, type Crew } from '../helpers/route-table.ts';

let t: TestApp;
let cast: Awaited<ReturnType<typeof people>>;
beforeAll(async () => {
  t = await buildTestApp();
  cast = await people(t.app);
});
afterAll(async () => {
  await t?.close();
});

const auditCount = async (workspaceId: string) =>
  Number(
    (
      await t.db
        .selectFrom('auditLog')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('workspaceId', '=', workspaceId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('the audit log', () => {
  it('gets an entry, with the caller’s address, from every write route', async () => {
    const crew: Crew = { operator: cast.operator, va: cast.va };
    const workspaceId = cast.operator.user!.workspaceId!;
    for (const route of writeRoutes) {
      const call = await route.setup(crew);
      const before = await auditCount(workspaceId);
      const answer = await send(cast.operator, route.method, call);
      expect(answer.status, `${route.method} ${route.path}`).toBe(route.ok);
      expect(await auditCount(workspaceId), `${route.method} ${route.path} wrote no audit entry`).toBeGreaterThan(before);
      const latest = await t.db
        .selectFrom('auditLog')
        .select(['ip', 'actorId'])
        .where('workspaceId', '=', workspaceId)
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      expect(latest, `${route.method} ${route.path}`).toEqual({ ip: '127.0.0.1', actorId: cast.operator.user!.id });
    }
  });

  it('lists entries newest first with filters by person, action, entity and date, and pages', async () => {
    const { operator, va } = await people(t.app);
    const device = await buildDevice(operator, { name: 'Audited' });
    const task = await buildTask(operator, { title: 'Audit me' });
    expectStatus(await va.get('/api/tasks'), 200);
    expectStatus(await operator.patch(`/api/tasks/${task.id}`, { assignedToId: va.user!.id }), 200);
    expectStatus(await va.patch(`/api/tasks/${task.id}`, { status: 'in-progress' }), 200);

    const all = await operator.get<AuditEntry[]>('/api/audit-log');
    expectStatus(all, 200);
    expect(all.body.map((entry) => entry.action).slice(0, 4)).toEqual(['task.status', 'task.assigned', 'task.created', 'device.created']);
    expect(all.body[0]).toMatchObject({
      actorId: va.user!.id,
      actorName: 'Vera Assistant',
      entityType: 'task',
      entityId: task.id,
      ip: '127.0.0.1',
      data: { from: 'pending', to: 'in-progress' },
    });

    const byVa = await operator.get<AuditEntry[]>(`/api/audit-log?actorId=${va.user!.id}`);
    expect(byVa.body.map((entry) => entry.action)).toEqual(['task.status', 'user.joined']);
    expect((await operator.get<AuditEntry[]>('/api/audit-log?action=task.')).body.map((entry) => entry.action)).toEqual([
      'task.status',
      'task.assigned',
      'task.created',
    ]);
    expect((await operator.get<AuditEntry[]>('/api/audit-log?entityType=device')).body).toMatchObject([{ action: 'device.created', entityId: device.id }]);
    expect((await operator.get<AuditEntry[]>(`/api/audit-log?entityId=${task.id}`)).body).toHaveLength(3);
    const future = new Date(Date.now() + 3600_000).toISOString();
    expect((await operator.get<AuditEntry[]>(`/api/audit-log?from=${future}`)).body).toEqual([]);
    expect((await operator.get<AuditEntry[]>(`/api/audit-log?to=${future}`)).body).toHaveLength(all.body.length);

    const pages: string[] = [];
    let url = '/api/audit-log?limit=2';
    for (;;) {
      const answer = await operator.get<AuditEntry[]>(url);
      pages.push(...answer.body.map((entry) => entry.id));
      const next = answer.headers['x-next-cursor'];
      if (typeof next !== 'string') break;
      url = `/api/audit-log?limit=2&cursor=${next}`;
    }
    expect(pages).toEqual(all.body.map((entry) => entry.id));

    const facets = await operator.get<{ actions: string[]; entityTypes: string[] }>('/api/audit-log/facets');
    expect(facets.body.entityTypes).toEqual(['device', 'invitation', 'task', 'user']);
  });

  it('is for operators of the workspace only', async () => {
    const { operator, va, stranger, anonymous } = cast;
    await buildDevice(operator, { name: 'Private' });
    expectError(await va.get('/api/audit-log'), 403, 'You do not have permission to do this');
    expectError(await anonymous.get('/api/audit-log'), 401, 'Not signed in');
    const theirs = await stranger.get<AuditEntry[]>('/api/audit-log');
    expect(theirs.body.every((entry) => entry.actorId === stranger.user!.id)).toBe(true);
    expectFieldError(await operator.get('/api/audit-log?cursor=abc'), 'cursor', 'Cursor is not one this server gave; start again from the first page');
    expectFieldError(await operator.get('/api/audit-log?actorId=me'), 'actorId', 'Person must be an id');
  });
});

describe('Settings → Alerts', () => {
  let server: Server;
  let url: string;
  const received: { headers: Record<string, unknown>; body: Record<string, unknown> }[] = [];
  beforeAll(async () => {
    server = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString()));
      request.on('end', () => {
        received.push({ headers: request.headers, body: JSON.parse(text) as Record<string, unknown> });
        response.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/alerts`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('names the same alert events as the workers', () => {
    expect([...alertEventValues]).toEqual([...workerEvents]);
  });

  it('creates, lists, changes and deletes a webhook; a test delivery reaches the endpoint and the log', async () => {
    const operator = await signUp(t.app);
    const created = await operator.post<Webhook>('/api/webhooks', { url, events: ['device.offline', 'account.paused'], offlineMinutes: 20 });
    expectStatus(created, 201);
    expect(created.body).toMatchObject({ url, events: ['device.offline', 'account.paused'], offlineMinutes: 20, isActive: true });
    expect(created.body.secret).toMatch(/^[0-9a-f]{48}$/);
    expect((await operator.get<Webhook[]>('/api/webhooks')).body.map((hook) => hook.id)).toEqual([created.body.id]);
    expect((await operator.patch<Webhook>(`/api/webhooks/${created.body.id}`, { events: ['post.failed'], isActive: false })).body).toMatchObject({
      events: ['post.failed'],
      isActive: false,
    });

    received.length = 0;
    const test = await operator.post<WebhookDelivery>(`/api/webhooks/${created.body.id}/test`);
    expectStatus(test, 202);
    expect(test.body).toMatchObject({ event: 'webhook.test', status: 'pending', attempts: 0 });
    await t.app.ctx.jobs!.runNow('webhooks.deliver');
    expect(received.map((hit) => hit.body.text)).toContain('Test alert from the phone farm console: this webhook works.');
    const log = await operator.get<WebhookDelivery[]>(`/api/webhook-deliveries?webhookId=${created.body.id}`);
    expect(log.body).toMatchObject([
      {
        id: test.body.id,
        status: 'delivered',
        attempts: 1,
        lastStatus: 200,
        lastError: null,
        text: 'Test alert from the phone farm console: this webhook works.',
      },
    ]);

    expectStatus(await operator.delete(`/api/webhooks/${created.body.id}`), 204);
    expect((await operator.get<Webhook[]>('/api/webhooks')).body).toEqual([]);
    expect((await operator.get('/api/audit-log?entityType=webhook')).body.map((entry: AuditEntry) => entry.action)).toEqual([
      'webhook.deleted',
      'webhook.tested',
      'webhook.updated',
      'webhook.created',
    ]);
  });

  it('alerts when an account is paused for safety', async () => {
    const operator = await signUp(t.app);
    const hook = await buildWebhook(operator, { url, events: ['account.paused'] });
    const account = await buildAccount(operator, { username: 'resting', platform: 'tiktok', status: 'active' });
    expectStatus(await operator.patch(`/api/accounts/${account.id}`, { status: 'paused' }), 200);
    const log = await operator.get<WebhookDelivery[]>(`/api/webhook-deliveries?webhookId=${hook.id}`);
    expect(log.body).toMatchObject([{ event: 'account.paused', status: 'pending', text: 'Account @resting (tiktok) was paused for safety' }]);
    expect((await operator.get('/api/activities')).body[0].action).toBe('Account @resting (tiktok) paused for safety');
    received.length = 0;
    await t.app.ctx.jobs!.runNow('webhooks.deliver');
    expect(received.find((hit) => hit.body.event === 'account.paused')?.body).toMatchObject({
      text: 'Account @resting (tiktok) was paused for safety',
      data: { id: account.id, username: 'resting' },
    });
  });

  it('refuses a webhook that leads into the farm’s own network, and saves a name that does not resolve with a warning', async () => {
    const operator = await signUp(t.app);
    configureAutomation({ outboundAllowPrivate: false });
    try {
      for (const [target, shown] of [
        [url, '127.0.0.1'],
        ['http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
        ['http://[::ffff:10.0.3.4]:6379/', '::ffff:a00:304'],
        ['http://2130706433/', '127.0.0.1'],
        // A name is named as typed: where it leads inside the farm's network is never said back.
        ['http://localhost:6379/', 'localhost'],
      ] as const) {
        const answer = await operator.post('/api/webhooks', { url: target, events: ['post.failed'] });
        expectStatus(answer, 400);
        const field = (answer.body as { details: { field: string; message: string }[] }).details[0]!;
        expect(field.field, target).toBe('url');
        expect(field.message, target).toBe(`${shown} is a private or local address, which is not allowed; only addresses on the public internet are allowed.`);
      }
      // The attack: probe the farm's own network by name (as `http://redis` would be in a container).
      const probe = await operator.post('/api/webhooks', { url: 'http://localhost/hook', events: ['post.failed'] });
      expectStatus(probe, 400);
      expect(JSON.stringify(probe.body)).not.toMatch(/\d+\.\d+\.\d+\.\d+|::1|\bleads to\b/);
      expect((await operator.get<Webhook[]>('/api/webhooks')).body).toEqual([]);
      const later = await operator.post<Webhook>('/api/webhooks', { url: 'https://hooks.not-yet.invalid/alerts', events: ['post.failed'] });
      expectStatus(later, 201);
      expect(later.body.warning).toBe(
        'The name hooks.not-yet.invalid does not resolve to any address. It is saved; alerts are sent once it resolves to a public address.',
      );
      const moved = await operator.patch(`/api/webhooks/${later.body.id}`, { url: 'http://192.168.1.20/alerts' });
      expectStatus(moved, 400);
      expect((await operator.get<Webhook[]>('/api/webhooks')).body.map((hook) => hook.url)).toEqual(['https://hooks.not-yet.invalid/alerts']);
    } finally {
      configureAutomation({ outboundAllowPrivate: true });
    }
  });

  it('refuses a webhook it could not use, and is the operator’s', async () => {
    const { operator, va, stranger, anonymous } = cast;
    expectFieldError(
      await operator.post('/api/webhooks', { url: 'ftp://example.test/x', events: ['post.failed'] }),
      'url',
      'URL must be an http or https address',
    );
    expectFieldError(await operator.post('/api/webhooks', { url: 'not a url', events: ['post.failed'] }), 'url', 'URL must be an http or https address');
    expectFieldError(await operator.post('/api/webhooks', { url, events: [] }), 'events', 'Choose at least one event');
    expectFieldError(
      await operator.post('/api/webhooks', { url, events: ['cat.adopted'] }),
      'events.0',
      'Events (item 1) must be one of device.offline, post.failed, account.paused, task.overdue, host.disconnected, user.security, recipe.paused or device.health',
    );
    expectFieldError(
      await operator.post('/api/webhooks', { url, events: ['device.offline'], offlineMinutes: 0 }),
      'offlineMinutes',
      'Offline minutes must be between 1 and 10080',
    );
    const hook = await buildWebhook(operator);
    expectError(await va.get('/api/webhooks'), 403, 'You do not have permission to do this');
    expectError(await anonymous.get('/api/webhook-deliveries'), 401, 'Not signed in');
    expectError(await stranger.patch(`/api/webhooks/${hook.id}`, { isActive: false }), 404, 'Not found');
    expect((await stranger.get<Webhook[]>('/api/webhooks')).body).toEqual([]);
  });
});

describe('the calendar window, editing and Retry', () => {
  it('lists posts whose schedule or publication falls in [from, to)', async () => {
    const operator = await signUp(t.app);
    const account = await buildAccount(operator, { status: 'active' });
    const base = Date.UTC(2031, 2, 1);
    const at = (days: number) => new Date(base + days * 86_400_000).toISOString();
    const onStart = await buildPost(operator, account.id, { status: 'scheduled', scheduledAt: at(0) });
    const inside = await buildPost(operator, account.id, { status: 'scheduled', scheduledAt: at(3) });
    await buildPost(operator, account.id, { status: 'scheduled', scheduledAt: at(7) });
    await buildPost(operator, account.id, { status: 'scheduled', scheduledAt: new Date(base - 1).toISOString() });
    const published = await buildPost(operator, account.id, { status: 'published' });
    await t.db
      .updateTable('posts')
      .set({ publishedAt: new Date(base + 86_400_000) })
      .where('id', '=', published.id)
      .execute();
    const ids = (await operator.get<Post[]>(`/api/posts?from=${at(0)}&to=${at(7)}`)).body.map((post) => post.id);
    expect(ids.sort()).toEqual([onStart.id, inside.id, published.id].sort());
    expect((await operator.get<Post[]>(`/api/posts?from=${at(0)}&to=${at(7)}&status=published`)).body.map((post) => post.id)).toEqual([published.id]);
    expectFieldError(await operator.get('/api/posts?from=soon'), 'from', 'From date must be a date and time, like 2026-05-01T09:30:00Z');
  });

  it('edits a post while draft, scheduled or failed, and retries a failed one at a new time', async () => {
    const operator = await signUp(t.app);
    const first = await buildAccount(operator, { status: 'active', username: 'first' });
    const second = await buildAccount(operator, { status: 'active', username: 'second' });
    const post = await buildPost(operator, first.id, { status: 'scheduled', scheduledAt: new Date(Date.now() + 3600_000).toISOString() });
    const image = await uploadImage(operator);
    const edited = await operator.patch<Post>(`/api/posts/${post.id}`, {
      caption: 'New words',
      accountId: second.id,
      hashtags: ['#new'],
      mediaUrls: [image],
    });
    expectStatus(edited, 200);
    expect(edited.body).toMatchObject({
      caption: 'New words',
      accountId: second.id,
      hashtags: ['#new'],
      mediaUrls: [image],
      status: 'scheduled',
    });
    expectFieldError(
      await operator.patch(`/api/posts/${post.id}`, { accountId: cast.stranger.user!.id }),
      'accountId',
      "Account must be one of this workspace's accounts",
    );

    const published = await buildPost(operator, first.id, { status: 'published' });
    expectError(await operator.patch(`/api/posts/${published.id}`, { caption: 'Too late' }), 409, 'A published post cannot be edited');

    // The phone failed it: its task is settled as failed.
    await t.db.updateTable('posts').set({ status: 'failed' }).where('id', '=', post.id).execute();
    const task = await t.db
      .insertInto('tasks')
      .values({ workspaceId: operator.user!.workspaceId!, title: 'Publish', type: 'post', priority: 'high', status: 'failed', postId: post.id })
      .returning('id')
      .executeTakeFirstOrThrow();
    const retryAt = new Date(Date.now() + 7200_000).toISOString();
    const retried = await operator.patch<Post>(`/api/posts/${post.id}`, { status: 'scheduled', scheduledAt: retryAt });
    expectStatus(retried, 200);
    expect(retried.body).toMatchObject({ status: 'scheduled', scheduledAt: retryAt });
    // The failed attempt stays as the post's history; the new schedule is a new version, so its time brings a fresh task.
    expect(await t.db.selectFrom('tasks').select(['postId', 'status']).where('id', '=', task.id).executeTakeFirstOrThrow()).toEqual({
      postId: post.id,
      status: 'failed',
    });
    const versions = await t.db.selectFrom('posts').select('scheduleVersion').where('id', '=', post.id).executeTakeFirstOrThrow();
    expect(versions.scheduleVersion).toBeGreaterThan(0);
  });

  it('refuses a task deadline in the past', async () => {
    const operator = await signUp(t.app);
    expectFieldError(
      await operator.post('/api/tasks', { title: 'Late', type: 'post', priority: 'low', deadline: new Date(Date.now() - 3600_000).toISOString() }),
      'deadline',
      'Deadline must be in the future',
    );
    expectStatus(
      await operator.post('/api/tasks', { title: 'On time', type: 'post', priority: 'low', deadline: new Date(Date.now() + 3600_000).toISOString() }),
      201,
    );
  });
});

describe('the workspace time zone', () => {
  it('comes from the creating operator’s browser, and is changed in Settings', async () => {
    const client = new Client(t.app);
    const signup = await client.post('/api/auth/signup', {
      email: uniqueEmail(),
      password: 'correct horse battery',
      name: 'Zoe Zone',
      role: 'operator',
      timeZone: 'America/New_York',
    });
    expectStatus(signup, 201);
    expect((await client.get('/api/workspace')).body).toMatchObject({ timeZone: 'America/New_York' });
    expect((await client.patch('/api/workspace', { name: 'Zoe Farm', timeZone: 'Europe/Paris' })).body).toMatchObject({
      name: 'Zoe Farm',
      timeZone: 'Europe/Paris',
    });
    expectFieldError(
      await client.patch('/api/workspace', { name: 'Zoe Farm', timeZone: 'Europe/Atlantis' }),
      'timeZone',
      'Time zone must be a time zone such as Europe/Paris',
    );
    const bad = await new Client(t.app).post('/api/auth/signup', {
      email: uniqueEmail(),
      password: 'correct horse battery',
      name: 'Bad Zone',
      role: 'operator',
      timeZone: 'Nowhere/Land',
    });
    expectFieldError(bad, 'timeZone', 'Time zone must be a time zone such as Europe/Paris');
    expect((await (await signUp(t.app)).get('/api/workspace')).body.timeZone).toBe('UTC');
  });
});

describe('GET /api/onboarding', () => {
  it('follows the first steps in order: a phone connected, a VA invited, an account added, a campaign created', async () => {
    const operator = await signUp(t.app);
    const steps = async () => (await operator.get('/api/onboarding')).body;
    expect(await steps()).toEqual({ phoneConnected: false, vaInvited: false, accountAdded: false, campaignCreated: false });
    const device = await buildDevice(operator);
    expect((await steps()).phoneConnected).toBe(false);
    await t.db.updateTable('devices').set({ status: 'online' }).where('id', '=', device.id).execute();
    await operator.post('/api/invitations', { role: 'va' });
    await buildAccount(operator);
    expect(await steps()).toEqual({ phoneConnected: true, vaInvited: true, accountAdded: true, campaignCreated: false });
    expectError(await cast.anonymous.get('/api/onboarding'), 401, 'Not signed in');
  });
});
