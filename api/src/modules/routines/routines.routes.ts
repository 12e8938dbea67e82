/**
 * A campaign's routines and its sessions: everyone in the workspace reads them; operators add, change and delete
 * routines (the rules in routines.service.ts).
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  campaignSession,
  campaignSessionListQuery,
  createRoutineBody,
  errorBody,
  idParams,
  routine,
  routineListQuery,
  updateRoutineBody,
} from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { serialize } from '../../shared/serialize.ts';
import { listCampaignSessions, listRoutines } from './routines.queries.ts';
import { changeRoutine, createRoutine, removeRoutine, toRoutine } from './routines.service.ts';

export const routinesRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  app.get(
    '/routines',
    { config: { access: 'workspace.read' }, schema: { tags: ['routines'], querystring: routineListQuery, response: { 200: z.array(routine) } } },
    async (request) => {
      const rows = await listRoutines(db, actorOf(request).workspaceId, request.query.campaignId);
      return rows.map(toRoutine);
    },
  );

  app.post(
    '/routines',
    { config: { access: 'routines.manage' }, schema: { tags: ['routines'], body: createRoutineBody, response: { 201: routine, 400: errorBody } } },
    async (request, reply) => reply.code(201).send(toRoutine(await createRoutine(app.ctx, actorOf(request), request.body))),
  );

  app.patch(
    '/routines/:id',
    {
      config: { access: 'routines.manage' },
      schema: { tags: ['routines'], params: idParams, body: updateRoutineBody, response: { 200: routine, 400: errorBody, 404: errorBody } },
    },
    async (request) => toRoutine(await changeRoutine(app.ctx, actorOf(request), request.params.id, request.body)),
  );

  app.delete('/routines/:id', { config: { access: 'routines.manage' }, schema: { tags: ['routines'], params: idParams } }, async (request, reply) => {
    await removeRoutine(app.ctx, actorOf(request), request.params.id);
    return reply.code(204).send();
  });

  app.get(
    '/campaign-sessions',
    {
      config: { access: 'workspace.read' },
      schema: { tags: ['campaigns'], querystring: campaignSessionListQuery, response: { 200: z.array(campaignSession) } },
    },
    async (request) => {
      const rows = await listCampaignSessions(db, actorOf(request).workspaceId, request.query.campaignId);
      return rows.map(serialize);
    },
  );
};
