/**
 * Phones join: an operator issues a one-time code for a device (or a farm host), the agent exchanges it here for its
 * credential. Revoking a device's credential cuts its phone off at once.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { enrollAnswer, enrollBody, enrollmentCode, errorBody, idParams } from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { enrollLimit } from '../../auth/limits.ts';
import { AppError, notFound } from '../../errors.ts';
import { findHostByToken } from '../../agents/hosts.queries.ts';
import { sendStoredFile } from '../../storage/storage.ts';
import { findAgentDevice } from '../../agents/agents.queries.ts';
import { findDevice } from '../devices/devices.queries.ts';
import { findAgentMedia, findHostDevice, revokeDeviceCredential } from './fleet.enrollment.queries.ts';
import { enroll, issueDeviceCode } from './fleet.enrollment.service.ts';
import { write } from '../../events/write.ts';

/** What an agent is told when its code cannot be used. */
const refusals = {
  unknown: 'This enrollment code is not known. Check it, or ask an operator for a new one.',
  used: 'This enrollment code was already used. Ask an operator for a new one.',
  voided: 'A newer enrollment code replaced this one. Use the newest code.',
  expired: 'This enrollment code has expired (codes last 15 minutes). Ask an operator for a new one.',
  revoked: 'This phone host was revoked. Ask an operator to add it again.',
} as const;

const objectIdParams = z.object({ id: z.string().min(1).max(200) });

export const enrollmentRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  app.post(
    '/devices/:id/enrollment',
    { config: { access: 'devices.manage' }, schema: { tags: ['agents'], params: idParams, response: { 201: enrollmentCode, 404: errorBody } } },
    async (request, reply) => {
      const actor = actorOf(request);
      const answer = await issueDeviceCode(db, actor, request.params.id);
      return reply.code(201).send({ code: answer.code, expiresAt: answer.expiresAt.toISOString() });
    },
  );

  app.delete('/devices/:id/credentials', { config: { access: 'devices.manage' }, schema: { tags: ['agents'], params: idParams } }, async (request, reply) => {
    const actor = actorOf(request);
    const target = await findDevice(db, actor.workspaceId, request.params.id);
    if (!target) throw notFound();
    await write(app.ctx, actor.workspaceId, async (tx, outbox) => {
      const removed = await revokeDeviceCredential(tx, actor.workspaceId, target.id);
      if (removed.numDeletedRows === 0n) return;
      await outbox.record(
        { userId: actor.userId, action: `${target.name}'s phone credential revoked`, deviceId: target.id, type: 'warning' },
        { action: 'device.credential-revoked', entityType: 'device', entityId: target.id },
      );
    });
    app.ctx.agents?.disconnect(target.id);
    return reply.code(204).send();
  });

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
    async (request) => {
      const body = request.body;
      const result = await enroll(db, body);
      if ('kind' in result) throw new AppError(result.status, refusals[result.reason], [{ field: 'code', message: refusals[result.reason] }]);
      // A phone enrolled again replaces the connection of its old credential.
      if ('deviceId' in result && result.deviceId) app.ctx.agents?.disconnect(result.deviceId);
      return result.answer;
    },
  );

  /**
   * The agent's side: a post's media, for the phone whose task publishes it. The phone's credential
   * (`Authorization: Bearer <token>`), or its host's with the phone's serial in `X-Phone-Serial`; only objects a post
   * of a task on that phone names are served.
   */
  app.get('/agent/media/:id', { config: { access: 'public' }, schema: { tags: ['agents'], params: objectIdParams } }, async (request, reply) => {
    const bearer = /^Bearer (\S{1,200})$/.exec(request.headers.authorization ?? '')?.[1];
    const serial = request.headers['x-phone-serial'];
    let device: { id: string; workspaceId: string } | undefined;
    if (bearer && typeof serial === 'string' && serial.length > 0 && serial.length <= 100) {
      const host = await findHostByToken(db, bearer);
      device = host ? await findHostDevice(db, host.id, serial) : undefined;
    } else if (bearer) {
      device = await findAgentDevice(db, bearer);
    }
    if (!device) throw new AppError(401, 'This phone credential is not valid');
    const path = `/api/objects/${request.params.id}`;
    const row = await findAgentMedia(db, device.workspaceId, device.id, request.params.id, path);
    if (!row) throw notFound();
    return sendStoredFile(reply, app.ctx.storage, row, 'private, no-store');
  });
};
