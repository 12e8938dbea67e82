/**
 * Recipe versions (the recipe studio's editor): every save of a workspace recipe is a new row of its recipe id with
 * the next version, numbered by the server under a lock on that recipe's rows. The new version keeps the state of
 * the one it was saved from (on or off); when it is on, the other versions go off, so phones get one version of a
 * recipe id at a time. A VA saves drafts only, and only of recipes no version of which is sent to phones.
 */
import { shippedRecipes, type Recipe } from '@farm/agent-protocol/recipes';
import { AppError, conflict } from '../../errors.ts';
import type { WriteOutbox } from '../../events/write.ts';
import type { Tx } from '../../shared/types.ts';
import { copyStepShots, insertWorkspaceRecipe, lockRecipeVersions, turnOffOtherVersions, type WorkspaceRecipeRow } from './recipes.queries.ts';
import { diffLines, prettyRecipe } from './recipes.diff.ts';

export interface SaveVersion {
  workspaceId: string;
  userId: string;
  role: string;
  /** The version it is saved from. */
  from: WorkspaceRecipeRow;
  /** The edited document, validated (its version is replaced by the server's). */
  document: Record<string, unknown>;
  note?: string | undefined;
  /** A restore of `from` rather than a save of an edit. */
  restore?: boolean;
}

export const VA_DRAFTS_ONLY = 'Only operators change a recipe that is sent to phones: a VA saves drafts of recipes that are drafts';

/** The document with the server's version, its keys kept in the writer's order. */
export function withVersion(document: Record<string, unknown>, version: number): Record<string, unknown> {
  return { ...document, version };
}

/** Saves `document` as the next version of `from`'s recipe id; audited as a save or as a restore. */
export async function saveVersion(tx: Tx, outbox: WriteOutbox, input: SaveVersion, validate: (document: unknown) => Recipe): Promise<WorkspaceRecipeRow> {
  const { from, workspaceId } = input;
  const lock = await lockRecipeVersions(tx, workspaceId, from.recipeId);
  const operator = input.role === 'operator';
  if (!operator && lock.anyEnabled) throw new AppError(403, VA_DRAFTS_ONLY);
  const version = lock.latest + 1;
  const document = withVersion(input.document, version);
  const recipe = validate(document);
  // A restore takes the place of the version on (if any); an edit keeps the state of the version it was saved from.
  const enabled = operator && (input.restore ? lock.anyEnabled : from.enabled);
  const row = await insertWorkspaceRecipe(tx, workspaceId, recipe, document, enabled, input.userId, {
    basedOn: from.basedOn,
    basedOnVersion: from.version,
    note: input.note?.trim() || null,
  });
  if (!row) throw conflict(`Someone saved ${from.recipeId} at the same moment: reload the editor to see version ${version}, then save again`);
  // Recorded steps keep their screenshots in the versions saved from the draft.
  await copyStepShots(tx, from.id, row.id);
  if (enabled) await turnOffOtherVersions(tx, workspaceId, from.recipeId, row.id);
  await outbox.record(
    input.restore
      ? { userId: input.userId, action: `Recipe "${recipe.name}" v${from.version} restored as v${version}`, type: 'info' }
      : {
          userId: input.userId,
          action: `Recipe "${recipe.name}" (${recipe.id}) saved as v${version}${row.note ? `: ${row.note}` : ''}`,
          type: 'info',
        },
    {
      action: input.restore ? 'recipe.restored' : 'recipe.version_saved',
      entityType: 'recipe',
      entityId: row.id,
      data: { recipeId: recipe.id, version, from: from.version, enabled },
    },
  );
  return row;
}

/** The shipped template a recipe came from (or the one of its id), if the console ships one. */
export function templateOf(row: Pick<WorkspaceRecipeRow, 'basedOn' | 'recipeId'>) {
  const wanted = row.basedOn ?? row.recipeId;
  return shippedRecipes().find((item) => item.id === wanted) ?? null;
}

/** The compare of two documents: `from` (earlier) to `to` (this version), with counts of lines added and removed. */
export function compare(from: { label: string; id: string | null; body: unknown }, to: { label: string; id: string; body: unknown }) {
  const lines = diffLines(prettyRecipe(from.body), prettyRecipe(to.body));
  return {
    from: { label: from.label, id: from.id },
    to: { label: to.label, id: to.id },
    added: lines.filter((line) => line.kind === 'added').length,
    removed: lines.filter((line) => line.kind === 'removed').length,
    lines,
  };
}
