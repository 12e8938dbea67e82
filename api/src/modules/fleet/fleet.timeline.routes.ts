/**
 * A phone's timeline (issue #50) for its details: its blips, its host's recovery rungs and its reboots, newest first,
 * a page at a time (20 by default, 100 at most; the next page's cursor comes in `x-next-cursor`).
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, idParams, NEXT_CURSOR_HEADER, timelineEntry, timelineQuery } from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { notFound } from '../../errors.ts';
import { encodeAuditCursor } from '../audit/audit.queries.ts';
import { deviceInWorkspace } from './fleet.health.queries.ts';
import { timelineEntryOf } from './fleet.timeline.ts';
import { listTimeline } from './fleet.timeline.queries.ts';

export const TIMELINE_LIMIT = 20;

export const fleetTimelineRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  app.get(
    '/devices/:id/timeline',
    {
      config: { access: 'workspace.read' },
      schema: { tags: ['devices'], params: idParams, querystring: timelineQuery, response: { 200: z.array(timelineEntry), 400: errorBody, 404: errorBody } },
    },
    async (request, reply) => {
      const { workspaceId } = actorOf(request);
      if (!(await deviceInWorkspace(db, workspaceId, request.params.id))) throw notFound();
      const limit = request.query.limit ?? TIMELINE_LIMIT;
      const rows = await listTimeline(db, workspaceId, request.params.id, { cursor: request.query.cursor, limit });
      const pageRows = rows.slice(0, limit);
      const last = pageRows.at(-1);
      if (rows.length > limit && last) void reply.header(NEXT_CURSOR_HEADER, encodeAuditCursor(last.createdAt, String(last.id)));
      return pageRows.flatMap((row) => timelineEntryOf({ ...row, id: String(row.id) }) ?? []);
    },
  );
};
