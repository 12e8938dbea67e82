/**
 * An operator resets a member's password: a one-time link, valid an hour, that the member opens to choose a new
 * password. Using it ends every session the member had. (People change their own password in Settings.)
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createdPasswordReset, errorBody, idParams, messages, okBody, passwordResetBody, passwordResetPreview } from '@farm/contracts';
import { AppError } from '../errors.ts';
import { actorOf } from './auth.plugin.ts';
import { perAddress } from './limits.ts';
import { hashPassword } from './passwords.ts';
import { auditSignIn } from './security.service.ts';
import { findPasswordReset, usePasswordReset } from './password-resets.queries.ts';
import { makeResetLink } from './password-resets.service.ts';

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
      const { token, expiresAt } = await makeResetLink(app.ctx, actor, request.params.id);
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
