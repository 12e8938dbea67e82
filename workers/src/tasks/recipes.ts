/**
 * The recipes a workspace chose for a piece of work. A farm checks the shipped recipes on its own phones and app
 * versions and stores what works (`workspace_recipes`, validated by the recipe schema); a dispatched task carries the
 * workspace's enabled recipes for its routine and platform, and the phone picks among them by its app version
 * (a workspace recipe wins over a shipped one; see agent-protocol's recipe resolver).
 */
import { sql } from 'kysely';
import { parseRecipe, resolveRecipe, type Recipe, type RecipePlatform, type RoutineType } from '@farm/agent-protocol/recipes';
import type { TaskWork } from '@farm/agent-protocol/work';
import type { Db } from '../db.ts';

/** At most this many recipes travel with one task (one per app version range is the use; 20 is plenty). */
export const MAX_RECIPES_PER_TASK = 20;

/** The workspace's enabled recipes for this routine on this platform, newest version first. */
export async function workspaceRecipesFor(db: Db, workspaceId: string, platform: string, routine: RoutineType): Promise<Recipe[]> {
  const rows = await db
    .selectFrom('workspaceRecipes')
    // As text: the database layer would rename the document's keys to camelCase (element names are snake_case).
    .select(sql<string>`body::text`.as('body'))
    .where('workspaceId', '=', workspaceId)
    .where('platform', '=', platform as RecipePlatform)
    .where('enabled', '=', true)
    .where(sql<boolean>`${routine} = any(routines)`)
    .orderBy('version', 'desc')
    .limit(MAX_RECIPES_PER_TASK)
    .execute();
  const recipes: Recipe[] = [];
  for (const row of rows) {
    // Stored only after validation; a body an older schema accepted and this one does not is left out, not sent.
    const parsed = parseRecipe(JSON.parse(row.body));
    if (parsed.ok) recipes.push(parsed.recipe);
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
 * The work with the workspace's recipes for it: `recipes` for the phone to choose from by its app version, and
 * `recipe` (routine runs) the one it would pick without knowing the version, for agents that read only that field.
 */
export async function withWorkspaceRecipes(db: Db, workspaceId: string, work: TaskWork): Promise<TaskWork> {
  const target = recipeTarget(work);
  if (!target || work.kind === 'manual') return work;
  const own = await workspaceRecipesFor(db, workspaceId, target.platform, target.routine);
  if (own.length === 0) return work;
  if (work.kind === 'routine.run') {
    const chosen = resolveRecipe({ routine: target.routine, platform: target.platform as RecipePlatform }, own, []);
    return { ...work, recipes: own, recipe: chosen?.recipe ?? work.recipe };
  }
  return { ...work, recipes: own };
}
