/**
 * `GET /api/group-control/apps` and `PUT /api/group-control/apps`: the apps group control may act in. Group actions
 * themselves have no REST route: they come only from an operator's live page, one per input (realtime/live.group.ts).
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody, groupControlApps, groupControlAppsBody } from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { groupControlApps as appsOf, setGroupControlApps } from './group-control.service.ts';

export const groupControlRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/group-control/apps',
    { config: { access: 'devices.manage' }, schema: { tags: ['devices'], response: { 200: groupControlApps } } },
    async (request) => appsOf(app.ctx, actorOf(request)),
  );

  app.put(
    '/group-control/apps',
    { config: { access: 'devices.manage' }, schema: { tags: ['devices'], body: groupControlAppsBody, response: { 200: groupControlApps, 400: errorBody } } },
    async (request) => setGroupControlApps(app.ctx, actorOf(request), request.body),
  );
};
