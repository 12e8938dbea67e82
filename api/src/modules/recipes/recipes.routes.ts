/**
 * Campaigns → Recipes: the shipped step recipes are templates; a workspace stores the ones it checked on its own
 * phones and app versions (validated by the agent's recipe schema), turns them on and off, and removes them.
 * Dispatched tasks carry the workspace's enabled recipes for their routine and platform (workers/src/tasks/recipes.ts).
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { recipeEvidence, shippedRecipes, unverifiedClaims } from '@farm/agent-protocol/recipes';
import {
  createRecipeBody,
  errorBody,
  idParams,
  languageHeldPhones,
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
import { listPausedRecipes } from '@farm/workers';
import { actorOf } from '../../auth/auth.plugin.ts';
import { notFound } from '../../errors.ts';
import { recipeHealthOf } from './recipe-health.service.ts';
import { languageHeldPhones as heldByLanguage } from './recipe-language.service.ts';
import { findWorkspaceRecipe, listWorkspaceRecipes, recipeSettingsOf, stepShotsOf } from './recipes.queries.ts';
import {
  addRecipe,
  removeRecipe,
  resumeBreaker,
  sendBreakerWorkByHand,
  setRecipeEnabled,
  setRecipeSettings,
  summary,
  toRecipeDetail,
  toWorkspaceRecipe,
} from './recipes.service.ts';
import { shotsForSteps } from './recipes.shots.ts';

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

  /**
   * The phones held back by their language: their latest run of an app in the last week ended `language_untested`,
   * each with the recipe, the languages it covers and what to do (set the phone's language, or verify the recipe).
   */
  app.get(
    '/recipes/held-by-language',
    { config: { access: 'routines.manage' }, schema: { tags: ['recipes'], response: { 200: languageHeldPhones } } },
    async (request) => heldByLanguage(db, actorOf(request).workspaceId),
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
      const evidence = recipeEvidence(found).map((entry) => ({
        where: entry.element ? `${entry.element}${entry.path.slice(`elements.${entry.element}`.length)}` : entry.path,
        match: entry.match,
        role: entry.role,
        verified: entry.unverified === null,
        source: entry.evidence,
        unverified: entry.unverified,
      }));
      return { ...summary(found), body: found as unknown as Record<string, unknown>, evidence, heldBack: unverifiedClaims(found) };
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
      return { ...toRecipeDetail(row), ...(shots.some((shot) => shot !== null) ? { stepShots: shots } : {}) };
    },
  );

  app.post(
    '/recipes',
    {
      // A VA may save a recipe they recorded as a draft (turned off); only operators turn one on for automation.
      config: { access: 'studio.work' },
      schema: { tags: ['recipes'], body: createRecipeBody, response: { 201: workspaceRecipeDetail, 400: errorBody, 403: errorBody, 409: errorBody } },
    },
    async (request, reply) => reply.code(201).send(toRecipeDetail(await addRecipe(app.ctx, actorOf(request), request.body))),
  );

  app.patch(
    '/recipes/:id',
    {
      config: { access: 'routines.manage' },
      schema: { tags: ['recipes'], params: idParams, body: updateRecipeBody, response: { 200: workspaceRecipeDetail, 400: errorBody, 404: errorBody } },
    },
    async (request) => toRecipeDetail(await setRecipeEnabled(app.ctx, actorOf(request), request.params.id, request.body.enabled)),
  );

  /** Campaigns → Recipes: whether shipped templates may run on app versions no one verified. */
  app.put(
    '/recipes/settings',
    { config: { access: 'routines.manage' }, schema: { tags: ['recipes'], body: recipeSettings, response: { 200: recipeSettings, 400: errorBody } } },
    async (request) => setRecipeSettings(app.ctx, actorOf(request), request.body),
  );

  /** "Turn it back on": a paused recipe dispatches again on that app version, and its count starts over. */
  app.post(
    '/recipes/breakers/:id/resume',
    { config: { access: 'routines.manage' }, schema: { tags: ['recipes'], params: idParams, response: { 200: recipeBreaker, 404: errorBody } } },
    async (request) => resumeBreaker(app.ctx, actorOf(request), request.params.id),
  );

  /** "Send this work to VAs by hand": the waiting tasks of a paused recipe become their phones' VAs'. */
  app.post(
    '/recipes/breakers/:id/by-hand',
    { config: { access: 'routines.manage' }, schema: { tags: ['recipes'], params: idParams, response: { 200: recipeSentByHand, 404: errorBody } } },
    async (request) => ({ tasks: await sendBreakerWorkByHand(app.ctx, actorOf(request), request.params.id) }),
  );

  app.delete('/recipes/:id', { config: { access: 'routines.manage' }, schema: { tags: ['recipes'], params: idParams } }, async (request, reply) => {
    await removeRecipe(app.ctx, actorOf(request), request.params.id);
    return reply.code(204).send();
  });
};
