/**
 * A signed-in operator with a small farm, seeded through the API (same origin, JSON) so the page specs have
 * something on every screen without clicking through the journey again. One per worker, shared by the specs
 * that import `test` from here.
 */
import { expect, request as playwrightRequest, test as base, type APIRequestContext } from '@playwright/test';
import { PASSWORD, uniqueEmail } from './ui';

export interface SeededFarm {
  operator: { name: string; email: string };
  va: { name: string; email: string };
  /** The context state of the signed-in operator (session cookie). */
  storageState: Awaited<ReturnType<APIRequestContext['storageState']>>;
  campaignId: string;
  accountId: string;
  deviceNames: string[];
  /** A draft workspace recipe (the shipped post template, turned off), for the recipe editor. */
  recipeId: string;
}

interface WithId {
  id: string;
}

async function send<T>(api: APIRequestContext, method: 'POST' | 'PATCH', url: string, data: unknown): Promise<T> {
  const response = await api.fetch(url, { method, data, headers: { 'Content-Type': 'application/json' } });
  expect(response.ok(), `${method} ${url} answered ${response.status()}: ${await response.text()}`).toBe(true);
  return (await response.json()) as T;
}

/** Signs up an operator and gives the workspace devices, a VA, tasks, a session, a campaign, an account and posts. */
export async function seedFarm(baseURL: string): Promise<SeededFarm> {
  const api = await playwrightRequest.newContext({ baseURL });
  const vaApi = await playwrightRequest.newContext({ baseURL });
  try {
    const operator = { name: 'Grace Gridley', email: uniqueEmail('grace') };
    await send(api, 'POST', '/api/auth/signup', { ...operator, password: PASSWORD, role: 'operator' });

    const { invitation } = await send<{ invitation: { token: string } }>(api, 'POST', '/api/invitations', { role: 'va' });
    const va = { name: 'Victor Assist', email: uniqueEmail('victor') };
    const { user: vaUser } = await send<{ user: WithId }>(vaApi, 'POST', '/api/auth/signup', {
      ...va,
      password: PASSWORD,
      role: 'va',
      inviteToken: invitation.token,
    });

    const deviceSpecs = [
      { name: 'Pixel 7 - Rack A1', status: 'online', battery: 86, assignedToId: vaUser.id },
      { name: 'Galaxy S22 - Rack A2', status: 'busy', battery: 41 },
      { name: 'Moto G - Rack B1', status: 'offline', battery: 12 },
      { name: 'OnePlus 9 - Rack B2', status: 'idle', battery: 64 },
    ];
    const devices: WithId[] = [];
    for (const spec of deviceSpecs) devices.push(await send<WithId>(api, 'POST', '/api/devices', spec));
    const [first, second] = devices as [WithId, WithId, ...WithId[]];

    const taskSpecs = [
      { title: 'Post the morning reel', type: 'post', priority: 'high', deviceId: first.id, assignedToId: vaUser.id },
      { title: 'Engage with fitness hashtags', type: 'engage', priority: 'medium', deviceId: second.id },
      { title: 'Warm up the new account', type: 'warmup', priority: 'low', deviceId: null },
      { title: 'Monitor competitor stories', type: 'monitor', priority: 'medium', deviceId: first.id, assignedToId: vaUser.id },
    ];
    const tasks: WithId[] = [];
    for (const spec of taskSpecs) tasks.push(await send<WithId>(api, 'POST', '/api/tasks', spec));
    const [done, , , started] = tasks as [WithId, WithId, WithId, WithId];
    await send(api, 'PATCH', `/api/tasks/${done.id}`, { status: 'in-progress' });
    await send(api, 'PATCH', `/api/tasks/${done.id}`, { status: 'completed' });
    await send(api, 'PATCH', `/api/tasks/${started.id}`, { status: 'in-progress' });

    await send(api, 'POST', '/api/sessions', { deviceId: first.id, taskId: started.id, currentTask: 'Monitor competitor stories' });
    await send(api, 'POST', '/api/sessions', { deviceId: second.id, currentTask: 'Engage with fitness hashtags' });

    const campaign = await send<WithId>(api, 'POST', '/api/campaigns', {
      name: 'Summer Fitness Push',
      platform: 'instagram',
      niche: 'Fitness',
      keywords: ['fitness', 'workout', 'gym', 'yoga'],
      referenceAccounts: ['@coach', '@athlete'],
      engagementTarget: 150,
    });
    await send(api, 'PATCH', `/api/campaigns/${campaign.id}`, { status: 'active' });
    await send(api, 'POST', '/api/campaigns', {
      name: 'Weekend Dating Boost',
      platform: 'tinder',
      niche: 'Dating',
      keywords: ['coffee', 'hiking'],
      engagementTarget: 40,
    });

    const account = await send<WithId>(api, 'POST', '/api/accounts', {
      username: 'fit_with_grace',
      platform: 'instagram',
      status: 'creation_pending',
      deviceId: first.id,
      bio: 'Coach, early riser and smoothie enthusiast. Daily workouts and honest advice.',
      followers: 0,
      following: 0,
    });
    await send(api, 'PATCH', `/api/accounts/${account.id}`, { status: 'active', followers: 12840, following: 312 });
    await send(api, 'POST', '/api/accounts', {
      username: 'gym_tips_daily',
      platform: 'tiktok',
      status: 'creation_pending',
      deviceId: second.id,
      followers: 0,
      following: 0,
    });
    await send(api, 'POST', `/api/campaigns/${campaign.id}/accounts`, { accountId: account.id });
    await send(api, 'POST', '/api/routines', { campaignId: campaign.id, type: 'warmup', accountId: account.id });
    await send(api, 'POST', '/api/routines', { campaignId: campaign.id, type: 'doom_scroll', accountId: account.id });

    const post = await send<WithId>(api, 'POST', '/api/posts', {
      accountId: account.id,
      campaignId: campaign.id,
      caption: 'Five-minute stretch that fixes your mornings. Save it for tomorrow!',
      status: 'draft',
      hashtags: ['#fitness', '#stretch'],
      mediaUrls: [],
    });
    await send(api, 'POST', '/api/posts', {
      accountId: account.id,
      caption: 'New week, new goals',
      status: 'scheduled',
      scheduledAt: new Date(Date.now() + 3 * 24 * 3600_000).toISOString(),
      hashtags: ['#motivation'],
      mediaUrls: [],
    });
    await send(api, 'PATCH', `/api/posts/${post.id}`, { status: 'published', publishedAt: new Date().toISOString() });
    await send(api, 'POST', '/api/posts', {
      accountId: account.id,
      caption: 'Draft idea: protein smoothie ranking',
      status: 'draft',
      hashtags: [],
      mediaUrls: [],
    });

    const template = (await (await api.get('/api/recipes/shipped/instagram.post')).json()) as { body: Record<string, unknown> };
    const recipe = await send<WithId>(api, 'POST', '/api/recipes', { recipe: { ...template.body, version: 1 }, enabled: false });

    return {
      operator,
      va,
      storageState: await api.storageState(),
      campaignId: campaign.id,
      accountId: account.id,
      deviceNames: deviceSpecs.map((spec) => spec.name),
      recipeId: recipe.id,
    };
  } finally {
    await api.dispose();
    await vaApi.dispose();
  }
}

export interface SmallFarm {
  storageState: SeededFarm['storageState'];
  deviceName: string;
  /** An active instagram account, so Create Post has an account to offer. */
  username: string;
}

/** A fresh operator with one device and one active account, for specs that add rows of their own. */
export async function seedSmallFarm(baseURL: string): Promise<SmallFarm> {
  const api = await playwrightRequest.newContext({ baseURL });
  try {
    await send(api, 'POST', '/api/auth/signup', { name: 'Sam Small', email: uniqueEmail('sam'), password: PASSWORD, role: 'operator' });
    const deviceName = 'Pixel 6 - Bench';
    const device = await send<WithId>(api, 'POST', '/api/devices', { name: deviceName, status: 'online' });
    const username = 'bench_account';
    const account = await send<WithId>(api, 'POST', '/api/accounts', {
      username,
      platform: 'instagram',
      status: 'creation_pending',
      deviceId: device.id,
      followers: 0,
      following: 0,
    });
    await send(api, 'PATCH', `/api/accounts/${account.id}`, { status: 'active' });
    return { storageState: await api.storageState(), deviceName, username };
  } finally {
    await api.dispose();
  }
}

function baseUrlOf(workerInfo: { project: { use: { baseURL?: string } } }): string {
  const baseURL = workerInfo.project.use.baseURL ?? process.env.E2E_BASE_URL;
  if (!baseURL) throw new Error('No baseURL');
  return baseURL;
}

/** `test` with a small farm of its own (once per worker), signed in as its operator. */
export const smallFarmTest = base.extend<object, { smallFarm: SmallFarm }>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern; it has none
  smallFarm: [async ({}, use, workerInfo) => use(await seedSmallFarm(baseUrlOf(workerInfo))), { scope: 'worker' }],
  storageState: async ({ smallFarm }, use) => {
    await use(smallFarm.storageState);
  },
});

/** `test` with a seeded farm (once per worker) and every page signed in as its operator. */
export const test = base.extend<object, { farm: SeededFarm }>({
  farm: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern; it has none
    async ({}, use, workerInfo) => {
      await use(await seedFarm(baseUrlOf(workerInfo)));
    },
    { scope: 'worker' },
  ],
  storageState: async ({ farm }, use) => {
    await use(farm.storageState);
  },
});

export { expect };
