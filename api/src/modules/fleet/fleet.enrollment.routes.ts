/**
 * Phones join: an operator issues a one-time code for a device (a farm host's is in fleet.hosts.routes.ts), and the
 * agent exchanges it here for its credential.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { enrollAnswer, enrollBody, enrollmentCode, errorBody, idParams } from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { enrollLimit } from '../../auth/limits.ts';
import { enroll, issueDeviceCode } from './fleet.enrollment.service.ts';

export const fleetEnrollmentRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/devices/:id/enrollment',
    { config: { access: 'devices.manage' }, schema: { tags: ['agents'], params: idParams, response: { 201: enrollmentCode, 404: errorBody } } },
    async (request, reply) => {
      const answer = await issueDeviceCode(app.ctx, actorOf(request), request.params.id);
      return reply.code(201).send({ code: answer.code, expiresAt: answer.expiresAt.toISOString() });
    },
  );

  /** The agent's side: a one-time code for a credential. */
  app.post(
    '/agent/enroll',
    {
      config: { access: 'public' },
      // Codes are short enough to type: guesses from one address are limited.
      onRequest: enrollLimit(),
      schema: {
        tags: ['agents'],
        body: enrollBody,
        response: { 200: enrollAnswer, 400: errorBody, 404: errorBody, 409: errorBody, 410: errorBody, 429: errorBody },
      },
    },
    async (request) => enroll(app.ctx, request.body),
  );
};
