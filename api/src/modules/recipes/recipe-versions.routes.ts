/**
 * The recipe editor's versions: list the versions of a recipe, save an edit as the next one, compare two documents
 * (or a version and the shipped template it came from) line by line, and restore an earlier version as the newest.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody, idParams, recipeDiff, recipeDiffQuery, recipeVersionList, saveRecipeVersionBody, workspaceRecipeDetail } from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { AppError, notFound } from '../../errors.ts';
import { findWorkspaceRecipe, listRecipeVersions } from './recipes.queries.ts';
import { toRecipeDetail } from './recipes.service.ts';
import { compare, restoreVersion, saveEdit, templateOf } from './recipe-versions.service.ts';

export const recipeVersionsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  app.get(
    '/recipes/:id/versions',
    {
      config: { access: 'studio.work' },
      schema: { tags: ['recipes'], params: idParams, response: { 200: recipeVersionList, 404: errorBody } },
    },
    async (request) => {
      const { workspaceId } = actorOf(request);
      const row = await findWorkspaceRecipe(db, workspaceId, request.params.id);
      if (!row) throw notFound();
      const versions = await listRecipeVersions(db, workspaceId, row.recipeId);
      return {
        recipeId: row.recipeId,
        versions: versions.map((item) => ({
          id: item.id,
          version: item.version,
          name: item.name,
          enabled: item.enabled,
          createdAt: item.createdAt.toISOString(),
          savedBy: item.savedBy,
          note: item.note,
          basedOn: item.basedOn,
          basedOnVersion: item.basedOnVersion,
          invalid: item.invalidReason ? { field: item.invalidField ?? 'the document', reason: item.invalidReason } : null,
        })),
      };
    },
  );

  app.post(
    '/recipes/:id/versions',
    {
      // A VA saves drafts of draft recipes (what they recorded); operators save any, keeping its state (on or off).
      config: { access: 'studio.work' },
      schema: {
        tags: ['recipes'],
        params: idParams,
        body: saveRecipeVersionBody,
        response: { 201: workspaceRecipeDetail, 400: errorBody, 403: errorBody, 404: errorBody, 409: errorBody },
      },
    },
    async (request, reply) => reply.code(201).send(toRecipeDetail(await saveEdit(app.ctx, actorOf(request), request.params.id, request.body))),
  );

  app.get(
    '/recipes/:id/diff',
    {
      config: { access: 'studio.work' },
      schema: { tags: ['recipes'], params: idParams, querystring: recipeDiffQuery, response: { 200: recipeDiff, 400: errorBody, 404: errorBody } },
    },
    async (request) => {
      const { workspaceId } = actorOf(request);
      const row = await findWorkspaceRecipe(db, workspaceId, request.params.id);
      if (!row) throw notFound();
      const to = { label: `v${row.version}`, id: row.id, body: row.body };
      const against = request.query.against.toLowerCase();
      if (against === 'shipped') {
        const template = templateOf(row);
        if (!template) {
          const sentence = `${row.recipeId} came from no shipped template: compare it against one of its versions`;
          throw new AppError(400, sentence, [{ field: 'against', message: sentence }]);
        }
        return compare({ label: `Shipped template ${template.id} v${template.version}`, id: null, body: template }, to);
      }
      const other = await findWorkspaceRecipe(db, workspaceId, against);
      if (!other) {
        const sentence = "Compare against one of this workspace's recipe versions";
        throw new AppError(400, sentence, [{ field: 'against', message: sentence }]);
      }
      return compare(
        { label: other.recipeId === row.recipeId ? `v${other.version}` : `${other.recipeId} v${other.version}`, id: other.id, body: other.body },
        to,
      );
    },
  );

  app.post(
    '/recipes/:id/restore',
    {
      config: { access: 'routines.manage' },
      schema: { tags: ['recipes'], params: idParams, response: { 201: workspaceRecipeDetail, 400: errorBody, 404: errorBody, 409: errorBody } },
    },
    async (request, reply) => reply.code(201).send(toRecipeDetail(await restoreVersion(app.ctx, actorOf(request), request.params.id))),
  );
};
