import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  accountGrowth,
  analyticsWindowQuery,
  errorBody,
  idParams,
  leaderboard,
  leaderboardColumns,
  leaderboardQuery,
  leaderboardTable,
  performance,
  statsQuery,
  statsWindowQuery,
  timeseries,
  timeseriesQuery,
  windowedStats,
} from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { badRequest, notFound } from '../../errors.ts';
import {
  computeAccountGrowth,
  computeLeaderboard,
  computePerformance,
  computeStatsOfAllTime,
  computeTimeseries,
  computeWindowedStats,
  findAccountId,
} from './analytics.queries.ts';
import { sendCachedJson } from '../../shared/read-cache.ts';
import { findGroup } from '../groups/groups.queries.ts';

export const analyticsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  /** A figure of one group's phones: the group must be the workspace's. */
  const assertGroup = async (workspaceId: string, groupId: string | undefined) => {
    if (groupId && !(await findGroup(db, workspaceId, groupId))) throw badRequest('groupId', "Group must be one of this workspace's groups or tags");
  };

  app.get(
    '/analytics/stats',
    {
      config: { access: 'workspace.read' },
      schema: { tags: ['analytics'], querystring: statsWindowQuery, response: { 200: windowedStats, 400: errorBody } },
    },
    async (request, reply) => {
      const { workspaceId } = actorOf(request);
      const { groupId, ...query } = request.query;
      await assertGroup(workspaceId, groupId);
      return sendCachedJson(reply, app.ctx.reads, workspaceId, `stats ${JSON.stringify(request.query)}`, windowedStats, async () => {
        if (!query.range && !query.from) {
          const { timeZone, ...all } = await computeStatsOfAllTime(db, workspaceId, groupId);
          return { body: { ...all, from: null, to: null, timeZone: query.tz ?? timeZone, previous: null } };
        }
        return { body: await computeWindowedStats(db, workspaceId, query, groupId) };
      });
    },
  );

  app.get(
    '/analytics/performance',
    { config: { access: 'workspace.read' }, schema: { tags: ['analytics'], querystring: statsQuery, response: { 200: performance } } },
    async (request, reply) => {
      const { workspaceId } = actorOf(request);
      return sendCachedJson(reply, app.ctx.reads, workspaceId, `performance ${request.query.range ?? ''}`, performance, async () => ({
        body: await computePerformance(db, workspaceId, request.query.range),
      }));
    },
  );

  app.get(
    '/analytics/timeseries',
    { config: { access: 'workspace.read' }, schema: { tags: ['analytics'], querystring: timeseriesQuery, response: { 200: timeseries, 400: errorBody } } },
    async (request, reply) => {
      const { workspaceId } = actorOf(request);
      const { groupId, ...query } = request.query;
      await assertGroup(workspaceId, groupId);
      return sendCachedJson(reply, app.ctx.reads, workspaceId, `timeseries ${JSON.stringify(request.query)}`, timeseries, async () => ({
        body: await computeTimeseries(db, workspaceId, query, query.metric, groupId),
      }));
    },
  );

  app.get(
    '/analytics/tables/:table',
    {
      config: { access: 'workspace.read' },
      schema: {
        tags: ['analytics'],
        params: z.object({ table: leaderboardTable }),
        querystring: leaderboardQuery,
        response: { 200: leaderboard, 400: errorBody },
      },
    },
    async (request, reply) => {
      const { workspaceId } = actorOf(request);
      const { sort, order, limit, offset, groupId, ...window } = request.query;
      const columns: readonly string[] = leaderboardColumns[request.params.table];
      if (sort !== undefined && !columns.includes(sort)) throw badRequest('sort', `Sort must be one of ${columns.join(', ')}`);
      // A group is of phones: it narrows the phones table only.
      if (groupId && request.params.table !== 'devices') throw badRequest('groupId', 'Filter by group applies to the phones table only');
      await assertGroup(workspaceId, groupId);
      return sendCachedJson(reply, app.ctx.reads, workspaceId, `table ${request.params.table} ${JSON.stringify(request.query)}`, leaderboard, async () => ({
        body: await computeLeaderboard(db, workspaceId, window, request.params.table, {
          sort,
          order,
          limit: limit ?? 5,
          offset: offset ?? 0,
          groupId,
        }),
      }));
    },
  );

  app.get(
    '/analytics/accounts/:id/growth',
    {
      config: { access: 'workspace.read' },
      schema: { tags: ['analytics'], params: idParams, querystring: analyticsWindowQuery, response: { 200: accountGrowth, 404: errorBody } },
    },
    async (request) => {
      const { workspaceId } = actorOf(request);
      const account = await findAccountId(db, workspaceId, request.params.id);
      if (!account) throw notFound();
      return computeAccountGrowth(db, workspaceId, account.id, request.query);
    },
  );
};
