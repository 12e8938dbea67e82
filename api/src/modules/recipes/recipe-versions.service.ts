/**
 * Recipe versions (the recipe studio's editor): every save of a workspace recipe is a new row of its recipe id with
 * the next version, numbered by the server under a lock on that recipe's rows. The new version keeps the state of
 * the one it was saved from (on or off); when it is on, the other versions go off, so phones get one version of a
 * recipe id at a time. A VA saves drafts only, and only of recipes no version of which is sent to phones.
 */
import type { z } from 'zod';
import { shippedRecipes, type Recipe } from '@farm/agent-protocol/recipes';
import type { saveRecipeVersionBody } from '@farm/contracts';
import { AppError, conflict, notFound } from '../../errors.ts';
import { write, type WriteContext, type WriteOutbox } from '../../events/write.ts';
import type { Actor, Tx } from '../../shared/types.ts';
import {
  copyStepShots,
  findWorkspaceRecipe,
  insertWorkspaceRecipe,
  lockRecipeVersions,
  turnOffOtherVersions,
  type WorkspaceRecipeRow,
} from './recipes.queries.ts';
import { diffLines, prettyRecipe } from './recipes.diff.ts';
import { validRecipe } from './recipes.service.ts';

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
async function saveVersion(tx: Tx, outbox: WriteOutbox, input: SaveVersion, validate: (document: unknown) => Recipe): Promise<WorkspaceRecipeRow> {
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

/** Saves an edit of a recipe as its next version; the recipe's id stays (another id is a new recipe). */
export function saveEdit(ctx: WriteContext, actor: Actor, id: string, body: z.output<typeof saveRecipeVersionBody>): Promise<WorkspaceRecipeRow> {
  const { recipe: document, note } = body;
  return write(ctx, actor.workspaceId, async (tx, outbox) => {
    const from = await findWorkspaceRecipe(tx, actor.workspaceId, id);
    if (!from) throw notFound();
    if (document.id !== from.recipeId) {
      const sentence = `The recipe's id must stay ${from.recipeId}: a recipe with another id is a new recipe, added in Campaigns → Recipes`;
      throw new AppError(400, sentence, [{ field: 'recipe.id', message: sentence }]);
    }
    return saveVersion(tx, outbox, { workspaceId: actor.workspaceId, userId: actor.userId, role: actor.role, from, document, note }, validRecipe);
  });
}

/** Restores an earlier version as the newest; one the current rules refuse cannot be restored as it is. */
export function restoreVersion(ctx: WriteContext, actor: Actor, id: string): Promise<WorkspaceRecipeRow> {
  return write(ctx, actor.workspaceId, async (tx, outbox) => {
    const from = await findWorkspaceRecipe(tx, actor.workspaceId, id);
    if (!from) throw notFound();
    const restore = (document: unknown) => {
      try {
        return validRecipe(document);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        throw new AppError(400, `Version ${from.version} fails the recipe schema, so it cannot be restored as it is: ${error.message}`, error.details);
      }
    };
    return saveVersion(
      tx,
      outbox,
      { workspaceId: actor.workspaceId, userId: actor.userId, role: actor.role, from, document: from.body, restore: true },
      restore,
    );
  });
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
