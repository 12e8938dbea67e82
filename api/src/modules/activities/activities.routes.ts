import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { activity, activityListQuery } from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { sendCachedText } from '../../shared/read-cache.ts';
import { listActivitiesJson } from './activities.queries.ts';

const DEFAULT_ACTIVITIES = 100;

export const activitiesRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/activities',
    { config: { access: 'workspace.read' }, schema: { tags: ['activities'], querystring: activityListQuery, response: { 200: z.array(activity) } } },
    async (request, reply) => {
      const limit = request.query.limit ?? DEFAULT_ACTIVITIES;
      const { workspaceId } = actorOf(request);
      return sendCachedText(reply, app.ctx.reads, workspaceId, `activities ${JSON.stringify(request.query)}`, async () =>
        listActivitiesJson(app.ctx.db, workspaceId, { ...request.query, limit }),
      );
    },
  );
};
