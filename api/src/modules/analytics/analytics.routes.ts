import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { performance, stats, statsQuery } from '../../contracts/index.ts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { computePerformance, computeStats } from './analytics.queries.ts';
import { sendCachedJson } from '../../shared/read-cache.ts';

export const analyticsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/analytics/stats',
    { config: { access: 'workspace.read' }, schema: { tags: ['analytics'], querystring: statsQuery, response: { 200: stats } } },
    async (request, reply) => {
      const { workspaceId } = actorOf(request);
      return sendCachedJson(reply, app.ctx.reads, workspaceId, `stats ${request.query.range ?? ''}`, stats, async () => ({ body: await computeStats(app.ctx.db, workspaceId, request.query.range) }));
    },
  );

  app.get(
    '/analytics/performance',
    { config: { access: 'workspace.read' }, schema: { tags: ['analytics'], querystring: statsQuery, response: { 200: performance } } },
    async (request, reply) => {
      const { workspaceId } = actorOf(request);
      return sendCachedJson(reply, app.ctx.reads, workspaceId, `performance ${request.query.range ?? ''}`, performance, async () => ({ body: await computePerformance(app.ctx.db, workspaceId, request.query.range) }));
    },
  );
};
