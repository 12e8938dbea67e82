/**
 * Sessions in Settings: a person lists their signed-in browsers (what each said it was, its address, when it was
 * last used) and ends any; an operator ends every session of a member of the workspace.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { authSession, idParams } from '@farm/contracts';
import { notFound } from '../errors.ts';
import { findMember } from './members.queries.ts';
import { actorOf } from './auth.plugin.ts';
import { deleteSessionsOfUser, SESSION_IDLE_MS } from './auth.queries.ts';
import { deleteSessionOfUser, listLiveSessions } from './security.queries.ts';

export const authSessionsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, changes } = app.ctx;

  app.get('/auth/sessions', { config: { access: 'session' }, schema: { tags: ['auth'], response: { 200: z.array(authSession) } } }, async (request) => {
    const session = request.session!;
    const rows = await listLiveSessions(db, session.id, new Date(Date.now() - SESSION_IDLE_MS));
    return rows.map((row) => ({
      id: row.id,
      userAgent: row.userAgent,
      ip: row.ip,
      createdAt: row.createdAt.toISOString(),
      lastSeenAt: row.lastSeenAt.toISOString(),
      current: row.id === session.sessionId,
    }));
  });

  app.delete('/auth/sessions/:id', { config: { access: 'session' }, schema: { tags: ['auth'], params: idParams } }, async (request, reply) => {
    const session = request.session!;
    if (!(await deleteSessionOfUser(db, session.id, request.params.id))) throw notFound();
    changes.publish({ workspaceId: session.workspaceId ?? '', event: 'auth.revoked', payload: { sessionIds: [request.params.id] } });
    return reply.code(204).send();
  });

  app.delete('/users/:id/sessions', { config: { access: 'users.manage' }, schema: { tags: ['users'], params: idParams } }, async (request, reply) => {
    const actor = actorOf(request);
    if (!(await findMember(db, actor.workspaceId, request.params.id))) throw notFound();
    const ended = await deleteSessionsOfUser(db, request.params.id);
    if (ended.length > 0) changes.publish({ workspaceId: actor.workspaceId, event: 'auth.revoked', payload: { sessionIds: ended } });
    return reply.code(204).send();
  });
};
