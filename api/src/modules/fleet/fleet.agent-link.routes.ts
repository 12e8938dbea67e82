/** A phone's link to its agent: its credential, commands to it, and the screenshots it sent. */
import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandAnswer, commandBody, deviceCredential, deviceHistoryEntry, errorBody, idParams, pageQuery, screenshot } from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { hashToken } from '../../auth/auth.queries.ts';
import { notFound } from '../../errors.ts';
import { objectPath } from '../../storage/storage.ts';
import { assertMayWorkDevice } from '../sessions/sessions.service.ts';
import { deviceHistory, findDevice, listScreenshots, upsertDeviceCredential } from '../devices/devices.queries.ts';

export const agentLinkRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  /** Issues a new credential for the phone's agent; the previous one stops working and its socket is closed. */
  app.post(
    '/devices/:id/credentials',
    { config: { access: 'devices.manage' }, schema: { tags: ['agents'], params: idParams, response: { 201: deviceCredential, 404: errorBody } } },
    async (request, reply) => {
      const actor = actorOf(request);
      const target = await findDevice(db, actor.workspaceId, request.params.id);
      if (!target) throw notFound();
      const token = `dev_${randomBytes(24).toString('base64url')}`;
      const row = await upsertDeviceCredential(db, actor.workspaceId, target.id, hashToken(token));
      // This instance's socket of the phone is cut at once; the others hear of it through the adapter.
      app.ctx.io?.of('/agent').local.in(`device:${target.id}`).disconnectSockets(true);
      app.ctx.io?.of('/agent').in(`device:${target.id}`).disconnectSockets(true);
      return reply.code(201).send({ deviceId: row.deviceId, token, createdAt: row.createdAt.toISOString() });
    },
  );

  app.post(
    '/devices/:id/commands',
    {
      config: { access: 'sessions.work' },
      schema: { tags: ['agents'], params: idParams, body: commandBody, response: { 202: commandAnswer, 404: errorBody } },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const target = await findDevice(db, actor.workspaceId, request.params.id);
      if (!target) throw notFound();
      await assertMayWorkDevice(db, actor, target.id);
      const delivered = (await app.ctx.agents?.command(target.id, request.body.name)) ?? false;
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
};
