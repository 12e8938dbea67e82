/**
 * Settings → Recipes: the shipped step recipes are templates; a workspace stores the ones it checked on its own
 * phones and app versions (validated by the agent's recipe schema), turns them on and off, and removes them.
 * Dispatched tasks carry the workspace's enabled recipes for their routine and platform (workers/src/tasks/recipes.ts).
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { recipe as recipeSchema, shippedRecipes, type Recipe } from '@farm/agent-protocol/recipes';
import {
  createRecipeBody,
  errorBody,
  idParams,
  recipeBreaker,
  recipeHealth,
  recipeList,
  recipeSentByHand,
  recipeSettings,
  shippedRecipeDetail,
  shippedRecipeParams,
  statsQuery,
  updateRecipeBody,
  workspaceRecipeDetail,
} from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { AppError, conflict, notFound } from '../../errors.ts';
import {
  deleteWorkspaceRecipe,
  findWorkspaceRecipe,
  insertWorkspaceRecipe,
  listWorkspaceRecipes,
  recipeSettingsOf,
  setStepShots,
  setTryUntestedTemplates,
  setWorkspaceRecipeEnabled,
  stepShotsOf,
  type WorkspaceRecipeRow,
} from './recipes.queries.ts';
import { write } from '../../events/write.ts';
import { recipeHealthOf } from './recipe-health.service.ts';
import { removeRecipeTraceFrames } from '../dryruns/dryruns.queries.ts';
import { lockQuota } from '../uploads/uploads.queries.ts';
import { shotsForSteps, shotsOfSteps } from './recipes.shots.ts';
import { automation, listPausedRecipes, Outboxes, resumeRecipe, sendPausedWorkToVAs } from '@farm/workers';

function summary(recipe: Recipe) {
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

/** The agent's recipe schema, with every problem named by where it is in the document. */
export function validRecipe(input: unknown): Recipe {
  const parsed = recipeSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues.slice(0, 20).map((issue) => ({ field: ['recipe', ...issue.path.map(String)].join('.'), message: issue.message }));
  const first = details[0]!;
  throw new AppError(400, `The recipe is not valid: ${first.field.replace(/^recipe\.?/, '') || 'the document'}: ${first.message}`, details);
}

export const recipesRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  app.get('/recipes', { config: { access: 'routines.manage' }, schema: { tags: ['recipes'], response: { 200: recipeList } } }, async (request) => {
    const { workspaceId } = actorOf(request);
    const [rows, breakers, settings] = await Promise.all([
      listWorkspaceRecipes(db, workspaceId),
      listPausedRecipes(db, workspaceId),
      recipeSettingsOf(db, workspaceId),
    ]);
    return { recipes: rows.map(toWorkspaceRecipe), shipped: shippedRecipes().map(summary), breakers, settings };
  });

  /**
   * The recipe health board: each recipe by app version over a range (analytics' ranges, 7d by default). VAs may read
   * it too: it names the workspace's phones and tasks, which they see anyway, and changes nothing.
   */
  app.get(
    '/recipes/health',
    {
      config: { access: 'workspace.read' },
      schema: { tags: ['recipes'], querystring: statsQuery, response: { 200: recipeHealth, 400: errorBody, 404: errorBody } },
    },
    async (request) => {
      const health = await recipeHealthOf(db, actorOf(request).workspaceId, request.query.range ?? '7d');
      if (!health) throw notFound();
      return health;
    },
  );

  /** A shipped recipe's document, to copy, check on the farm's phones, and add back as the workspace's own. */
  app.get(
    '/recipes/shipped/:name',
    {
      config: { access: 'routines.manage' },
      schema: { tags: ['recipes'], params: shippedRecipeParams, response: { 200: shippedRecipeDetail, 404: errorBody } },
    },
    async (request) => {
      const found = shippedRecipes().find((item) => item.id === request.params.name);
      if (!found) throw notFound();
      return { ...summary(found), body: found as unknown as Record<string, unknown> };
    },
  );

  app.get(
    '/recipes/:id',
    // A VA opens the drafts they recorded in the editor, to add waits, guards, counts and checks (saved as drafts).
    { config: { access: 'studio.work' }, schema: { tags: ['recipes'], params: idParams, response: { 200: workspaceRecipeDetail, 404: errorBody } } },
    async (request) => {
      const { workspaceId } = actorOf(request);
      const row = await findWorkspaceRecipe(db, workspaceId, request.params.id);
      if (!row) throw notFound();
      const shots = shotsForSteps(row.body, await stepShotsOf(db, workspaceId, row.id));
      return { ...toWorkspaceRecipe(row), body: row.body, ...(shots.some((shot) => shot !== null) ? { stepShots: shots } : {}) };
    },
  );

  app.post(
    '/recipes',
    {
      // A VA may save a recipe they recorded as a draft (turned off); only operators turn one on for automation.
      config: { access: 'studio.work' },
      schema: { tags: ['recipes'], body: createRecipeBody, response: { 201: workspaceRecipeDetail, 400: errorBody, 403: errorBody, 409: errorBody } },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      if (actor.role !== 'operator' && request.body.enabled !== false)
        throw new AppError(403, 'Only operators turn a recipe on for automation: save it as a draft');
      const recipe = validRecipe(request.body.recipe);
      const row = await write(app.ctx, actor.workspaceId, async (tx, outbox) => {
        const template = shippedRecipes().some((item) => item.id === recipe.id) ? recipe.id : null;
        const inserted = await insertWorkspaceRecipe(tx, actor.workspaceId, recipe, request.body.recipe, request.body.enabled ?? true, actor.userId, {
          basedOn: template,
        });
        if (!inserted) throw conflict(`This workspace already has version ${recipe.version} of ${recipe.id}: raise the recipe's version to add a new one`);
        if (request.body.stepShots?.length) {
          // Record's pictures of its steps: kept when they fit the storage quota; the draft is kept either way.
          const { shots, bytes } = shotsOfSteps(request.body.recipe, request.body.stepShots);
          const { fits } = await lockQuota(tx, actor.workspaceId, bytes, automation().storageQuotaBytes);
          if (fits && shots.length > 0) await setStepShots(tx, inserted.id, shots, bytes);
        }
        await outbox.record(
          { userId: actor.userId, action: `Recipe "${recipe.name}" (${recipe.id} v${recipe.version}) added`, type: 'info' },
          { action: 'recipe.created', entityType: 'recipe', entityId: inserted.id },
        );
        return inserted;
      });
      return reply.code(201).send({ ...toWorkspaceRecipe(row), body: row.body });
    },
  );

  app.patch(
    '/recipes/:id',
    {
      config: { access: 'routines.manage' },
      schema: { tags: ['recipes'], params: idParams, body: updateRecipeBody, response: { 200: workspaceRecipeDetail, 400: errorBody, 404: errorBody } },
    },
    async (request) => {
      const actor = actorOf(request);
      const row = await write(app.ctx, actor.workspaceId, async (tx, outbox) => {
        if (request.body.enabled) {
          const stored = await findWorkspaceRecipe(tx, actor.workspaceId, request.params.id);
          if (stored?.invalidReason)
            throw new AppError(
              400,
              `This recipe fails the schema at ${stored.invalidField ?? 'the document'}: ${stored.invalidReason}. Mend it and add it again as a new version.`,
              [{ field: 'enabled', message: 'The recipe is not valid' }],
            );
        }
        const updated = await setWorkspaceRecipeEnabled(tx, actor.workspaceId, request.params.id, request.body.enabled);
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
      return { ...toWorkspaceRecipe(row), body: row.body };
    },
  );

  /** Settings → Recipes: whether shipped templates may run on app versions no one verified. */
  app.put(
    '/recipes/settings',
    { config: { access: 'routines.manage' }, schema: { tags: ['recipes'], body: recipeSettings, response: { 200: recipeSettings, 400: errorBody } } },
    async (request) => {
      const actor = actorOf(request);
      const on = request.body.tryUntestedTemplates;
      await write(app.ctx, actor.workspaceId, async (tx, outbox) => {
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
    },
  );

  /** "Turn it back on": a paused recipe dispatches again on that app version, and its count starts over. */
  app.post(
    '/recipes/breakers/:id/resume',
    { config: { access: 'routines.manage' }, schema: { tags: ['recipes'], params: idParams, response: { 200: recipeBreaker, 404: errorBody } } },
    async (request) => {
      const actor = actorOf(request);
      const breaker = await write(app.ctx, actor.workspaceId, (tx, outbox) => resumeRecipe(tx, actor.workspaceId, request.params.id, actor.userId, outbox));
      if (!breaker) throw notFound();
      return breaker;
    },
  );

  /** "Send this work to VAs by hand": the waiting tasks of a paused recipe become their phones' VAs'. */
  app.post(
    '/recipes/breakers/:id/by-hand',
    { config: { access: 'routines.manage' }, schema: { tags: ['recipes'], params: idParams, response: { 200: recipeSentByHand, 404: errorBody } } },
    async (request) => {
      const actor = actorOf(request);
      const moved = await write(app.ctx, actor.workspaceId, (tx, outbox) =>
        sendPausedWorkToVAs(tx, actor.workspaceId, request.params.id, actor.userId, Outboxes.of(outbox)),
      );
      if (moved === undefined) throw notFound();
      return { tasks: moved };
    },
  );

  app.delete('/recipes/:id', { config: { access: 'routines.manage' }, schema: { tags: ['recipes'], params: idParams } }, async (request, reply) => {
    const actor = actorOf(request);
    const frames = await write(app.ctx, actor.workspaceId, async (tx, outbox) => {
      // Its dry runs go with it; their screenshots are stored objects, removed here so the quota lets them go too.
      const keys = await removeRecipeTraceFrames(tx, actor.workspaceId, request.params.id);
      const removed = await deleteWorkspaceRecipe(tx, actor.workspaceId, request.params.id);
      if (!removed) throw notFound();
      await outbox.record(
        { userId: actor.userId, action: `Recipe "${removed.name}" (${removed.recipeId} v${removed.version}) removed`, type: 'warning' },
        { action: 'recipe.deleted', entityType: 'recipe', entityId: removed.id },
      );
      return keys;
    });
    await app.ctx.storage.remove(frames);
    return reply.code(204).send();
  });
};
