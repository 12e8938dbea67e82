/**
 * A failed run's evidence, from a phone's socket: a protocol 2 phone fails a task with its failed step's trace (the
 * simulated phone's Instagram feed — its frame and its tree, read from the repository's fixture); the console keeps it
 * once per attempt, within the storage quota, readable by whoever sees the task and nobody else, until retention.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureTree, type UiTree } from '@farm/agent-protocol/inspect';
import { parseUiXml } from '@farm/agent-protocol/recipes';
import { INSTAGRAM, SimulatedPhoneUi } from '@farm/agent-protocol/simphone';
import type { DeviceHistoryEntry, FailureEvidence, RerecordPhone } from '@farm/contracts';
import { configureAutomation, defaultSettings, processRetentionPrune } from '@farm/workers';
import { expectError } from '../helpers/assertions.ts';
import { realtimeApp } from '../helpers/realtime.ts';
import { storeFailureTrace } from '../../src/modules/evidence/evidence.service.ts';
import { SCREENS_NOT_YOURS } from '../../src/modules/usage/screens.rules.ts';
import { bareAgent, duePostTask, enrolledPhone, helloV1, send } from '../realtime/phones.ts';
import { connected, next } from '../realtime/sockets.ts';

const VERSION = '312.0.0.34.111';
let frame: { mime: 'image/jpeg'; data: Buffer; width: number; height: number };
let tree: UiTree;
const { t, url, operator, va, stranger, sockets } = await realtimeApp({
  automation: { ackTimeoutMs: 5000, progressWindowMs: 10_000, heartbeatMs: 1000, backoffBaseMs: 0 },
});

beforeAll(async () => {
  // The screen a run failed on: the simulated phone's Instagram feed (test/fixtures/real/instagram/feed.xml).
  const ui = new SimulatedPhoneUi({ width: 720, height: 1440 });
  await ui.launchApp(INSTAGRAM);
  const shot = await ui.frame({ maxSide: 720 });
  frame = { mime: 'image/jpeg', data: Buffer.from(shot.data), width: shot.width, height: shot.height };
  tree = captureTree(parseUiXml(ui.uiXml()));
  await ui.close();
});
afterAll(async () => {
  configureAutomation({ storageQuotaBytes: defaultSettings.storageQuotaBytes });
});

/** The like step that missed: its selector, the tree and the frame of the screen it missed on. */
function likeTrace(overrides: Record<string, unknown> = {}) {
  return {
    seq: 4,
    path: '3',
    do: 'tap',
    label: 'Tap like button',
    verdict: 'failed',
    detail: 'No element matched within 10 s',
    selector: { id: 'row_feed_button_like', desc: 'Like' },
    ms: 10_012,
    frame,
    tree,
    ...overrides,
  };
}

interface Dispatch {
  taskId: string;
  attempt: number;
}

/** A protocol 2 phone with Instagram at VERSION, given a post to publish; answers its socket and what it was given. */
async function givenWork(name: string, assignedToId: string | null = null) {
  const { device, token } = await enrolledPhone(operator, { name, assignedToId });
  const socket = bareAgent(url, token);
  sockets.push(socket);
  await connected(socket);
  await send(socket, 'agent.hello', { ...helloV1, protocol: 2, features: ['dryrun'], apps: [{ package: INSTAGRAM, version: VERSION }] });
  const dispatched = next<Dispatch>(socket, 'task.dispatch');
  const work = await duePostTask(t, operator, device.id);
  const given = await dispatched;
  await send(socket, 'task.ack', given);
  return { device, socket, given, ...work };
}

function failedResult(given: Dispatch, trace: unknown) {
  return {
    ...given,
    status: 'failed',
    failure: {
      code: 'element_missing',
      message: 'The like button was not found',
      retryable: false,
      recipe: { id: 'instagram.like', version: 3 },
      app: { package: INSTAGRAM, version: VERSION },
      trace,
    },
  };
}

const traceRows = (taskId: string) => t.db.selectFrom('taskFailureTraces').selectAll().where('taskId', '=', taskId).execute();

describe('a failed run’s evidence', () => {
  it('is kept once per attempt with its screen and tree, on the task, the post and the phone’s history', async () => {
    const { device, socket, given, post } = await givenWork('Pixel evidence');
    const used = (await operator.get<{ usedBytes: number }>('/api/storage')).body.usedBytes;
    expect(await send(socket, 'task.result', failedResult(given, likeTrace()))).toEqual({ ok: true });
    // Sent again (the phone did not hear the answer): nothing changes.
    expect(await send(socket, 'task.result', failedResult(given, likeTrace({ label: 'Another label' })))).toEqual({ ok: true });
    expect(await traceRows(given.taskId)).toHaveLength(1);

    const answer = await operator.get<FailureEvidence>(`/api/tasks/${given.taskId}/evidence`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      taskId: given.taskId,
      attempt: given.attempt,
      failureCode: 'element_missing',
      failureMessage: 'The like button was not found',
      step: { seq: 4, path: '3', do: 'tap', label: 'Tap like button', detail: 'No element matched within 10 s', ms: 10_012 },
      selector: { id: 'row_feed_button_like', desc: 'Like' },
      matched: null,
      point: null,
      frame: { url: expect.stringMatching(/^\/api\/objects\//), width: frame.width, height: frame.height },
      hasTree: true,
      dropped: null,
      app: { package: INSTAGRAM, version: VERSION },
      recipe: { id: 'instagram.like', version: 3 },
      device: { id: device.id, name: 'Pixel evidence' },
    });
    const image = await operator.get(answer.body.frame!.url);
    expect(image.status).toBe(200);
    expect(image.headers['content-type']).toBe('image/jpeg');
    expect(Number(image.headers['content-length'])).toBe(frame.data.length);
    const elements = await operator.get<UiTree>(`/api/tasks/${given.taskId}/evidence/tree`);
    expect(elements.status).toBe(200);
    expect(elements.body.nodes.some((node) => node.resourceId === 'com.instagram.android:id/row_feed_button_like')).toBe(true);
    // Frame and tree count in the workspace's storage.
    const treeBytes = Buffer.byteLength(JSON.stringify(tree));
    expect((await operator.get<{ usedBytes: number }>('/api/storage')).body.usedBytes).toBe(used + frame.data.length + treeBytes);

    expect((await operator.get<FailureEvidence>(`/api/posts/${post.id}/evidence`)).body).toMatchObject({ taskId: given.taskId, attempt: given.attempt });
    const history = (await operator.get<DeviceHistoryEntry[]>(`/api/devices/${device.id}/history`)).body;
    expect(history.find((row) => row.taskId === given.taskId)).toMatchObject({ outcome: 'failed', evidence: true });

    // A VA sees tasks of the workspace, but a failure's screen only of a phone they may control, as live Inspect;
    // another workspace sees nothing of it.
    expectError(await va.get(`/api/tasks/${given.taskId}/evidence`), 403, SCREENS_NOT_YOURS);
    expectError(await va.get(`/api/tasks/${given.taskId}/evidence/tree`), 403, SCREENS_NOT_YOURS);
    expectError(await va.get(answer.body.frame!.url), 403, SCREENS_NOT_YOURS);
    // A post is a VA's to see only when its account is on their phone (posts' own rule).
    expectError(await va.get(`/api/posts/${post.id}/evidence`), 404, 'Not found');
    expectError(await stranger.get(`/api/tasks/${given.taskId}/evidence`), 404, 'Not found');
    expectError(await stranger.get(`/api/tasks/${given.taskId}/evidence/tree`), 404, 'Not found');
    expectError(await stranger.get(`/api/posts/${post.id}/evidence`), 404, 'Not found');
    expect((await stranger.get(answer.body.frame!.url)).status).toBe(404);
  });

  it('keeps one row when two copies race', async () => {
    const { device, given } = await givenWork('Pixel race');
    const workspaceId = (await t.db.selectFrom('devices').select('workspaceId').where('id', '=', device.id).executeTakeFirstOrThrow()).workspaceId;
    const parsed = { ...likeTrace(), verdict: 'failed' as const, frame: { ...frame } };
    const store = () =>
      storeFailureTrace(t.db, t.app.ctx.storage, { workspaceId, deviceId: device.id, ...given, trace: parsed }, defaultSettings.storageQuotaBytes);
    const outcomes = await Promise.all([store(), store(), store()]);
    expect(outcomes.filter((outcome) => outcome === 'stored')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'exists')).toHaveLength(2);
    expect(await traceRows(given.taskId)).toHaveLength(1);
    const frames = await t.db
      .selectFrom('storedObjects')
      .select('key')
      .where('workspaceId', '=', workspaceId)
      .where('contentType', '=', 'image/jpeg')
      .execute();
    const kept = (await traceRows(given.taskId))[0]!.frameKey;
    expect(frames.map((row) => row.key)).toContain(kept);
    // A phone that was never given the attempt keeps nothing.
    const stray = await storeFailureTrace(
      t.db,
      t.app.ctx.storage,
      { workspaceId, deviceId: device.id, taskId: given.taskId, attempt: given.attempt + 5, trace: parsed },
      defaultSettings.storageQuotaBytes,
    );
    expect(stray).toBe('not-given');
  });

  it('keeps the step without its screen when the workspace’s storage is full, and says so', async () => {
    const { socket, given } = await givenWork('Pixel quota');
    const used = (await operator.get<{ usedBytes: number }>('/api/storage')).body.usedBytes;
    configureAutomation({ storageQuotaBytes: used + 100 });
    try {
      expect(await send(socket, 'task.result', failedResult(given, likeTrace()))).toEqual({ ok: true });
    } finally {
      configureAutomation({ storageQuotaBytes: defaultSettings.storageQuotaBytes });
    }
    const evidence = (await operator.get<FailureEvidence>(`/api/tasks/${given.taskId}/evidence`)).body;
    expect(evidence).toMatchObject({
      step: { label: 'Tap like button' },
      selector: { id: 'row_feed_button_like' },
      frame: null,
      hasTree: false,
      dropped: "The screen and its elements were not kept: this workspace's storage was full.",
    });
    expectError(await operator.get(`/api/tasks/${given.taskId}/evidence/tree`), 404, "This failure's screen elements were not kept");
    expect((await operator.get<{ usedBytes: number }>('/api/storage')).body.usedBytes).toBe(used);
  });

  it('drops a trace that does not fit the schema and keeps the result', async () => {
    const { socket, given } = await givenWork('Pixel garbage');
    const answer = await send(
      socket,
      'task.result',
      failedResult(given, likeTrace({ seq: 0, frame: { mime: 'image/gif', data: 'nope', width: 1, height: 1 } })),
    );
    expect(answer).toEqual({ ok: true });
    const task = (await operator.get<{ status: string; failureCode: string }>(`/api/tasks/${given.taskId}`)).body;
    expect(task).toMatchObject({ status: 'failed', failureCode: 'element_missing' });
    expectError(await operator.get(`/api/tasks/${given.taskId}/evidence`), 404, 'This task has no failure evidence');
    // A result that does not fit (no status) is still refused, naming the field, and the phone keeps its connection.
    const refused = await send(socket, 'task.result', { taskId: given.taskId, attempt: given.attempt, failure: { code: 'element_missing' } });
    expect(refused.ok).toBe(false);
    expect(socket.connected).toBe(true);
  });

  it('answers 404 with a sentence for a task with no evidence', async () => {
    const { given } = await givenWork('Pixel none');
    expectError(await operator.get(`/api/tasks/${given.taskId}/evidence`), 404, 'This task has no failure evidence');
    expectError(await operator.get(`/api/tasks/${given.taskId}/evidence/tree`), 404, 'This task has no failure evidence');
  });

  it('goes with the workspace’s screenshot retention, its frame’s file with it', async () => {
    const { socket, given } = await givenWork('Pixel retention');
    expect(await send(socket, 'task.result', failedResult(given, likeTrace()))).toEqual({ ok: true });
    const [row] = await traceRows(given.taskId);
    const frameUrl = `/api/objects/${row!.frameKey}`;
    expect((await operator.get(frameUrl)).status).toBe(200);
    await t.db
      .updateTable('taskFailureTraces')
      .set({ createdAt: new Date(Date.now() - 400 * 86_400_000) })
      .where('taskId', '=', given.taskId)
      .execute();
    const report = await processRetentionPrune(undefined, { db: t.db, announce: () => undefined, files: t.app.ctx.storage });
    expect(report.failureTraces).toBeGreaterThanOrEqual(1);
    expect(await traceRows(given.taskId)).toHaveLength(0);
    expect(await t.db.selectFrom('storedObjects').select('key').where('key', '=', row!.frameKey!).execute()).toHaveLength(0);
    expect((await operator.get(frameUrl)).status).toBe(404);
    expect(await t.app.ctx.storage.read(row!.frameKey!).catch(() => null)).toBeNull();
  });

  it('lists the phones to re-record on: online with that app version, the failed phone first, a VA’s own only', async () => {
    const failed = await givenWork('Pixel z failed');
    const mine = await givenWork('Pixel a mine', va.user!.id);
    // Another version, and a phone gone offline, are not offered.
    const { token } = await enrolledPhone(operator, { name: 'Pixel older' });
    const older = bareAgent(url, token);
    sockets.push(older);
    await connected(older);
    await send(older, 'agent.hello', { ...helloV1, protocol: 2, apps: [{ package: INSTAGRAM, version: '300.0.0.0.1' }] });
    const gone = await givenWork('Pixel gone');
    gone.socket.disconnect();
    await expect.poll(async () => (await operator.get<{ status: string }>(`/api/devices/${gone.device.id}`)).body.status).toBe('offline');

    const query = `/api/devices/rerecord?package=${INSTAGRAM}&version=${VERSION}&deviceId=${failed.device.id}`;
    const phones = (await operator.get<RerecordPhone[]>(query)).body;
    expect(phones[0]).toMatchObject({ id: failed.device.id, failedHere: true });
    const ids = phones.map((phone) => phone.id);
    expect(ids).toContain(mine.device.id);
    expect(ids).not.toContain(gone.device.id);
    expect(phones.some((phone) => phone.name === 'Pixel older')).toBe(false);

    expect((await va.get<RerecordPhone[]>(query)).body.map((phone) => phone.id)).toEqual([mine.device.id]);
    expect((await stranger.get<RerecordPhone[]>(query)).body).toEqual([]);
    const bad = await operator.get(`/api/devices/rerecord?package=${INSTAGRAM}`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('version');
  });
});
