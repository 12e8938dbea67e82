import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  bulkRefused,
  bulkResult,
  createTaskBody,
  errorBody,
  idParams,
  task,
  taskBulkBody,
  taskCounts,
  taskAnswerBody,
  taskAnswerResult,
  taskListQuery,
  updateTaskBody,
  type TaskBulkBody,
} from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { notFound } from '../../errors.ts';
import { DEFAULT_LIMIT } from '../../shared/paging.ts';
import { sendCachedJson, sendCachedText } from '../../shared/read-cache.ts';
import { serialize } from '../../shared/serialize.ts';
import { countTasks, findTask, listTasksJson } from './tasks.queries.ts';
import { answerTask, bulkTasks, createTask, deleteTask, updateTask, withMe } from './tasks.service.ts';

export const tasksRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  app.get(
    '/tasks',
    { config: { access: 'workspace.read' }, schema: { tags: ['tasks'], querystring: taskListQuery, response: { 200: z.array(task) } } },
    async (request, reply) => {
      const actor = actorOf(request);
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const query = withMe(request.query, actor.userId);
      return sendCachedText(reply, app.ctx.reads, actor.workspaceId, `tasks ${JSON.stringify(query)}`, async () =>
        listTasksJson(db, actor.workspaceId, { ...query, limit }),
      );
    },
  );

  app.get(
    '/tasks/counts',
    {
      config: { access: 'workspace.read' },
      schema: { tags: ['tasks'], querystring: taskListQuery.omit({ limit: true, cursor: true, status: true }), response: { 200: taskCounts } },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const query = withMe(request.query, actor.userId);
      return sendCachedJson(reply, app.ctx.reads, actor.workspaceId, `task-counts ${JSON.stringify(query)}`, taskCounts, async () => ({
        body: await countTasks(db, actor.workspaceId, query),
      }));
    },
  );

  app.get(
    '/tasks/:id',
    { config: { access: 'workspace.read' }, schema: { tags: ['tasks'], params: idParams, response: { 200: task, 404: errorBody } } },
    async (request) => {
      const row = await findTask(db, actorOf(request).workspaceId, request.params.id);
      if (!row) throw notFound();
      return serialize(row);
    },
  );

  app.post(
    '/tasks',
    { config: { access: 'tasks.manage' }, schema: { tags: ['tasks'], body: createTaskBody, response: { 201: task, 400: errorBody } } },
    async (request, reply) => reply.code(201).send(serialize(await createTask(app.ctx, actorOf(request), request.body))),
  );

  app.patch(
    '/tasks/:id',
    {
      config: { access: 'tasks.work' },
      schema: {
        tags: ['tasks'],
        params: idParams,
        body: updateTaskBody,
        response: { 200: task, 400: errorBody, 403: errorBody, 404: errorBody, 409: errorBody },
      },
    },
    async (request) => serialize(await updateTask(app.ctx, actorOf(request), request.params.id, request.body)),
  );

  /** The answer to a post its phone could not confirm: "It is up" (published) or "It is not" (sent out again). */
  app.post(
    '/tasks/:id/answer',
    {
      config: { access: 'tasks.work' },
      schema: {
        tags: ['tasks'],
        params: idParams,
        body: taskAnswerBody,
        response: { 200: taskAnswerResult, 400: errorBody, 403: errorBody, 404: errorBody, 409: errorBody },
      },
    },
    async (request) => {
      const { task: answered, post } = await answerTask(app.ctx, actorOf(request), request.params.id, request.body);
      return { task: serialize(answered), post: post ? serialize(post) : null };
    },
  );

  app.delete('/tasks/:id', { config: { access: 'tasks.manage' }, schema: { tags: ['tasks'], params: idParams } }, async (request, reply) => {
    await deleteTask(app.ctx, actorOf(request), request.params.id);
    return reply.code(204).send();
  });

  /** Many tasks at once, each through the same rules as one: assign, reprioritise, cancel, delete; all or nothing. */
  app.post(
    '/tasks/bulk',
    { config: { access: 'tasks.manage' }, schema: { tags: ['tasks'], body: taskBulkBody, response: { 200: bulkResult, 400: errorBody, 409: bulkRefused } } },
    async (request, reply) => {
      const answer = await bulkTasks(app.ctx, actorOf(request), request.body as TaskBulkBody);
      if (answer.refused) return reply.code(409).send(answer.body);
      return answer.body;
    },
  );
};
