/**
 * Groups and tags of phones (issue #42): operators manage them, everyone in the workspace reads them. The devices
 * list, bulk actions and exports filter by `groupId`; a group's phones are given to a VA at once through the devices'
 * own assignment (the same rules, events and audit entries as one phone's).
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  assignDeviceGroupBody,
  bulkRefused,
  bulkResult,
  createDeviceGroupBody,
  deviceGroup,
  deviceGroupMembersBody,
  errorBody,
  idParams,
  updateDeviceGroupBody,
} from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { notFound } from '../../errors.ts';
import { findGroup, listGroups } from './groups.queries.ts';
import { assignGroup, changeGroup, changeMembers, createGroup, removeGroup, toGroup } from './groups.service.ts';

export const groupsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  app.get('/groups', { config: { access: 'workspace.read' }, schema: { tags: ['groups'], response: { 200: z.array(deviceGroup) } } }, async (request) =>
    (await listGroups(db, actorOf(request).workspaceId)).map(toGroup),
  );

  app.get(
    '/groups/:id',
    { config: { access: 'workspace.read' }, schema: { tags: ['groups'], params: idParams, response: { 200: deviceGroup, 404: errorBody } } },
    async (request) => {
      const row = await findGroup(db, actorOf(request).workspaceId, request.params.id);
      if (!row) throw notFound();
      return toGroup(row);
    },
  );

  app.post(
    '/groups',
    {
      config: { access: 'devices.manage' },
      schema: { tags: ['groups'], body: createDeviceGroupBody, response: { 201: deviceGroup, 400: errorBody, 409: errorBody } },
    },
    async (request, reply) => reply.code(201).send(await createGroup(app.ctx, actorOf(request), request.body)),
  );

  app.patch(
    '/groups/:id',
    {
      config: { access: 'devices.manage' },
      schema: {
        tags: ['groups'],
        params: idParams,
        body: updateDeviceGroupBody,
        response: { 200: deviceGroup, 400: errorBody, 404: errorBody, 409: errorBody },
      },
    },
    async (request) => changeGroup(app.ctx, actorOf(request), request.params.id, request.body),
  );

  app.delete('/groups/:id', { config: { access: 'devices.manage' }, schema: { tags: ['groups'], params: idParams } }, async (request, reply) => {
    await removeGroup(app.ctx, actorOf(request), request.params.id);
    return reply.code(204).send();
  });

  /** Phones added to and taken out of the group: all or nothing. */
  app.post(
    '/groups/:id/devices',
    {
      config: { access: 'devices.manage' },
      schema: { tags: ['groups'], params: idParams, body: deviceGroupMembersBody, response: { 200: deviceGroup, 400: errorBody, 404: errorBody } },
    },
    async (request) => changeMembers(app.ctx, actorOf(request), request.params.id, request.body),
  );

  /** Every phone of the group to one VA (or unassigned), each through the device's own assignment; all or nothing. */
  app.post(
    '/groups/:id/assign',
    {
      config: { access: 'devices.manage' },
      schema: {
        tags: ['groups'],
        params: idParams,
        body: assignDeviceGroupBody,
        response: { 200: bulkResult, 400: errorBody, 404: errorBody, 409: bulkRefused },
      },
    },
    async (request, reply) => {
      const answer = await assignGroup(app.ctx, actorOf(request), request.params.id, request.body);
      if (answer.refused) return reply.code(409).send(answer.body);
      return answer.body;
    },
  );
};
