import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { RoutineRow } from '@farm/sql';
import {
  campaignSession,
  campaignSessionListQuery,
  createRoutineBody,
  deriveRoutineDuration,
  errorBody,
  idParams,
  routine,
  routineDefaults,
  routineListQuery,
  routineSettings,
  routineTypeLabels,
  settingsFor,
  updateRoutineBody,
  type RoutineType,
} from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { badRequest, notFound } from '../../errors.ts';
import { assertOwned } from '../../shared/refs.ts';
import { serialize } from '../../shared/serialize.ts';
import type { Tx } from '../../shared/types.ts';
import { cancelCampaignRuns, Outboxes } from '@farm/workers';
import { write } from '../../events/write.ts';
import {
  closeSequenceGap,
  countCampaignRoutines,
  deleteRoutine,
  findCampaignAccountLink,
  findRoutineForUpdate,
  insertRoutine,
  listCampaignSessions,
  listRoutines,
  lockCampaignForRoutine,
  lockRoutineForDelete,
  updateRoutine,
} from './routines.queries.ts';

function toRoutine(row: RoutineRow) {
  return { ...serialize(row), settings: routineSettings.parse(row.settings) };
}

async function assertLinked(tx: Tx, campaignId: string, accountId: string): Promise<void> {
  const link = await findCampaignAccountLink(tx, campaignId, accountId);
  if (!link) throw badRequest('accountId', 'Account must be linked to the campaign');
}

export const routinesRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  app.get(
    '/routines',
    { config: { access: 'workspace.read' }, schema: { tags: ['routines'], querystring: routineListQuery, response: { 200: z.array(routine) } } },
    async (request) => {
      const rows = await listRoutines(db, actorOf(request).workspaceId, request.query.campaignId);
      return rows.map(toRoutine);
    },
  );

  app.post(
    '/routines',
    { config: { access: 'routines.manage' }, schema: { tags: ['routines'], body: createRoutineBody, response: { 201: routine, 400: errorBody } } },
    async (request, reply) => {
      const actor = actorOf(request);
      const body = request.body;
      const row = await write(app.ctx, actor.workspaceId, async (tx, outbox) => {
        await assertOwned(tx, 'campaigns', actor.workspaceId, body.campaignId, 'campaignId');
        if (body.accountId !== undefined) {
          await assertOwned(tx, 'accounts', actor.workspaceId, body.accountId, 'accountId');
          await assertLinked(tx, body.campaignId, body.accountId);
        }
        const target = await lockCampaignForRoutine(tx, body.campaignId);
        if (body.forGroup && !target.groupId) throw badRequest('forGroup', 'The campaign takes no group of phones: choose its group first');
        const settings = settingsFor(body.type, { ...(body.duration ? { duration: body.duration } : {}), ...body.settings });
        const { count } = await countCampaignRoutines(tx, body.campaignId);
        const created = await insertRoutine(tx, actor.workspaceId, {
          campaignId: body.campaignId,
          type: body.type,
          platform: body.platform ?? target.platform,
          accountId: body.accountId ?? null,
          forGroup: body.forGroup ?? false,
          name: body.name || routineTypeLabels[body.type],
          intensity: body.intensity ?? routineDefaults.intensity,
          duration: deriveRoutineDuration(body.type, settings),
          actions: body.actions ?? [],
          settings: JSON.stringify(settings),
          sequence: count + 1,
          isActive: body.isActive ?? true,
        });
        outbox.add('routine.created', toRoutine(created));
        await outbox.record(
          { userId: actor.userId, action: `Routine "${created.name}" added to "${target.name}"`, type: 'info' },
          { action: 'routine.created', entityType: 'routine', entityId: created.id },
        );
        return created;
      });
      return reply.code(201).send(toRoutine(row));
    },
  );

  app.patch(
    '/routines/:id',
    {
      config: { access: 'routines.manage' },
      schema: { tags: ['routines'], params: idParams, body: updateRoutineBody, response: { 200: routine, 400: errorBody, 404: errorBody } },
    },
    async (request) => {
      const actor = actorOf(request);
      const body = request.body;
      const row = await write(app.ctx, actor.workspaceId, async (tx, outbox) => {
        const before = await findRoutineForUpdate(tx, actor.workspaceId, request.params.id);
        if (!before) throw notFound();
        if (body.accountId && before.forGroup) throw badRequest('accountId', "A routine for the group's accounts names no account of its own.");
        if (body.accountId) {
          await assertOwned(tx, 'accounts', actor.workspaceId, body.accountId, 'accountId');
          await assertLinked(tx, before.campaignId, body.accountId);
        }
        const type = body.type ?? (before.type as RoutineType);
        const previous = body.type && body.type !== before.type ? {} : routineSettings.parse(before.settings);
        const settings = settingsFor(type, { ...previous, ...(body.duration ? { duration: body.duration } : {}), ...body.settings });
        const updated = await updateRoutine(tx, before.id, {
          type,
          ...(body.platform ? { platform: body.platform } : {}),
          ...(body.accountId ? { accountId: body.accountId } : {}),
          ...(body.name ? { name: body.name } : {}),
          ...(body.intensity !== undefined ? { intensity: body.intensity } : {}),
          ...(body.actions ? { actions: body.actions } : {}),
          ...(body.isActive !== undefined ? { isActive: body.isActive } : {}),
          ...(body.sequence !== undefined ? { sequence: body.sequence } : {}),
          settings: JSON.stringify(settings),
          duration: deriveRoutineDuration(type, settings),
        });
        outbox.add('routine.updated', toRoutine(updated));
        if (before.isActive && !updated.isActive) {
          await cancelCampaignRuns(
            tx,
            { campaignId: before.campaignId, routineId: before.id },
            `Routine "${updated.name}" was turned off`,
            Outboxes.of(outbox),
          );
        }
        return updated;
      });
      return toRoutine(row);
    },
  );

  app.delete('/routines/:id', { config: { access: 'routines.manage' }, schema: { tags: ['routines'], params: idParams } }, async (request, reply) => {
    const actor = actorOf(request);
    await write(app.ctx, actor.workspaceId, async (tx, outbox) => {
      const target = await lockRoutineForDelete(tx, actor.workspaceId, request.params.id);
      if (!target) throw notFound();
      await cancelCampaignRuns(
        tx,
        { campaignId: target.campaignId, routineId: request.params.id },
        `Routine "${target.name}" was deleted`,
        Outboxes.of(outbox),
      );
      const removed = await deleteRoutine(tx, actor.workspaceId, request.params.id);
      if (!removed) throw notFound();
      await closeSequenceGap(tx, removed.campaignId, removed.sequence);
      outbox.add('routine.deleted', { id: removed.id, campaignId: removed.campaignId });
      await outbox.record(
        { userId: actor.userId, action: `Routine "${removed.name}" deleted`, type: 'warning' },
        { action: 'routine.deleted', entityType: 'routine', entityId: removed.id },
      );
    });
    return reply.code(204).send();
  });

  app.get(
    '/campaign-sessions',
    {
      config: { access: 'workspace.read' },
      schema: { tags: ['campaigns'], querystring: campaignSessionListQuery, response: { 200: z.array(campaignSession) } },
    },
    async (request) => {
      const rows = await listCampaignSessions(db, actorOf(request).workspaceId, request.query.campaignId);
      return rows.map(serialize);
    },
  );
};
