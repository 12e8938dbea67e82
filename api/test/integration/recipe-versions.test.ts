/**
 * The recipe editor's versions: a save is the next version of the recipe id (numbered by the server, race-safe),
 * keeps the state of the version it was saved from and turns the others off; a VA saves drafts of drafts only; two
 * versions (or a version and its shipped template) compare line by line; an operator restores an earlier version as
 * the newest, audited. Another workspace's ids are 404; bad input is a 400 naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecipeDiff, RecipeVersionList } from '@farm/contracts';
import { buildTestApp, inviteVa, signUp, type Client, type TestApp } from '../helpers/app.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { solidPng } from '@farm/agent-protocol';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

interface Detail {
  id: string;
  recipeId: string;
  version: number;
  enabled: boolean;
  basedOn: string | null;
  body: Record<string, unknown>;
}

/** A workspace recipe of its own id (`<name>.like`), from the shipped Instagram post template's document. */
async function addRecipe(operator: Client, recipeId: string, enabled = true): Promise<Detail> {
  const template = await operator.get<{ body: Record<string, unknown> }>('/api/recipes/shipped/instagram.post');
  const answer = await operator.post<Detail>('/api/recipes', { recipe: { ...template.body.body, id: recipeId, version: 1 }, enabled });
  expectStatus(answer, 201);
  return answer.body;
}

const waitForFeed = { do: 'wait_for', target: { id: 'com.instagram.android:id/feed_tab' }, timeout: '10s' };
const withStep = (body: Record<string, unknown>) => ({ ...body, steps: [...(body.steps as unknown[]), waitForFeed] });

describe('recipe versions', () => {
  it('saves the next version, keeps its state on, turns the older one off, and lists who saved what', async () => {
    const operator = await signUp(t.app, { name: 'Olive Editor' });
    const v1 = await addRecipe(operator, 'olive.like');
    // The body's own version is not the writer's to choose: the server numbers it.
    const saved = await operator.post<Detail>(`/api/recipes/${v1.id}/versions`, { recipe: { ...withStep(v1.body), version: 40 }, note: 'Waits for the feed' });
    expectStatus(saved, 201);
    expect(saved.body).toMatchObject({ recipeId: 'olive.like', version: 2, enabled: true });
    expect(saved.body.body.version).toBe(2);
    expect(Object.keys(saved.body.body)).toEqual(Object.keys(v1.body));
    expect((saved.body.body.steps as unknown[]).at(-1)).toEqual(waitForFeed);

    const list = await operator.get<RecipeVersionList>(`/api/recipes/${v1.id}/versions`);
    expectStatus(list, 200);
    expect(list.body.recipeId).toBe('olive.like');
    expect(list.body.versions).toMatchObject([
      { id: saved.body.id, version: 2, enabled: true, savedBy: 'Olive Editor', note: 'Waits for the feed', basedOnVersion: 1 },
      { id: v1.id, version: 1, enabled: false, note: null, basedOnVersion: null },
    ]);

    const audit = await operator.get<{ action: string; entityId: string }[]>('/api/audit-log?action=recipe.version_saved');
    expect(audit.body).toContainEqual(expect.objectContaining({ action: 'recipe.version_saved', entityId: saved.body.id }));

    // A draft saved from stays a draft, and leaves the version on alone.
    const draft = await operator.post<Detail>(`/api/recipes/${v1.id}/versions`, { recipe: v1.body });
    expectStatus(draft, 201);
    expect(draft.body).toMatchObject({ version: 3, enabled: false });
    const after = await operator.get<RecipeVersionList>(`/api/recipes/${v1.id}/versions`);
    expect(after.body.versions.map((item) => [item.version, item.enabled])).toEqual([
      [3, false],
      [2, true],
      [1, false],
    ]);
  });

  it('gives two saves racing on one recipe two distinct versions or one 409, never a 500', async () => {
    const operator = await signUp(t.app);
    const v1 = await addRecipe(operator, 'race.like');
    for (let round = 0; round < 3; round += 1) {
      const answers = await Promise.all([
        operator.post<Detail>(`/api/recipes/${v1.id}/versions`, { recipe: v1.body, note: 'left' }),
        operator.post<Detail>(`/api/recipes/${v1.id}/versions`, { recipe: withStep(v1.body), note: 'right' }),
      ]);
      for (const answer of answers) expect([201, 409]).toContain(answer.status);
      const versions = answers.filter((answer) => answer.status === 201).map((answer) => answer.body.version);
      expect(new Set(versions).size).toBe(versions.length);
      expect(versions.length).toBeGreaterThanOrEqual(1);
    }
    const list = await operator.get<RecipeVersionList>(`/api/recipes/${v1.id}/versions`);
    const numbers = list.body.versions.map((item) => item.version);
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(list.body.versions.filter((item) => item.enabled)).toHaveLength(1);
  });

  it('lets a VA save drafts of draft recipes only, and never restore', async () => {
    const operator = await signUp(t.app);
    const va = await inviteVa(t.app, operator, 'Vic Drafts');
    const draft = await addRecipe(operator, 'vic.draft', false);
    const saved = await va.post<Detail>(`/api/recipes/${draft.id}/versions`, { recipe: withStep(draft.body) });
    expectStatus(saved, 201);
    expect(saved.body).toMatchObject({ version: 2, enabled: false });
    expectStatus(await va.get(`/api/recipes/${draft.id}/versions`), 200);

    const live = await addRecipe(operator, 'vic.live', true);
    expectError(
      await va.post(`/api/recipes/${live.id}/versions`, { recipe: live.body }),
      403,
      'Only operators change a recipe that is sent to phones: a VA saves drafts of recipes that are drafts',
    );
    expect((await va.post(`/api/recipes/${draft.id}/restore`)).status).toBe(403);
  });

  it('compares two versions, and a version with the shipped template it came from', async () => {
    const operator = await signUp(t.app);
    const v1 = await addRecipe(operator, 'diff.like');
    const v2 = (await operator.post<Detail>(`/api/recipes/${v1.id}/versions`, { recipe: withStep(v1.body) })).body;
    const diff = await operator.get<RecipeDiff>(`/api/recipes/${v2.id}/diff?against=${v1.id}`);
    expectStatus(diff, 200);
    expect(diff.body.from).toEqual({ label: 'v1', id: v1.id });
    expect(diff.body.to).toEqual({ label: 'v2', id: v2.id });
    const added = diff.body.lines.filter((line) => line.kind === 'added').map((line) => line.text.trim());
    const removed = diff.body.lines.filter((line) => line.kind === 'removed').map((line) => line.text.trim());
    expect(added).toEqual(expect.arrayContaining(['"version": 2,', '"do": "wait_for",', '"id": "com.instagram.android:id/feed_tab"', '"timeout": "10s"']));
    expect(removed).toEqual(['"version": 1,']);
    expect(diff.body.added).toBe(added.length);

    // This one's id is its own, so no template shares it: the shipped compare is refused naming `against`.
    expectFieldError(
      await operator.get(`/api/recipes/${v2.id}/diff?against=shipped`),
      'against',
      'diff.like came from no shipped template: compare it against one of its versions',
    );
    const template = await operator.get<{ body: Record<string, unknown> }>('/api/recipes/shipped/instagram.post');
    const fromTemplate = await operator.post<Detail>('/api/recipes', { recipe: { ...template.body.body, version: 7 } });
    expect(fromTemplate.body.basedOn).toBe('instagram.post');
    const edited = (await operator.post<Detail>(`/api/recipes/${fromTemplate.body.id}/versions`, { recipe: withStep(fromTemplate.body.body) })).body;
    expect(edited.basedOn).toBe('instagram.post');
    const shipped = await operator.get<RecipeDiff>(`/api/recipes/${edited.id}/diff?against=shipped`);
    expectStatus(shipped, 200);
    expect(shipped.body.from.label).toMatch(/^Shipped template instagram\.post v\d+$/);
    expect(shipped.body.lines.filter((line) => line.kind === 'added').map((line) => line.text.trim())).toEqual(
      expect.arrayContaining(['"version": 8,', '"do": "wait_for",']),
    );
  });

  it('restores an earlier version as the newest, on in place of the one on, audited', async () => {
    const operator = await signUp(t.app);
    const v1 = await addRecipe(operator, 'restore.like');
    const v2 = (await operator.post<Detail>(`/api/recipes/${v1.id}/versions`, { recipe: withStep(v1.body) })).body;
    const restored = await operator.post<Detail>(`/api/recipes/${v1.id}/restore`);
    expectStatus(restored, 201);
    expect(restored.body).toMatchObject({ version: 3, enabled: true });
    expect({ ...restored.body.body, version: 1 }).toEqual(v1.body);
    const list = await operator.get<RecipeVersionList>(`/api/recipes/${v2.id}/versions`);
    expect(list.body.versions.map((item) => [item.version, item.enabled, item.basedOnVersion])).toEqual([
      [3, true, 1],
      [2, false, 1],
      [1, false, null],
    ]);
    const audit = await operator.get<{ action: string; entityId: string; summary?: string }[]>('/api/audit-log?action=recipe.restored');
    expect(audit.body).toContainEqual(expect.objectContaining({ action: 'recipe.restored', entityId: restored.body.id }));
    const activity = await operator.get<{ action: string }[]>('/api/activities');
    expect(JSON.stringify(activity.body)).toContain('Recipe \\"Instagram publish a post');
    expect(JSON.stringify(activity.body)).toContain('v1 restored as v3');
  });

  it('keeps a recorded draft’s step screenshots, shown by the steps they were made for through later versions', async () => {
    const operator = await signUp(t.app, { name: 'Rhea Recorder' });
    const template = await operator.get<{ body: Record<string, unknown> }>('/api/recipes/shipped/instagram.warmup');
    const tap = { do: 'tap', target: { id: 'row_feed_button_like' } };
    const draft = { ...template.body.body, id: 'rhea.like', version: 1, steps: [{ do: 'open_app' }, tap] };
    // A thumbnail as the Live tab makes one: a small picture as a data: URL.
    const picture = `data:image/png;base64,${solidPng(18, 40, [200, 80, 100]).toString('base64')}`;
    const used = async () => (await operator.get<{ usedBytes: number }>('/api/storage')).body.usedBytes;
    const before = await used();
    const created = await operator.post<Detail>('/api/recipes', { recipe: draft, enabled: false, stepShots: [{ step: 1, image: picture }] });
    expectStatus(created, 201);
    expect(await used()).toBe(before + picture.length);
    const read = await operator.get<Detail & { stepShots?: (string | null)[] }>(`/api/recipes/${created.body.id}`);
    expect(read.body.stepShots).toEqual([null, picture]);

    // A step put before it, and the tap given a count: the picture stays with the tap.
    const edited = { ...read.body.body, steps: [{ do: 'open_app' }, { do: 'pause', for: '1s' }, { ...tap, counts: 'like', label: 'Like it' }] };
    const v2 = await operator.post<Detail>(`/api/recipes/${created.body.id}/versions`, { recipe: edited });
    expectStatus(v2, 201);
    const second = await operator.get<Detail & { stepShots?: (string | null)[] }>(`/api/recipes/${v2.body.id}`);
    expect(second.body.stepShots).toEqual([null, null, picture]);

    // A recipe without pictures says nothing of them; a picture that is not one is refused naming the field.
    expect(
      (await operator.get<Detail & { stepShots?: unknown }>(`/api/recipes/${(await addRecipe(operator, 'rhea.plain')).id}`)).body.stepShots,
    ).toBeUndefined();
    expectFieldError(
      await operator.post('/api/recipes', { recipe: { ...draft, version: 9 }, enabled: false, stepShots: [{ step: 1, image: 'javascript:alert(1)' }] }),
      'stepShots.0.image',
      'A step screenshot is a JPEG or PNG data: URL',
    );
  });

  it('refuses bad input naming the field, and keeps other workspaces out', async () => {
    const operator = await signUp(t.app);
    const v1 = await addRecipe(operator, 'bad.like');
    expectFieldError(
      await operator.post(`/api/recipes/${v1.id}/versions`, { recipe: { ...v1.body, id: 'other.like' } }),
      'recipe.id',
      "The recipe's id must stay bad.like: a recipe with another id is a new recipe, added in Campaigns → Recipes",
    );
    const broken = await operator.post<{ details: { field: string }[] }>(`/api/recipes/${v1.id}/versions`, {
      recipe: { ...v1.body, steps: [{ do: 'wait_for' }] },
    });
    expectStatus(broken, 400);
    expect(broken.body.details.map((item) => item.field)).toContain('recipe.steps.0.target');
    const long = await operator.post<{ details: { field: string }[] }>(`/api/recipes/${v1.id}/versions`, { recipe: v1.body, note: 'x'.repeat(201) });
    expectFieldError(long, 'note', 'Note must be at most 200 characters');
    expectStatus(await operator.get(`/api/recipes/${v1.id}/diff?against=nope`), 400);
    expectStatus(await operator.get(`/api/recipes/${v1.id}/diff`), 400);
    expectStatus(await operator.get(`/api/recipes/${v1.id}/diff?against=00000000-0000-4000-8000-000000000000`), 400);
    const list = await operator.get<RecipeVersionList>(`/api/recipes/${v1.id}/versions`);
    expect(list.body.versions).toHaveLength(1);

    const stranger = await signUp(t.app);
    expectStatus(await stranger.get(`/api/recipes/${v1.id}/versions`), 404);
    expectStatus(await stranger.post(`/api/recipes/${v1.id}/versions`, { recipe: v1.body }), 404);
    expectStatus(await stranger.post(`/api/recipes/${v1.id}/restore`), 404);
    expectStatus(await stranger.get(`/api/recipes/${v1.id}/diff?against=shipped`), 404);
    const theirs = await addRecipe(stranger, 'bad.like');
    expectStatus(await operator.get(`/api/recipes/${v1.id}/diff?against=${theirs.id}`), 400);
  });
});
