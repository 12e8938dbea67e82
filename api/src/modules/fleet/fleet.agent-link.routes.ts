/**
 * A device's link to its agent: its credential (issued, revoked: either closes the phone's connection), commands to
 * it, the screenshots it sent, the attempts handed to it, and the media its agent fetches for a task.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandAnswer, commandBody, deviceCredential, deviceHistoryEntry, errorBody, idParams, pageQuery, screenshot } from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { notFound } from '../../errors.ts';
import { objectPath, sendStoredFile } from '../../storage/storage.ts';
import { findDevice } from '../devices/devices.queries.ts';
import { deviceHistory, listScreenshots } from './fleet.agent-link.queries.ts';
import { commandDevice, issueCredential, mediaForAgent, revokeCredential } from './fleet.agent-link.service.ts';

const objectIdParams = z.object({ id: z.string().min(1).max(200) });

export const fleetAgentLinkRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  /** Issues a new credential for the phone's agent; the previous one stops working and its socket is closed. */
  app.post(
    '/devices/:id/credentials',
    { config: { access: 'devices.manage' }, schema: { tags: ['agents'], params: idParams, response: { 201: deviceCredential, 404: errorBody } } },
    async (request, reply) => {
      const row = await issueCredential(app.ctx, actorOf(request), request.params.id);
      return reply.code(201).send({ ...row, createdAt: row.createdAt.toISOString() });
    },
  );

  app.delete('/devices/:id/credentials', { config: { access: 'devices.manage' }, schema: { tags: ['agents'], params: idParams } }, async (request, reply) => {
    await revokeCredential(app.ctx, actorOf(request), request.params.id);
    return reply.code(204).send();
  });

  app.post(
    '/devices/:id/commands',
    {
      config: { access: 'sessions.work' },
      schema: { tags: ['agents'], params: idParams, body: commandBody, response: { 202: commandAnswer, 404: errorBody } },
    },
    async (request, reply) => {
      const delivered = await commandDevice(app.ctx, actorOf(request), request.params.id, request.body.name);
      return reply.code(202).send({ delivered });
    },
  );

  app.get(
    '/devices/:id/screenshots',
    {
      config: { access: 'workspace.read' },
      schema: { tags: ['agents'], params: idParams, querystring: pageQuery.pick({ limit: true }), response: { 200: z.array(screenshot), 404: errorBody } },
    },
    async (request) => {
      const actor = actorOf(request);
      if (!(await findDevice(db, actor.workspaceId, request.params.id))) throw notFound();
      const rows = await listScreenshots(db, request.params.id, request.query.limit ?? 20);
      return rows.map(({ objectKey, capturedAt, ...row }) => ({ ...row, url: objectPath(objectKey), capturedAt: capturedAt.toISOString() }));
    },
  );

  /** The phone's history: every task attempt handed to it, newest first, with how it ended and why. */
  app.get(
    '/devices/:id/history',
    {
      config: { access: 'workspace.read' },
      schema: {
        tags: ['agents'],
        params: idParams,
        querystring: pageQuery.pick({ limit: true }),
        response: { 200: z.array(deviceHistoryEntry), 404: errorBody },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      if (!(await findDevice(db, actor.workspaceId, request.params.id))) throw notFound();
      const rows = await deviceHistory(db, actor.workspaceId, request.params.id, request.query.limit ?? 50);
      return rows.map((row) => ({
        ...row,
        dispatchedAt: row.dispatchedAt.toISOString(),
        ackedAt: row.ackedAt?.toISOString() ?? null,
        endedAt: row.endedAt?.toISOString() ?? null,
      }));
    },
  );

  /**
   * The agent's side: a post's media, for the phone whose task publishes it. The phone's credential
   * (`Authorization: Bearer <token>`), or its host's with the phone's serial in `X-Phone-Serial`; only objects a post
   * of a task on that phone names are served.
   */
  app.get('/agent/media/:id', { config: { access: 'public' }, schema: { tags: ['agents'], params: objectIdParams } }, async (request, reply) => {
    const bearer = /^Bearer (\S{1,200})$/.exec(request.headers.authorization ?? '')?.[1];
    const header = request.headers['x-phone-serial'];
    const serial = typeof header === 'string' && header.length > 0 && header.length <= 100 ? header : undefined;
    const row = await mediaForAgent(db, { bearer, serial }, request.params.id);
    return sendStoredFile(reply, app.ctx.storage, row, 'private, no-store');
  });
};
