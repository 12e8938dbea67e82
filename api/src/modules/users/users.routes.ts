import { randomBytes } from 'node:crypto';
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
import { deleteSessionsOfUser, hashToken } from '../../auth/auth.queries.ts';
import { AppError, forbidden, notFound } from '../../errors.ts';
import { findTwoFactor } from '../../auth/two-factor.queries.ts';
import {
  countActiveOperators,
  deleteInvitation,
  findMember,
  findWorkspace,
  insertInvitation,
  listInvitations,
  listMembers,
  lockWorkspaceMembership,
  setUserRole,
  toUser,
  unassignDevicesOf,
  updateMember,
  updateWorkspace,
  type workspaceColumns,
} from './users.queries.ts';
import { write } from '../../events/write.ts';

const INVITATION_DAYS = 7;

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
  const { db, changes } = app.ctx;

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
    async (request) => {
      const actor = actorOf(request);
      const { id } = request.params;
      const { role: newRole, isActive } = request.body;
      const updated = await write(app.ctx, actor.workspaceId, async (tx, outbox) => {
        await lockWorkspaceMembership(tx, actor.workspaceId);
        // Who may run the workspace is read again under the lock: an operator demoted a moment ago is one no more.
        const self = await findMember(tx, actor.workspaceId, actor.userId);
        if (self?.role !== 'operator' || self.deactivatedAt) throw forbidden();
        const member = await findMember(tx, actor.workspaceId, id);
        if (!member) throw notFound();
        const demotes = (newRole !== undefined && newRole !== 'operator') || isActive === false;
        if (member.role === 'operator' && demotes && (await countActiveOperators(tx, actor.workspaceId)).count <= 1) {
          throw new AppError(409, 'A workspace needs at least one active operator');
        }
        await updateMember(tx, actor.workspaceId, id, {
          ...(newRole ? { role: newRole } : {}),
          ...(isActive === undefined ? {} : { deactivatedAt: isActive ? null : new Date() }),
        });
        if (newRole) await setUserRole(tx, id, newRole);
        let revoked: string[] = [];
        // In a workspace that requires two-factor sign-in of operators, a promotion ends the person's sessions: they
        // sign in again as an operator, through the second factor, and no session without one carries over.
        if (newRole === 'operator' && member.role !== 'operator' && (await findTwoFactor(tx, id)).required) revoked = await deleteSessionsOfUser(tx, id);
        if (isActive === false) {
          revoked = await deleteSessionsOfUser(tx, id);
          // A deactivated VA hands back their phones.
          await unassignDevicesOf(tx, actor.workspaceId, id);
        }
        await outbox.record(
          {
            userId: actor.userId,
            action: isActive === false ? `${member.name} was deactivated` : `${member.name}'s access was updated`,
            type: isActive === false ? 'warning' : 'info',
          },
          { action: 'user.updated', entityType: 'user', entityId: id, data: request.body },
        );
        return { member: (await findMember(tx, actor.workspaceId, id))!, revoked };
      });
      const result = toUser(updated.member);
      changes.publish({ workspaceId: actor.workspaceId, event: 'user.updated', payload: result });
      if (updated.revoked.length > 0) changes.publish({ workspaceId: actor.workspaceId, event: 'auth.revoked', payload: { sessionIds: updated.revoked } });
      return result;
    },
  );

  app.get('/workspace', { config: { access: 'workspace.read' }, schema: { tags: ['workspace'], response: { 200: workspace } } }, async (request) =>
    toWorkspace(await findWorkspace(db, actorOf(request).workspaceId)),
  );

  app.patch(
    '/workspace',
    { config: { access: 'workspace.manage' }, schema: { tags: ['workspace'], body: updateWorkspaceBody, response: { 200: workspace } } },
    async (request) => {
      const row = await updateWorkspace(db, actorOf(request).workspaceId, {
        name: request.body.name,
        ...(request.body.timeZone ? { timeZone: request.body.timeZone } : {}),
      });
      return toWorkspace(row);
    },
  );

  /** Settings → Workspace → History: how long screenshots, activity and finished tasks are kept (pruned hourly). */
  app.put(
    '/workspace/retention',
    { config: { access: 'workspace.manage' }, schema: { tags: ['workspace'], body: retentionSettings, response: { 200: workspace, 400: errorBody } } },
    async (request) => {
      const body = request.body;
      const row = await updateWorkspace(db, actorOf(request).workspaceId, {
        keepScreenshotsDays: body.screenshotsDays,
        keepScreenshotsPerDevice: body.screenshotsPerDevice,
        keepActivityDays: body.activityDays,
        keepFinishedTasksDays: body.finishedTasksDays,
      });
      return toWorkspace(row);
    },
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
    async (request, reply) => {
      const actor = actorOf(request);
      const token = randomBytes(24).toString('base64url');
      const row = await insertInvitation(db, {
        workspaceId: actor.workspaceId,
        tokenHash: hashToken(token),
        role: request.body.role,
        email: request.body.email ?? null,
        createdById: actor.userId,
        expiresAt: new Date(Date.now() + INVITATION_DAYS * 24 * 3600_000),
      });
      const path = `/signup?invite=${token}`;
      const base = app.ctx.config.publicUrl;
      return reply.code(201).send({
        invitation: { id: row.id, token, url: base ? new URL(path, base).toString() : path, role: row.role, expiresAt: row.expiresAt.toISOString() },
      });
    },
  );

  app.delete('/invitations/:id', { config: { access: 'invitations.manage' }, schema: { tags: ['invitations'], params: idParams } }, async (request, reply) => {
    if (!(await deleteInvitation(db, actorOf(request).workspaceId, request.params.id))) throw notFound();
    return reply.code(204).send();
  });
};
