import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
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

function toRoutine(row: RoutineRow) {
  return { ...serialize(row), settings: routineSettings.parse(row.settings) };
}

async function assertLinked(tx: Tx, campaignId: string, accountId: string): Promise<void> {
  const link = await tx.selectFrom('campaignAccounts').select('id').where('campaignId', '=', campaignId).where('accountId', '=', accountId).executeTakeFirst();
  if (!link) throw badRequest('accountId', 'Account must be linked to the campaign');
}

export const routinesRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  app.get(
    '/routines',
    { config: { access: 'workspace.read' }, schema: { tags: ['routines'], querystring: routineListQuery, response: { 200: z.array(routine) } } },
    async (request) => {
      let query = db.selectFrom('routines').selectAll().where('workspaceId', '=', actorOf(request).workspaceId);
      if (request.query.campaignId) query = query.where('campaignId', '=', request.query.campaignId);
      const rows = await query.orderBy('campaignId').orderBy('sequence').orderBy('createdAt').limit(1000).execute();
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
        await assertOwned(tx, 'accounts', actor.workspaceId, body.accountId, 'accountId');
        await assertLinked(tx, body.campaignId, body.accountId);
        const target = await tx.selectFrom('campaigns').select(['platform', 'name']).where('id', '=', body.campaignId).forUpdate().executeTakeFirstOrThrow();
        const settings = settingsFor(body.type, { ...(body.duration ? { duration: body.duration } : {}), ...body.settings });
        const { count } = await tx
          .selectFrom('routines')
          .select(sql<number>`count(*)::int`.as('count'))
          .where('campaignId', '=', body.campaignId)
          .executeTakeFirstOrThrow();
        const created = await tx
          .insertInto('routines')
          .values({
            workspaceId: actor.workspaceId,
            campaignId: body.campaignId,
            type: body.type,
            platform: body.platform ?? target.platform,
            accountId: body.accountId,
            name: body.name || routineTypeLabels[body.type],
            intensity: body.intensity ?? routineDefaults.intensity,
            duration: deriveRoutineDuration(body.type, settings),
            actions: body.actions ?? [],
            settings: JSON.stringify(settings),
            sequence: count + 1,
            isActive: body.isActive ?? true,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
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
        const before = await tx
          .selectFrom('routines')
          .selectAll()
          .where('id', '=', request.params.id)
          .where('workspaceId', '=', actor.workspaceId)
          .forUpdate()
          .executeTakeFirst();
        if (!before) throw notFound();
        if (body.accountId) {
          await assertOwned(tx, 'accounts', actor.workspaceId, body.accountId, 'accountId');
          await assertLinked(tx, before.campaignId, body.accountId);
        }
        const type = body.type ?? (before.type as RoutineType);
        const previous = body.type && body.type !== before.type ? {} : routineSettings.parse(before.settings);
        const settings = settingsFor(type, { ...previous, ...(body.duration ? { duration: body.duration } : {}), ...body.settings });
        const updated = await tx
          .updateTable('routines')
          .set({
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
          })
          .where('id', '=', before.id)
          .returningAll()
          .executeTakeFirstOrThrow();
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
      const target = await tx
        .selectFrom('routines')
        .select(['campaignId', 'name'])
        .where('id', '=', request.params.id)
        .where('workspaceId', '=', actor.workspaceId)
        .forUpdate()
        .executeTakeFirst();
      if (!target) throw notFound();
      await cancelCampaignRuns(
        tx,
        { campaignId: target.campaignId, routineId: request.params.id },
        `Routine "${target.name}" was deleted`,
        Outboxes.of(outbox),
      );
      const removed = await tx
        .deleteFrom('routines')
        .where('id', '=', request.params.id)
        .where('workspaceId', '=', actor.workspaceId)
        .returning(['id', 'name', 'campaignId', 'sequence'])
        .executeTakeFirst();
      if (!removed) throw notFound();
      // Close the gap so sequences stay 1..n.
      await tx
        .updateTable('routines')
        .set({ sequence: sql<number>`sequence - 1` })
        .where('campaignId', '=', removed.campaignId)
        .where('sequence', '>', removed.sequence)
        .execute();
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
      let query = db.selectFrom('campaignSessions').selectAll().where('workspaceId', '=', actorOf(request).workspaceId);
      if (request.query.campaignId) query = query.where('campaignId', '=', request.query.campaignId);
      const rows = await query.orderBy('createdAt', 'desc').limit(500).execute();
      return rows.map(serialize);
    },
  );
};
