/**
 * `POST /api/import/{posts|accounts}` with a CSV body: `?dryRun=1` answers a verdict per row; without it the
 * valid rows are written in one transaction (invalid rows are left out and reported) and one feed line says so.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, importEntityValues, importQuery, importResult } from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { assertOperatorFor } from '../posts/posts.rules.ts';
import { importCsv } from './import.service.ts';

const IMPORT_BODY_LIMIT = 8 * 1024 * 1024;

export const importRoutes: FastifyPluginAsyncZod = async (app) => {
  // Only this plugin's routes read CSV bodies.
  app.addContentTypeParser(['text/csv', 'text/plain', 'application/csv'], { parseAs: 'string', bodyLimit: IMPORT_BODY_LIMIT }, (_request, body, done) =>
    done(null, body),
  );

  // One route per list; both are operators' (posts.rules.ts: a VA imports no posts, and is told so in a sentence).
  for (const entity of importEntityValues) {
    app.post(
      `/import/${entity}`,
      {
        config: { access: entity === 'posts' ? 'posts.write' : 'accounts.manage' },
        bodyLimit: IMPORT_BODY_LIMIT,
        schema: {
          tags: ['import'],
          querystring: importQuery,
          body: z.string({ error: 'Send the CSV file as text/csv' }),
          response: { 200: importResult, 400: errorBody, 403: errorBody },
        },
      },
      async (request) => {
        const actor = actorOf(request);
        if (entity === 'posts') assertOperatorFor(actor, 'import');
        const dryRun = request.query.dryRun === '1' || request.query.dryRun === 'true';
        return importCsv(app.ctx, actor, entity, request.body, dryRun);
      },
    );
  }
};
