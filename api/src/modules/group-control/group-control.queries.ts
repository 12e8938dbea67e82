/**
 * What group control's rules read of a workspace: the packages operators added, those its recipes and the shipped
 * templates drive, and those of its app library (the only Play Store pages a group may open).
 */
import { sql } from 'kysely';
import type { GroupLists } from '@farm/agent-protocol';
import { recipeApps } from '@farm/agent-protocol/recipes';
import type { Db, Tx } from '../../shared/types.ts';

export async function groupListsOf(db: Db, workspaceId: string): Promise<GroupLists> {
  const [workspace, recipes, library] = await Promise.all([
    db.selectFrom('workspaces').select('groupControlPackages').where('id', '=', workspaceId).executeTakeFirst(),
    db
      .selectFrom('workspaceRecipes')
      .select(sql<string | null>`body -> 'app' ->> 'package'`.as('package'))
      .select(sql<string[] | null>`array(select jsonb_array_elements_text(coalesce(body -> 'app' -> 'packages', '[]'::jsonb)))`.as('packages'))
      .where('workspaceId', '=', workspaceId)
      .execute(),
    db.selectFrom('appVersions').select('package').distinct().where('workspaceId', '=', workspaceId).execute(),
  ]);
  // The shipped templates' apps count even where no workspace recipe copies them: any workspace may run them.
  const recipePackages = new Set<string>(recipeApps());
  for (const row of recipes) {
    if (row.package) recipePackages.add(row.package);
    for (const name of row.packages ?? []) recipePackages.add(name);
  }
  return {
    added: workspace?.groupControlPackages ?? [],
    recipePackages: [...recipePackages],
    appLibrary: library.map((row) => row.package),
  };
}

/** Replaces the added packages; answers the list before (locked, so two operators' saves do not interleave). */
export async function setGroupControlPackages(tx: Tx, workspaceId: string, packages: string[]): Promise<string[]> {
  const before = await tx.selectFrom('workspaces').select('groupControlPackages').where('id', '=', workspaceId).forUpdate().executeTakeFirstOrThrow();
  await tx.updateTable('workspaces').set({ groupControlPackages: packages, updatedAt: new Date() }).where('id', '=', workspaceId).execute();
  return before.groupControlPackages;
}
