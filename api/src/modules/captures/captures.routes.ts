/**
 * The recipe studio's saved Inspect captures: `GET /api/ui-captures` (filter by package, screen name, phone),
 * `GET /api/ui-captures/{id}` with its tree, `POST /api/ui-captures` (operators; a VA for the phones assigned to
 * them), `DELETE /api/ui-captures/{id}` (operators; a VA their own), and `POST /api/ui-captures/check`: which saved
 * captures of a screen a selector still finds its node on. A capture is read by whoever may control its phone, as
 * live Inspect (screens.rules.ts): a VA lists and checks the captures of their phones only.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  checkSelectorBody,
  createUiCaptureBody,
  errorBody,
  idParams,
  selectorCheck,
  uiCaptureDetail,
  uiCaptureListQuery,
  uiCaptureSummary,
} from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { notFound } from '../../errors.ts';
import { assertMaySeeScreens, screensViewer } from '../usage/screens.rules.ts';
import { findCapture, listCaptures } from './captures.queries.ts';
import { checkAcrossCaptures, removeCapture, saveCapture, toDetail, toSummary } from './captures.service.ts';

export const capturesRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  app.get(
    '/ui-captures',
    {
      config: { access: 'workspace.read' },
      schema: { tags: ['studio'], querystring: uiCaptureListQuery, response: { 200: z.array(uiCaptureSummary), 400: errorBody } },
    },
    async (request) => {
      const actor = actorOf(request);
      return (await listCaptures(db, actor.workspaceId, request.query, screensViewer(actor))).map(toSummary);
    },
  );

  app.get(
    '/ui-captures/:id',
    {
      config: { access: 'workspace.read' },
      schema: { tags: ['studio'], params: idParams, response: { 200: uiCaptureDetail, 403: errorBody, 404: errorBody } },
    },
    async (request) => {
      const actor = actorOf(request);
      const row = await findCapture(db, actor.workspaceId, request.params.id).catch(() => undefined);
      if (!row) throw notFound();
      assertMaySeeScreens(actor, row.deviceId ? { assignedToId: row.deviceAssignedToId ?? null } : null);
      return toDetail(row);
    },
  );

  app.post(
    '/ui-captures',
    {
      config: { access: 'studio.work' },
      bodyLimit: 6 * 1024 * 1024,
      schema: { tags: ['studio'], body: createUiCaptureBody, response: { 201: uiCaptureDetail, 400: errorBody, 403: errorBody, 413: errorBody } },
    },
    async (request, reply) => reply.code(201).send(await saveCapture(app.ctx, actorOf(request), request.body)),
  );

  app.delete('/ui-captures/:id', { config: { access: 'studio.work' }, schema: { tags: ['studio'], params: idParams } }, async (request, reply) => {
    await removeCapture(app.ctx, actorOf(request), request.params.id);
    return reply.code(204).send();
  });

  app.post(
    '/ui-captures/check',
    { config: { access: 'workspace.read' }, schema: { tags: ['studio'], body: checkSelectorBody, response: { 200: selectorCheck, 400: errorBody } } },
    async (request) => {
      const actor = actorOf(request);
      return checkAcrossCaptures(db, actor.workspaceId, request.body, screensViewer(actor));
    },
  );
};
