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
  type UpdateDeviceBody,
} from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { notFound } from '../../errors.ts';
import { runBulk, selectIds } from '../../events/bulk.ts';
import type { Actor, Tx } from '../../shared/types.ts';
import { DEFAULT_LIMIT } from '../../shared/paging.ts';
import { sendCachedText } from '../../shared/read-cache.ts';
import { assertMember } from '../../shared/refs.ts';
import { serialize } from '../../shared/serialize.ts';
import { withdrawTask } from '@farm/workers';
import { assertMayWorkDevice, startSession, stopSession, toSession } from '../sessions/sessions.service.ts';
import {
  deleteDevice,
  deviceIdsMatching,
  dispatchedOpenTasksForUpdate,
  findDevice,
  findDeviceSoftware,
  findOpenSession,
  insertDevice,
  listDevicesJson,
  updateDevice,
} from './devices.queries.ts';
import { write, type WriteOutbox } from '../../events/write.ts';

/** One device's change, as PATCH and the bulk actions make it. */
export async function changeDevice(tx: Tx, actor: Actor, id: string, body: UpdateDeviceBody, outbox: WriteOutbox) {
  const before = await findDevice(tx, actor.workspaceId, id);
  if (!before) throw notFound();
  const { assignedToId } = body;
  const member = assignedToId ? await assertMember(tx, actor.workspaceId, assignedToId, 'assignedToId') : undefined;
  // Nothing to change (an empty body, or only unknown fields): an UPDATE with no SET is invalid SQL.
  if (Object.keys(body).length === 0) return before;
  const updated = await updateDevice(tx, before.id, body);
  outbox.add('device.updated', serialize(updated));
  if (assignedToId !== undefined && assignedToId !== before.assignedToId) {
    await outbox.record(
      {
        userId: actor.userId,
        action: member ? `${updated.name} assigned to ${member.name}` : `${updated.name} unassigned`,
        deviceId: updated.id,
        type: 'info',
      },
      { action: 'device.assigned', entityType: 'device', entityId: updated.id, data: { assignedToId } },
    );
    if (member) outbox.add('device.assigned', serialize(updated), member.id);
  }
  return updated;
}

/** Removes a device; work out on its phone is taken back first (it waits, without a phone, to be moved). */
async function removeDevice(tx: Tx, actor: Actor, id: string, outbox: WriteOutbox): Promise<void> {
  const out = await dispatchedOpenTasksForUpdate(tx, actor.workspaceId, id);
  for (const task of out) await withdrawTask(tx, task, 'The phone was removed', outbox);
  const removed = await deleteDevice(tx, actor.workspaceId, id);
  if (!removed) throw notFound();
  outbox.add('device.deleted', { id: removed.id });
  await outbox.record(
    { userId: actor.userId, action: `Device ${removed.name} removed`, type: 'warning' },
    { action: 'device.deleted', entityType: 'device', entityId: removed.id },
  );
}

/** Ends the phone's open session (if any) and starts a fresh one with the same VA and task. */
async function restartSession(tx: Tx, actor: Actor, id: string, outbox: WriteOutbox) {
  const target = await findDevice(tx, actor.workspaceId, id);
  if (!target) throw notFound();
  await assertMayWorkDevice(tx, actor, target.id);
  const open = await findOpenSession(tx, target.id);
  if (open) await stopSession(tx, actor, open.id, outbox);
  return startSession(tx, actor, { deviceId: target.id, taskId: open?.taskId ?? null, currentTask: open?.currentTask ?? null }, outbox);
}

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
    async (request, reply) => {
      const actor = actorOf(request);
      const { assignedToId, ...fields } = request.body;
      const row = await write(app.ctx, actor.workspaceId, async (tx, outbox) => {
        if (assignedToId) await assertMember(tx, actor.workspaceId, assignedToId, 'assignedToId');
        const created = await insertDevice(tx, actor.workspaceId, { ...fields, assignedToId: assignedToId ?? null });
        outbox.add('device.created', serialize(created));
        await outbox.record(
          { userId: actor.userId, action: `Device ${created.name} added`, deviceId: created.id, type: 'success' },
          { action: 'device.created', entityType: 'device', entityId: created.id },
        );
        return created;
      });
      return reply.code(201).send(serialize(row));
    },
  );

  app.patch(
    '/devices/:id',
    {
      config: { access: 'devices.manage' },
      schema: { tags: ['devices'], params: idParams, body: updateDeviceBody, response: { 200: device, 400: errorBody, 404: errorBody } },
    },
    async (request) => {
      const actor = actorOf(request);
      const row = await write(app.ctx, actor.workspaceId, (tx, outbox) => changeDevice(tx, actor, request.params.id, request.body, outbox));
      return serialize(row);
    },
  );

  app.delete('/devices/:id', { config: { access: 'devices.manage' }, schema: { tags: ['devices'], params: idParams } }, async (request, reply) => {
    const actor = actorOf(request);
    await write(app.ctx, actor.workspaceId, (tx, outbox) => removeDevice(tx, actor, request.params.id, outbox));
    // Its phone's connection, wherever it is, closes now.
    app.ctx.agents?.disconnect(request.params.id);
    return reply.code(204).send();
  });

  /** Ends the phone's open session (if any) and starts a fresh one with the same VA and task. */
  app.post(
    '/devices/:id/restart-session',
    { config: { access: 'sessions.work' }, schema: { tags: ['devices'], params: idParams, response: { 201: session, 404: errorBody } } },
    async (request, reply) => {
      const actor = actorOf(request);
      const row = await write(app.ctx, actor.workspaceId, (tx, outbox) => restartSession(tx, actor, request.params.id, outbox));
      void app.ctx.agents?.command(row.deviceId, 'restart_session');
      return reply.code(201).send(toSession(row));
    },
  );

  /** Many phones at once: assign a VA, delete, or send a command (screenshot, restart session); all or nothing. */
  app.post(
    '/devices/bulk',
    {
      config: { access: 'devices.manage' },
      schema: { tags: ['devices'], body: deviceBulkBody, response: { 200: bulkResult, 400: errorBody, 409: bulkRefused } },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const body = request.body as DeviceBulkBody;
      const commanded: string[] = [];
      const answer = await runBulk(app.ctx, actor.workspaceId, async (tx, outbox) => {
        // Run again after a deadlock, the commands gathered start afresh.
        commanded.length = 0;
        return {
          ids: body.ids ?? (await selectIds(deviceIdsMatching(tx, actor.workspaceId, body.filter ?? {}))),
          apply: async (id: string) => {
            if (body.action === 'delete') return removeDevice(tx, actor, id, outbox);
            if (body.action === 'update') return void (await changeDevice(tx, actor, id, body.changes, outbox));
            if (body.command === 'restart_session') await restartSession(tx, actor, id, outbox);
            else if (!(await findDevice(tx, actor.workspaceId, id))) throw notFound();
            commanded.push(id);
          },
        };
      });
      if (answer.refused) return reply.code(409).send(answer.body);
      // Phones hear their command once the writes are committed.
      if (body.action === 'command') for (const id of commanded) void app.ctx.agents?.command(id, body.command);
      if (body.action === 'delete')
        for (const id of answer.body.results.filter((result) => result.ok).map((result) => result.id)) app.ctx.agents?.disconnect(id);
      return answer.body;
    },
  );
};
