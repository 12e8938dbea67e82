import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, idParams, session, sessionListQuery, startSessionBody, updateSessionBody } from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { notFound } from '../../errors.ts';
import { DEFAULT_LIMIT, decodeCursor, page } from '../../shared/paging.ts';
import { changeSession, findSession, listSessions, startSession, stopSession, toSession } from './sessions.service.ts';

export const sessionsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  app.get(
    '/sessions',
    { config: { access: 'workspace.read' }, schema: { tags: ['sessions'], querystring: sessionListQuery, response: { 200: z.array(session) } } },
    async (request, reply) => {
      const { active, deviceId, vaId, cursor: rawCursor } = request.query;
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const cursor = decodeCursor(rawCursor);
      const rows = await listSessions(db, actorOf(request).workspaceId, { active, deviceId, vaId, cursor, limit });
      return page(reply, rows, limit, (row) => row.startedAt).map(toSession);
    },
  );

  app.get(
    '/sessions/:id',
    { config: { access: 'workspace.read' }, schema: { tags: ['sessions'], params: idParams, response: { 200: session, 404: errorBody } } },
    async (request) => {
      const row = await findSession(db, actorOf(request).workspaceId, request.params.id);
      if (!row) throw notFound();
      return toSession(row);
    },
  );

  app.post(
    '/sessions',
    { config: { access: 'sessions.work' }, schema: { tags: ['sessions'], body: startSessionBody, response: { 201: session, 400: errorBody, 409: errorBody } } },
    async (request, reply) => reply.code(201).send(toSession(await startSession(app.ctx, actorOf(request), request.body))),
  );

  app.patch(
    '/sessions/:id',
    {
      config: { access: 'sessions.work' },
      schema: { tags: ['sessions'], params: idParams, body: updateSessionBody, response: { 200: session, 404: errorBody, 409: errorBody } },
    },
    async (request) => toSession(await changeSession(app.ctx, actorOf(request), request.params.id, request.body)),
  );

  app.post(
    '/sessions/:id/stop',
    { config: { access: 'sessions.work' }, schema: { tags: ['sessions'], params: idParams, response: { 200: session, 404: errorBody } } },
    async (request) => toSession(await stopSession(app.ctx, actorOf(request), request.params.id)),
  );
};
