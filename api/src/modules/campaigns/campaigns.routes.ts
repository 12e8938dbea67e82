/**
 * Campaigns and their linked accounts: everyone in the workspace reads them; operators make, change and delete them
 * (the rules in campaigns.service.ts).
 */
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
import { notFound } from '../../errors.ts';
import { DEFAULT_LIMIT, page } from '../../shared/paging.ts';
import { serialize } from '../../shared/serialize.ts';
import { findCampaign, listCampaignAccounts, listCampaigns, listGroupAccounts } from './campaigns.queries.ts';
import { changeCampaign, createCampaign, linkAccount, removeCampaign, unlinkAccount } from './campaigns.service.ts';

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
    async (request, reply) => reply.code(201).send(serialize(await createCampaign(app.ctx, actorOf(request), request.body))),
  );

  app.patch(
    '/campaigns/:id',
    {
      config: { access: 'campaigns.manage' },
      schema: { tags: ['campaigns'], params: idParams, body: updateCampaignBody, response: { 200: campaign, 400: errorBody, 404: errorBody } },
    },
    async (request) => serialize(await changeCampaign(app.ctx, actorOf(request), request.params.id, request.body)),
  );

  app.delete('/campaigns/:id', { config: { access: 'campaigns.manage' }, schema: { tags: ['campaigns'], params: idParams } }, async (request, reply) => {
    await removeCampaign(app.ctx, actorOf(request), request.params.id);
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
    async (request, reply) => reply.code(201).send(serialize(await linkAccount(app.ctx, actorOf(request), request.params.id, request.body))),
  );

  app.delete(
    '/campaigns/:id/accounts/:accountId',
    { config: { access: 'campaigns.manage' }, schema: { tags: ['campaigns'], params: campaignAccountParams } },
    async (request, reply) => {
      await unlinkAccount(app.ctx, actorOf(request), request.params.id, request.params.accountId);
      return reply.code(204).send();
    },
  );
};
