/**
 * Dry runs of the recipe studio: `GET /api/dry-runs/preflight` (what a run would touch, before Start),
 * `POST /api/dry-runs` (start one on a phone the person may control), `POST /api/dry-runs/{id}/next` and `/stop`
 * (the person who started it, or an operator), `GET /api/dry-runs/{id}` with its trace, `GET /api/dry-runs?recipeId=`
 * (a recipe's recent runs), and a step's tree (`GET /api/dry-runs/{id}/steps/{seq}/tree`). A run's trace is read by
 * whoever may control its phone, as live Inspect (screens.rules.ts): a VA lists the runs of their phones only.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  createDryRunBody,
  dryRun,
  dryRunDetail,
  dryRunListQuery,
  dryRunPreflight,
  dryRunPreflightQuery,
  errorBody,
  idParams,
  traceStepParams,
  traceTree,
} from '@farm/contracts';
import { isUuid } from '@farm/sql';
import { actorOf } from '../../auth/auth.plugin.ts';
import { notFound } from '../../errors.ts';
import type { Actor } from '../../shared/types.ts';
import { assertMaySeeScreens, screensViewer } from '../usage/screens.rules.ts';
import { findRun, listRuns, stepsOf, stepTree } from './dryruns.queries.ts';
import { nextStep, preflightOf, startDryRun, startSweep, stopRun, toDryRun, toStep, watchRights } from './dryruns.service.ts';

export const dryRunsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;
  // Runs that went silent end on every instance's sweep (the update is guarded by status, so twice is once).
  let stopSweep: (() => void) | undefined;
  let stopWatch: (() => void) | undefined;
  app.addHook('onReady', async () => {
    stopSweep = startSweep(app.ctx, app.log);
    // A phone reassigned or a person demoted or removed ends their runs under way at once, as live control does.
    stopWatch = watchRights(app.ctx, app.log);
  });
  app.addHook('onClose', async () => {
    stopSweep?.();
    stopWatch?.();
  });
  const ctx = () => ({ db, changes: app.ctx.changes, storage: app.ctx.storage, agents: app.ctx.agents });
  /** A run whose trace the person may see: an operator, or the VA its phone is assigned to (as live Inspect). */
  const visibleRun = async (actor: Actor, id: string) => {
    const row = isUuid(id) ? await findRun(db, actor.workspaceId, id) : undefined;
    if (!row) throw notFound();
    assertMaySeeScreens(actor, row.deviceId ? { assignedToId: row.deviceAssignedToId ?? null } : null);
    return row;
  };

  app.get(
    '/dry-runs/preflight',
    {
      config: { access: 'studio.work' },
      schema: { tags: ['recipes'], querystring: dryRunPreflightQuery, response: { 200: dryRunPreflight, 400: errorBody, 403: errorBody } },
    },
    async (request) => (await preflightOf(ctx(), actorOf(request), request.query.recipeId, request.query.deviceId)).preflight,
  );

  app.post(
    '/dry-runs',
    {
      config: { access: 'studio.work' },
      schema: { tags: ['recipes'], body: createDryRunBody, response: { 201: dryRun, 400: errorBody, 403: errorBody, 409: errorBody } },
    },
    async (request, reply) => reply.code(201).send(await startDryRun(ctx(), actorOf(request), request.body)),
  );

  app.get(
    '/dry-runs',
    { config: { access: 'workspace.read' }, schema: { tags: ['recipes'], querystring: dryRunListQuery, response: { 200: z.array(dryRun), 400: errorBody } } },
    async (request) => {
      const actor = actorOf(request);
      return (await listRuns(db, actor.workspaceId, request.query.recipeId, screensViewer(actor))).map(toDryRun);
    },
  );

  app.get(
    '/dry-runs/:id',
    { config: { access: 'workspace.read' }, schema: { tags: ['recipes'], params: idParams, response: { 200: dryRunDetail, 403: errorBody, 404: errorBody } } },
    async (request) => {
      const actor = actorOf(request);
      const row = await visibleRun(actor, request.params.id);
      return { ...toDryRun(row), trace: (await stepsOf(db, actor.workspaceId, row.id)).map(toStep) };
    },
  );

  app.get(
    '/dry-runs/:id/steps/:seq/tree',
    {
      config: { access: 'workspace.read' },
      schema: { tags: ['recipes'], params: traceStepParams, response: { 200: traceTree, 403: errorBody, 404: errorBody } },
    },
    async (request) => {
      const actor = actorOf(request);
      const run = await visibleRun(actor, request.params.id);
      const seq = /^\d{1,6}$/.test(request.params.seq) ? Number(request.params.seq) : 0;
      const tree = seq > 0 ? await stepTree(db, actor.workspaceId, run.id, seq) : undefined;
      if (!tree) throw notFound();
      return tree as z.infer<typeof traceTree>;
    },
  );

  app.post(
    '/dry-runs/:id/next',
    {
      config: { access: 'studio.work' },
      schema: { tags: ['recipes'], params: idParams, response: { 202: dryRun, 403: errorBody, 404: errorBody, 409: errorBody } },
    },
    async (request, reply) => reply.code(202).send(await nextStep(ctx(), actorOf(request), request.params.id)),
  );

  app.post(
    '/dry-runs/:id/stop',
    {
      config: { access: 'studio.work' },
      schema: { tags: ['recipes'], params: idParams, response: { 202: dryRun, 403: errorBody, 404: errorBody, 409: errorBody } },
    },
    async (request, reply) => reply.code(202).send(await stopRun(ctx(), actorOf(request), request.params.id)),
  );
};
