/** Factories through the API: each creates what it needs and answers the created resource. */
import type { Account, Campaign, Device, DeviceStatus, Post, Routine, Session, Task } from '@farm/contracts';
import type { Db } from '../../src/shared/types.ts';
import { acceptResult, createTasks, dispatchNext, Outboxes } from '@farm/workers';
import type { Client } from './app.ts';

function created<T>(answer: { status: number; body: T }, what: string): T {
  if (answer.status !== 201) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

export async function buildDevice(client: Client, overrides: Record<string, unknown> = {}): Promise<Device> {
  return created(await client.post<Device>('/api/devices', { name: 'Pixel Test', ...overrides }), 'device');
}

export async function buildTask(client: Client, overrides: Record<string, unknown> = {}): Promise<Task> {
  return created(await client.post<Task>('/api/tasks', { title: 'Warm up account', type: 'warmup', priority: 'medium', ...overrides }), 'task');
}

export async function buildCampaign(client: Client, overrides: Record<string, unknown> = {}): Promise<Campaign> {
  return created(
    await client.post<Campaign>('/api/campaigns', { name: 'Spring', platform: 'instagram', niche: 'Beauty', keywords: ['skincare'], ...overrides }),
    'campaign',
  );
}

export async function buildAccount(client: Client, overrides: Record<string, unknown> = {}): Promise<Account> {
  return created(
    await client.post<Account>('/api/accounts', { username: `acct_${Math.random().toString(36).slice(2, 8)}`, platform: 'instagram', ...overrides }),
    'account',
  );
}

export async function buildPost(client: Client, accountId: string, overrides: Record<string, unknown> = {}): Promise<Post> {
  return created(await client.post<Post>('/api/posts', { accountId, caption: 'Hello world', status: 'draft', ...overrides }), 'post');
}

export async function buildSession(client: Client, deviceId: string, overrides: Record<string, unknown> = {}): Promise<Session> {
  return created(await client.post<Session>('/api/sessions', { deviceId, ...overrides }), 'session');
}

export async function linkAccount(client: Client, campaignId: string, accountId: string): Promise<void> {
  created(await client.post(`/api/campaigns/${campaignId}/accounts`, { accountId }), 'link');
}

/** A campaign with one account linked to it: what a routine needs. */
export async function buildLinkedCampaign(client: Client, overrides: Record<string, unknown> = {}): Promise<{ campaign: Campaign; account: Account }> {
  const campaign = await buildCampaign(client, overrides);
  const account = await buildAccount(client, { platform: campaign.platform });
  await linkAccount(client, campaign.id, account.id);
  return { campaign, account };
}

export async function buildRoutine(client: Client, campaignId: string, accountId: string, overrides: Record<string, unknown> = {}): Promise<Routine> {
  return created(await client.post<Routine>('/api/routines', { campaignId, accountId, type: 'warmup', ...overrides }), 'routine');
}

export interface CreatedInvitation {
  id: string;
  token: string;
  url: string;
  role: 'operator' | 'va';
  expiresAt: string;
}

export async function buildInvitation(client: Client, overrides: Record<string, unknown> = {}): Promise<CreatedInvitation> {
  return created(await client.post<{ invitation: CreatedInvitation }>('/api/invitations', { role: 'va', ...overrides }), 'invitation').invitation;
}

/** A link for a wall screen; its token is answered only here. */
export async function buildWallLink(client: Client, overrides: Record<string, unknown> = {}): Promise<{ id: string; token: string; url: string }> {
  return created(await client.post<{ id: string; token: string; url: string }>('/api/wall-links', { name: 'Floor TV', ...overrides }), 'wall link');
}

/**
 * Reads a list page by page through the x-next-cursor header; answers every row in order and the page sizes.
 * Stops with an error rather than loop for ever if the cursor never ends.
 */
export async function collectPages<T extends { id: string }>(client: Client, path: string, limit: number): Promise<{ rows: T[]; pages: number[] }> {
  const rows: T[] = [];
  const pages: number[] = [];
  let cursor: string | undefined;
  const join = path.includes('?') ? '&' : '?';
  for (let guard = 0; guard < 1000; guard += 1) {
    const answer = await client.get<T[]>(`${path}${join}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    rows.push(...answer.body);
    pages.push(answer.body.length);
    const next = answer.headers['x-next-cursor'];
    if (typeof next !== 'string') return { rows, pages };
    cursor = next;
  }
  throw new Error(`${path}: the cursor never ended`);
}

/** A tiny valid PNG. */
export const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
);

/** Uploads an image through the signed-URL flow and answers its path. */
export async function uploadImage(client: Client): Promise<string> {
  const reserved = await client.post<{ url: string }>('/api/objects/upload', {});
  const put = await client.put<{ objectPath: string }>(reserved.body.url, PNG, { 'content-type': 'image/png' });
  if (put.status !== 200) throw new Error(`upload: ${put.status} ${JSON.stringify(put.body)}`);
  return put.body.objectPath;
}

/**
 * What a phone's agent would have reported (a hello, then heartbeats): status and battery only agents set, written
 * straight to the database for tests that need phones in a given state without running agents.
 */
export async function reportFromPhone(db: Db, deviceId: string, report: { status: DeviceStatus; battery?: number }): Promise<void> {
  await db
    .updateTable('devices')
    .set({ status: report.status, ...(report.battery !== undefined ? { battery: report.battery } : {}), lastSeenAt: new Date(), agentProtocol: 2 })
    .where('id', '=', deviceId)
    .execute();
}

/** A webhook pointing at a port nothing listens on (fetch refuses port 9): tests never send alerts off this machine. */
export async function buildWebhook(client: Client, overrides: Record<string, unknown> = {}): Promise<{ id: string; secret: string }> {
  return created(await client.post('/api/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['post.failed', 'device.offline'], ...overrides }), 'webhook');
}

/**
 * A post its phone published without the app confirming it, as the lifecycle leaves it: the publishing task failed
 * `post_unconfirmed` (dispatched, then reported by the phone, through @farm/workers as the phones' socket does), the
 * post failed "Not confirmed", and the question for the phone's VA (`assignedToId`, else the device's own VA).
 */
export async function buildUnconfirmedPost(client: Client, options: { assignedToId?: string | null } = {}) {
  const db = client.app.ctx.db;
  const device = await buildDevice(client, { name: 'Pixel unconfirmed', assignedToId: options.assignedToId ?? null });
  const account = await buildAccount(client, { deviceId: device.id, status: 'active' });
  const post = await buildPost(client, account.id, { status: 'scheduled', scheduledAt: new Date(Date.now() + 3600_000).toISOString(), caption: 'Is it up?' });
  const row = await db.selectFrom('posts').select(['id', 'workspaceId', 'caption', 'scheduleVersion']).where('id', '=', post.id).executeTakeFirstOrThrow();
  const [task] = await db.transaction().execute((tx) =>
    createTasks(
      tx,
      [
        {
          workspaceId: row.workspaceId,
          title: `Publish post for @${account.username}`,
          type: 'post',
          priority: 'medium',
          deviceId: device.id,
          postId: row.id,
          accountId: account.id,
          sourceKey: `post:${row.id}:${row.scheduleVersion}`,
          work: {
            kind: 'post.publish',
            postId: row.id,
            account: { id: account.id, username: account.username, platform: account.platform },
            caption: row.caption,
            hashtags: [],
            mediaUrls: [],
          },
        },
      ],
      new Outboxes(),
    ),
  );
  await dispatchNext(db, device.id);
  const outboxes = new Outboxes();
  await db
    .transaction()
    .execute((tx) =>
      acceptResult(
        tx,
        device.id,
        { taskId: task!.id, attempt: 1, status: 'failed', failure: { code: 'post_unconfirmed' } },
        outboxes.for(task!.workspaceId),
        outboxes,
      ),
    );
  const question = await db.selectFrom('tasks').select('id').where('unconfirmedTaskId', '=', task!.id).executeTakeFirstOrThrow();
  return { device, account, post, publishTaskId: task!.id, questionId: question.id };
}

/** A recipe paused for an app version in the client's workspace, as the breaker leaves it (rows written directly). */
export async function buildPausedRecipe(client: Client, options: { appVersion?: string; recipeId?: string } = {}) {
  const db = client.app.ctx.db;
  const device = await buildDevice(client, { name: `Pixel breaker ${Math.random().toString(36).slice(2, 7)}` });
  const workspaceId = (await db.selectFrom('devices').select('workspaceId').where('id', '=', device.id).executeTakeFirstOrThrow()).workspaceId;
  return db
    .insertInto('recipeBreakers')
    .values({
      workspaceId,
      recipeId: options.recipeId ?? 'instagram.post',
      recipeName: 'Instagram: post',
      platform: 'instagram',
      routines: ['create_post'],
      package: 'com.instagram.android',
      appVersion: options.appVersion ?? `400.0.0.${Math.floor(Math.random() * 1e6)}`,
      phones: 3,
    })
    .returning(['id', 'workspaceId', 'appVersion'])
    .executeTakeFirstOrThrow();
}

/**
 * A failed run's evidence in the client's workspace: a post whose publishing task failed on its phone, with the
 * failed step's trace written as the result's handler writes it (no frame; the tree of one node).
 */
export async function buildFailureEvidence(client: Client, options: { assignedToId?: string | null } = {}) {
  const made = await buildUnconfirmedPost(client, options);
  const db = client.app.ctx.db;
  const workspaceId = (await db.selectFrom('devices').select('workspaceId').where('id', '=', made.device.id).executeTakeFirstOrThrow()).workspaceId;
  const node = {
    text: '',
    resourceId: 'com.instagram.android:id/action_bar_root',
    className: 'android.widget.LinearLayout',
    packageName: 'com.instagram.android',
    desc: '',
    clickable: false,
    scrollable: false,
    selected: false,
    checked: false,
    enabled: true,
    focused: false,
    bounds: { left: 0, top: 0, right: 720, bottom: 1440 },
    index: 0,
    depth: 0,
    parent: -1,
  };
  const tree = JSON.stringify({ nodes: [node], packageName: 'com.instagram.android', width: 720, height: 1440 });
  await db
    .insertInto('taskFailureTraces')
    .values({
      taskId: made.publishTaskId,
      attempt: 1,
      workspaceId,
      deviceId: made.device.id,
      package: 'com.instagram.android',
      appVersion: '312.0.0.34.111',
      seq: 2,
      stepPath: '1',
      label: 'Tap the new post button',
      do: 'tap',
      selector: JSON.stringify({ desc: 'New post' }),
      tree,
      treeBytes: Buffer.byteLength(tree),
    })
    .execute();
  return { taskId: made.publishTaskId, postId: made.post.id, deviceId: made.device.id };
}
