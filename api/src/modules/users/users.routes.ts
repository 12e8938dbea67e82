/**
 * The workspace's people, settings and invitations: everyone reads the members and the workspace; operators change a
 * member's access, the workspace's settings and its invitations (the rules in users.service.ts).
 */
import type { Selectable } from 'kysely';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { WorkspacesTable } from '@farm/sql';
import { z } from 'zod';
import {
  createdInvitation,
  createInvitationBody,
  errorBody,
  idParams,
  invitation,
  retentionSettings,
  role,
  updateUserBody,
  updateWorkspaceBody,
  user,
  workspace,
} from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { notFound } from '../../errors.ts';
import { findMember } from '../../shared/members.queries.ts';
import { findWorkspace, listInvitations, listMembers, toUser, type workspaceColumns } from './users.queries.ts';
import { changeMember, createInvitation, keepHistory, renameWorkspace, revokeInvitation } from './users.service.ts';

function toWorkspace(row: Pick<Selectable<WorkspacesTable>, (typeof workspaceColumns)[number]>) {
  return {
    id: row.id,
    name: row.name,
    timeZone: row.timeZone,
    createdAt: row.createdAt.toISOString(),
    requireTwoFactor: row.requireTwoFactor,
    retention: {
      screenshotsDays: row.keepScreenshotsDays,
      screenshotsPerDevice: row.keepScreenshotsPerDevice,
      activityDays: row.keepActivityDays,
      finishedTasksDays: row.keepFinishedTasksDays,
    },
  };
}

export const usersRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  app.get(
    '/users',
    {
      config: { access: 'workspace.read' },
      schema: {
        tags: ['users'],
        querystring: z.object({ role: role.optional(), search: z.string().max(200).optional() }),
        response: { 200: z.array(user) },
      },
    },
    async (request) => (await listMembers(db, actorOf(request).workspaceId, request.query)).map(toUser),
  );

  app.get(
    '/users/:id',
    { config: { access: 'workspace.read' }, schema: { tags: ['users'], params: idParams, response: { 200: user, 404: errorBody } } },
    async (request) => {
      const member = await findMember(db, actorOf(request).workspaceId, request.params.id);
      if (!member) throw notFound();
      return toUser(member);
    },
  );

  app.patch(
    '/users/:id',
    {
      config: { access: 'users.manage' },
      schema: { tags: ['users'], params: idParams, body: updateUserBody, response: { 200: user, 404: errorBody, 409: errorBody } },
    },
    async (request) => changeMember(app.ctx, actorOf(request), request.params.id, request.body),
  );

  app.get('/workspace', { config: { access: 'workspace.read' }, schema: { tags: ['workspace'], response: { 200: workspace } } }, async (request) =>
    toWorkspace(await findWorkspace(db, actorOf(request).workspaceId)),
  );

  app.patch(
    '/workspace',
    { config: { access: 'workspace.manage' }, schema: { tags: ['workspace'], body: updateWorkspaceBody, response: { 200: workspace } } },
    async (request) => toWorkspace(await renameWorkspace(db, actorOf(request).workspaceId, request.body)),
  );

  /** Settings → Workspace → History: how long screenshots, activity and finished tasks are kept (pruned hourly). */
  app.put(
    '/workspace/retention',
    { config: { access: 'workspace.manage' }, schema: { tags: ['workspace'], body: retentionSettings, response: { 200: workspace, 400: errorBody } } },
    async (request) => toWorkspace(await keepHistory(db, actorOf(request).workspaceId, request.body)),
  );

  app.get(
    '/invitations',
    { config: { access: 'invitations.manage' }, schema: { tags: ['invitations'], response: { 200: z.array(invitation) } } },
    async (request) => {
      const now = Date.now();
      const rows = await listInvitations(db, actorOf(request).workspaceId);
      return rows.map((row) => ({
        ...row,
        expiresAt: row.expiresAt.toISOString(),
        acceptedAt: row.acceptedAt?.toISOString() ?? null,
        createdAt: row.createdAt.toISOString(),
        status: row.acceptedAt ? ('accepted' as const) : row.expiresAt.getTime() <= now ? ('expired' as const) : ('pending' as const),
      }));
    },
  );

  app.post(
    '/invitations',
    { config: { access: 'invitations.manage' }, schema: { tags: ['invitations'], body: createInvitationBody, response: { 201: createdInvitation } } },
    async (request, reply) => reply.code(201).send({ invitation: await createInvitation(db, actorOf(request), request.body, app.ctx.config.publicUrl) }),
  );

  app.delete('/invitations/:id', { config: { access: 'invitations.manage' }, schema: { tags: ['invitations'], params: idParams } }, async (request, reply) => {
    await revokeInvitation(db, actorOf(request).workspaceId, request.params.id);
    return reply.code(204).send();
  });
};
