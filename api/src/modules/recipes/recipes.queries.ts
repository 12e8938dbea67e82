/** A workspace's own step recipes in the database (their bodies validated before they are written). */
import { sql, type Selectable } from 'kysely';
import type { Recipe } from '@farm/agent-protocol/recipes';
import type { WorkspaceRecipesTable } from '@farm/sql';
import type { Db, Tx } from '../../shared/types.ts';

/** A row with its document as written: read as text, since the database layer renames JSON keys to camelCase. */
export type WorkspaceRecipeRow = Omit<Selectable<WorkspaceRecipesTable>, 'body'> & { body: Record<string, unknown> };

const columns = ['id', 'workspaceId', 'recipeId', 'version', 'name', 'platform', 'routines', 'enabled', 'createdById', 'createdAt', 'updatedAt'] as const;
const bodyText = sql<string>`body::text`.as('bodyText');
const withBody = <R extends { bodyText: string }>(row: R | undefined): (Omit<R, 'bodyText'> & { body: Record<string, unknown> }) | undefined => {
  if (!row) return undefined;
  const { bodyText: text, ...rest } = row;
  return { ...rest, body: JSON.parse(text) as Record<string, unknown> };
};

export async function listWorkspaceRecipes(db: Db, workspaceId: string): Promise<WorkspaceRecipeRow[]> {
  const rows = await db
    .selectFrom('workspaceRecipes')
    .select([...columns, bodyText])
    .where('workspaceId', '=', workspaceId)
    .orderBy('platform')
    .orderBy('recipeId')
    .orderBy('version', 'desc')
    .execute();
  return rows.map((row) => withBody(row)!);
}

export async function findWorkspaceRecipe(db: Db | Tx, workspaceId: string, id: string): Promise<WorkspaceRecipeRow | undefined> {
  return withBody(
    await db
      .selectFrom('workspaceRecipes')
      .select([...columns, bodyText])
      .where('workspaceId', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst(),
  );
}

/**
 * Stores a recipe as it was written (`document`, which `recipe` is the validated reading of: phones validate it
 * again with the same schema); answers nothing when the workspace already has this id at this version.
 */
export function insertWorkspaceRecipe(
  tx: Tx,
  workspaceId: string,
  recipe: Recipe,
  document: Record<string, unknown>,
  enabled: boolean,
  userId: string,
): Promise<WorkspaceRecipeRow | undefined> {
  return tx
    .insertInto('workspaceRecipes')
    .values({
      workspaceId,
      recipeId: recipe.id,
      version: recipe.version,
      name: recipe.name,
      platform: recipe.platform,
      routines: recipe.routines,
      body: JSON.stringify(document),
      enabled,
      createdById: userId,
    })
    .onConflict((oc) => oc.columns(['workspaceId', 'recipeId', 'version']).doNothing())
    .returning([...columns, bodyText])
    .executeTakeFirst()
    .then(withBody);
}

export async function setWorkspaceRecipeEnabled(tx: Tx, workspaceId: string, id: string, enabled: boolean): Promise<WorkspaceRecipeRow | undefined> {
  return withBody(
    await tx
      .updateTable('workspaceRecipes')
      .set({ enabled, updatedAt: new Date() })
      .where('workspaceId', '=', workspaceId)
      .where('id', '=', id)
      .returning([...columns, bodyText])
      .executeTakeFirst(),
  );
}

export async function deleteWorkspaceRecipe(tx: Tx, workspaceId: string, id: string): Promise<WorkspaceRecipeRow | undefined> {
  return withBody(
    await tx
      .deleteFrom('workspaceRecipes')
      .where('workspaceId', '=', workspaceId)
      .where('id', '=', id)
      .returning([...columns, bodyText])
      .executeTakeFirst(),
  );
}
