import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { auditEntry, auditLogQuery, NEXT_CURSOR_HEADER } from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { DEFAULT_LIMIT } from '../../shared/paging.ts';
import { auditFacets, encodeAuditCursor, listAuditLog } from './audit.queries.ts';

export const auditRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/audit-log',
    { config: { access: 'audit.read' }, schema: { tags: ['audit'], querystring: auditLogQuery, response: { 200: z.array(auditEntry) } } },
    async (request, reply) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await listAuditLog(app.ctx.db, actorOf(request).workspaceId, { ...request.query, limit });
      const pageRows = rows.slice(0, limit);
      const last = pageRows.at(-1);
      if (rows.length > limit && last) void reply.header(NEXT_CURSOR_HEADER, encodeAuditCursor(last.createdAt, String(last.id)));
      return pageRows.map((row) => ({ ...row, id: String(row.id), createdAt: row.createdAt.toISOString() }));
    },
  );

  app.get(
    '/audit-log/facets',
    {
      config: { access: 'audit.read' },
      schema: { tags: ['audit'], response: { 200: z.object({ actions: z.array(z.string()), entityTypes: z.array(z.string()) }) } },
    },
    async (request) => auditFacets(app.ctx.db, actorOf(request).workspaceId),
  );
};
