import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { activity, activityListQuery } from '../../contracts/index.ts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { page } from '../../shared/paging.ts';
import { serialize } from '../../shared/serialize.ts';
import { listActivities } from './activities.queries.ts';

const DEFAULT_ACTIVITIES = 100;

export const activitiesRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/activities',
    { config: { access: 'workspace.read' }, schema: { tags: ['activities'], querystring: activityListQuery, response: { 200: z.array(activity) } } },
    async (request, reply) => {
      const limit = request.query.limit ?? DEFAULT_ACTIVITIES;
      const rows = await listActivities(app.ctx.db, actorOf(request).workspaceId, { ...request.query, limit });
      return page(reply, rows, limit, (row) => row.createdAt).map(serialize);
    },
  );
};
