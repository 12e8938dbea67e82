/**
 * The recipes a workspace chose for a piece of work. A farm checks the shipped recipes on its own phones and app
 * versions and stores what works (`workspace_recipes`, validated by the recipe schema); a dispatched task carries the
 * workspace's enabled recipes for its routine and platform, and the phone picks among them by its app version
 * (a workspace recipe wins over a shipped one; see agent-protocol's recipe resolver).
 */
import { sql } from 'kysely';
import { parseRecipe, resolveRecipe, type Recipe, type RecipePlatform, type RoutineType } from '@farm/agent-protocol/recipes';
import { platformNames, type Platform } from '@farm/agent-protocol/values';
import { describeWork, type TaskWork } from '@farm/agent-protocol/work';
import type { Db } from '../db.ts';
import { verificationsForWork, verificationsOfRows, type CarriedRecipe, type RowVerification } from './verifications.ts';

/** At most this many recipes travel with one task (one per app version range is the use; 20 is plenty). */
export const MAX_RECIPES_PER_TASK = 20;

/** What a piece of work asks recipes for: a routine on a platform, in a workspace. */
export interface RecipeTarget {
  workspaceId: string;
  platform: string;
  routine: RoutineType;
}

/**
 * Each target's enabled recipes in its workspace, newest version first, at most MAX_RECIPES_PER_TASK each: one
 * statement for all of them, so a batch of leases asks once rather than once a task.
 */
export async function workspaceRecipesFor(db: Db, targets: readonly RecipeTarget[]): Promise<Recipe[][]> {
  return (await workspaceRecipeRowsFor(db, targets)).map((rows) => rows.map((row) => row.recipe));
}

/** As `workspaceRecipesFor`, with each recipe's row (a verification belongs to a row). */
export async function workspaceRecipeRowsFor(db: Db, targets: readonly RecipeTarget[]): Promise<CarriedRecipe[][]> {
  if (targets.length === 0) return [];
  // The body as text: the database layer would rename the document's keys to camelCase (element names are snake_case).
  const { rows } = await sql<{ n: string; id: string; body: string }>`
    select k.n, r.id, r.body::text as body
    from unnest(${targets.map((t) => t.workspaceId)}::uuid[], ${targets.map((t) => t.platform)}::text[], ${targets.map((t) => t.routine)}::text[])
      with ordinality as k(workspace_id, platform, routine, n)
    cross join lateral (
      select id, body, version from workspace_recipes
      where workspace_id = k.workspace_id and platform = k.platform and enabled and k.routine = any(routines)
      order by version desc
      limit ${MAX_RECIPES_PER_TASK}
    ) r
    order by k.n, r.version desc`.execute(db);
  const recipes: CarriedRecipe[][] = targets.map(() => []);
  const parsed = new Map<string, Recipe | null>();
  for (const row of rows) {
    // Stored only after validation; a body an older schema accepted and this one does not is left out, not sent.
    let recipe = parsed.get(row.body);
    if (recipe === undefined) {
      const result = parseRecipe(JSON.parse(row.body));
      recipe = result.ok ? result.recipe : null;
      parsed.set(row.body, recipe);
    }
    if (recipe) recipes[Number(row.n) - 1]!.push({ rowId: row.id, recipe });
  }
  return recipes;
}

/** The routine and platform a piece of phone work runs as, or null for work that is a person's. */
export function recipeTarget(work: TaskWork): { routine: RoutineType; platform: string } | null {
  if (work.kind === 'post.publish') return { routine: 'create_post', platform: work.account.platform };
  if (work.kind === 'routine.run') return { routine: work.routineType as RoutineType, platform: work.platform };
  return null;
}

/**
 * Each work with its workspace's recipes for it: `recipes` for the phone to choose from by its app version, and
 * `recipe` (routine runs) the one it would pick without knowing the version, for agents that read only that field.
 * With them go the coverage facts the phone's gate reads: whether the workspace lets shipped templates run on
 * versions no one verified, and the verifications of the carried rows only (`verificationsForWork`).
 */
export async function withWorkspaceRecipes(db: Db, works: readonly { workspaceId: string; work: TaskWork }[]): Promise<TaskWork[]> {
  const asked = works.flatMap(({ workspaceId, work }, index) => {
    const target = recipeTarget(work);
    return target ? [{ index, target: { workspaceId, ...target } }] : [];
  });
  const found = await workspaceRecipeRowsFor(
    db,
    asked.map(({ target }) => target),
  );
  const answer = works.map(({ work }) => work);
  const carriedBy = new Map<number, { target: RecipeTarget; rows: CarriedRecipe[] }>();
  asked.forEach(({ index, target }, i) => {
    const rows = found[i]!;
    const work = answer[index]!;
    carriedBy.set(index, { target, rows });
    if (rows.length === 0 || work.kind === 'manual') return;
    const own = rows.map((row) => row.recipe);
    if (work.kind === 'routine.run') {
      const chosen = resolveRecipe({ routine: target.routine, platform: target.platform as RecipePlatform }, own, []);
      answer[index] = { ...work, recipes: own, recipe: chosen?.recipe ?? work.recipe };
    } else answer[index] = { ...work, recipes: own };
  });
  return withCoverage(db, works, answer, carriedBy);
}

/**
 * What the phone's gate needs to answer the coverage rule (`coversApp`): the verifications of the rows the work
 * carries, and whether the workspace lets shipped templates run on versions no one verified. One statement of each
 * per workspace.
 */
async function withCoverage(
  db: Db,
  works: readonly { workspaceId: string; work: TaskWork }[],
  answer: TaskWork[],
  carriedBy: ReadonlyMap<number, { target: RecipeTarget; rows: CarriedRecipe[] }>,
): Promise<TaskWork[]> {
  const byWorkspace = new Map<string, Set<string>>();
  works.forEach(({ workspaceId, work }, index) => {
    if (work.kind === 'manual') return;
    const rows = byWorkspace.get(workspaceId) ?? new Set<string>();
    for (const row of carriedBy.get(index)?.rows ?? []) rows.add(row.rowId);
    byWorkspace.set(workspaceId, rows);
  });
  const coverage = new Map<string, { allowUntestedApp: boolean; verified: RowVerification[] }>();
  for (const [workspaceId, rowIds] of byWorkspace) {
    const [workspace, verified] = await Promise.all([
      db.selectFrom('workspaces').select('tryUntestedTemplates').where('id', '=', workspaceId).executeTakeFirst(),
      verificationsOfRows(db, workspaceId, [...rowIds]),
    ]);
    coverage.set(workspaceId, { allowUntestedApp: workspace?.tryUntestedTemplates ?? false, verified });
  }
  return answer.map((work, index) => {
    const found = coverage.get(works[index]!.workspaceId);
    if (!found || work.kind === 'manual') return work;
    const carried = carriedBy.get(index);
    const verifiedApps = carried ? verificationsForWork(carried.target, carried.rows, found.verified) : [];
    return { ...work, allowUntestedApp: found.allowUntestedApp, ...(verifiedApps.length > 0 ? { verifiedApps } : {}) };
  });
}

/**
 * Whether a recipe can do each work on a phone: a shipped one, or one of its workspace's enabled ones, for the work's
 * routine and platform on any app version (which version the phone has is the phone's to match). Work that is a
 * person's already counts as covered. One statement at most, and none when the shipped recipes cover every work.
 */
export async function recipesCover(db: Db, works: readonly { workspaceId: string; work: TaskWork }[]): Promise<boolean[]> {
  const covered = works.map(({ work }) => {
    const target = recipeTarget(work);
    if (!target || (work.kind === 'routine.run' && work.recipe)) return true;
    return resolveRecipe({ routine: target.routine, platform: target.platform as RecipePlatform }) !== null;
  });
  const asked = works.flatMap(({ workspaceId, work }, index) => (covered[index] ? [] : [{ index, target: { workspaceId, ...recipeTarget(work)! } }]));
  const found = await workspaceRecipesFor(
    db,
    asked.map(({ target }) => target),
  );
  asked.forEach(({ index }, i) => {
    covered[index] = found[i]!.length > 0;
  });
  return covered;
}

/** What a routine does, as in "No recipe automates posts on YouTube". */
const routineWork: Record<RoutineType, string> = {
  create_post: 'posts',
  warmup: 'warm-ups',
  basic: 'engagement',
  doom_scroll: 'doom scrolling',
  basic_scroll: 'scrolling',
  branch_from_account: 'following from accounts',
  engage_comments: 'engaging with comments',
};

/**
 * Phone work no recipe can do, told to the person who does it by hand on the phone: why it is theirs, then the work
 * in words (caption, hashtags and media of a post; a routine's actions, keywords and today's allowance).
 */
export function byHandDescription(work: TaskWork): string {
  const target = recipeTarget(work);
  if (!target) return describeWork(work) ?? '';
  const platform = platformNames[target.platform as Platform] ?? target.platform;
  return [`No recipe automates ${routineWork[target.routine]} on ${platform}: do this on the phone by hand, then mark the task done.`, describeWork(work)]
    .filter(Boolean)
    .join('\n\n');
}
