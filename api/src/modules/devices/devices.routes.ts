import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createDeviceBody, device, deviceListQuery, errorBody, idParams, session, updateDeviceBody } from '../../contracts/index.ts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { notFound } from '../../errors.ts';
import { Outbox } from '../../realtime/outbox.ts';
import { DEFAULT_LIMIT, pageOf } from '../../shared/paging.ts';
import { sendCachedJson } from '../../shared/read-cache.ts';
import { assertMember } from '../../shared/refs.ts';
import { serialize } from '../../shared/serialize.ts';
import { recordActivity } from '../activities/activities.queries.ts';
import { assertMayWorkDevice, startSession, stopSession, toSession } from '../sessions/sessions.service.ts';
import { findDevice, listDevices } from './devices.queries.ts';

export const devicesRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, changes } = app.ctx;

  app.get(
    '/devices',
    { config: { access: 'workspace.read' }, schema: { tags: ['devices'], querystring: deviceListQuery, response: { 200: z.array(device) } } },
    async (request, reply) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const { workspaceId } = actorOf(request);
      return sendCachedJson(reply, app.ctx.reads, workspaceId, `devices ${JSON.stringify(request.query)}`, z.array(device), async () => {
        const { rows, next } = pageOf(await listDevices(db, workspaceId, { ...request.query, limit }), limit, (row) => row.createdAt);
        return { body: rows.map(serialize), next };
      });
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

  app.post(
    '/devices',
    { config: { access: 'devices.manage' }, schema: { tags: ['devices'], body: createDeviceBody, response: { 201: device, 400: errorBody } } },
    async (request, reply) => {
      const actor = actorOf(request);
      const { assignedToId, ...fields } = request.body;
      const outbox = new Outbox(actor.workspaceId);
      const row = await db.transaction().execute(async (tx) => {
        if (assignedToId) await assertMember(tx, actor.workspaceId, assignedToId, 'assignedToId');
        const created = await tx
          .insertInto('devices')
          .values({ ...fields, assignedToId: assignedToId ?? null, workspaceId: actor.workspaceId })
          .returningAll()
          .executeTakeFirstOrThrow();
        outbox.add('device.created', serialize(created));
        await recordActivity(
          tx,
          { workspaceId: actor.workspaceId, userId: actor.userId, action: `Device ${created.name} added`, deviceId: created.id, type: 'success' },
          { action: 'device.created', entityType: 'device', entityId: created.id },
          outbox,
        );
        return created;
      });
      outbox.flush(changes);
      return reply.code(201).send(serialize(row));
    },
  );

  app.patch(
    '/devices/:id',
    { config: { access: 'devices.manage' }, schema: { tags: ['devices'], params: idParams, body: updateDeviceBody, response: { 200: device, 400: errorBody, 404: errorBody } } },
    async (request) => {
      const actor = actorOf(request);
      const outbox = new Outbox(actor.workspaceId);
      const row = await db.transaction().execute(async (tx) => {
        const before = await findDevice(tx, actor.workspaceId, request.params.id);
        if (!before) throw notFound();
        const { assignedToId } = request.body;
        const member = assignedToId ? await assertMember(tx, actor.workspaceId, assignedToId, 'assignedToId') : undefined;
        // Nothing to change (an empty body, or only unknown fields): an UPDATE with no SET is invalid SQL.
        if (Object.keys(request.body).length === 0) return before;
        const updated = await tx.updateTable('devices').set(request.body).where('id', '=', before.id).returningAll().executeTakeFirstOrThrow();
        outbox.add('device.updated', serialize(updated));
        if (assignedToId !== undefined && assignedToId !== before.assignedToId) {
          await recordActivity(
            tx,
            {
              workspaceId: actor.workspaceId,
              userId: actor.userId,
              action: member ? `${updated.name} assigned to ${member.name}` : `${updated.name} unassigned`,
              deviceId: updated.id,
              type: 'info',
            },
            { action: 'device.assigned', entityType: 'device', entityId: updated.id, data: { assignedToId } },
            outbox,
          );
          if (member) outbox.add('device.assigned', serialize(updated), member.id);
        }
        return updated;
      });
      outbox.flush(changes);
      return serialize(row);
    },
  );

  app.delete(
    '/devices/:id',
    { config: { access: 'devices.manage' }, schema: { tags: ['devices'], params: idParams } },
    async (request, reply) => {
      const actor = actorOf(request);
      const outbox = new Outbox(actor.workspaceId);
      await db.transaction().execute(async (tx) => {
        const removed = await tx.deleteFrom('devices').where('id', '=', request.params.id).where('workspaceId', '=', actor.workspaceId).returning(['id', 'name']).executeTakeFirst();
        if (!removed) throw notFound();
        outbox.add('device.deleted', { id: removed.id });
        await recordActivity(
          tx,
          { workspaceId: actor.workspaceId, userId: actor.userId, action: `Device ${removed.name} removed`, type: 'warning' },
          { action: 'device.deleted', entityType: 'device', entityId: removed.id },
          outbox,
        );
      });
      outbox.flush(changes);
      return reply.code(204).send();
    },
  );

  /** Ends the phone's open session (if any) and starts a fresh one with the same VA and task. */
  app.post(
    '/devices/:id/restart-session',
    { config: { access: 'sessions.work' }, schema: { tags: ['devices'], params: idParams, response: { 201: session, 404: errorBody } } },
    async (request, reply) => {
      const actor = actorOf(request);
      const outbox = new Outbox(actor.workspaceId);
      const row = await db.transaction().execute(async (tx) => {
        const target = await findDevice(tx, actor.workspaceId, request.params.id);
        if (!target) throw notFound();
        await assertMayWorkDevice(tx, actor, target.id);
        const open = await tx.selectFrom('sessions').selectAll().where('deviceId', '=', target.id).where('endedAt', 'is', null).executeTakeFirst();
        if (open) await stopSession(tx, actor, open.id, outbox);
        return startSession(tx, actor, { deviceId: target.id, taskId: open?.taskId ?? null, currentTask: open?.currentTask ?? null }, outbox);
      });
      outbox.flush(changes);
      void app.ctx.agents?.command(row.deviceId, 'restart_session');
      return reply.code(201).send(toSession(row));
    },
  );
};
