/**
 * Alerts and webhook deliveries against a real database (PGlite; PostgreSQL too when DATABASE_URL is set) and a
 * local HTTP endpoint on 127.0.0.1: what is raised, what is sent and signed, retries with backoff, and the log.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type Database } from '@farm/sql';
import { raiseAlert } from './alerts.ts';
import { configureAutomation } from './settings.ts';
import { deliveryBackoffMs, MAX_ATTEMPTS, processWebhooksDeliver, slackEscape } from './webhooks.deliver.ts';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let url: string;
const received: Received[] = [];
let answerWith = 200;

beforeAll(async () => {
  // The receiver is on 127.0.0.1, as on a farm whose receivers live on its own LAN (ALERTS_ALLOW_PRIVATE=1).
  configureAutomation({ outboundAllowPrivate: true });
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.statusCode = answerWith;
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  configureAutomation({ outboundAllowPrivate: false });
  for (const cleanup of cleanups.reverse()) await cleanup();
  await new Promise((resolve) => server.close(resolve));
});

const targets: [string, () => Promise<Database>][] = [
  [
    'PGlite',
    async () => {
      const database = await openDatabase({ kind: 'pglite' });
      cleanups.push(() => database.close());
      await migrate(database);
      return database;
    },
  ],
];
if (process.env.DATABASE_URL) {
  targets.push([
    'PostgreSQL',
    async () => {
      const admin = await openDatabase({ kind: 'postgres', url: process.env.DATABASE_URL!, poolSize: 1 });
      const name = `farm_hooks_${randomBytes(5).toString('hex')}`;
      await admin.exec(`CREATE DATABASE ${name}`);
      const target = new URL(process.env.DATABASE_URL!);
      target.pathname = `/${name}`;
      const database = await openDatabase({ kind: 'postgres', url: target.toString(), poolSize: 3 });
      cleanups.push(async () => {
        await database.close();
        await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.close();
      });
      await migrate(database);
      return database;
    },
  ]);
}

const MINUTE = 60_000;

describe.each(targets)('webhooks.deliver on %s', (_name, open) => {
  let database: Database;
  beforeAll(async () => {
    database = await open();
  });

  async function workspaceWithHook(events: string[], createdAt: Date, offlineMinutes = 15) {
    const db = database.db;
    const ws = await db.insertInto('workspaces').values({ name: 'W' }).returning('id').executeTakeFirstOrThrow();
    const hook = await db
      .insertInto('webhooks')
      .values({ workspaceId: ws.id, url, secret: 'shh-secret', events, offlineMinutes, createdAt })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { workspaceId: ws.id, webhookId: hook.id };
  }

  const run = (now: Date) => processWebhooksDeliver(undefined, { db: database.db, announce: () => undefined, now: () => now });

  it('alerts once for a phone offline longer than the webhook says, signed, with a Slack text', async () => {
    received.length = 0;
    answerWith = 200;
    const t0 = new Date(Date.now() - 60 * MINUTE);
    const { workspaceId, webhookId } = await workspaceWithHook(['device.offline'], t0, 15);
    const db = database.db;
    const device = await db
      .insertInto('devices')
      .values({ workspaceId, name: 'Pixel 7', status: 'online', lastActive: t0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const lastSeen = new Date(t0.getTime() + 10 * MINUTE);
    await db.updateTable('devices').set({ status: 'offline', lastActive: lastSeen }).where('id', '=', device.id).execute();
    // A phone that never connected is not "gone offline".
    await db.insertInto('devices').values({ workspaceId, name: 'Never seen', lastActive: t0 }).execute();

    // 14 minutes after its last contact: not yet.
    expect(await run(new Date(lastSeen.getTime() + 14 * MINUTE))).toMatchObject({ raised: 0, delivered: 0 });
    const now = new Date(lastSeen.getTime() + 16 * MINUTE);
    expect(await run(now)).toMatchObject({ raised: 1, delivered: 1 });
    expect(await run(new Date(now.getTime() + MINUTE))).toMatchObject({ raised: 0, delivered: 0 });

    expect(received).toHaveLength(1);
    const [hit] = received;
    const body = JSON.parse(hit!.body) as Record<string, unknown>;
    expect(body).toMatchObject({
      text: 'Phone Pixel 7 has been offline for more than 15 minutes',
      event: 'device.offline',
      workspaceId,
      occurredAt: lastSeen.toISOString(),
      data: { id: device.id, name: 'Pixel 7', minutes: 15, event: 'device.offline' },
    });
    const timestamp = hit!.headers['x-farm-timestamp'] as string;
    expect(timestamp).toBe(String(Math.floor(now.getTime() / 1000)));
    const expected = `sha256=${createHmac('sha256', 'shh-secret').update(`${timestamp}.${hit!.body}`).digest('hex')}`;
    expect(hit!.headers['x-farm-signature']).toBe(expected);
    expect(hit!.headers['x-farm-event']).toBe('device.offline');

    const log = await db.selectFrom('webhookDeliveries').selectAll().where('webhookId', '=', webhookId).execute();
    expect(log).toMatchObject([{ status: 'delivered', attempts: 1, lastStatus: 200, lastError: null }]);
  });

  it('raises overdue tasks and failed posts, and only those that happened after the webhook was made', async () => {
    received.length = 0;
    answerWith = 200;
    const now = new Date();
    const { workspaceId } = await workspaceWithHook(['task.overdue', 'post.failed'], new Date(now.getTime() - 30 * MINUTE));
    const db = database.db;
    await db
      .insertInto('tasks')
      .values([
        { workspaceId, title: 'Late one', type: 'engage', priority: 'high', deadline: new Date(now.getTime() - 5 * MINUTE) },
        { workspaceId, title: 'Older than the hook', type: 'engage', priority: 'high', deadline: new Date(now.getTime() - 60 * MINUTE) },
        { workspaceId, title: 'Done late', type: 'engage', priority: 'high', status: 'completed', deadline: new Date(now.getTime() - 5 * MINUTE) },
        { workspaceId, title: 'Not yet', type: 'engage', priority: 'high', deadline: new Date(now.getTime() + 5 * MINUTE) },
      ])
      .execute();
    const account = await db.insertInto('accounts').values({ workspaceId, username: 'glow', platform: 'tiktok' }).returning('id').executeTakeFirstOrThrow();
    await db
      .insertInto('posts')
      .values({ workspaceId, accountId: account.id, caption: 'x', status: 'failed', scheduledAt: new Date(now.getTime() - 10 * MINUTE) })
      .execute();

    expect(await run(now)).toMatchObject({ raised: 2, delivered: 2 });
    const texts = received.map((hit) => (JSON.parse(hit.body) as { text: string }).text).sort();
    expect(texts).toEqual(['Post for @glow (tiktok) failed to publish', 'Task "Late one" is overdue']);
  });

  it('retries a refused delivery with exponential backoff, then gives up and keeps the log', async () => {
    received.length = 0;
    answerWith = 503;
    const now = new Date();
    const { workspaceId, webhookId } = await workspaceWithHook(['host.disconnected'], new Date(now.getTime() - MINUTE));
    const payload = { id: randomBytes(4).toString('hex'), at: now.toISOString(), text: 'Host rack-1 disconnected', name: 'rack-1' };
    expect(await raiseAlert(database.db, workspaceId, 'host.disconnected', payload)).toBe(1);
    expect(await raiseAlert(database.db, workspaceId, 'host.disconnected', payload)).toBe(0);
    // An event the webhook did not ask for is not queued.
    expect(await raiseAlert(database.db, workspaceId, 'account.paused', payload)).toBe(0);

    // Raised now (the database's clock): due from this moment.
    let clock = new Date(Date.now() + 1000);
    expect(await run(clock)).toMatchObject({ retried: 1 });
    let row = await database.db.selectFrom('webhookDeliveries').selectAll().where('webhookId', '=', webhookId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'pending', attempts: 1, lastStatus: 503, lastError: 'The endpoint answered 503' });
    expect(row.nextAttemptAt.getTime()).toBe(clock.getTime() + deliveryBackoffMs(1));
    // Before the backoff is over nothing is sent.
    expect(await run(new Date(clock.getTime() + deliveryBackoffMs(1) - 1000))).toMatchObject({ retried: 0, failed: 0 });
    for (let attempt = 2; attempt <= MAX_ATTEMPTS; attempt += 1) {
      clock = row.nextAttemptAt;
      await run(clock);
      row = await database.db.selectFrom('webhookDeliveries').selectAll().where('webhookId', '=', webhookId).executeTakeFirstOrThrow();
      expect(row.attempts).toBe(attempt);
      if (attempt < MAX_ATTEMPTS) expect(row.nextAttemptAt.getTime()).toBe(clock.getTime() + deliveryBackoffMs(attempt));
    }
    expect(row).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS, lastStatus: 503 });
    expect(received.filter((hit) => hit.headers['x-farm-event'] === 'host.disconnected')).toHaveLength(MAX_ATTEMPTS);
    await run(new Date(clock.getTime() + 24 * 3600_000));
    expect(
      await database.db.selectFrom('webhookDeliveries').select(['status', 'attempts']).where('webhookId', '=', webhookId).executeTakeFirstOrThrow(),
    ).toEqual({ status: 'failed', attempts: MAX_ATTEMPTS });
    expect(deliveryBackoffMs(1)).toBe(30_000);
    expect(deliveryBackoffMs(2)).toBe(60_000);
    expect(deliveryBackoffMs(20)).toBe(6 * 3600_000);
  });

  it('escapes names in the Slack text, so a name cannot mention the channel or hide a link', async () => {
    const now = new Date();
    const { workspaceId } = await workspaceWithHook(['host.disconnected'], new Date(now.getTime() - MINUTE));
    const before = received.length;
    await raiseAlert(database.db, workspaceId, 'host.disconnected', {
      id: 'h3',
      at: now.toISOString(),
      text: 'Host <!channel> & <https://evil.example|bank> disconnected',
    });
    await run(new Date(Date.now() + 1000));
    const sent = received.slice(before).map((hit) => JSON.parse(hit.body) as { text: string; data: Record<string, unknown> });
    expect(sent.map((hit) => hit.text)).toEqual(['Host &lt;!channel&gt; &amp; &lt;https://evil.example|bank&gt; disconnected']);
    expect(slackEscape('a < b > c & d')).toBe('a &lt; b &gt; c &amp; d');
  });

  it('records an unreachable endpoint as an error to retry', async () => {
    const now = new Date();
    const { workspaceId, webhookId } = await workspaceWithHook(['host.disconnected'], new Date(now.getTime() - MINUTE));
    // A port that was just free: nothing listens there.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await database.db
      .updateTable('webhooks')
      .set({ url: `http://127.0.0.1:${port}/nothing-listens` })
      .where('id', '=', webhookId)
      .execute();
    await raiseAlert(database.db, workspaceId, 'host.disconnected', { id: 'h1', at: now.toISOString(), text: 'Host h1 disconnected' });
    expect(await run(new Date(Date.now() + 1000))).toMatchObject({ retried: 1 });
    const row = await database.db.selectFrom('webhookDeliveries').selectAll().where('webhookId', '=', webhookId).executeTakeFirstOrThrow();
    expect(row.lastStatus).toBeNull();
    // The class of the failure, never the raw error with the address and port inside the network.
    expect(row.lastError).toBe('The connection was refused');
  });

  it('never sends to a private or local address unless the farm allows it, and logs why', async () => {
    const now = new Date();
    const { workspaceId, webhookId } = await workspaceWithHook(['host.disconnected'], new Date(now.getTime() - MINUTE));
    const before = received.length;
    configureAutomation({ outboundAllowPrivate: false });
    try {
      await raiseAlert(database.db, workspaceId, 'host.disconnected', { id: 'h2', at: now.toISOString(), text: 'Host h2 disconnected' });
      expect(await run(new Date(Date.now() + 1000))).toMatchObject({ retried: 1 });
    } finally {
      configureAutomation({ outboundAllowPrivate: true });
    }
    expect(received.length).toBe(before);
    const row = await database.db.selectFrom('webhookDeliveries').selectAll().where('webhookId', '=', webhookId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ lastStatus: null, lastError: 'The address is private or local, which is not allowed' });
  });
});
