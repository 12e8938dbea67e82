import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  account,
  campaign,
  campaignAccountLink,
  campaignAccountParams,
  campaignListQuery,
  createCampaignBody,
  errorBody,
  idParams,
  linkAccountBody,
  messages,
  updateCampaignBody,
} from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { AppError, badRequest, conflict, notFound } from '../../errors.ts';
import { DEFAULT_LIMIT, page } from '../../shared/paging.ts';
import { assertOwned } from '../../shared/refs.ts';
import { serialize } from '../../shared/serialize.ts';
import {
  deleteCampaign,
  deleteCampaignAccount,
  findCampaign,
  findGroupId,
  listGroupAccounts,
  insertCampaign,
  insertCampaignAccount,
  listCampaignAccounts,
  listCampaigns,
  lockCampaign,
  updateCampaign,
} from './campaigns.queries.ts';
import { cancelCampaignRuns, Outboxes, planCampaign } from '@farm/workers';
import { write } from '../../events/write.ts';

/** The group a campaign is to take the phones' accounts of: one of the workspace's, else 400 naming the field. */
async function assertGroup(db: Parameters<typeof findGroupId>[0], workspaceId: string, groupId: string | null | undefined): Promise<void> {
  if (!groupId) return;
  if (!(await findGroupId(db, workspaceId, groupId))) throw badRequest('groupId', "Group must be one of this workspace's groups or tags");
}

const STATUS_VERBS = { active: 'activated', paused: 'paused', completed: 'completed', draft: 'returned to draft' } as const;

export const campaignsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  app.get(
    '/campaigns',
    { config: { access: 'workspace.read' }, schema: { tags: ['campaigns'], querystring: campaignListQuery, response: { 200: z.array(campaign) } } },
    async (request, reply) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await listCampaigns(db, actorOf(request).workspaceId, { ...request.query, limit });
      return page(reply, rows, limit, (row) => row.createdAt).map(serialize);
    },
  );

  app.get(
    '/campaigns/:id',
    { config: { access: 'workspace.read' }, schema: { tags: ['campaigns'], params: idParams, response: { 200: campaign, 404: errorBody } } },
    async (request) => {
      const row = await findCampaign(db, actorOf(request).workspaceId, request.params.id);
      if (!row) throw notFound();
      return serialize(row);
    },
  );

  app.post(
    '/campaigns',
    {
      config: { access: 'campaigns.manage', signedOutMessage: messages.mustBeLoggedIn },
      schema: { tags: ['campaigns'], body: createCampaignBody, response: { 201: campaign, 400: errorBody } },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const row = await write(app.ctx, actor.workspaceId, async (tx, outbox) => {
        const { dailyCaps, ...fields } = request.body;
        await assertGroup(tx, actor.workspaceId, fields.groupId);
        const created = await insertCampaign(tx, actor.workspaceId, actor.userId, {
          ...fields,
          ...(dailyCaps ? { dailyCaps: JSON.stringify(dailyCaps) } : {}),
        });
        const full = (await findCampaign(tx, actor.workspaceId, created.id))!;
        outbox.add('campaign.created', serialize(full));
        await outbox.record(
          { userId: actor.userId, action: `Campaign "${full.name}" created`, type: 'success' },
          { action: 'campaign.created', entityType: 'campaign', entityId: full.id },
        );
        return full;
      });
      return reply.code(201).send(serialize(row));
    },
  );

  app.patch(
    '/campaigns/:id',
    {
      config: { access: 'campaigns.manage' },
      schema: { tags: ['campaigns'], params: idParams, body: updateCampaignBody, response: { 200: campaign, 400: errorBody, 404: errorBody } },
    },
    async (request) => {
      const actor = actorOf(request);
      const row = await write(app.ctx, actor.workspaceId, async (tx, outbox) => {
        // One change of a campaign at a time: two activations racing plan its runs once.
        if (!(await lockCampaign(tx, actor.workspaceId, request.params.id))) throw notFound();
        const before = (await findCampaign(tx, actor.workspaceId, request.params.id))!;
        const body = request.body;
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
        const after = (await findCampaign(tx, actor.workspaceId, before.id))!;
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
      if (row.status === 'active') void app.ctx.jobs?.runNow('campaigns.due');
      return serialize(row);
    },
  );

  app.delete('/campaigns/:id', { config: { access: 'campaigns.manage' }, schema: { tags: ['campaigns'], params: idParams } }, async (request, reply) => {
    const actor = actorOf(request);
    await write(app.ctx, actor.workspaceId, async (tx, outbox) => {
      if (!(await lockCampaign(tx, actor.workspaceId, request.params.id))) throw notFound();
      await cancelCampaignRuns(tx, { campaignId: request.params.id }, 'The campaign was deleted', Outboxes.of(outbox));
      const removed = await deleteCampaign(tx, actor.workspaceId, request.params.id);
      if (!removed) throw notFound();
      outbox.add('campaign.deleted', { id: removed.id });
      await outbox.record(
        { userId: actor.userId, action: `Campaign "${removed.name}" deleted`, type: 'warning' },
        { action: 'campaign.deleted', entityType: 'campaign', entityId: removed.id },
      );
    });
    return reply.code(204).send();
  });

  app.get(
    '/campaigns/:id/accounts',
    { config: { access: 'workspace.read' }, schema: { tags: ['campaigns'], params: idParams, response: { 200: z.array(account), 404: errorBody } } },
    async (request) => {
      const actor = actorOf(request);
      if (!(await findCampaign(db, actor.workspaceId, request.params.id))) throw notFound();
      const rows = await listCampaignAccounts(db, request.params.id);
      return rows.map(serialize);
    },
  );

  app.get(
    '/campaigns/:id/group-accounts',
    { config: { access: 'workspace.read' }, schema: { tags: ['campaigns'], params: idParams, response: { 200: z.array(account), 404: errorBody } } },
    async (request) => {
      const actor = actorOf(request);
      const target = await findCampaign(db, actor.workspaceId, request.params.id);
      if (!target) throw notFound();
      // Who is on the group's phones now: the accounts its group routines run for (none without a group).
      const rows = await listGroupAccounts(db, actor.workspaceId, target);
      return rows.map(serialize);
    },
  );

  app.post(
    '/campaigns/:id/accounts',
    {
      config: { access: 'campaigns.manage' },
      schema: {
        tags: ['campaigns'],
        params: idParams,
        body: linkAccountBody,
        response: { 201: campaignAccountLink, 400: errorBody, 404: errorBody, 409: errorBody },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const link = await write(app.ctx, actor.workspaceId, async (tx, outbox) => {
        const target = await findCampaign(tx, actor.workspaceId, request.params.id);
        if (!target) throw notFound();
        await assertOwned(tx, 'accounts', actor.workspaceId, request.body.accountId, 'accountId');
        if (target.accountIds.includes(request.body.accountId)) throw conflict('This account is already linked to the campaign');
        const created = await insertCampaignAccount(tx, actor.workspaceId, target.id, request.body.accountId);
        outbox.add('campaign.updated', serialize((await findCampaign(tx, actor.workspaceId, target.id))!));
        return created;
      });
      return reply.code(201).send(serialize(link));
    },
  );

  app.delete(
    '/campaigns/:id/accounts/:accountId',
    { config: { access: 'campaigns.manage' }, schema: { tags: ['campaigns'], params: campaignAccountParams } },
    async (request, reply) => {
      const actor = actorOf(request);
      await write(app.ctx, actor.workspaceId, async (tx, outbox) => {
        const removed = await deleteCampaignAccount(tx, actor.workspaceId, request.params.id, request.params.accountId);
        if (removed.numDeletedRows === 0n) throw notFound();
        outbox.add('campaign.updated', serialize((await findCampaign(tx, actor.workspaceId, request.params.id))!));
      });
      return reply.code(204).send();
    },
  );
};
