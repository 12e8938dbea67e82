/**
 * Device usage: who watched or controlled which phone, when and for how long — as a report per day, person and
 * phone (`GET /api/device-usage`) and as a CSV of every session (`GET /api/export/device-usage.csv`).
 */
import { stringify } from 'csv-stringify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { deviceUsageQuery, deviceUsageReport, errorBody } from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { resolveWindow } from '../analytics/analytics.queries.ts';
import { usageReport, usageSessionsForExport } from './usage.queries.ts';

const CSV_COLUMNS = ['Started At', 'Ended At', 'Minutes', 'Person', 'Device', 'Mode', 'Ended Because'] as const;

export const usageRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  app.get(
    '/device-usage',
    {
      config: { access: 'workspace.read' },
      schema: { tags: ['analytics'], querystring: deviceUsageQuery, response: { 200: deviceUsageReport, 400: errorBody } },
    },
    async (request) => {
      const { workspaceId } = actorOf(request);
      const window = await resolveWindow(db, workspaceId, request.query);
      return usageReport(db, workspaceId, window, request.query);
    },
  );

  app.get(
    '/export/device-usage.csv',
    { config: { access: 'workspace.read' }, schema: { tags: ['export'], querystring: deviceUsageQuery, response: { 400: errorBody } } },
    async (request, reply) => {
      const { workspaceId } = actorOf(request);
      const window = await resolveWindow(db, workspaceId, request.query);
      const rows = await usageSessionsForExport(db, workspaceId, window, request.query);
      const csv = stringify({ header: true, columns: [...CSV_COLUMNS], escape_formulas: true, record_delimiter: 'windows', quoted_match: /[\r\n]/ });
      for (const row of rows) {
        csv.write([
          row.startedAt.toISOString(),
          row.endedAt?.toISOString() ?? '',
          (row.seconds / 60).toFixed(1),
          row.userName,
          row.deviceName,
          row.mode === 'control' ? 'Controlled' : 'Watched',
          row.endReason ?? (row.endedAt ? '' : 'still open'),
        ]);
      }
      csv.end();
      void reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="device-usage-${new Date().toISOString().slice(0, 10)}.csv"`)
        .header('cache-control', 'no-store');
      return reply.send(csv as never);
    },
  );
};
