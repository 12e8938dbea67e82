import { describe, expect, it } from 'vitest';
import { shippedRecipes, type Recipe } from '@farm/agent-protocol/recipes';
import type { TaskWork } from '@farm/agent-protocol/work';
import type { Db } from '../db.ts';
import { useTestDatabase, workspace } from '../../test/farm.ts';
import { byHandDescription, MAX_RECIPES_PER_TASK, recipesCover, withWorkspaceRecipes, workspaceRecipesFor } from './recipes.ts';

let db: Db;
useTestDatabase((opened) => (db = opened));

const shipped = (platform: string, routine: string): Recipe => {
  const recipe = shippedRecipes().find((r) => r.platform === platform && r.routines.includes(routine as never));
  if (!recipe) throw new Error(`no shipped ${platform} ${routine} recipe`);
  return recipe;
};

async function store(workspaceId: string, recipe: Recipe, version: number, enabled = true) {
  const body = { ...recipe, version };
  await db
    .insertInto('workspaceRecipes')
    .values({
      workspaceId,
      recipeId: recipe.id,
      version,
      name: recipe.name,
      platform: recipe.platform,
      routines: [...recipe.routines],
      body: JSON.stringify(body),
      enabled,
    })
    .execute();
}

const post = (platform: string): TaskWork =>
  ({ kind: 'post.publish', account: { username: 'someone', platform }, caption: 'Hello', hashtags: [], mediaUrls: [] }) as unknown as TaskWork;

describe('the recipes a batch of leases carries', () => {
  it('gives each target its own workspace’s enabled recipes for its routine and platform, newest first, in one answer', async () => {
    const first = await workspace(db, 'First');
    const second = await workspace(db, 'Second');
    const instagramPost = shipped('instagram', 'create_post');
    const tiktokPost = shipped('tiktok', 'create_post');
    await store(first, instagramPost, 3);
    await store(first, instagramPost, 5);
    await store(first, instagramPost, 4, false);
    await store(first, tiktokPost, 2);
    await store(second, instagramPost, 9);

    const found = await workspaceRecipesFor(db, [
      { workspaceId: first, platform: 'instagram', routine: 'create_post' },
      { workspaceId: second, platform: 'instagram', routine: 'create_post' },
      { workspaceId: first, platform: 'tiktok', routine: 'create_post' },
      { workspaceId: second, platform: 'tiktok', routine: 'create_post' },
      { workspaceId: first, platform: 'instagram', routine: 'create_post' },
    ]);
    expect(found.map((recipes) => recipes.map((recipe) => `${recipe.platform} ${recipe.version}`))).toEqual([
      ['instagram 5', 'instagram 3'],
      ['instagram 9'],
      ['tiktok 2'],
      [],
      ['instagram 5', 'instagram 3'],
    ]);
    expect(await workspaceRecipesFor(db, [])).toEqual([]);

    // Works without a recipe target (a person's) pass as they are; the others carry their workspace's.
    const manual = { kind: 'manual' } as unknown as TaskWork;
    const works = await withWorkspaceRecipes(db, [
      { workspaceId: first, work: post('instagram') },
      { workspaceId: second, work: manual },
      { workspaceId: second, work: post('tiktok') },
    ]);
    expect(works[0]).toMatchObject({ kind: 'post.publish', recipes: [{ version: 5 }, { version: 3 }] });
    expect(works[1]).toBe(manual);
    expect(works[2]).not.toHaveProperty('recipes');
  });

  it('sends at most the newest MAX_RECIPES_PER_TASK of a routine', async () => {
    const farm = await workspace(db, 'Many versions');
    const recipe = shipped('instagram', 'create_post');
    for (let version = 1; version <= MAX_RECIPES_PER_TASK + 3; version += 1) await store(farm, recipe, version);
    const [found] = await workspaceRecipesFor(db, [{ workspaceId: farm, platform: 'instagram', routine: 'create_post' }]);
    expect(found!.map((r) => r.version)).toEqual(Array.from({ length: MAX_RECIPES_PER_TASK }, (_, i) => MAX_RECIPES_PER_TASK + 3 - i));
  });

  it('tells which works some recipe can do: shipped, or the workspace’s own enabled one for the routine and platform', async () => {
    const farm = await workspace(db, 'Covered');
    const other = await workspace(db, 'Not covered');
    const youtube = { ...shipped('instagram', 'create_post'), id: 'youtube-post', platform: 'youtube' as const };
    await store(farm, youtube, 1);
    await store(other, youtube, 1, false);
    const run = (platform: string, routineType: string) =>
      ({
        kind: 'routine.run',
        routineType,
        routineName: 'Scroll',
        platform,
        durationMinutes: 15,
        intensity: 3,
        actions: ['like'],
        keywords: [],
        referenceAccounts: [],
        allowance: { likes: 20, follows: 0, comments: 0, posts: 0 },
        recipe: null,
      }) as unknown as TaskWork;
    const covered = await recipesCover(db, [
      { workspaceId: other, work: post('instagram') },
      { workspaceId: other, work: post('youtube') },
      { workspaceId: farm, work: post('youtube') },
      { workspaceId: farm, work: run('youtube', 'warmup') },
      { workspaceId: other, work: run('tinder', 'doom_scroll') },
      { workspaceId: other, work: run('tiktok', 'doom_scroll') },
      { workspaceId: other, work: { kind: 'manual', description: null } },
    ]);
    expect(covered).toEqual([true, false, true, false, false, true, true]);
    expect(byHandDescription(run('tinder', 'doom_scroll'))).toMatch(
      /^No recipe automates doom scrolling on Tinder: do this on the phone by hand, then mark the task done\.\n\nRoutine doom_scroll \(Scroll\) on tinder, about 15 min/,
    );
  });
});
