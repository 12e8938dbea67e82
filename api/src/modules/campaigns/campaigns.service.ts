/**
 * A campaign's writes: made, changed (its status moves plan or call off its routine runs), deleted, and its accounts
 * linked and unlinked. Every write is one `write()`: announced (`campaign.*`) after commit, and in the feed and the
 * audit log where a person would look for it.
 */
import type { z } from 'zod';
import { messages, type createCampaignBody, type linkAccountBody, type updateCampaignBody } from '@farm/contracts';
import type { CampaignAccountsTable } from '@farm/sql';
import { cancelCampaignRuns, Outboxes, planCampaign, type Runner } from '@farm/workers';
import type { Selectable } from 'kysely';
import { AppError, badRequest, conflict, notFound } from '../../errors.ts';
import { write, type WriteContext } from '../../events/write.ts';
import { assertOwned } from '../../shared/refs.ts';
import { serialize } from '../../shared/serialize.ts';
import type { Actor, Db } from '../../shared/types.ts';
import {
  deleteCampaign,
  deleteCampaignAccount,
  findCampaign,
  findGroupId,
  insertCampaign,
  insertCampaignAccount,
  lockCampaign,
  updateCampaign,
} from './campaigns.queries.ts';

type CreateBody = z.output<typeof createCampaignBody>;
type UpdateBody = z.output<typeof updateCampaignBody>;
type CampaignRow = NonNullable<Awaited<ReturnType<typeof findCampaign>>>;

const STATUS_VERBS = { active: 'activated', paused: 'paused', completed: 'completed', draft: 'returned to draft' } as const;

/** The group a campaign is to take the phones' accounts of: one of the workspace's, else 400 naming the field. */
async function assertGroup(db: Db, workspaceId: string, groupId: string | null | undefined): Promise<void> {
  if (!groupId) return;
  if (!(await findGroupId(db, workspaceId, groupId))) throw badRequest('groupId', "Group must be one of this workspace's groups or tags");
}

/** A campaign the request has just found or changed in its workspace. */
async function reread(db: Db, workspaceId: string, id: string): Promise<CampaignRow> {
  return (await findCampaign(db, workspaceId, id))!;
}

export async function createCampaign(ctx: WriteContext, actor: Actor, body: CreateBody): Promise<CampaignRow> {
  return write(ctx, actor.workspaceId, async (tx, outbox) => {
    const { dailyCaps, ...fields } = body;
    await assertGroup(tx, actor.workspaceId, fields.groupId);
    const created = await insertCampaign(tx, actor.workspaceId, actor.userId, {
      ...fields,
      ...(dailyCaps ? { dailyCaps: JSON.stringify(dailyCaps) } : {}),
    });
    const full = await reread(tx, actor.workspaceId, created.id);
    outbox.add('campaign.created', serialize(full));
    await outbox.record(
      { userId: actor.userId, action: `Campaign "${full.name}" created`, type: 'success' },
      { action: 'campaign.created', entityType: 'campaign', entityId: full.id },
    );
    return full;
  });
}

/**
 * Changes a campaign under its row lock. Its fields are checked as they will be after the change; a status move to
 * active plans its runs (the first goes to its phone now), away from active calls off the run under way, and new
 * active hours or another group plan the waiting runs again.
 */
export async function changeCampaign(
  ctx: WriteContext & { jobs?: Pick<Runner, 'runNow'> | undefined },
  actor: Actor,
  id: string,
  body: UpdateBody,
): Promise<CampaignRow> {
  const row = await write(ctx, actor.workspaceId, async (tx, outbox) => {
    // One change of a campaign at a time: two activations racing plan its runs once.
    if (!(await lockCampaign(tx, actor.workspaceId, id))) throw notFound();
    const before = await reread(tx, actor.workspaceId, id);
    const keywords = body.keywords ?? before.keywords;
    const references = body.referenceAccounts ?? before.referenceAccounts;
    if (keywords.length + references.length === 0) {
      throw new AppError(400, messages.keywordOrReference, [{ field: 'keywords', message: messages.keywordOrReference }]);
    }
    const ageMin = body.autoswipeAgeMin ?? before.autoswipeAgeMin;
    const ageMax = body.autoswipeAgeMax ?? before.autoswipeAgeMax;
    if (ageMin > ageMax) throw new AppError(400, messages.swipeAgeOrder, [{ field: 'autoswipeAgeMin', message: messages.swipeAgeOrder }]);
    if ((body.activeHoursStart ?? before.activeHoursStart) >= (body.activeHoursEnd ?? before.activeHoursEnd)) {
      throw new AppError(400, messages.activeHoursOrder, [{ field: 'activeHoursEnd', message: messages.activeHoursOrder }]);
    }
    const { dailyCaps, ...fields } = body;
    await assertGroup(tx, actor.workspaceId, fields.groupId);
    const set = { ...fields, ...(dailyCaps !== undefined ? { dailyCaps: JSON.stringify(dailyCaps) } : {}) };
    if (Object.keys(set).length > 0) await updateCampaign(tx, before.id, set);
    const after = await reread(tx, actor.workspaceId, before.id);
    outbox.add('campaign.updated', serialize(after));
    const outboxes = Outboxes.of(outbox);
    if (before.status === 'active' && after.status !== 'active') {
      // Paused or completed: nothing more runs, and the run under way is called off (its phone told).
      await cancelCampaignRuns(tx, { campaignId: before.id }, `The campaign was ${STATUS_VERBS[after.status]}`, outboxes);
    } else if (before.status !== 'active' && after.status === 'active') {
      await planCampaign(tx, before.id, { startNow: true });
    } else if (after.status === 'active' && (after.activeHoursStart !== before.activeHoursStart || after.activeHoursEnd !== before.activeHoursEnd)) {
      await cancelCampaignRuns(tx, { campaignId: before.id, pendingOnly: true }, "The campaign's active hours changed", outboxes);
      await planCampaign(tx, before.id, { startNow: false });
    } else if (after.status === 'active' && after.groupId !== before.groupId) {
      // Another group: the waiting runs are planned again over its phones' accounts.
      await cancelCampaignRuns(tx, { campaignId: before.id, pendingOnly: true }, "The campaign's group changed", outboxes);
      await planCampaign(tx, before.id, { startNow: false });
    }
    if (body.status && body.status !== before.status) {
      await outbox.record(
        { userId: actor.userId, action: `Campaign "${after.name}" ${STATUS_VERBS[body.status]}`, type: body.status === 'active' ? 'success' : 'info' },
        { action: 'campaign.status', entityType: 'campaign', entityId: after.id, data: { from: before.status, to: body.status } },
      );
    }
    return after;
  });
  // The first routine run of a campaign just activated goes to its phone now, not at the next tick.
  if (row.status === 'active') void ctx.jobs?.runNow('campaigns.due');
  return row;
}

/** Deletes a campaign; its runs are called off first (their phones told). */
export async function removeCampaign(ctx: WriteContext, actor: Actor, id: string): Promise<void> {
  await write(ctx, actor.workspaceId, async (tx, outbox) => {
    if (!(await lockCampaign(tx, actor.workspaceId, id))) throw notFound();
    await cancelCampaignRuns(tx, { campaignId: id }, 'The campaign was deleted', Outboxes.of(outbox));
    const removed = await deleteCampaign(tx, actor.workspaceId, id);
    if (!removed) throw notFound();
    outbox.add('campaign.deleted', { id: removed.id });
    await outbox.record(
      { userId: actor.userId, action: `Campaign "${removed.name}" deleted`, type: 'warning' },
      { action: 'campaign.deleted', entityType: 'campaign', entityId: removed.id },
    );
  });
}

/** Links one of the workspace's accounts to the campaign, once. */
export async function linkAccount(
  ctx: WriteContext,
  actor: Actor,
  campaignId: string,
  body: z.output<typeof linkAccountBody>,
): Promise<Selectable<CampaignAccountsTable>> {
  return write(ctx, actor.workspaceId, async (tx, outbox) => {
    const target = await findCampaign(tx, actor.workspaceId, campaignId);
    if (!target) throw notFound();
    await assertOwned(tx, 'accounts', actor.workspaceId, body.accountId, 'accountId');
    if (target.accountIds.includes(body.accountId)) throw conflict('This account is already linked to the campaign');
    const created = await insertCampaignAccount(tx, actor.workspaceId, target.id, body.accountId);
    outbox.add('campaign.updated', serialize(await reread(tx, actor.workspaceId, target.id)));
    return created;
  });
}

export async function unlinkAccount(ctx: WriteContext, actor: Actor, campaignId: string, accountId: string): Promise<void> {
  await write(ctx, actor.workspaceId, async (tx, outbox) => {
    const removed = await deleteCampaignAccount(tx, actor.workspaceId, campaignId, accountId);
    if (removed.numDeletedRows === 0n) throw notFound();
    outbox.add('campaign.updated', serialize(await reread(tx, actor.workspaceId, campaignId)));
  });
}
