/**
 * CSV exports of every list with its current filters: `GET /api/export/{tasks|posts|accounts|devices|sessions|activities}.csv`.
 * Streamed: rows are read in batches and written as they come. Cells that a spreadsheet would run as a formula
 * (starting with = + - @, a tab or a carriage return) are written with a leading apostrophe.
 */
import { Readable, Transform } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { csvColumns, errorBody, exportEntityValues, exportQueries, type ExportEntity } from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { postViewer } from '../posts/posts.rules.ts';
import { AppError } from '../../errors.ts';
import { describeIssue } from '../../errors.ts';
import { exportRows } from './export.queries.ts';

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.join(' ');
  return String(value);
}

export const exportRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/export/:file',
    {
      config: { access: 'workspace.read' },
      schema: {
        tags: ['export'],
        params: z.object({ file: z.string().max(40) }),
        querystring: z.record(z.string(), z.string()),
        response: { 400: errorBody, 404: errorBody },
      },
    },
    async (request, reply) => {
      const match = /^([a-z]+)\.csv$/.exec(request.params.file);
      const entity = match?.[1] as ExportEntity | undefined;
      if (!entity || !exportEntityValues.includes(entity)) {
        throw new AppError(404, `There is no export named ${request.params.file}; try one of ${exportEntityValues.map((name) => `${name}.csv`).join(', ')}`);
      }
      const parsed = (exportQueries[entity] as z.ZodType).safeParse(request.query);
      if (!parsed.success) {
        const details = parsed.error.issues.map((issue) => {
          const field = issue.path.join('.') || 'query';
          return { field, message: describeIssue(field, issue.message) };
        });
        throw new AppError(400, details[0]!.message, details);
      }
      const actor = actorOf(request);
      const { workspaceId } = actor;
      // A VA exports only the posts they may see (posts.rules.ts).
      const filter = { ...(parsed.data as Record<string, unknown>), ...(entity === 'posts' ? { viewer: postViewer(actor) } : {}) };
      const stamp = new Date().toISOString().slice(0, 10);
      const rows = Readable.from(exportRows(app.ctx.db, workspaceId, entity, filter));
      const toCells = new Transform({
        objectMode: true,
        transform(row: unknown[], _encoding, done) {
          done(null, row.map(cell));
        },
      });
      // Spreadsheets expect CRLF between rows; a cell holding any line break is quoted so it stays one cell.
      const csv = stringify({ header: true, columns: [...csvColumns[entity]], escape_formulas: true, record_delimiter: 'windows', quoted_match: /[\r\n]/ });
      rows.on('error', (error) => csv.destroy(error));
      void reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${entity}-${stamp}.csv"`)
        .header('cache-control', 'no-store');
      return reply.send(rows.pipe(toCells).pipe(csv) as never);
    },
  );
};
