/**
 * Settings in bulk on selected phones or a group's (issue #42), through their farm hosts, with a result per phone and
 * setting (`phone-settings.service.ts`). Phones of another workspace, or a group not its own, are refused naming the
 * field, and nothing is sent.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody, phoneSettingsBody, phoneSettingsResult } from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { badRequest } from '../../errors.ts';
import { phonesByIds, phonesOfGroup, type SettingsPhone } from './fleet.phone-settings.queries.ts';
import { setPhoneSettings } from './fleet.phone-settings.service.ts';

export const phoneSettingsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  app.post(
    '/devices/settings',
    {
      config: { access: 'devices.manage' },
      schema: { tags: ['devices'], body: phoneSettingsBody, response: { 200: phoneSettingsResult, 400: errorBody } },
    },
    async (request) => {
      const actor = actorOf(request);
      const { deviceIds, groupId, settings } = request.body;
      let phones: SettingsPhone[] | undefined;
      if (groupId) {
        phones = await phonesOfGroup(db, actor.workspaceId, groupId);
        if (!phones) throw badRequest('groupId', "Group must be one of this workspace's groups or tags");
        if (phones.length === 0) throw badRequest('groupId', 'This group has no phones');
      } else {
        const ids = [...new Set(deviceIds ?? [])];
        phones = await phonesByIds(db, actor.workspaceId, ids);
        if (phones.length < ids.length) {
          const missing = ids.length - phones.length;
          throw badRequest('deviceIds', `${missing === 1 ? '1 phone was' : `${missing} phones were`} not found in this workspace`);
        }
      }
      return setPhoneSettings(app.ctx, actor, phones ?? [], settings);
    },
  );
};
