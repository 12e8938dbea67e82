/**
 * Fleet health in the console (issue #41): each phone's health for its details and the Devices grid, and per host
 * its USB bus, warnings and fleet settings (Settings → Phone hosts). Settings changed here are sent to the host at
 * once, and again each time it connects.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, hostFleet, hostFleetSettings, hostUsb, idParams, phoneHealth } from '@farm/contracts';
import { settingsOf } from '../../agents/agents.hosts.queries.ts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { notFound } from '../../errors.ts';
import { deviceHealth, deviceInWorkspace, hostPhonesHealth, hostUsbOf, workspaceHealth } from './fleet.health.queries.ts';
import { changeFleetSettings } from './fleet.hosts.service.ts';

export const fleetHealthRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  app.get(
    '/devices/health',
    { config: { access: 'workspace.read' }, schema: { tags: ['devices'], response: { 200: z.array(phoneHealth) } } },
    async (request) => workspaceHealth(db, actorOf(request).workspaceId),
  );

  app.get(
    '/devices/:id/health',
    { config: { access: 'workspace.read' }, schema: { tags: ['devices'], params: idParams, response: { 200: phoneHealth.nullable(), 404: errorBody } } },
    async (request) => {
      const { workspaceId } = actorOf(request);
      if (!(await deviceInWorkspace(db, workspaceId, request.params.id))) throw notFound();
      // Null: the phone's host has reported nothing of it yet (or it is not on a host).
      return deviceHealth(db, workspaceId, request.params.id);
    },
  );

  app.get(
    '/hosts/:id/fleet',
    { config: { access: 'devices.manage' }, schema: { tags: ['hosts'], params: idParams, response: { 200: hostFleet, 404: errorBody } } },
    async (request) => {
      const { workspaceId } = actorOf(request);
      const row = await hostUsbOf(db, workspaceId, request.params.id);
      if (!row) throw notFound();
      const usb = row.usb ? hostUsb.safeParse(row.usb) : null;
      return {
        hostId: row.id,
        settings: settingsOf(row.fleetSettings),
        usb: usb?.success ? usb.data : null,
        usbAt: row.usbAt?.toISOString() ?? null,
        phones: await hostPhonesHealth(db, workspaceId, row.id),
      };
    },
  );

  app.put(
    '/hosts/:id/fleet-settings',
    {
      config: { access: 'devices.manage' },
      schema: { tags: ['hosts'], params: idParams, body: hostFleetSettings, response: { 200: hostFleetSettings, 400: errorBody, 404: errorBody } },
    },
    async (request) => {
      await changeFleetSettings(app.ctx, actorOf(request), request.params.id, request.body);
      return request.body;
    },
  );
};
