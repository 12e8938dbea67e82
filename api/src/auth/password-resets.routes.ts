/**
 * An operator resets a member's password: a one-time link, valid an hour, that the member opens to choose a new
 * password. Using it ends every session the member had. (People change their own password in Settings.)
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createdPasswordReset, errorBody, idParams, messages, okBody, PASSWORD_RESET_HOURS, passwordResetBody, passwordResetPreview } from '@farm/contracts';
import { AppError, conflict, notFound } from '../errors.ts';
import { findMember } from './members.queries.ts';
import { actorOf } from './auth.plugin.ts';
import { perAddress } from './limits.ts';
import { operatorForResets } from './reset-targets.ts';
import { hashPassword } from './passwords.ts';
import { auditSignIn, tellPerson } from './security.service.ts';
import { createPasswordReset, findPasswordReset, usePasswordReset } from './password-resets.queries.ts';
import { write } from '../events/write.ts';

export const passwordResetsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, changes, config } = app.ctx;
  const invalid = () => new AppError(404, messages.passwordResetInvalid);

  app.post(
    '/users/:id/password-reset',
    {
      config: { access: 'users.manage' },
      schema: { tags: ['users'], params: idParams, response: { 201: createdPasswordReset, 404: errorBody, 409: errorBody } },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { id } = request.params;
      if (id === actor.userId) throw conflict(messages.passwordResetSelf);
      const expiresAt = new Date(Date.now() + PASSWORD_RESET_HOURS * 3600_000);
      const token = await write(app.ctx, actor.workspaceId, async (tx, outbox) => {
        const member = await findMember(tx, actor.workspaceId, id);
        if (!member) throw notFound();
        if (member.deactivatedAt) throw conflict(messages.passwordResetDeactivated);
        // A link for another operator would let one operator take another's account silently; one demoted a moment
        // ago is still one here.
        if (member.role === 'operator') throw conflict(messages.passwordResetOperator);
        if (operatorForResets(member)) throw conflict(messages.passwordResetRecentOperator);
        const created = await createPasswordReset(tx, { userId: id, workspaceId: actor.workspaceId, createdById: actor.userId, expiresAt });
        await outbox.record(
          { userId: actor.userId, action: `Sign-in reset link made for ${member.name}`, type: 'info' },
          { action: 'user.password_reset', entityType: 'user', entityId: id },
        );
        return created;
      });
      await tellPerson(db, changes, id, {
        kind: 'password_reset.created',
        notice: 'An operator made a password reset link for your account. If you did not ask for it, tell another operator.',
        activity: (name) => `A password reset link was made for ${name}`,
        alert: (name) => `A password reset link was made for ${name}`,
      });
      const path = `/reset-password?token=${token}`;
      return reply.code(201).send({ token, url: config.publicUrl ? new URL(path, config.publicUrl).toString() : path, expiresAt: expiresAt.toISOString() });
    },
  );

  app.get(
    '/password-resets/lookup/:token',
    {
      config: { access: 'public' },
      schema: { tags: ['auth'], params: z.object({ token: z.string().max(200) }), response: { 200: passwordResetPreview, 404: errorBody } },
    },
    async (request) => {
      const reset = await findPasswordReset(db, request.params.token);
      if (!reset) throw invalid();
      return { name: reset.name, email: reset.email, expiresAt: reset.expiresAt.toISOString() };
    },
  );

  app.post(
    '/auth/password-reset',
    {
      config: { access: 'public' },
      onRequest: perAddress('login'),
      schema: { tags: ['auth'], body: passwordResetBody, response: { 200: okBody, 400: errorBody, 404: errorBody, 429: errorBody } },
    },
    async (request) => {
      const reset = await findPasswordReset(db, request.body.token);
      if (!reset) throw invalid();
      const passwordHash = await hashPassword(request.body.password);
      const ended = await usePasswordReset(db, reset.id, passwordHash);
      if (!ended) throw invalid();
      await auditSignIn(db, reset.userId, 'auth.password_reset', { sessionsEnded: String(ended.length) });
      if (ended.length > 0) changes.publish({ workspaceId: reset.workspaceId, event: 'auth.revoked', payload: { sessionIds: ended } });
      return { ok: true as const };
    },
  );
};
