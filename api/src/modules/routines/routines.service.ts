/**
 * A campaign's routines: added at the end of its order, changed (settings and duration derived again from the type),
 * and deleted with the order closed up. Turning a routine off or deleting it calls off its runs. Every write is one
 * `write()`, announced (`routine.*`) after commit.
 */
import type { z } from 'zod';
import type { RoutineRow } from '@farm/sql';
import {
  deriveRoutineDuration,
  routineDefaults,
  routineSettings,
  routineTypeLabels,
  settingsFor,
  type createRoutineBody,
  type RoutineType,
  type updateRoutineBody,
} from '@farm/contracts';
import { cancelCampaignRuns, Outboxes } from '@farm/workers';
import { badRequest, notFound } from '../../errors.ts';
import { write, type WriteContext } from '../../events/write.ts';
import { assertOwned } from '../../shared/refs.ts';
import { serialize } from '../../shared/serialize.ts';
import type { Actor, Tx } from '../../shared/types.ts';
import {
  closeSequenceGap,
  countCampaignRoutines,
  deleteRoutine,
  findCampaignAccountLink,
  findRoutineForUpdate,
  insertRoutine,
  lockCampaignForRoutine,
  lockRoutineForDelete,
  updateRoutine,
} from './routines.queries.ts';

type CreateBody = z.output<typeof createRoutineBody>;
type UpdateBody = z.output<typeof updateRoutineBody>;

/** A routine as the contract shows it: its settings read through their schema. */
export function toRoutine(row: RoutineRow) {
  return { ...serialize(row), settings: routineSettings.parse(row.settings) };
}

async function assertLinked(tx: Tx, campaignId: string, accountId: string): Promise<void> {
  const link = await findCampaignAccountLink(tx, campaignId, accountId);
  if (!link) throw badRequest('accountId', 'Account must be linked to the campaign');
}

/** Adds a routine at the end of its campaign's order (the campaign locked, so routines added at once get distinct places). */
export async function createRoutine(ctx: WriteContext, actor: Actor, body: CreateBody): Promise<RoutineRow> {
  return write(ctx, actor.workspaceId, async (tx, outbox) => {
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
}

/** Changes a routine; a new type starts from that type's settings, and a routine turned off has its runs called off. */
export async function changeRoutine(ctx: WriteContext, actor: Actor, id: string, body: UpdateBody): Promise<RoutineRow> {
  return write(ctx, actor.workspaceId, async (tx, outbox) => {
    const before = await findRoutineForUpdate(tx, actor.workspaceId, id);
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
      await cancelCampaignRuns(tx, { campaignId: before.campaignId, routineId: before.id }, `Routine "${updated.name}" was turned off`, Outboxes.of(outbox));
    }
    return updated;
  });
}

/** Deletes a routine: its runs are called off, and the campaign's order closes up behind it. */
export async function removeRoutine(ctx: WriteContext, actor: Actor, id: string): Promise<void> {
  await write(ctx, actor.workspaceId, async (tx, outbox) => {
    const target = await lockRoutineForDelete(tx, actor.workspaceId, id);
    if (!target) throw notFound();
    await cancelCampaignRuns(tx, { campaignId: target.campaignId, routineId: id }, `Routine "${target.name}" was deleted`, Outboxes.of(outbox));
    const removed = await deleteRoutine(tx, actor.workspaceId, id);
    if (!removed) throw notFound();
    await closeSequenceGap(tx, removed.campaignId, removed.sequence);
    outbox.add('routine.deleted', { id: removed.id, campaignId: removed.campaignId });
    await outbox.record(
      { userId: actor.userId, action: `Routine "${removed.name}" deleted`, type: 'warning' },
      { action: 'routine.deleted', entityType: 'routine', entityId: removed.id },
    );
  });
}
