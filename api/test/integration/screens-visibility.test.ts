/**
 * A phone's screens kept after the fact — its dry runs' traces, its saved Inspect captures and its failed tasks'
 * evidence, with their frames and trees — are read as live Inspect is: by an operator or the VA the phone is assigned
 * to. A VA of another phone is refused (403, as live Inspect refuses them) on every read, lists leave such rows out,
 * and the stored frames themselves are refused at the file route. A post's evidence also follows the post.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureTree } from '@farm/agent-protocol/inspect';
import { parseUiXml } from '@farm/agent-protocol/recipes';
import type { DryRun, SelectorCheck, UiCaptureDetail, UiCaptureSummary } from '@farm/contracts';
import { SCREENS_NOT_YOURS } from '../../src/modules/usage/screens.rules.ts';
import { buildTestApp, inviteVa, signUp, type Client, type TestApp } from '../helpers/app.ts';
import { expectError, expectStatus } from '../helpers/assertions.ts';
import { buildDevice, buildFailureEvidence, uploadImage } from '../helpers/factories.ts';

let t: TestApp;
let operator: Client;
/** The VA phone A is assigned to. */
let owner: Client;
/** A VA of the same workspace with a phone of their own, not phone A. */
let other: Client;
let phoneA: { id: string };

beforeAll(async () => {
  t = await buildTestApp();
  operator = await signUp(t.app);
  owner = await inviteVa(t.app, operator, 'Vera Owner');
  other = await inviteVa(t.app, operator, 'Oscar Other');
  phoneA = await buildDevice(operator, { name: 'Pixel A', assignedToId: owner.user!.id });
  await buildDevice(operator, { name: 'Pixel B', assignedToId: other.user!.id });
});
afterAll(async () => {
  await t?.close();
});

const fixture = (name: string) => readFileSync(new URL(`../../../agent-protocol/test/fixtures/${name}`, import.meta.url), 'utf8');
const feed = captureTree(parseUiXml(fixture('ui-instagram-feed.xml')));
const jpeg = `data:image/jpeg;base64,${Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 0xff, 0xd9]).toString('base64')}`;

const workspaceId = async () => (await t.db.selectFrom('devices').select('workspaceId').where('id', '=', phoneA.id).executeTakeFirstOrThrow()).workspaceId;
const keyOf = (path: string) => path.split('/').at(-1)!;

describe("another VA's phone's screens", () => {
  it('refuses its saved captures, their frames and trees, and leaves them out of lists and selector checks', async () => {
    const saved = await operator.post<UiCaptureDetail>('/api/ui-captures', {
      deviceId: phoneA.id,
      screenName: 'Inbox',
      tree: feed,
      frame: jpeg,
      app: { package: 'com.instagram.android', version: '410.0.0.0.96', locale: 'en-US' },
    });
    expectStatus(saved, 201);

    expectError(await other.get(`/api/ui-captures/${saved.body.id}`), 403, SCREENS_NOT_YOURS);
    expectError(await other.get(saved.body.frameUrl), 403, SCREENS_NOT_YOURS);
    expect((await other.get<UiCaptureSummary[]>('/api/ui-captures')).body.map((row) => row.id)).not.toContain(saved.body.id);
    const check = await other.post<SelectorCheck>('/api/ui-captures/check', {
      package: 'com.instagram.android',
      screenName: 'Inbox',
      selector: { id: 'row_feed_button_like' },
    });
    expectStatus(check, 200);
    expect(check.body.results).toEqual([]);

    // The phone's own VA and the operator read it.
    expectStatus(await owner.get(`/api/ui-captures/${saved.body.id}`), 200);
    expectStatus(await owner.get(saved.body.frameUrl), 200);
    expect((await owner.get<UiCaptureSummary[]>('/api/ui-captures')).body.map((row) => row.id)).toContain(saved.body.id);
    expect(
      (await owner.post<SelectorCheck>('/api/ui-captures/check', { package: 'com.instagram.android', screenName: 'Inbox', selector: { id: 'x' } })).body
        .results,
    ).toHaveLength(1);
    expectStatus(await operator.get(saved.body.frameUrl), 200);
  });

  it("refuses its dry runs' traces, their step trees and frames, and leaves the runs out of the recipe's list", async () => {
    const template = await operator.get<{ body: { body: Record<string, unknown> } }>('/api/recipes/shipped/instagram.post');
    const recipe = await operator.post<{ id: string }>('/api/recipes', { recipe: { ...template.body.body, version: 61 } });
    expectStatus(recipe, 201);
    const ws = await workspaceId();
    const frameKey = keyOf(await uploadImage(operator));
    const run = await t.db
      .insertInto('recipeDryRuns')
      .values({
        workspaceId: ws,
        recipeRowId: recipe.body.id,
        recipeId: 'instagram.post',
        recipeVersion: 61,
        deviceId: phoneA.id,
        startedById: operator.user!.id,
        accountId: null,
        mode: 'straight',
        effects: false,
        status: 'passed',
        actions: '{}',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const tree = JSON.stringify(feed);
    await t.db
      .insertInto('recipeTraceSteps')
      .values({ dryRunId: run.id, workspaceId: ws, seq: 1, path: '0', do: 'tap', verdict: 'done', frameKey, tree, treeBytes: tree.length })
      .execute();

    expectError(await other.get(`/api/dry-runs/${run.id}`), 403, SCREENS_NOT_YOURS);
    expectError(await other.get(`/api/dry-runs/${run.id}/steps/1/tree`), 403, SCREENS_NOT_YOURS);
    expectError(await other.get(`/api/objects/${frameKey}`), 403, SCREENS_NOT_YOURS);
    expect((await other.get<DryRun[]>(`/api/dry-runs?recipeId=${recipe.body.id}`)).body).toEqual([]);

    const read = await owner.get<{ trace: { frameUrl: string | null }[] }>(`/api/dry-runs/${run.id}`);
    expectStatus(read, 200);
    expect(read.body.trace[0]!.frameUrl).toBe(`/api/objects/${frameKey}`);
    expectStatus(await owner.get(`/api/dry-runs/${run.id}/steps/1/tree`), 200);
    expectStatus(await owner.get(`/api/objects/${frameKey}`), 200);
    expect((await owner.get<DryRun[]>(`/api/dry-runs?recipeId=${recipe.body.id}`)).body.map((row) => row.id)).toEqual([run.id]);
    expectStatus(await operator.get(`/api/dry-runs/${run.id}/steps/1/tree`), 200);
  });

  it("refuses a failed task's evidence, its tree and frame; a post's evidence follows the post", async () => {
    const made = await buildFailureEvidence(operator, { assignedToId: owner.user!.id });
    const frameKey = keyOf(await uploadImage(operator));
    await t.db.updateTable('taskFailureTraces').set({ frameKey, frameWidth: 1, frameHeight: 1 }).where('taskId', '=', made.taskId).execute();

    expectError(await other.get(`/api/tasks/${made.taskId}/evidence`), 403, SCREENS_NOT_YOURS);
    expectError(await other.get(`/api/tasks/${made.taskId}/evidence/tree`), 403, SCREENS_NOT_YOURS);
    expectError(await other.get(`/api/objects/${frameKey}`), 403, SCREENS_NOT_YOURS);
    // The post is not theirs either: as if it did not exist, as every read of a post a VA may not see.
    expectStatus(await other.get(`/api/posts/${made.postId}/evidence`), 404);

    expectStatus(await owner.get(`/api/tasks/${made.taskId}/evidence`), 200);
    expectStatus(await owner.get(`/api/tasks/${made.taskId}/evidence/tree`), 200);
    expectStatus(await owner.get(`/api/objects/${frameKey}`), 200);

    // The attempt ran on a phone no VA has, for a post of an account on the owner's phone: the owner sees it by the post.
    const spare = await buildDevice(operator, { name: 'Pixel spare' });
    await t.db.updateTable('taskFailureTraces').set({ deviceId: spare.id }).where('taskId', '=', made.taskId).execute();
    expectStatus(await owner.get(`/api/tasks/${made.taskId}/evidence`), 200);
    expectStatus(await owner.get(`/api/posts/${made.postId}/evidence`), 200);
    expectStatus(await owner.get(`/api/objects/${frameKey}`), 200);
    expectError(await other.get(`/api/tasks/${made.taskId}/evidence`), 403, SCREENS_NOT_YOURS);
    expectError(await other.get(`/api/objects/${frameKey}`), 403, SCREENS_NOT_YOURS);
    expectStatus(await operator.get(`/api/objects/${frameKey}`), 200);
  });
});
