/**
 * A workspace's own step recipes: added from a shipped template, validated by the agent's recipe schema, kept per
 * workspace, turned off and removed; and carried by the tasks dispatched to the workspace's phones.
 */
import type { Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RecipeList, ShippedRecipeDetail } from '@farm/contracts';
import { buildTestApp, people, type Client, type TestApp } from '../helpers/app.ts';
import { expectClientError, expectError, expectStatus } from '../helpers/assertions.ts';
import { buildAccount, PNG, uploadImage } from '../helpers/factories.ts';
import { bareAgent, duePost, duePostTask, enrolledPhone, send, until } from '../realtime/phones.ts';
import { listen } from '../realtime/sockets.ts';

let t: TestApp;
let operator: Client;
let va: Client;
let stranger: Client;
let url: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  t = await buildTestApp({ runWorkers: true, redisUrl: undefined });
  ({ operator, va, stranger } = await people(t.app));
  url = await listen(t.app);
});
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.disconnect();
});
afterAll(async () => {
  await t?.close();
});

/** The shipped Instagram post recipe, as a farm would start from it. */
async function template(): Promise<Record<string, unknown>> {
  const answer = await operator.get<{ body: Record<string, unknown> }>('/api/recipes/shipped/instagram.post');
  expectStatus(answer, 200);
  return answer.body.body;
}

describe('a workspace’s recipes', () => {
  it('lists the shipped templates, adds a checked copy, and shows it to its own workspace only', async () => {
    const list = (await operator.get<RecipeList>('/api/recipes')).body;
    expect(list.recipes).toEqual([]);
    expect(list.shipped.map((recipe) => recipe.recipeId)).toEqual(expect.arrayContaining(['instagram.post', 'instagram.warmup', 'tiktok.post']));
    expect(list.shipped.every((recipe) => recipe.verified === false)).toBe(true);

    const body = { ...(await template()), version: 7, verified: true, notes: 'Checked on our Pixel 7s with Instagram 360' };
    const created = await operator.post('/api/recipes', { recipe: body });
    expectStatus(created, 201);
    expect(created.body).toMatchObject({
      recipeId: 'instagram.post',
      version: 7,
      platform: 'instagram',
      routines: ['create_post'],
      verified: true,
      enabled: true,
      appPackage: 'com.instagram.android',
    });
    expect(created.body.body).toMatchObject({ id: 'instagram.post', version: 7, notes: 'Checked on our Pixel 7s with Instagram 360' });

    expect((await operator.get<RecipeList>('/api/recipes')).body.recipes.map((recipe) => [recipe.recipeId, recipe.version])).toEqual([['instagram.post', 7]]);
    expectStatus(await operator.get(`/api/recipes/${created.body.id}`), 200);
    expect((await stranger.get<RecipeList>('/api/recipes')).body.recipes).toEqual([]);
    expectStatus(await stranger.get(`/api/recipes/${created.body.id}`), 404);
    expectStatus(await stranger.patch(`/api/recipes/${created.body.id}`, { enabled: false }), 404);
    expectStatus(await stranger.delete(`/api/recipes/${created.body.id}`), 404);
    expect((await operator.get('/api/activities')).body[0]).toMatchObject({ action: 'Recipe "Instagram publish a post" (instagram.post v7) added' });
  });

  it('refuses the same id and version twice, and a document the schema refuses, naming where', async () => {
    const body = { ...(await template()), version: 8 };
    expectStatus(await operator.post('/api/recipes', { recipe: body }), 201);
    expectError(
      await operator.post('/api/recipes', { recipe: body }),
      409,
      "This workspace already has version 8 of instagram.post: raise the recipe's version to add a new one",
    );

    const bad = await operator.post('/api/recipes', { recipe: { ...body, version: 9, platform: 'myspace' } });
    expectClientError(bad);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^The recipe is not valid: platform: /);
    expect(bad.body.details[0].field).toBe('recipe.platform');
    const noSteps = await operator.post('/api/recipes', { recipe: { ...body, version: 9, steps: 'tap everything' } });
    expect(noSteps.status).toBe(400);
    expect(noSteps.body.details[0].field).toBe('recipe.steps');
    expectClientError(await operator.post('/api/recipes', { recipe: 'not a document' }));
    expectClientError(await operator.post('/api/recipes', {}));
    expectError(await operator.get('/api/recipes/shipped/instagram.nothing'), 404, 'Not found');
  });

  it('shows per selector of a shipped template whether it is verified and from where, and what holds it back', async () => {
    const answer = await operator.get<ShippedRecipeDetail>('/api/recipes/shipped/instagram.engage');
    expectStatus(answer, 200);
    const like = answer.body.evidence.find((entry) => entry.where === 'like_button');
    expect(like).toMatchObject({ match: 'id=row_feed_button_like', role: 'acts', verified: true, unverified: null });
    expect(like?.source).toContain('joeahkim/InstaAddict@3bad771 window.xml line 85');
    // Every selector engage acts on is verified; the unverified ones only mark screens (a block notice's words).
    expect(answer.body.heldBack).toEqual([]);
    const unverified = answer.body.evidence.filter((entry) => !entry.verified);
    expect(unverified.length).toBeGreaterThan(0);
    for (const entry of unverified) expect(entry).toMatchObject({ role: 'marker', unverified: expect.any(String) });
    const scroll = (await operator.get<ShippedRecipeDetail>('/api/recipes/shipped/instagram.scroll')).body;
    expect(scroll.heldBack).toEqual([]);
    expect(scroll.evidence.some((entry) => entry.role === 'marker' && !entry.verified)).toBe(true);
  });

  it('is the operator’s: a VA may not read or add recipes', async () => {
    expectStatus(await va.get('/api/recipes'), 403);
    expectStatus(await va.post('/api/recipes', { recipe: await template() }), 403);
  });
});

describe('recipes travel with the work', () => {
  it('sends the workspace’s enabled recipes with a post task, and none once they are turned off or removed', async () => {
    const { operator: owner } = await people(t.app);
    const body = {
      ...(await template()),
      version: 12,
      verified: true,
      app: { package: 'com.instagram.android', writtenFor: '360.0.0.52.192', minVersion: '350' },
    };
    const created = await owner.post('/api/recipes', { recipe: body });
    expectStatus(created, 201);

    const { device, token } = await enrolledPhone(owner);
    const dispatches: { taskId: string; attempt: number; work: { kind: string; recipes?: { id: string; version: number }[] } }[] = [];
    const phone = bareAgent(url, token);
    sockets.push(phone);
    phone.on('task.dispatch', (message) => dispatches.push(message));
    await until(async () => phone.connected, 'the phone to connect');
    expect(await send(phone, 'agent.hello', { protocol: 2, agentVersion: 'test-v2', battery: 80 })).toMatchObject({ ok: true });

    const first = await duePostTask(t, owner, device.id, 'With our recipe');
    const dispatched = await until(async () => dispatches.find((d) => d.taskId === first.task.id), 'the post task to be dispatched');
    expect(dispatched.work.kind).toBe('post.publish');
    expect(dispatched.work.recipes?.map((recipe) => [recipe.id, recipe.version])).toEqual([['instagram.post', 12]]);
    await send(phone, 'task.ack', { taskId: dispatched.taskId, attempt: dispatched.attempt });
    await send(phone, 'task.result', { taskId: dispatched.taskId, attempt: dispatched.attempt, status: 'completed' });

    expectStatus(await owner.patch(`/api/recipes/${created.body.id}`, { enabled: false }), 200);
    const second = await duePostTask(t, owner, device.id, 'Shipped recipe again');
    const next = await until(async () => dispatches.find((d) => d.taskId === second.task.id), 'the second post task to be dispatched');
    expect(next.work.recipes).toBeUndefined();
    await send(phone, 'task.ack', { taskId: next.taskId, attempt: next.attempt });
    await send(phone, 'task.result', { taskId: next.taskId, attempt: next.attempt, status: 'completed' });

    expectStatus(await owner.delete(`/api/recipes/${created.body.id}`), 204);
    expect((await owner.get<RecipeList>('/api/recipes')).body.recipes).toEqual([]);
  });
});

describe('a post’s media for the phone that publishes it', () => {
  it('is served to that phone’s credential only', async () => {
    const { operator: owner } = await people(t.app);
    const mine = await enrolledPhone(owner, { name: 'Pixel media' });
    const other = await enrolledPhone(owner, { name: 'Pixel other' });
    const path = await uploadImage(owner);
    const id = path.split('/').pop()!;
    const account = await buildAccount(owner, { deviceId: mine.device.id, status: 'active' });
    await duePost(t, owner, account.id, { mediaUrls: [path] });

    const get = (token?: string) => fetch(`${url}/api/agent/media/${id}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    const served = await get(mine.token);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG);
    expect((await get(other.token)).status).toBe(404);
    expect((await get('dev_not_a_real_token')).status).toBe(401);
    expect(await (await get()).json()).toEqual({ error: 'This phone credential is not valid' });
    expect(await fetch(`${url}/api/agent/media/${id}`, { headers: { authorization: `Bearer ${mine.token}` } }).then((r) => r.status)).toBe(200);
    // Another workspace's phone, even for a post there naming the same path, gets nothing.
    const strangerPhone = await enrolledPhone(stranger);
    expect((await get(strangerPhone.token)).status).toBe(404);
  });
});
