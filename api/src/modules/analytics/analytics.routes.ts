import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { performance, stats, statsQuery } from '../../contracts/index.ts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { computePerformance, computeStats } from './analytics.queries.ts';

export const analyticsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/analytics/stats',
    { config: { access: 'workspace.read' }, schema: { tags: ['analytics'], querystring: statsQuery, response: { 200: stats } } },
    async (request) => computeStats(app.ctx.db, actorOf(request).workspaceId, request.query.range),
  );

  app.get(
    '/analytics/performance',
    { config: { access: 'workspace.read' }, schema: { tags: ['analytics'], querystring: statsQuery, response: { 200: performance } } },
    async (request) => computePerformance(app.ctx.db, actorOf(request).workspaceId, request.query.range),
  );
};
