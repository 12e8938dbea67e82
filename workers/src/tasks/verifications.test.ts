/**
 * What a phone is sent of a workspace's verifications: only those of the recipe rows the work carries, and only where
 * the phone would run that very row on the verified app version. A verification of an old version, of a row not
 * carried, or one the phone would spend on the shipped template of the same id never leaves the server.
 */
import { describe, expect, it } from 'vitest';
import { coversApp, shippedRecipes, type Recipe } from '@farm/agent-protocol/recipes';
import type { TaskWork } from '@farm/agent-protocol/work';
import type { Db } from '../db.ts';
import { useTestDatabase, workspace } from '../../test/farm.ts';
import { withWorkspaceRecipes } from './recipes.ts';
import { addRecipeVerification } from './verifications.ts';

let db: Db;
useTestDatabase((opened) => (db = opened));

const INSTAGRAM = 'com.instagram.android';
const template = shippedRecipes().find((recipe) => recipe.id === 'instagram.post')!;

const post: TaskWork = {
  kind: 'post.publish',
  postId: 'p',
  account: { id: 'a', username: 'u', platform: 'instagram' },
  caption: '',
  hashtags: [],
  mediaUrls: [],
};

async function operator() {
  return (
    await db
      .insertInto('users')
      .values({ email: `${crypto.randomUUID()}@farm.test`, passwordHash: 'x', name: 'Olga', role: 'operator' })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;
}

/** A stored row of the shipped template at `version`, with app fields changed as given. */
async function store(workspaceId: string, version: number, app: Partial<Recipe['app']> = {}, enabled = true) {
  const body = { ...template, version, app: { ...template.app, ...app } };
  return (
    await db
      .insertInto('workspaceRecipes')
      .values({
        workspaceId,
        recipeId: template.id,
        version,
        name: template.name,
        platform: template.platform,
        routines: [...template.routines],
        body: JSON.stringify(body),
        enabled,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;
}

async function verify(workspaceId: string, recipeRowId: string, version: number, appVersion: string, by: string) {
  await addRecipeVerification(db, {
    workspaceId,
    recipeRowId,
    recipeId: template.id,
    recipeVersion: version,
    package: INSTAGRAM,
    appVersion,
    source: 'dry_run',
    dryRunId: null,
    verifiedBy: by,
  });
}

const carriedOf = async (workspaceId: string) => (await withWorkspaceRecipes(db, [{ workspaceId, work: post }]))[0]!;

describe('the verifications a dispatched task carries', () => {
  it('carries the workspace’s setting, and nothing verified when it carries no recipe row', async () => {
    const ws = await workspace(db);
    expect(await carriedOf(ws)).toEqual({ ...post, allowUntestedApp: false });
    await db.updateTable('workspaces').set({ tryUntestedTemplates: true }).where('id', '=', ws).execute();
    // A verification of a row that is off: the task carries no row, so the template it runs gets none.
    const off = await store(ws, 3, {}, false);
    await verify(ws, off, 3, '460.0.0.1', await operator());
    expect(await carriedOf(ws)).toEqual({ ...post, allowUntestedApp: true });
    const manual = { kind: 'manual' as const, description: 'by hand' };
    expect(await withWorkspaceRecipes(db, [{ workspaceId: ws, work: manual }])).toEqual([manual]);
  });

  it('sends the carried row’s verification, and not an older version’s of the same id', async () => {
    const ws = await workspace(db);
    const by = await operator();
    const old = await store(ws, 3);
    const current = await store(ws, 4);
    await verify(ws, old, 3, '461.0.0.1', by);
    await verify(ws, current, 4, '462.0.0.1', by);
    const carried = await carriedOf(ws);
    // Both versions are on and go with the task; on any version the phone runs v4, so v3's word stays here.
    expect(carried).toMatchObject({ verifiedApps: [{ recipeId: template.id, package: INSTAGRAM, version: '462.0.0.1' }] });
    expect(carried.kind !== 'manual' && carried.verifiedApps).toHaveLength(1);
  });

  it('does not send a row’s verification the phone would spend on the shipped template of the same id', async () => {
    const ws = await workspace(db);
    // The row runs only from 500 on; on 463 the phone falls back to the shipped template, which no one verified.
    const row = await store(ws, 5, { minVersion: '500' });
    await verify(ws, row, 5, '463.0.0.1', await operator());
    await verify(ws, row, 5, '501.0.0.1', await operator());
    const carried = await carriedOf(ws);
    expect(carried).toMatchObject({ verifiedApps: [{ version: '501.0.0.1' }] });
    const sent = carried.kind === 'manual' ? [] : (carried.verifiedApps ?? []);
    expect(sent).toHaveLength(1);
    expect(coversApp(template, { package: INSTAGRAM, version: '463.0.0.1' }, { verifications: sent })).toMatchObject({ covered: false, problem: 'version' });
  });

  it('does not send another workspace’s verifications', async () => {
    const mine = await workspace(db);
    const theirs = await workspace(db);
    await store(mine, 2);
    const row = await store(theirs, 2);
    await verify(theirs, row, 2, '464.0.0.1', await operator());
    expect(await carriedOf(mine)).toEqual({ ...post, allowUntestedApp: false, recipes: [expect.objectContaining({ id: template.id })] });
  });
});
