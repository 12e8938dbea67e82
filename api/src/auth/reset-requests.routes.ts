/**
 * Resetting an operator's password takes two operators: operator A asks (`POST /api/users/:id/reset-requests`),
 * a different operator B approves (`POST /api/reset-requests/:id/approve`), and only then is the one-time link made,
 * shown to B. Both steps are in the audit log and the activity feed; the person reset is told (a notice at their
 * next sign-in, an activity, a `user.security` alert to the operators' webhooks). A request lives 24 hours.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createdPasswordReset, errorBody, idParams, messages, PASSWORD_RESET_HOURS, PASSWORD_RESET_REQUEST_HOURS, passwordResetRequest } from '@farm/contracts';
import { AppError, conflict, notFound } from '../errors.ts';
import { write } from '../events/write.ts';
import { findMember } from './members.queries.ts';
import { actorOf } from './auth.plugin.ts';
import { createPasswordReset } from './password-resets.queries.ts';
import { approveResetRequest, insertResetRequest, listOpenResetRequests, lockResetRequest } from './reset-requests.queries.ts';
import { operatorForResets } from './reset-targets.ts';
import { tellPerson } from './security.service.ts';

export const RESET_REQUEST_MESSAGES = {
  notOperator: 'Only an operator’s reset needs a second operator: make a VA’s reset link directly',
  pending: (name: string) => `A reset of ${name}'s password is already waiting for another operator's approval`,
  ownRequest: 'A different operator must approve this reset: you asked for it',
  gone: 'This reset request has expired or was already approved',
} as const;

const toRequest = (row: Awaited<ReturnType<typeof listOpenResetRequests>>[number]) => ({
  ...row,
  createdAt: row.createdAt.toISOString(),
  expiresAt: row.expiresAt.toISOString(),
});

export const resetRequestsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, changes, config } = app.ctx;

  app.get(
    '/reset-requests',
    { config: { access: 'users.manage' }, schema: { tags: ['users'], response: { 200: z.array(passwordResetRequest) } } },
    async (request) => (await listOpenResetRequests(db, actorOf(request).workspaceId)).map(toRequest),
  );

  app.post(
    '/users/:id/reset-requests',
    {
      config: { access: 'users.manage' },
      schema: { tags: ['users'], params: idParams, response: { 201: passwordResetRequest, 404: errorBody, 409: errorBody } },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { id } = request.params;
      if (id === actor.userId) throw conflict(messages.passwordResetSelf);
      const created = await write(app.ctx, actor.workspaceId, async (tx, outbox) => {
        const member = await findMember(tx, actor.workspaceId, id);
        if (!member) throw notFound();
        if (member.deactivatedAt) throw conflict(messages.passwordResetDeactivated);
        if (!operatorForResets(member)) throw conflict(RESET_REQUEST_MESSAGES.notOperator);
        const expiresAt = new Date(Date.now() + PASSWORD_RESET_REQUEST_HOURS * 3600_000);
        const requestId = await insertResetRequest(tx, { workspaceId: actor.workspaceId, userId: id, requestedById: actor.userId, expiresAt });
        if (!requestId) throw conflict(RESET_REQUEST_MESSAGES.pending(member.name));
        await outbox.record(
          { userId: actor.userId, action: `A reset of ${member.name}'s password was requested: another operator must approve it`, type: 'warning' },
          { action: 'user.password_reset_requested', entityType: 'user', entityId: id, data: { requestId } },
        );
        return (await listOpenResetRequests(tx, actor.workspaceId)).find((row) => row.id === requestId)!;
      });
      return reply.code(201).send(toRequest(created));
    },
  );

  app.post(
    '/reset-requests/:id/approve',
    {
      config: { access: 'users.manage' },
      schema: { tags: ['users'], params: idParams, response: { 201: createdPasswordReset, 403: errorBody, 404: errorBody, 409: errorBody } },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const approved = await write(app.ctx, actor.workspaceId, async (tx, outbox) => {
        const open = await lockResetRequest(tx, actor.workspaceId, request.params.id);
        if (!open) throw notFound();
        if (open.expiresAt.getTime() <= Date.now()) throw conflict(RESET_REQUEST_MESSAGES.gone);
        if (open.requestedById === actor.userId) throw new AppError(403, RESET_REQUEST_MESSAGES.ownRequest);
        if (open.userId === actor.userId) throw conflict(messages.passwordResetSelf);
        const member = await findMember(tx, actor.workspaceId, open.userId);
        if (!member) throw notFound();
        if (member.deactivatedAt) throw conflict(messages.passwordResetDeactivated);
        await approveResetRequest(tx, open.id, actor.userId);
        const expiresAt = new Date(Date.now() + PASSWORD_RESET_HOURS * 3600_000);
        const token = await createPasswordReset(tx, { userId: open.userId, workspaceId: actor.workspaceId, createdById: actor.userId, expiresAt });
        await outbox.record(
          { userId: actor.userId, action: `The reset of ${member.name}'s password was approved: a sign-in reset link was made`, type: 'warning' },
          {
            action: 'user.password_reset_approved',
            entityType: 'user',
            entityId: open.userId,
            data: { requestId: open.id, requestedById: open.requestedById },
          },
        );
        return { token, expiresAt, userId: open.userId };
      });
      await tellPerson(db, changes, approved.userId, {
        kind: 'password_reset.created',
        notice: 'Two operators made a password reset link for your account. If you did not ask for it, tell another operator.',
        activity: (name) => `A password reset link was made for ${name}, approved by two operators`,
        alert: (name) => `A password reset link was made for operator ${name}, approved by two operators`,
      });
      const path = `/reset-password?token=${approved.token}`;
      return reply.code(201).send({
        token: approved.token,
        url: config.publicUrl ? new URL(path, config.publicUrl).toString() : path,
        expiresAt: approved.expiresAt.toISOString(),
      });
    },
  );
};
