/**
 * Device records over REST: the list and one device, its software, add, change, remove, restart its session, and
 * the bulk actions. Writes are devices.service.ts's; the phone hears its command once they have committed.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  bulkRefused,
  bulkResult,
  createDeviceBody,
  device,
  deviceBulkBody,
  deviceSoftware,
  deviceListQuery,
  errorBody,
  idParams,
  session,
  updateDeviceBody,
  type DeviceBulkBody,
} from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { notFound } from '../../errors.ts';
import { DEFAULT_LIMIT } from '../../shared/paging.ts';
import { sendCachedText } from '../../shared/read-cache.ts';
import { serialize } from '../../shared/serialize.ts';
import { toSession } from '../sessions/sessions.service.ts';
import { findDevice, findDeviceSoftware, listDevicesJson } from './devices.queries.ts';
import { addDevice, bulkDevices, changeDevice, removeDevice, restartSession } from './devices.service.ts';

export const devicesRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  app.get(
    '/devices',
    { config: { access: 'workspace.read' }, schema: { tags: ['devices'], querystring: deviceListQuery, response: { 200: z.array(device) } } },
    async (request, reply) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const { workspaceId } = actorOf(request);
      return sendCachedText(reply, app.ctx.reads, workspaceId, `devices ${JSON.stringify(request.query)}`, async () =>
        listDevicesJson(db, workspaceId, { ...request.query, limit }),
      );
    },
  );

  app.get(
    '/devices/:id',
    { config: { access: 'workspace.read' }, schema: { tags: ['devices'], params: idParams, response: { 200: device, 404: errorBody } } },
    async (request) => {
      const row = await findDevice(db, actorOf(request).workspaceId, request.params.id);
      if (!row) throw notFound();
      return serialize(row);
    },
  );

  /** The phone's UI reader and the installed versions of the apps recipes drive, as its agent last said. */
  app.get(
    '/devices/:id/software',
    { config: { access: 'workspace.read' }, schema: { tags: ['devices'], params: idParams, response: { 200: deviceSoftware, 404: errorBody } } },
    async (request) => {
      const row = await findDeviceSoftware(db, actorOf(request).workspaceId, request.params.id);
      if (!row) throw notFound();
      const apps = deviceSoftware.shape.apps.safeParse(row.apps ?? []);
      return {
        deviceId: row.id,
        uiReader: row.uiReader ? { kind: row.uiReader, version: row.uiReaderVersion } : null,
        apps: apps.success ? apps.data : [],
        agentVersion: row.agentVersion,
        reportedAt: row.reportedAt?.toISOString() ?? null,
      };
    },
  );

  app.post(
    '/devices',
    { config: { access: 'devices.manage' }, schema: { tags: ['devices'], body: createDeviceBody, response: { 201: device, 400: errorBody } } },
    async (request, reply) => reply.code(201).send(serialize(await addDevice(app.ctx, actorOf(request), request.body))),
  );

  app.patch(
    '/devices/:id',
    {
      config: { access: 'devices.manage' },
      schema: { tags: ['devices'], params: idParams, body: updateDeviceBody, response: { 200: device, 400: errorBody, 404: errorBody } },
    },
    async (request) => serialize(await changeDevice(app.ctx, actorOf(request), request.params.id, request.body)),
  );

  app.delete('/devices/:id', { config: { access: 'devices.manage' }, schema: { tags: ['devices'], params: idParams } }, async (request, reply) => {
    await removeDevice(app.ctx, actorOf(request), request.params.id);
    return reply.code(204).send();
  });

  /** Ends the phone's open session (if any) and starts a fresh one with the same VA and task. */
  app.post(
    '/devices/:id/restart-session',
    { config: { access: 'sessions.work' }, schema: { tags: ['devices'], params: idParams, response: { 201: session, 404: errorBody } } },
    async (request, reply) => reply.code(201).send(toSession(await restartSession(app.ctx, actorOf(request), request.params.id))),
  );

  /** Many phones at once: assign a VA, delete, or send a command (screenshot, restart session); all or nothing. */
  app.post(
    '/devices/bulk',
    {
      config: { access: 'devices.manage' },
      schema: { tags: ['devices'], body: deviceBulkBody, response: { 200: bulkResult, 400: errorBody, 409: bulkRefused } },
    },
    async (request, reply) => {
      const answer = await bulkDevices(app.ctx, actorOf(request), request.body as DeviceBulkBody);
      if (answer.refused) return reply.code(409).send(answer.body);
      return answer.body;
    },
  );
};
