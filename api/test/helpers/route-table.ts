/**
 * Every route of the REST API, each with a way to build a fresh, valid call in the operator's workspace.
 * The permission matrix, the bad-input sweep, the tenancy sweep and the OpenAPI check all read this one table,
 * and the OpenAPI check fails when the API gains a route the table does not list.
 */
import type { AddressInfo } from 'node:net';
import { messages } from '@farm/contracts';
import { inviteVa, signUp, type Client } from './app.ts';
import { bareAgent, send as sendAsPhone } from '../realtime/phones.ts';
import { connected } from '../realtime/sockets.ts';
import { buildApk } from './apk.ts';
import {
  buildAccount,
  buildCampaign,
  buildDevice,
  buildFailureEvidence,
  buildInvitation,
  buildLinkedCampaign,
  buildPost,
  buildRoutine,
  buildSession,
  buildTask,
  buildPausedRecipe,
  buildUnconfirmedPost,
  buildWallLink,
  buildWebhook,
  uploadImage,
} from './factories.ts';

/** The people of one workspace a fixture may need. */
export interface Crew {
  operator: Client;
  va: Client;
}

export interface Call {
  url: string;
  body?: unknown;
}

type WriteMethod = 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface WriteRoute {
  method: WriteMethod;
  /** As the OpenAPI document names it. */
  path: string;
  /** The status of a successful call. */
  ok: number;
  /** Any signed-in person, with or without a workspace, may call it (only /api/users/me). */
  anySignedIn?: true;
  /** A VA of the workspace may make this call: the policy allows it and the fixture gives the VA the row. */
  vaMay: boolean;
  /** The sentence a VA is refused with, where the route words it (otherwise the policy's own). */
  vaRefusal?: string;
  /** What another workspace's operator gets for the same call; null when the call names nothing of this workspace. */
  foreign: { status: number; error: string } | null;
  /** A fresh target in the operator's workspace (given to the VA where a VA may act on it) and the call to make. */
  setup(crew: Crew): Promise<Call>;
}

const notFound = { status: 404, error: messages.notFound };
const fieldNames: Record<string, string> = { deviceId: 'Device', assignedToId: 'Assignee', taskId: 'Task', campaignId: 'Campaign', accountId: 'Account' };
const noSuchText = (field: string, what: string) =>
  what === 'member' ? `${fieldNames[field]} must be an active member of this workspace` : `${fieldNames[field]} must be one of this workspace's ${what}s`;
const noSuch = (field: string, what: string) => ({ status: 400, error: noSuchText(field, what) });

const vaId = (crew: Crew): string => crew.va.user!.id;
/** Assigned to the crew's VA (a crew signed in by hand, as the demo's, has no VA to give it to). */
const vaOwned = (crew: Crew): { assignedToId?: string } => (crew.va.user ? { assignedToId: vaId(crew) } : {});

/** A valid recipe document: the shipped Instagram post recipe at a version no earlier call used. */
let recipeVersion = 100;
async function recipeDocument(operator: Client): Promise<Record<string, unknown>> {
  const template = await operator.get<{ body: Record<string, unknown> }>('/api/recipes/shipped/instagram.post');
  recipeVersion += 1;
  return { ...template.body.body, version: recipeVersion };
}
async function buildRecipe(operator: Client): Promise<string> {
  return (await operator.post<{ id: string }>('/api/recipes', { recipe: await recipeDocument(operator) })).body.id;
}

/** A draft recipe (turned off: a VA may save versions of it) and its document, for the editor's routes. */
let draftCount = 0;
async function buildDraftRecipe(operator: Client): Promise<{ id: string; body: Record<string, unknown> }> {
  // A recipe id of its own: saving versions of it must not take the versions recipeDocument hands out next.
  draftCount += 1;
  const recipe = { ...(await recipeDocument(operator)), id: `table.draft${draftCount}`, version: 1 };
  const created = await operator.post<{ id: string; body: Record<string, unknown> }>('/api/recipes', { recipe, enabled: false });
  return { id: created.body.id, body: created.body.body };
}

/** An Inspect capture's body for a phone: a two-node tree and a tiny JPEG (the API checks the type, not the picture). */
function captureBody(deviceId: string) {
  const node = {
    text: '',
    resourceId: '',
    className: 'android.widget.FrameLayout',
    packageName: 'com.instagram.android',
    desc: '',
    clickable: false,
    scrollable: false,
    selected: false,
    checked: false,
    enabled: true,
    focused: false,
    index: 0,
  };
  return {
    deviceId,
    screenName: 'Feed',
    tree: {
      nodes: [
        { ...node, bounds: { left: 0, top: 0, right: 1080, bottom: 2400 }, depth: 0, parent: -1 },
        {
          ...node,
          resourceId: 'com.instagram.android:id/row_feed_button_like',
          desc: 'Like',
          clickable: true,
          bounds: { left: 20, top: 1800, right: 110, bottom: 1890 },
          depth: 1,
          parent: 0,
        },
      ],
      packageName: 'com.instagram.android',
      width: 1080,
      height: 2400,
    },
    frame: `data:image/jpeg;base64,${Buffer.from([0xff, 0xd8, 0xff, 0xd9]).toString('base64')}`,
    app: { package: 'com.instagram.android', version: '410.0.0.0.96', locale: 'en-US' },
  };
}
/**
 * A phone assigned to the crew's VA whose agent listed `dryrun` and takes every dry run, connected to the app (which
 * starts listening for it the first time); its connection closes with the app.
 */
async function dryRunPhone(crew: Crew): Promise<string> {
  const app = crew.operator.app;
  if (!app.server.listening) await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const phone = await buildDevice(crew.operator, { assignedToId: vaId(crew) });
  const credential = await crew.operator.post<{ token: string }>(`/api/devices/${phone.id}/credentials`);
  const socket = bareAgent(`http://127.0.0.1:${port}`, credential.body.token);
  socket.on('dryrun.start', (_message: unknown, ack: (answer: unknown) => void) => ack({ ok: true }));
  await connected(socket);
  await sendAsPhone(socket, 'agent.hello', { protocol: 2, agentVersion: 'table', battery: 90, features: ['dryrun'] });
  return phone.id;
}
/** A dry run the VA started step by step on their own phone, under way. */
async function buildDryRun(crew: Crew): Promise<string> {
  const body = { recipeId: await buildRecipe(crew.operator), deviceId: await dryRunPhone(crew), mode: 'step', effects: false };
  return (await crew.va.post<{ id: string }>('/api/dry-runs', body)).body.id;
}
/** A dry run with one traced step and its tree, written as the phone's messages would leave it. */
/** The VA's phone, whose screens (traces, captures, evidence) both of the crew may see. */
const vaPhone = (crew: Crew) => buildDevice(crew.operator, vaOwned(crew));

async function buildTracedRun(crew: Crew): Promise<string> {
  const { db } = crew.operator.app.ctx;
  const recipeRowId = await buildRecipe(crew.operator);
  const phone = await vaPhone(crew);
  const { workspaceId } = await db.selectFrom('workspaceRecipes').select('workspaceId').where('id', '=', recipeRowId).executeTakeFirstOrThrow();
  const run = await db
    .insertInto('recipeDryRuns')
    .values({
      workspaceId,
      recipeRowId,
      recipeId: 'instagram.post',
      recipeVersion: 1,
      deviceId: phone.id,
      startedById: null,
      accountId: null,
      mode: 'straight',
      effects: false,
      status: 'passed',
      actions: '{}',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const tree = captureBody(recipeRowId).tree;
  await db
    .insertInto('recipeTraceSteps')
    .values({ dryRunId: run.id, workspaceId, seq: 1, path: '0', do: 'tap', verdict: 'done', tree: JSON.stringify(tree), treeBytes: 10 })
    .execute();
  return run.id;
}

/** A capture the VA saved of a phone assigned to them (so either of the crew may remove it). */
async function buildCapture(crew: Crew): Promise<string> {
  const phone = await buildDevice(crew.operator, { assignedToId: vaId(crew) });
  return (await crew.va.post<{ id: string }>('/api/ui-captures', captureBody(phone.id))).body.id;
}

/** A group of phones with a name no earlier call used (names are unique per workspace). */
let groupCount = 0;
function nextGroupName(): string {
  groupCount += 1;
  return `Group ${groupCount}`;
}
async function buildGroup(operator: Client, deviceIds: string[] = []): Promise<string> {
  return (await operator.post<{ id: string }>('/api/groups', { name: nextGroupName(), deviceIds })).body.id;
}

/** A version in the app library, of a package no earlier call used (one upload per version). */
let appCount = 0;
async function buildAppVersion(operator: Client): Promise<{ id: string; package: string }> {
  appCount += 1;
  const bytes = buildApk({ package: `com.example.table${appCount}`, versionCode: appCount });
  const answer = await operator.request<{ id: string; package: string }>('POST', '/api/apps?fileName=app.apk', bytes, {
    'content-type': 'application/octet-stream',
  });
  return answer.body;
}

export const writeRoutes: WriteRoute[] = [
  {
    method: 'PATCH',
    path: '/api/users/me',
    ok: 200,
    anySignedIn: true,
    vaMay: true,
    foreign: null,
    setup: async () => ({ url: '/api/users/me', body: { name: 'Pat Person' } }),
  },
  {
    method: 'PATCH',
    path: '/api/users/{id}',
    ok: 200,
    vaMay: false,
    foreign: notFound,
    setup: async (crew) => ({ url: `/api/users/${vaId(crew)}`, body: { isActive: true } }),
  },
  {
    method: 'POST',
    path: '/api/users/{id}/password-reset',
    ok: 201,
    vaMay: false,
    foreign: notFound,
    setup: async (crew) => ({ url: `/api/users/${vaId(crew)}/password-reset` }),
  },
  {
    method: 'DELETE',
    path: '/api/users/{id}/sessions',
    ok: 204,
    vaMay: false,
    foreign: notFound,
    // Another member than the crew's VA, whose sessions the rest of the matrix still needs.
    setup: async (crew) => ({ url: `/api/users/${(await inviteVa(crew.operator.app, crew.operator, 'Sid Sessions')).user!.id}/sessions` }),
  },
  {
    method: 'PUT',
    path: '/api/workspace/two-factor',
    ok: 200,
    vaMay: false,
    foreign: null,
    setup: async () => ({ url: '/api/workspace/two-factor', body: { required: false } }),
  },
  {
    method: 'PUT',
    path: '/api/workspace/retention',
    ok: 200,
    vaMay: false,
    foreign: null,
    setup: async () => ({
      url: '/api/workspace/retention',
      body: { screenshotsDays: 14, screenshotsPerDevice: 1000, activityDays: 180, finishedTasksDays: 180 },
    }),
  },
  {
    method: 'POST',
    path: '/api/recipes',
    ok: 201,
    vaMay: false,
    vaRefusal: 'Only operators turn a recipe on for automation: save it as a draft',
    foreign: null,
    setup: async ({ operator }) => ({ url: '/api/recipes', body: { recipe: await recipeDocument(operator) } }),
  },
  {
    method: 'PATCH',
    path: '/api/recipes/{id}',
    ok: 200,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({ url: `/api/recipes/${await buildRecipe(operator)}`, body: { enabled: false } }),
  },
  {
    method: 'DELETE',
    path: '/api/recipes/{id}',
    ok: 204,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({ url: `/api/recipes/${await buildRecipe(operator)}` }),
  },
  {
    method: 'PUT',
    path: '/api/recipes/settings',
    ok: 200,
    vaMay: false,
    foreign: null,
    setup: async () => ({ url: '/api/recipes/settings', body: { tryUntestedTemplates: false } }),
  },
  {
    method: 'PUT',
    path: '/api/group-control/apps',
    ok: 200,
    vaMay: false,
    foreign: null,
    setup: async () => ({ url: '/api/group-control/apps', body: { added: [] } }),
  },
  {
    method: 'POST',
    path: '/api/recipes/breakers/{id}/resume',
    ok: 200,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({ url: `/api/recipes/breakers/${(await buildPausedRecipe(operator)).id}/resume` }),
  },
  {
    method: 'POST',
    path: '/api/recipes/breakers/{id}/by-hand',
    ok: 200,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({ url: `/api/recipes/breakers/${(await buildPausedRecipe(operator)).id}/by-hand` }),
  },
  {
    method: 'PATCH',
    path: '/api/workspace',
    ok: 200,
    vaMay: false,
    foreign: null,
    setup: async () => ({ url: '/api/workspace', body: { name: 'North Farm' } }),
  },
  {
    method: 'POST',
    path: '/api/invitations',
    ok: 201,
    vaMay: false,
    foreign: null,
    setup: async () => ({ url: '/api/invitations', body: { role: 'va' } }),
  },
  {
    method: 'DELETE',
    path: '/api/invitations/{id}',
    ok: 204,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({ url: `/api/invitations/${(await buildInvitation(operator)).id}` }),
  },
  {
    method: 'POST',
    path: '/api/devices',
    ok: 201,
    vaMay: false,
    foreign: noSuch('assignedToId', 'member'),
    setup: async (crew) => ({ url: '/api/devices', body: { name: 'Pixel 8', assignedToId: vaId(crew) } }),
  },
  {
    method: 'PATCH',
    path: '/api/devices/{id}',
    ok: 200,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({ url: `/api/devices/${(await buildDevice(operator)).id}`, body: { name: 'Pixel 8b' } }),
  },
  {
    method: 'DELETE',
    path: '/api/devices/{id}',
    ok: 204,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({ url: `/api/devices/${(await buildDevice(operator)).id}` }),
  },
  {
    method: 'POST',
    path: '/api/devices/{id}/restart-session',
    ok: 201,
    vaMay: true,
    foreign: notFound,
    setup: async (crew) => {
      const device = await buildDevice(crew.operator, { assignedToId: vaId(crew) });
      await buildSession(crew.operator, device.id);
      return { url: `/api/devices/${device.id}/restart-session` };
    },
  },
  {
    method: 'POST',
    path: '/api/devices/{id}/credentials',
    ok: 201,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({ url: `/api/devices/${(await buildDevice(operator)).id}/credentials` }),
  },
  {
    method: 'POST',
    path: '/api/devices/{id}/enrollment',
    ok: 201,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({ url: `/api/devices/${(await buildDevice(operator)).id}/enrollment` }),
  },
  {
    method: 'DELETE',
    path: '/api/devices/{id}/credentials',
    ok: 204,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({ url: `/api/devices/${(await buildDevice(operator)).id}/credentials` }),
  },
  {
    method: 'POST',
    path: '/api/hosts',
    ok: 201,
    vaMay: false,
    foreign: null,
    setup: async () => ({ url: '/api/hosts', body: { name: 'Rack A' } }),
  },
  {
    method: 'POST',
    path: '/api/hosts/{id}/enrollment',
    ok: 201,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({ url: `/api/hosts/${(await operator.post('/api/hosts', { name: 'Rack B' })).body.host.id}/enrollment` }),
  },
  {
    method: 'PUT',
    path: '/api/hosts/{id}/fleet-settings',
    ok: 200,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({
      url: `/api/hosts/${(await operator.post('/api/hosts', { name: 'Rack F' })).body.host.id}/fleet-settings`,
      body: {
        uhubctl: { enabled: false, hubLocation: '' },
        ladder: { perRungPerHour: 3, rebootsPerDay: 2, adbServerRestartPhones: 3 },
        capacity: { intelChipset: 10, xhci: 25, host: 28 },
        scheduledRestart: { enabled: false, hour: 4, minute: 0, idleOnly: true },
      },
    }),
  },
  {
    method: 'DELETE',
    path: '/api/hosts/{id}',
    ok: 204,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({ url: `/api/hosts/${(await operator.post('/api/hosts', { name: 'Rack C' })).body.host.id}` }),
  },
  {
    method: 'POST',
    path: '/api/devices/{id}/commands',
    ok: 202,
    vaMay: true,
    foreign: notFound,
    setup: async (crew) => ({
      url: `/api/devices/${(await buildDevice(crew.operator, { assignedToId: vaId(crew) })).id}/commands`,
      body: { name: 'screenshot' },
    }),
  },
  {
    method: 'POST',
    path: '/api/wall-links',
    ok: 201,
    vaMay: false,
    foreign: null,
    setup: async () => ({ url: '/api/wall-links', body: { name: 'Floor TV' } }),
  },
  {
    method: 'DELETE',
    path: '/api/wall-links/{id}',
    ok: 204,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({ url: `/api/wall-links/${(await buildWallLink(operator)).id}` }),
  },
  {
    method: 'POST',
    path: '/api/tasks',
    ok: 201,
    vaMay: false,
    foreign: noSuch('deviceId', 'device'),
    setup: async ({ operator }) => ({
      url: '/api/tasks',
      body: { title: 'Post reel', description: 'Morning reel', type: 'post', priority: 'high', deviceId: (await buildDevice(operator)).id },
    }),
  },
  {
    method: 'PATCH',
    path: '/api/tasks/{id}',
    ok: 200,
    vaMay: true,
    foreign: notFound,
    setup: async (crew) => ({ url: `/api/tasks/${(await buildTask(crew.operator, { assignedToId: vaId(crew) })).id}`, body: { status: 'in-progress' } }),
  },
  {
    method: 'POST',
    path: '/api/tasks/{id}/answer',
    ok: 200,
    vaMay: true,
    foreign: notFound,
    setup: async (crew) => ({
      url: `/api/tasks/${(await buildUnconfirmedPost(crew.operator, { assignedToId: vaId(crew) })).questionId}/answer`,
      body: { answer: 'up' },
    }),
  },
  {
    method: 'DELETE',
    path: '/api/tasks/{id}',
    ok: 204,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({ url: `/api/tasks/${(await buildTask(operator)).id}` }),
  },
  {
    method: 'POST',
    path: '/api/sessions',
    ok: 201,
    vaMay: true,
    foreign: noSuch('deviceId', 'device'),
    setup: async (crew) => ({
      url: '/api/sessions',
      body: { deviceId: (await buildDevice(crew.operator, { assignedToId: vaId(crew) })).id, currentTask: 'Warm up' },
    }),
  },
  {
    method: 'PATCH',
    path: '/api/sessions/{id}',
    ok: 200,
    vaMay: true,
    foreign: notFound,
    setup: async (crew) => {
      const device = await buildDevice(crew.operator, { assignedToId: vaId(crew) });
      return { url: `/api/sessions/${(await buildSession(crew.operator, device.id)).id}`, body: { isActive: false } };
    },
  },
  {
    method: 'POST',
    path: '/api/sessions/{id}/stop',
    ok: 200,
    vaMay: true,
    foreign: notFound,
    setup: async (crew) => {
      const device = await buildDevice(crew.operator, { assignedToId: vaId(crew) });
      return { url: `/api/sessions/${(await buildSession(crew.operator, device.id)).id}/stop` };
    },
  },
  {
    method: 'POST',
    path: '/api/campaigns',
    ok: 201,
    vaMay: false,
    foreign: null,
    setup: async () => ({ url: '/api/campaigns', body: { name: 'Summer', platform: 'tiktok', niche: 'Fitness', keywords: ['gym'], engagementTarget: 50 } }),
  },
  {
    method: 'PATCH',
    path: '/api/campaigns/{id}',
    ok: 200,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({ url: `/api/campaigns/${(await buildCampaign(operator)).id}`, body: { status: 'active' } }),
  },
  {
    method: 'DELETE',
    path: '/api/campaigns/{id}',
    ok: 204,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({ url: `/api/campaigns/${(await buildCampaign(operator)).id}` }),
  },
  {
    method: 'POST',
    path: '/api/campaigns/{id}/accounts',
    ok: 201,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({
      url: `/api/campaigns/${(await buildCampaign(operator)).id}/accounts`,
      body: { accountId: (await buildAccount(operator)).id },
    }),
  },
  {
    method: 'DELETE',
    path: '/api/campaigns/{id}/accounts/{accountId}',
    ok: 204,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => {
      const { campaign, account } = await buildLinkedCampaign(operator);
      return { url: `/api/campaigns/${campaign.id}/accounts/${account.id}` };
    },
  },
  {
    method: 'POST',
    path: '/api/routines',
    ok: 201,
    vaMay: false,
    foreign: noSuch('campaignId', 'campaign'),
    setup: async ({ operator }) => {
      const { campaign, account } = await buildLinkedCampaign(operator);
      return { url: '/api/routines', body: { campaignId: campaign.id, accountId: account.id, type: 'doom_scroll', name: 'Scroll', actions: ['like'] } };
    },
  },
  {
    method: 'PATCH',
    path: '/api/routines/{id}',
    ok: 200,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => {
      const { campaign, account } = await buildLinkedCampaign(operator);
      return { url: `/api/routines/${(await buildRoutine(operator, campaign.id, account.id)).id}`, body: { intensity: 7 } };
    },
  },
  {
    method: 'DELETE',
    path: '/api/routines/{id}',
    ok: 204,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => {
      const { campaign, account } = await buildLinkedCampaign(operator);
      return { url: `/api/routines/${(await buildRoutine(operator, campaign.id, account.id)).id}` };
    },
  },
  {
    method: 'POST',
    path: '/api/accounts',
    ok: 201,
    vaMay: false,
    foreign: noSuch('deviceId', 'device'),
    setup: async ({ operator }) => ({
      url: '/api/accounts',
      body: { username: 'glow.daily', platform: 'instagram', status: 'warmup', bio: 'Skincare', deviceId: (await buildDevice(operator)).id },
    }),
  },
  {
    method: 'PATCH',
    path: '/api/accounts/{id}',
    ok: 200,
    vaMay: true,
    foreign: notFound,
    // A VA keeps the numbers of accounts on the phone assigned to them.
    setup: async ({ operator, va }) => {
      const device = await buildDevice(operator, { assignedToId: va.user!.id });
      return { url: `/api/accounts/${(await buildAccount(operator, { deviceId: device.id })).id}`, body: { followers: 1200, following: 300 } };
    },
  },
  {
    method: 'DELETE',
    path: '/api/accounts/{id}',
    ok: 204,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({ url: `/api/accounts/${(await buildAccount(operator)).id}` }),
  },
  {
    method: 'POST',
    path: '/api/posts',
    ok: 201,
    vaMay: true,
    foreign: noSuch('accountId', 'account'),
    setup: async ({ operator }) => ({
      url: '/api/posts',
      body: {
        accountId: (await buildAccount(operator)).id,
        caption: 'New drop',
        status: 'draft',
        hashtags: ['#new'],
        mediaUrls: [await uploadImage(operator)],
      },
    }),
  },
  {
    method: 'PATCH',
    path: '/api/posts/{id}',
    ok: 200,
    vaMay: true,
    foreign: notFound,
    // A VA works the posts of the accounts on their phones.
    setup: async (crew) => ({ url: `/api/posts/${(await postOnVaPhone(crew)).id}`, body: { status: 'published' } }),
  },
  {
    method: 'DELETE',
    path: '/api/posts/{id}',
    ok: 204,
    vaMay: true,
    foreign: notFound,
    setup: async (crew) => ({ url: `/api/posts/${(await postOnVaPhone(crew)).id}` }),
  },
  {
    method: 'POST',
    path: '/api/objects/upload',
    ok: 200,
    vaMay: true,
    foreign: null,
    setup: async () => ({ url: '/api/objects/upload', body: {} }),
  },
  {
    method: 'POST',
    path: '/api/object-storage/presigned-url',
    ok: 200,
    vaMay: true,
    foreign: null,
    setup: async () => ({ url: '/api/object-storage/presigned-url', body: { directory: '.private', filename: 'face.png' } }),
  },
  {
    method: 'PUT',
    path: '/api/campaign-images',
    ok: 200,
    vaMay: true,
    foreign: { status: 400, error: 'Image URL must be an image uploaded to this workspace' },
    setup: async ({ operator }) => ({ url: '/api/campaign-images', body: { imageURL: await uploadImage(operator) } }),
  },
  {
    method: 'POST',
    path: '/api/tasks/bulk',
    ok: 200,
    vaMay: false,
    foreign: { status: 409, error: 'Nothing was changed: 1 of 1 item was refused' },
    setup: async ({ operator }) => ({
      url: '/api/tasks/bulk',
      body: { ids: [(await buildTask(operator)).id], action: 'update', changes: { priority: 'high' } },
    }),
  },
  {
    method: 'POST',
    path: '/api/devices/bulk',
    ok: 200,
    vaMay: false,
    foreign: { status: 409, error: 'Nothing was changed: 1 of 1 item was refused' },
    setup: async (crew) => ({
      url: '/api/devices/bulk',
      body: { ids: [(await buildDevice(crew.operator)).id], action: 'update', changes: { assignedToId: vaId(crew) } },
    }),
  },
  {
    method: 'POST',
    path: '/api/posts/bulk',
    ok: 200,
    vaMay: false,
    vaRefusal: 'Bulk actions on posts are for operators',
    foreign: { status: 409, error: 'Nothing was changed: 1 of 1 item was refused' },
    setup: async ({ operator }) => {
      const post = await buildPost(operator, (await buildAccount(operator, { status: 'active' })).id, {
        status: 'scheduled',
        scheduledAt: new Date(Date.now() + 86_400_000).toISOString(),
      });
      return { url: '/api/posts/bulk', body: { ids: [post.id], action: 'reschedule', offsetMinutes: 30 } };
    },
  },
  {
    method: 'POST',
    path: '/api/webhooks',
    ok: 201,
    vaMay: false,
    foreign: null,
    // Nothing listens on port 9 and fetch refuses it: no test sends an alert beyond this machine.
    setup: async () => ({ url: '/api/webhooks', body: { url: 'http://127.0.0.1:9/hook', events: ['post.failed'] } }),
  },
  {
    method: 'PATCH',
    path: '/api/webhooks/{id}',
    ok: 200,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({ url: `/api/webhooks/${(await buildWebhook(operator)).id}`, body: { offlineMinutes: 30 } }),
  },
  {
    method: 'DELETE',
    path: '/api/webhooks/{id}',
    ok: 204,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({ url: `/api/webhooks/${(await buildWebhook(operator)).id}` }),
  },
  {
    method: 'POST',
    path: '/api/webhooks/{id}/test',
    ok: 202,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({ url: `/api/webhooks/${(await buildWebhook(operator)).id}/test` }),
  },
  // The recipe editor's versions (issue #40): a VA saves drafts of draft recipes; only operators restore.
  {
    method: 'POST',
    path: '/api/recipes/{id}/versions',
    ok: 201,
    vaMay: true,
    foreign: notFound,
    setup: async ({ operator }) => {
      const draft = await buildDraftRecipe(operator);
      return { url: `/api/recipes/${draft.id}/versions`, body: { recipe: draft.body, note: 'Waits for the feed' } };
    },
  },
  {
    method: 'POST',
    path: '/api/recipes/{id}/restore',
    ok: 201,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({ url: `/api/recipes/${(await buildDraftRecipe(operator)).id}/restore` }),
  },
  // The recipe studio's saved Inspect captures (issue #40).
  {
    method: 'POST',
    path: '/api/ui-captures',
    ok: 201,
    vaMay: true,
    foreign: { status: 400, error: 'That phone is not in this workspace' },
    setup: async (crew) => ({ url: '/api/ui-captures', body: captureBody((await buildDevice(crew.operator, { assignedToId: vaId(crew) })).id) }),
  },
  {
    method: 'DELETE',
    path: '/api/ui-captures/{id}',
    ok: 204,
    vaMay: true,
    foreign: notFound,
    setup: async (crew) => ({ url: `/api/ui-captures/${await buildCapture(crew)}` }),
  },
  {
    method: 'POST',
    path: '/api/ui-captures/check',
    ok: 200,
    vaMay: true,
    foreign: null,
    setup: async () => ({
      url: '/api/ui-captures/check',
      body: { package: 'com.instagram.android', screenName: 'Feed', selector: { id: 'row_feed_button_like' } },
    }),
  },
  // Dry runs (the recipe studio): a VA on the phones assigned to them; steered by whoever started it or an operator.
  {
    method: 'POST',
    path: '/api/dry-runs',
    ok: 201,
    vaMay: true,
    foreign: { status: 400, error: 'That recipe is not in this workspace' },
    setup: async (crew) => ({
      url: '/api/dry-runs',
      body: { recipeId: await buildRecipe(crew.operator), deviceId: await dryRunPhone(crew), mode: 'straight', effects: false },
    }),
  },
  {
    method: 'POST',
    path: '/api/dry-runs/{id}/next',
    ok: 202,
    vaMay: true,
    foreign: notFound,
    setup: async (crew) => ({ url: `/api/dry-runs/${await buildDryRun(crew)}/next` }),
  },
  {
    method: 'POST',
    path: '/api/dry-runs/{id}/stop',
    ok: 202,
    vaMay: true,
    foreign: notFound,
    setup: async (crew) => ({ url: `/api/dry-runs/${await buildDryRun(crew)}/stop` }),
  },
  // Settings in bulk (issue #42): a phone on no host answers 200 with its reason; another workspace's phone is refused.
  {
    method: 'POST',
    path: '/api/devices/settings',
    ok: 200,
    vaMay: false,
    foreign: { status: 400, error: '1 phone was not found in this workspace' },
    setup: async ({ operator }) => ({ url: '/api/devices/settings', body: { deviceIds: [(await buildDevice(operator)).id], settings: { stayAwake: true } } }),
  },
  // Groups and tags of phones (issue #42).
  {
    method: 'POST',
    path: '/api/groups',
    ok: 201,
    vaMay: false,
    foreign: null,
    setup: async () => ({ url: '/api/groups', body: { name: nextGroupName() } }),
  },
  {
    method: 'PATCH',
    path: '/api/groups/{id}',
    ok: 200,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({ url: `/api/groups/${await buildGroup(operator)}`, body: { name: nextGroupName() } }),
  },
  {
    method: 'DELETE',
    path: '/api/groups/{id}',
    ok: 204,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({ url: `/api/groups/${await buildGroup(operator)}` }),
  },
  {
    method: 'POST',
    path: '/api/groups/{id}/devices',
    ok: 200,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({ url: `/api/groups/${await buildGroup(operator)}/devices`, body: { add: [(await buildDevice(operator)).id] } }),
  },
  {
    method: 'POST',
    path: '/api/groups/{id}/assign',
    ok: 200,
    vaMay: false,
    foreign: notFound,
    setup: async (crew) => ({
      url: `/api/groups/${await buildGroup(crew.operator, [(await buildDevice(crew.operator)).id])}/assign`,
      body: { assignedToId: vaId(crew) },
    }),
  },
  // The app library and staged rollouts (issue #42); the upload itself is a file body (csvWrites).
  {
    method: 'DELETE',
    path: '/api/apps/{id}',
    ok: 204,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => ({ url: `/api/apps/${(await buildAppVersion(operator)).id}` }),
  },
  {
    method: 'PUT',
    path: '/api/apps/pins',
    ok: 200,
    vaMay: false,
    foreign: { status: 400, error: 'The group was not found in this workspace' },
    setup: async ({ operator }) => ({ url: '/api/apps/pins', body: { groupId: await buildGroup(operator), versionId: (await buildAppVersion(operator)).id } }),
  },
  {
    method: 'DELETE',
    path: '/api/apps/pins/{groupId}/{package}',
    ok: 200,
    vaMay: false,
    foreign: notFound,
    setup: async ({ operator }) => {
      const groupId = await buildGroup(operator);
      const version = await buildAppVersion(operator);
      await operator.put('/api/apps/pins', { groupId, versionId: version.id });
      return { url: `/api/apps/pins/${groupId}/${version.package}` };
    },
  },
  {
    method: 'POST',
    path: '/api/apps/rollouts',
    ok: 201,
    vaMay: false,
    foreign: { status: 400, error: 'The version was not found in this workspace’s app library' },
    setup: async ({ operator }) => ({
      url: '/api/apps/rollouts',
      body: { action: 'install', versionId: (await buildAppVersion(operator)).id, deviceIds: [(await buildDevice(operator)).id] },
    }),
  },
];

/** A second operator of the crew's workspace, through an operator invitation. */
async function inviteOperator(crew: Crew, name: string): Promise<Client> {
  const invitation = await crew.operator.post<{ invitation: { token: string } }>('/api/invitations', { role: 'operator' });
  return signUp(crew.operator.app, { role: 'operator', name, inviteToken: invitation.body.invitation.token });
}

/** Resets of an operator, asked by one operator and approved by another (reset-requests.test.ts has the flow). */
writeRoutes.push(
  {
    method: 'POST',
    path: '/api/users/{id}/reset-requests',
    ok: 201,
    vaMay: false,
    foreign: notFound,
    setup: async (crew) => ({ url: `/api/users/${(await inviteOperator(crew, 'Rita Reset')).user!.id}/reset-requests` }),
  },
  {
    method: 'POST',
    path: '/api/reset-requests/{id}/approve',
    ok: 201,
    vaMay: false,
    foreign: notFound,
    // Asked by another operator: the crew's operator is the second one, who approves.
    setup: async (crew) => {
      const asker = await inviteOperator(crew, 'Abe Asker');
      const target = await inviteOperator(crew, 'Tia Target');
      const asked = await asker.post<{ id: string }>(`/api/users/${target.user!.id}/reset-requests`);
      return { url: `/api/reset-requests/${asked.body.id}/approve` };
    },
  },
);

/** Writes open to anyone, each tested in its own file: they are outside the role matrix. */
export const publicWrites: { method: WriteMethod; path: string; why: string }[] = [
  { method: 'POST', path: '/api/auth/signup', why: 'auth.test.ts' },
  { method: 'POST', path: '/api/auth/login', why: 'auth.test.ts' },
  { method: 'POST', path: '/api/auth/logout', why: 'auth.test.ts' },
  { method: 'PUT', path: '/api/objects/{id}', why: 'the signed URL is the authority: uploads.test.ts' },
  { method: 'POST', path: '/api/agent/enroll', why: 'the one-time code is the authority: realtime/enrollment.test.ts' },
  { method: 'POST', path: '/api/auth/login/two-factor', why: 'the second step of a login: two-factor.test.ts' },
  { method: 'POST', path: '/api/auth/login/two-factor/setup', why: 'the second step of a login: two-factor.test.ts' },
  { method: 'POST', path: '/api/auth/password-reset', why: 'the reset link is the authority: password-resets.test.ts' },
];

/** Writes on one's own account that need the caller's own state (a pending secret, a current code): two-factor.test.ts. */
export const selfWrites: { method: WriteMethod; path: string }[] = [
  { method: 'POST', path: '/api/auth/two-factor/setup' },
  { method: 'POST', path: '/api/auth/two-factor/enable' },
  { method: 'POST', path: '/api/auth/two-factor/disable' },
  { method: 'POST', path: '/api/auth/two-factor/recovery-codes' },
  { method: 'POST', path: '/api/auth/notices/seen' },
  { method: 'DELETE', path: '/api/auth/sessions/{id}' },
];

/** Writes whose body is a file (a CSV, an APK) rather than JSON, with their own permission and bad-input tests. */
export const csvWrites: { method: WriteMethod; path: string; why: string }[] = [
  { method: 'POST', path: '/api/apps', why: 'an APK or split set as the raw body: apps.test.ts' },
  { method: 'POST', path: '/api/import/posts', why: 'csv.test.ts' },
  { method: 'POST', path: '/api/import/accounts', why: 'csv.test.ts' },
];

export interface ReadRoute {
  path: string;
  /** Who may read: anyone, any signed-in person, or members of a workspace (VAs too unless vaMay is false). */
  access: 'public' | 'session' | 'workspace';
  vaMay: boolean;
  /** Names a row of the workspace in its path: another workspace gets 404. */
  names: boolean;
  setup(crew: Crew): Promise<string>;
}

const read = (path: string, setup: ReadRoute['setup'] = async () => path, extra: Partial<ReadRoute> = {}): ReadRoute => ({
  path,
  access: 'workspace',
  vaMay: true,
  names: path.includes('{'),
  setup,
  ...extra,
});

export const readRoutes: ReadRoute[] = [
  read('/api/config', undefined, { access: 'public' }),
  read('/api/auth/me', undefined, { access: 'session' }),
  read('/api/auth/two-factor', undefined, { access: 'session' }),
  read('/api/auth/sessions', undefined, { access: 'session' }),
  read(
    '/api/password-resets/lookup/{token}',
    async (crew) => `/api/password-resets/lookup/${(await crew.operator.post<{ token: string }>(`/api/users/${vaId(crew)}/password-reset`)).body.token}`,
    {
      access: 'public',
      names: false,
    },
  ),
  read('/api/invitations/lookup/{token}', async ({ operator }) => `/api/invitations/lookup/${(await buildInvitation(operator)).token}`, {
    access: 'public',
    names: false,
  }),
  read('/api/users'),
  read('/api/users/{id}', async (crew) => `/api/users/${vaId(crew)}`),
  read('/api/workspace'),
  read('/api/invitations', undefined, { vaMay: false }),
  read('/api/devices'),
  read('/api/devices/{id}', async ({ operator }) => `/api/devices/${(await buildDevice(operator)).id}`),
  read('/api/devices/{id}/screenshots', async ({ operator }) => `/api/devices/${(await buildDevice(operator)).id}/screenshots`),
  read('/api/devices/{id}/software', async ({ operator }) => `/api/devices/${(await buildDevice(operator)).id}/software`),
  read('/api/devices/{id}/history', async ({ operator }) => `/api/devices/${(await buildDevice(operator)).id}/history`),
  read('/api/groups'),
  read('/api/ui-captures'),
  // A failed run's evidence (issue #40).
  // Of the VA's phone: a VA sees the screens of their own phones only (screens.rules.ts).
  read('/api/tasks/{id}/evidence', async (crew) => `/api/tasks/${(await buildFailureEvidence(crew.operator, vaOwned(crew))).taskId}/evidence`),
  read('/api/tasks/{id}/evidence/tree', async (crew) => `/api/tasks/${(await buildFailureEvidence(crew.operator, vaOwned(crew))).taskId}/evidence/tree`),
  read('/api/posts/{id}/evidence', async (crew) => `/api/posts/${(await buildFailureEvidence(crew.operator, { assignedToId: vaId(crew) })).postId}/evidence`),
  read('/api/devices/rerecord', async () => '/api/devices/rerecord?package=com.instagram.android&version=312.0.0.34.111'),
  read('/api/ui-captures/{id}', async (crew) => `/api/ui-captures/${await buildCapture(crew)}`),
  read('/api/dry-runs', async ({ operator }) => `/api/dry-runs?recipeId=${await buildRecipe(operator)}`),
  read('/api/dry-runs/preflight', async (crew) => {
    // The VA's phone (a crew signed in by hand, as the demo's, has no VA to give it to).
    const phone = await buildDevice(crew.operator, crew.va.user ? { assignedToId: vaId(crew) } : {});
    return `/api/dry-runs/preflight?recipeId=${await buildRecipe(crew.operator)}&deviceId=${phone.id}`;
  }),
  read('/api/dry-runs/{id}', async (crew) => `/api/dry-runs/${await buildTracedRun(crew)}`),
  read('/api/dry-runs/{id}/steps/{seq}/tree', async (crew) => `/api/dry-runs/${await buildTracedRun(crew)}/steps/1/tree`),
  read('/api/groups/{id}', async ({ operator }) => `/api/groups/${await buildGroup(operator)}`),
  read('/api/apps'),
  read('/api/apps/coverage'),
  read('/api/apps/rollouts'),
  read('/api/apps/rollouts/{id}', async ({ operator }) => {
    const version = await buildAppVersion(operator);
    const started = await operator.post<{ id: string }>('/api/apps/rollouts', {
      action: 'install',
      versionId: version.id,
      deviceIds: [(await buildDevice(operator)).id],
    });
    return `/api/apps/rollouts/${started.body.id}`;
  }),
  read('/api/wall-links', undefined, { vaMay: false }),
  read('/api/storage', undefined, { vaMay: false }),
  read('/api/hosts', undefined, { vaMay: false }),
  read('/api/hosts/{id}/fleet', async ({ operator }) => `/api/hosts/${(await operator.post('/api/hosts', { name: 'Rack G' })).body.host.id}/fleet`, {
    vaMay: false,
  }),
  read('/api/devices/health'),
  read('/api/devices/{id}/health', async ({ operator }) => `/api/devices/${(await buildDevice(operator)).id}/health`),
  read('/api/devices/{id}/timeline', async ({ operator }) => `/api/devices/${(await buildDevice(operator)).id}/timeline`),
  read('/api/recipes', undefined, { vaMay: false }),
  read('/api/recipes/health', async () => '/api/recipes/health?range=90d'),
  read('/api/recipes/held-by-language', undefined, { vaMay: false }),
  read('/api/group-control/apps', undefined, { vaMay: false }),
  read('/api/recipes/shipped/{name}', async () => '/api/recipes/shipped/tiktok.warmup', { vaMay: false, names: false }),
  read('/api/recipes/{id}', async ({ operator }) => `/api/recipes/${await buildRecipe(operator)}`),
  read('/api/recipes/{id}/versions', async ({ operator }) => `/api/recipes/${await buildRecipe(operator)}/versions`),
  read('/api/recipes/{id}/diff', async ({ operator }) => `/api/recipes/${await buildRecipe(operator)}/diff?against=shipped`),
  // The wall is shown by a wall link's token, to anyone holding it.
  read('/api/wall', async ({ operator }) => `/api/wall?token=${(await buildWallLink(operator)).token}`, { access: 'public', names: false }),
  read('/api/tasks'),
  read('/api/tasks/counts'),
  read('/api/tasks/{id}', async ({ operator }) => `/api/tasks/${(await buildTask(operator)).id}`),
  read('/api/sessions'),
  read('/api/sessions/{id}', async ({ operator }) => `/api/sessions/${(await buildSession(operator, (await buildDevice(operator)).id)).id}`),
  read('/api/activities'),
  read('/api/analytics/stats'),
  read('/api/analytics/performance'),
  read('/api/analytics/timeseries', async () => '/api/analytics/timeseries?metric=tasks&range=7d'),
  read('/api/analytics/tables/{table}', async () => '/api/analytics/tables/devices', { names: false }),
  read('/api/analytics/accounts/{id}/growth', async ({ operator }) => `/api/analytics/accounts/${(await buildAccount(operator)).id}/growth`),
  read('/api/audit-log', undefined, { vaMay: false }),
  read('/api/reset-requests', undefined, { vaMay: false }),
  read('/api/audit-log/facets', undefined, { vaMay: false }),
  read('/api/export/{file}', async () => '/api/export/tasks.csv', { names: false }),
  read('/api/device-usage', async ({ operator }) => `/api/device-usage?range=30d&deviceId=${(await buildDevice(operator)).id}`),
  read('/api/export/device-usage.csv', async () => '/api/export/device-usage.csv?range=7d', { names: false }),
  read('/api/webhooks', undefined, { vaMay: false }),
  read('/api/webhook-deliveries', undefined, { vaMay: false }),
  read('/api/onboarding'),
  read('/api/campaigns'),
  read('/api/campaigns/{id}', async ({ operator }) => `/api/campaigns/${(await buildCampaign(operator)).id}`),
  read('/api/campaigns/{id}/accounts', async ({ operator }) => `/api/campaigns/${(await buildLinkedCampaign(operator)).campaign.id}/accounts`),
  read('/api/campaigns/{id}/group-accounts', async ({ operator }) => `/api/campaigns/${(await buildCampaign(operator)).id}/group-accounts`),
  read('/api/routines'),
  read('/api/campaign-sessions'),
  read('/api/accounts'),
  read('/api/accounts/{id}', async ({ operator }) => `/api/accounts/${(await buildAccount(operator)).id}`),
  read('/api/posts'),
  read('/api/posts/{id}', async (crew) => `/api/posts/${(await postOnVaPhone(crew)).id}`),
  read('/api/objects/{id}', async ({ operator }) => uploadImage(operator)),
];

/** Reads a phone agent makes with its own credential (no session), each tested in its own file. */
export const agentReads: { path: string; why: string }[] = [
  { path: '/api/agent/media/{id}', why: 'the phone credential and its task are the authority: recipes.test.ts' },
  { path: '/api/agent/apps/{id}', why: 'the host credential and a rollout waiting on its phone are the authority: realtime/apps-rollout.test.ts' },
];

/** A post of an account on a phone assigned to the crew's VA (what a VA may work: posts.rules.ts). */
async function postOnVaPhone(crew: Crew) {
  const device = await buildDevice(crew.operator, { assignedToId: vaId(crew) });
  return buildPost(crew.operator, (await buildAccount(crew.operator, { deviceId: device.id })).id);
}

export const routeKey = (method: string, path: string): string => `${method.toUpperCase()} ${path}`;

/** Every operation the table knows, as `METHOD /path` in OpenAPI spelling. */
export function knownOperations(): string[] {
  return [
    ...writeRoutes.map((route) => routeKey(route.method, route.path)),
    ...publicWrites.map((route) => routeKey(route.method, route.path)),
    ...selfWrites.map((route) => routeKey(route.method, route.path)),
    ...csvWrites.map((route) => routeKey(route.method, route.path)),
    ...readRoutes.map((route) => routeKey('GET', route.path)),
    ...agentReads.map((route) => routeKey('GET', route.path)),
  ];
}

/** Sends a call as `client` with the route's method. */
export function send(client: Client, method: WriteMethod, call: Call) {
  return client.request(method, call.url, call.body);
}
