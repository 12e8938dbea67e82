/**
 * A workspace's recipes: added (validated by the agent's recipe schema; a VA's are drafts), turned on and off,
 * removed with their dry runs, the workspace's template setting, and the recipe breakers resumed or their work sent
 * to VAs. Every write is one `write()`, in the feed and the audit log. At start, every stored recipe is read again
 * with the current (stricter) schema, and one that fails is turned off with the field and the reason, never dropped:
 * the farm sees it in Campaigns → Recipes, mends it and adds it again.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import { RECIPE_RULES_REVISION, recipe as recipeSchema, shippedRecipes, type Recipe } from '@farm/agent-protocol/recipes';
import type { createRecipeBody, RecipeBreaker, RecipeSettings } from '@farm/contracts';
import { automation, Outboxes, resumeRecipe, sendPausedWorkToVAs } from '@farm/workers';
import { AppError, conflict, notFound } from '../../errors.ts';
import { write, writeAcross, type WriteContext } from '../../events/write.ts';
import type { Actor } from '../../shared/types.ts';
import type { Storage } from '../../storage/storage.ts';
import { removeRecipeTraceFrames } from '../dryruns/dryruns.queries.ts';
import { lockQuota } from '../uploads/uploads.queries.ts';
import {
  deleteWorkspaceRecipe,
  findWorkspaceRecipe,
  insertWorkspaceRecipe,
  markRecipeInvalid,
  markRecipesChecked,
  setStepShots,
  setTryUntestedTemplates,
  setWorkspaceRecipeEnabled,
  storedRecipesToCheck,
  type WorkspaceRecipeRow,
} from './recipes.queries.ts';
import { shotsOfSteps } from './recipes.shots.ts';

/** What Campaigns → Recipes lists of a recipe, shipped or the workspace's. */
export function summary(recipe: Recipe) {
  return {
    recipeId: recipe.id,
    version: recipe.version,
    name: recipe.name,
    platform: recipe.platform,
    routines: recipe.routines,
    appPackage: recipe.app.package,
    writtenFor: recipe.app.writtenFor,
    minVersion: recipe.app.minVersion ?? null,
    belowVersion: recipe.app.belowVersion ?? null,
    verified: recipe.verified,
  };
}

/**
 * A stored recipe's summary, read through the schema's defaults; one the current rules refuse (turned off at start)
 * is summed up from its row and what of its document reads, so the list still shows it with its reason.
 */
function storedSummary(row: WorkspaceRecipeRow): ReturnType<typeof summary> {
  const parsed = recipeSchema.safeParse(row.body);
  if (parsed.success) return summary(parsed.data);
  const app = typeof row.body.app === 'object' && row.body.app !== null ? (row.body.app as Record<string, unknown>) : {};
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return {
    recipeId: row.recipeId,
    version: row.version,
    name: row.name,
    platform: row.platform,
    routines: row.routines,
    appPackage: text(app.package) ?? '',
    writtenFor: text(app.writtenFor) ?? '',
    minVersion: text(app.minVersion),
    belowVersion: text(app.belowVersion),
    verified: false,
  };
}

export function toWorkspaceRecipe(row: WorkspaceRecipeRow) {
  return {
    ...storedSummary(row),
    id: row.id,
    enabled: row.enabled,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    invalid: row.invalidReason ? { field: row.invalidField ?? 'the document', reason: row.invalidReason } : null,
    basedOn: row.basedOn,
  };
}

/** A workspace recipe with its document, as the editor opens it. */
export function toRecipeDetail(row: WorkspaceRecipeRow) {
  return { ...toWorkspaceRecipe(row), body: row.body };
}

/** The agent's recipe schema, with every problem named by where it is in the document. */
export function validRecipe(input: unknown): Recipe {
  const parsed = recipeSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues.slice(0, 20).map((issue) => ({ field: ['recipe', ...issue.path.map(String)].join('.'), message: issue.message }));
  const first = details[0]!;
  throw new AppError(400, `The recipe is not valid: ${first.field.replace(/^recipe\.?/, '') || 'the document'}: ${first.message}`, details);
}

/**
 * Adds a recipe to the workspace (a VA's as a draft, turned off), with Record's pictures of its steps when they fit
 * the storage quota; a version the workspace already has is refused.
 */
export async function addRecipe(ctx: WriteContext, actor: Actor, body: z.output<typeof createRecipeBody>): Promise<WorkspaceRecipeRow> {
  if (actor.role !== 'operator' && body.enabled !== false) throw new AppError(403, 'Only operators turn a recipe on for automation: save it as a draft');
  const recipe = validRecipe(body.recipe);
  return write(ctx, actor.workspaceId, async (tx, outbox) => {
    const template = shippedRecipes().some((item) => item.id === recipe.id) ? recipe.id : null;
    const inserted = await insertWorkspaceRecipe(tx, actor.workspaceId, recipe, body.recipe, body.enabled ?? true, actor.userId, { basedOn: template });
    if (!inserted) throw conflict(`This workspace already has version ${recipe.version} of ${recipe.id}: raise the recipe's version to add a new one`);
    if (body.stepShots?.length) {
      // Record's pictures of its steps: kept when they fit the storage quota; the draft is kept either way.
      const { shots, bytes } = shotsOfSteps(body.recipe, body.stepShots);
      const { fits } = await lockQuota(tx, actor.workspaceId, bytes, automation().storageQuotaBytes);
      if (fits && shots.length > 0) await setStepShots(tx, inserted.id, shots, bytes);
    }
    await outbox.record(
      { userId: actor.userId, action: `Recipe "${recipe.name}" (${recipe.id} v${recipe.version}) added`, type: 'info' },
      { action: 'recipe.created', entityType: 'recipe', entityId: inserted.id },
    );
    return inserted;
  });
}

/** Turns a recipe on or off for automation; one the current rules refuse is not turned on. */
export async function setRecipeEnabled(ctx: WriteContext, actor: Actor, id: string, enabled: boolean): Promise<WorkspaceRecipeRow> {
  return write(ctx, actor.workspaceId, async (tx, outbox) => {
    if (enabled) {
      const stored = await findWorkspaceRecipe(tx, actor.workspaceId, id);
      if (stored?.invalidReason)
        throw new AppError(
          400,
          `This recipe fails the schema at ${stored.invalidField ?? 'the document'}: ${stored.invalidReason}. Mend it and add it again as a new version.`,
          [{ field: 'enabled', message: 'The recipe is not valid' }],
        );
    }
    const updated = await setWorkspaceRecipeEnabled(tx, actor.workspaceId, id, enabled);
    if (!updated) throw notFound();
    await outbox.record(
      {
        userId: actor.userId,
        action: `Recipe "${updated.name}" (${updated.recipeId} v${updated.version}) turned ${updated.enabled ? 'on' : 'off'}`,
        type: 'info',
      },
      { action: 'recipe.updated', entityType: 'recipe', entityId: updated.id },
    );
    return updated;
  });
}

/** Campaigns → Recipes: whether shipped templates may run on app versions no one verified; a change is in the feed. */
export async function setRecipeSettings(ctx: WriteContext, actor: Actor, settings: RecipeSettings): Promise<RecipeSettings> {
  const on = settings.tryUntestedTemplates;
  await write(ctx, actor.workspaceId, async (tx, outbox) => {
    if (!(await setTryUntestedTemplates(tx, actor.workspaceId, on))) return;
    await outbox.record(
      {
        userId: actor.userId,
        action: on
          ? 'Shipped recipe templates may now run on app versions no one verified'
          : 'Shipped recipe templates run only on tested or verified app versions',
        type: on ? 'warning' : 'info',
      },
      { action: 'recipes.settings', entityType: 'workspace', entityId: actor.workspaceId, data: { tryUntestedTemplates: on } },
    );
  });
  return { tryUntestedTemplates: on };
}

/** "Turn it back on": a paused recipe dispatches again on that app version, and its count starts over. */
export async function resumeBreaker(ctx: WriteContext, actor: Actor, breakerId: string): Promise<RecipeBreaker> {
  const breaker = await write(ctx, actor.workspaceId, (tx, outbox) => resumeRecipe(tx, actor.workspaceId, breakerId, actor.userId, outbox));
  if (!breaker) throw notFound();
  return breaker;
}

/** "Send this work to VAs by hand": the waiting tasks of a paused recipe become their phones' VAs'; answers how many. */
export async function sendBreakerWorkByHand(ctx: WriteContext, actor: Actor, breakerId: string): Promise<number> {
  const moved = await write(ctx, actor.workspaceId, (tx, outbox) => sendPausedWorkToVAs(tx, actor.workspaceId, breakerId, actor.userId, Outboxes.of(outbox)));
  if (moved === undefined) throw notFound();
  return moved;
}

/** Removes a recipe with its dry runs; their screenshots are stored objects, removed after commit. */
export async function removeRecipe(ctx: WriteContext & { storage: Storage }, actor: Actor, id: string): Promise<void> {
  const frames = await write(ctx, actor.workspaceId, async (tx, outbox) => {
    // Its dry runs go with it; their screenshots are stored objects, removed here so the quota lets them go too.
    const keys = await removeRecipeTraceFrames(tx, actor.workspaceId, id);
    const removed = await deleteWorkspaceRecipe(tx, actor.workspaceId, id);
    if (!removed) throw notFound();
    await outbox.record(
      { userId: actor.userId, action: `Recipe "${removed.name}" (${removed.recipeId} v${removed.version}) removed`, type: 'warning' },
      { action: 'recipe.deleted', entityType: 'recipe', entityId: removed.id },
    );
    return keys;
  });
  await ctx.storage.remove(frames);
}

/** The first problem the schema finds: where (dotted, from the document's root) and why. */
export function firstRecipeProblem(input: unknown): { field: string; reason: string } | null {
  const parsed = recipeSchema.safeParse(input);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0]!;
  return { field: issue.path.map(String).join('.') || 'the document', reason: issue.message };
}

/**
 * Reads the stored recipes again with the current schema and turns off, with the field and the reason, each one it
 * now refuses (a pattern RE2 cannot run, media in defaults, an activity that is not a class name); each turned off
 * leaves a warning in the feed and a `recipe.invalid` entry in the audit log. Run once at start, and by anything that
 * tightens the rules at run time. Idempotent: a recipe already marked for the same reason is not written again, and
 * a recipe the current rules' revision passed is not read again (so a restart with nothing changed reads no
 * document); `all` reads every one regardless. Answers how many were turned off now.
 */
export async function checkStoredRecipes(
  ctx: WriteContext,
  log: FastifyBaseLogger,
  scope: { workspaceId?: string | undefined; all?: boolean | undefined } = {},
): Promise<number> {
  const stored = await storedRecipesToCheck(ctx.db, RECIPE_RULES_REVISION, scope);
  const passed: string[] = [];
  let disabled = 0;
  for (const row of stored) {
    const problem = firstRecipeProblem(row.body);
    if (!problem) {
      passed.push(row.id);
      continue;
    }
    const marked = await write(ctx, row.workspaceId, async (tx, outbox) => {
      const done = await markRecipeInvalid(tx, row.id, RECIPE_RULES_REVISION, problem.field, problem.reason);
      if (done)
        await outbox.record(
          {
            userId: null,
            action: `Recipe "${done.name}" (${done.recipeId} v${done.version}) turned off: this version of the console refuses it at ${problem.field}: ${problem.reason}`,
            type: 'warning',
          },
          { action: 'recipe.invalid', entityType: 'recipe', entityId: done.id, data: problem },
        );
      return done;
    });
    if (marked) {
      disabled += 1;
      log.warn({ recipe: row.id, field: problem.field }, 'stored recipe fails the schema: turned off');
    }
  }
  if (passed.length > 0) await writeAcross(ctx, (tx) => markRecipesChecked(tx, passed, RECIPE_RULES_REVISION));
  return disabled;
}
