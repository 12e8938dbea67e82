/**
 * Settings in bulk on selected phones or a group's (issue #42), through their farm hosts, with a result per phone and
 * setting (`fleet.phone-settings.service.ts`). Phones of another workspace, or a group not its own, are refused naming
 * the field, and nothing is sent.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody, phoneSettingsBody, phoneSettingsResult } from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { sendPhoneSettings } from './fleet.phone-settings.service.ts';

export const fleetPhoneSettingsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/devices/settings',
    {
      config: { access: 'devices.manage' },
      schema: { tags: ['devices'], body: phoneSettingsBody, response: { 200: phoneSettingsResult, 400: errorBody } },
    },
    async (request) => sendPhoneSettings(app.ctx, actorOf(request), request.body),
  );
};
