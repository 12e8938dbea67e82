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
import { badRequest, notFound } from '../../errors.ts';
import { runBulk } from '../../events/bulk.ts';
import { write } from '../../events/write.ts';
import { changeDevice } from '../devices/devices.service.ts';
import { findGroup, listGroups, lockGroup, memberDeviceIds } from './groups.queries.ts';
import { changeGroup, changeMembers, createGroup, removeGroup, toGroup } from './groups.service.ts';

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
    async (request, reply) => {
      const actor = actorOf(request);
      const group = await write(app.ctx, actor.workspaceId, (tx, outbox) => createGroup(tx, actor, request.body, outbox));
      return reply.code(201).send(group);
    },
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
    async (request) => {
      const actor = actorOf(request);
      return write(app.ctx, actor.workspaceId, (tx, outbox) => changeGroup(tx, actor, request.params.id, request.body, outbox));
    },
  );

  app.delete('/groups/:id', { config: { access: 'devices.manage' }, schema: { tags: ['groups'], params: idParams } }, async (request, reply) => {
    const actor = actorOf(request);
    await write(app.ctx, actor.workspaceId, (tx, outbox) => removeGroup(tx, actor, request.params.id, outbox));
    return reply.code(204).send();
  });

  /** Phones added to and taken out of the group: all or nothing. */
  app.post(
    '/groups/:id/devices',
    {
      config: { access: 'devices.manage' },
      schema: { tags: ['groups'], params: idParams, body: deviceGroupMembersBody, response: { 200: deviceGroup, 400: errorBody, 404: errorBody } },
    },
    async (request) => {
      const actor = actorOf(request);
      return write(app.ctx, actor.workspaceId, (tx, outbox) => changeMembers(tx, actor, request.params.id, request.body, outbox));
    },
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
      const actor = actorOf(request);
      const { assignedToId } = request.body;
      const answer = await runBulk(app.ctx, actor.workspaceId, async (tx, outbox) => {
        // The group is held while its phones change hands, so a phone joining meanwhile waits for this to end.
        if (!(await lockGroup(tx, actor.workspaceId, request.params.id))) throw notFound();
        const ids = await memberDeviceIds(tx, request.params.id);
        if (ids.length === 0) throw badRequest('id', 'This group has no phones yet');
        return { ids, apply: async (id: string) => void (await changeDevice(tx, actor, id, { assignedToId }, outbox)) };
      });
      if (answer.refused) return reply.code(409).send(answer.body);
      return answer.body;
    },
  );
};
