/**
 * Resetting an operator's password takes two operators: operator A asks (`POST /api/users/:id/reset-requests`),
 * a different operator B approves (`POST /api/reset-requests/:id/approve`), and only then is the one-time link made,
 * shown to B. Both steps are in the audit log and the activity feed; the person reset is told (a notice at their
 * next sign-in, an activity, a `user.security` alert to the operators' webhooks). A request lives 24 hours.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createdPasswordReset, errorBody, idParams, passwordResetRequest } from '@farm/contracts';
import { approveOperatorReset, requestOperatorReset } from './password-resets.service.ts';
import { actorOf } from './auth.plugin.ts';
import { listOpenResetRequests } from './reset-requests.queries.ts';

export { RESET_REQUEST_MESSAGES } from './password-resets.service.ts';

const toRequest = (row: Awaited<ReturnType<typeof listOpenResetRequests>>[number]) => ({
  ...row,
  createdAt: row.createdAt.toISOString(),
  expiresAt: row.expiresAt.toISOString(),
});

export const resetRequestsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app.ctx;

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
      const created = await requestOperatorReset(app.ctx, actor, id);
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
      const approved = await approveOperatorReset(app.ctx, actor, request.params.id);
      const path = `/reset-password?token=${approved.token}`;
      return reply.code(201).send({
        token: approved.token,
        url: config.publicUrl ? new URL(path, config.publicUrl).toString() : path,
        expiresAt: approved.expiresAt.toISOString(),
      });
    },
  );
};
