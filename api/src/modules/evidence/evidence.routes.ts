/**
 * A failed run's evidence: `GET /api/tasks/{id}/evidence` (the latest failed attempt's step, selector, screen, app and
 * phone), `GET /api/tasks/{id}/evidence/tree` (that screen's elements), `GET /api/posts/{id}/evidence` (the same, for
 * the post's publishing task) and `GET /api/devices/rerecord` (the phones the person may re-record on now: online,
 * with that app at that version; a VA's own; the failed phone first). A failure's screen is read as live Inspect is
 * (screens.rules.ts): by an operator or the VA its phone is assigned to; a post's evidence, by whoever may see the post.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, failureEvidence, failureEvidenceTree, idParams, rerecordPhone, rerecordQuery } from '@farm/contracts';
import type { UiTree } from '@farm/agent-protocol/inspect';
import { actorOf } from '../../auth/auth.plugin.ts';
import { AppError, notFound } from '../../errors.ts';
import { findTask } from '../tasks/tasks.queries.ts';
import { findPost } from '../posts/posts.queries.ts';
import { postViewer } from '../posts/posts.rules.ts';
import type { Actor } from '../../shared/types.ts';
import { maySeeScreens, SCREENS_NOT_YOURS } from '../usage/screens.rules.ts';
import { findPostEvidence, findTaskEvidence, findTaskEvidenceTree, phonesWithApp, type EvidenceRow } from './evidence.queries.ts';
import { toEvidence } from './evidence.service.ts';

export const NO_TASK_EVIDENCE = 'This task has no failure evidence';
export const NO_POST_EVIDENCE = 'This post has no failure evidence';
export const NO_EVIDENCE_TREE = "This failure's screen elements were not kept";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const evidenceRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  const taskOf = async (workspaceId: string, id: string) => {
    const task = UUID.test(id) ? await findTask(db, workspaceId, id) : undefined;
    if (!task) throw notFound();
    return task;
  };

  /** Refuses a task's evidence to a VA who may neither control the phone it failed on nor see the task's post. */
  const assertMaySeeEvidence = async (actor: Actor, row: EvidenceRow) => {
    if (maySeeScreens(actor, row.deviceId ? { assignedToId: row.deviceAssignedToId ?? null } : null)) return;
    if (row.postId && (await findPost(db, actor.workspaceId, row.postId, postViewer(actor)))) return;
    throw new AppError(403, SCREENS_NOT_YOURS);
  };

  app.get(
    '/tasks/:id/evidence',
    {
      config: { access: 'workspace.read' },
      schema: { tags: ['tasks'], params: idParams, response: { 200: failureEvidence, 403: errorBody, 404: errorBody } },
    },
    async (request) => {
      const actor = actorOf(request);
      const task = await taskOf(actor.workspaceId, request.params.id);
      const row = await findTaskEvidence(db, actor.workspaceId, task.id);
      if (!row) throw new AppError(404, NO_TASK_EVIDENCE);
      await assertMaySeeEvidence(actor, row);
      return toEvidence(row);
    },
  );

  app.get(
    '/tasks/:id/evidence/tree',
    {
      config: { access: 'workspace.read' },
      schema: { tags: ['tasks'], params: idParams, response: { 200: failureEvidenceTree, 403: errorBody, 404: errorBody } },
    },
    async (request) => {
      const actor = actorOf(request);
      const task = await taskOf(actor.workspaceId, request.params.id);
      const row = await findTaskEvidence(db, actor.workspaceId, task.id);
      if (!row) throw new AppError(404, NO_TASK_EVIDENCE);
      await assertMaySeeEvidence(actor, row);
      const tree = await findTaskEvidenceTree(db, actor.workspaceId, task.id);
      if (tree === undefined) throw new AppError(404, NO_TASK_EVIDENCE);
      if (tree === null) throw new AppError(404, NO_EVIDENCE_TREE);
      return JSON.parse(tree) as UiTree;
    },
  );

  app.get(
    '/posts/:id/evidence',
    { config: { access: 'workspace.read' }, schema: { tags: ['posts'], params: idParams, response: { 200: failureEvidence, 404: errorBody } } },
    async (request) => {
      const actor = actorOf(request);
      // A post as its reader sees it: a VA, those of the accounts on their phones and their own drafts.
      const post = UUID.test(request.params.id) ? await findPost(db, actor.workspaceId, request.params.id, postViewer(actor)) : undefined;
      if (!post) throw notFound();
      const row = await findPostEvidence(db, actor.workspaceId, post.id);
      if (!row) throw new AppError(404, NO_POST_EVIDENCE);
      return toEvidence(row);
    },
  );

  app.get(
    '/devices/rerecord',
    {
      config: { access: 'workspace.read' },
      schema: { tags: ['devices'], querystring: rerecordQuery, response: { 200: z.array(rerecordPhone), 400: errorBody } },
    },
    async (request) => {
      const actor = actorOf(request);
      const { package: pkg, version, deviceId } = request.query;
      const rows = await phonesWithApp(db, actor.workspaceId, pkg, version, actor.role === 'operator' ? null : actor.userId);
      const phones = rows.map((row) => ({ id: row.id, name: row.name, status: row.status, failedHere: row.id === deviceId }));
      return [...phones.filter((phone) => phone.failedHere), ...phones.filter((phone) => !phone.failedHere)];
    },
  );
};
