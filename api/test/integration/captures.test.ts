/**
 * The recipe studio's saved Inspect captures: saved with the frame as a stored object and the tree counted in the
 * workspace's storage quota; listed and read by the workspace; a VA saves captures of their own phones only; bad
 * input is refused naming the field with nothing written; a selector is checked across the saved captures of a screen.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureTree } from '@farm/agent-protocol/inspect';
import { parseUiXml } from '@farm/agent-protocol/recipes';
import type { SelectorCheck, UiCaptureDetail, UiCaptureSummary } from '@farm/contracts';
import { buildTestApp, inviteVa, signUp, type Client, type TestApp } from '../helpers/app.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { buildDevice } from '../helpers/factories.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

const fixture = (name: string) => readFileSync(new URL(`../../../agent-protocol/test/fixtures/${name}`, import.meta.url), 'utf8');
const feed = captureTree(parseUiXml(fixture('ui-instagram-feed.xml')));
const search = captureTree(parseUiXml(fixture('ui-instagram-search.xml')));
/** A 1 × 1 JPEG's bytes are enough for a frame: the API checks the type, not the picture. */
const jpeg = `data:image/jpeg;base64,${Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 0xff, 0xd9]).toString('base64')}`;

function body(deviceId: string, overrides: Record<string, unknown> = {}) {
  return {
    deviceId,
    screenName: 'Feed',
    tree: feed,
    frame: jpeg,
    app: { package: 'com.instagram.android', version: '410.0.0.0.96', locale: 'en-US' },
    ...overrides,
  };
}

async function storageUsed(client: Client): Promise<number> {
  const answer = await client.get<{ usedBytes: number }>('/api/storage');
  expectStatus(answer, 200);
  return answer.body.usedBytes;
}

describe('saved Inspect captures', () => {
  it('saves a capture with its frame, counts it in the storage quota, lists, reads and removes it', async () => {
    const operator = await signUp(t.app);
    const phone = await buildDevice(operator, { name: 'Pixel studio' });
    const before = await storageUsed(operator);
    const saved = await operator.post<UiCaptureDetail>('/api/ui-captures', body(phone.id));
    expectStatus(saved, 201);
    expect(saved.body).toMatchObject({
      screenName: 'Feed',
      package: 'com.instagram.android',
      appVersion: '410.0.0.0.96',
      locale: 'en-US',
      deviceName: 'Pixel studio',
    });
    expect(saved.body.tree.nodes).toHaveLength(feed.nodes.length);
    expect(await storageUsed(operator)).toBe(before + 14 + Buffer.byteLength(JSON.stringify(feed)));
    const frame = await operator.get(saved.body.frameUrl);
    expectStatus(frame, 200);

    const listed = await operator.get<UiCaptureSummary[]>('/api/ui-captures?package=com.instagram.android&screenName=feed');
    expect(listed.body.map((row) => row.id)).toEqual([saved.body.id]);
    const audit = await operator.get<{ action: string; entityId: string }[]>('/api/audit-log?action=capture.saved');
    expect(audit.body).toContainEqual(expect.objectContaining({ action: 'capture.saved', entityId: saved.body.id }));

    expectStatus(await operator.delete(`/api/ui-captures/${saved.body.id}`), 204);
    expectStatus(await operator.get(`/api/ui-captures/${saved.body.id}`), 404);
    expectStatus(await operator.get(saved.body.frameUrl), 404);
    expect(await storageUsed(operator)).toBe(before);
  });

  it('lets a VA save captures of their own phones only, and keeps other workspaces out', async () => {
    const operator = await signUp(t.app);
    const va = await inviteVa(t.app, operator, 'Vic Studio');
    const theirs = await buildDevice(operator, { name: 'Pixel theirs', assignedToId: va.user!.id });
    const other = await buildDevice(operator, { name: 'Pixel other' });
    expectStatus(await va.post('/api/ui-captures', body(theirs.id)), 201);
    expectError(await va.post('/api/ui-captures', body(other.id)), 403, 'A VA saves captures of the phones assigned to them only');
    const made = await operator.post<UiCaptureDetail>('/api/ui-captures', body(other.id));
    expectError(await va.delete(`/api/ui-captures/${made.body.id}`), 403, 'A VA removes only the captures they saved');

    const stranger = await signUp(t.app);
    expectStatus(await stranger.get(`/api/ui-captures/${made.body.id}`), 404);
    expect((await stranger.get<UiCaptureSummary[]>('/api/ui-captures')).body).toEqual([]);
    expectFieldError(await stranger.post('/api/ui-captures', body(other.id)), 'deviceId', 'That phone is not in this workspace');
  });

  it('refuses bad input naming the field, writing nothing', async () => {
    const operator = await signUp(t.app);
    const phone = await buildDevice(operator);
    const before = await storageUsed(operator);
    expectFieldError(await operator.post('/api/ui-captures', body(phone.id, { screenName: '  ' })), 'screenName', 'Screen name is required');
    expectFieldError(
      await operator.post('/api/ui-captures', body(phone.id, { frame: 'https://example.com/a.jpg' })),
      'frame',
      'Frame must be a JPEG or PNG data URL',
    );
    expectFieldError(
      await operator.post('/api/ui-captures', body(phone.id, { frame: `data:image/png;base64,${Buffer.from('not a picture').toString('base64')}` })),
      'frame',
      'Frame is not the image it says it is',
    );
    const broken = await operator.post('/api/ui-captures', body(phone.id, { tree: { ...feed, nodes: [{ ...feed.nodes[0], parent: 3 }] } }));
    expectStatus(broken, 400);
    expect(await storageUsed(operator)).toBe(before);
    expect((await operator.get<UiCaptureSummary[]>('/api/ui-captures')).body).toEqual([]);
  });

  it('checks a selector across the saved captures of a screen: found on one version, gone on another', async () => {
    const operator = await signUp(t.app);
    const phone = await buildDevice(operator);
    const old = await operator.post<UiCaptureDetail>(
      '/api/ui-captures',
      body(phone.id, { app: { package: 'com.instagram.android', version: '400.0.0.0.1', locale: 'en-US' } }),
    );
    const changed = await operator.post<UiCaptureDetail>('/api/ui-captures', body(phone.id, { tree: search }));
    const check = await operator.post<SelectorCheck>('/api/ui-captures/check', {
      package: 'com.instagram.android',
      screenName: 'FEED',
      selector: { id: 'row_feed_button_like' },
    });
    expectStatus(check, 200);
    const byId = new Map(check.body.results.map((result) => [result.captureId, result]));
    expect(byId.get(old.body.id)).toMatchObject({ appVersion: '400.0.0.0.1', matches: 1, finds: true });
    expect(byId.get(changed.body.id)).toMatchObject({ matches: 0, finds: false });
    expectStatus(await operator.post('/api/ui-captures/check', { package: 'com.instagram.android', screenName: 'Feed', selector: { index: 2 } }), 400);
  });
});
