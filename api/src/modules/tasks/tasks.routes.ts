import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createTaskBody, errorBody, idParams, task, taskCounts, taskListQuery, updateTaskBody } from '../../contracts/index.ts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { notFound } from '../../errors.ts';
import { Outbox } from '../../realtime/outbox.ts';
import { DEFAULT_LIMIT, pageOf } from '../../shared/paging.ts';
import { sendCachedJson } from '../../shared/read-cache.ts';
import { serialize } from '../../shared/serialize.ts';
import { recordActivity } from '../activities/activities.queries.ts';
import { countTasks, findTask, listTasks } from './tasks.queries.ts';
import { createTask, updateTask } from './tasks.service.ts';

export const tasksRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, changes } = app.ctx;

  const withMe = <T extends { assignedToId?: string | undefined }>(query: T, userId: string): T =>
    query.assignedToId === 'me' ? { ...query, assignedToId: userId } : query;

  app.get(
    '/tasks',
    { config: { access: 'workspace.read' }, schema: { tags: ['tasks'], querystring: taskListQuery, response: { 200: z.array(task) } } },
    async (request, reply) => {
      const actor = actorOf(request);
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const query = withMe(request.query, actor.userId);
      return sendCachedJson(reply, app.ctx.reads, actor.workspaceId, `tasks ${JSON.stringify(query)}`, z.array(task), async () => {
        const { rows, next } = pageOf(await listTasks(db, actor.workspaceId, { ...query, limit }), limit, (row) => row.createdAt);
        return { body: rows.map(serialize), next };
      });
    },
  );

  app.get(
    '/tasks/counts',
    { config: { access: 'workspace.read' }, schema: { tags: ['tasks'], querystring: taskListQuery.omit({ limit: true, cursor: true, status: true }), response: { 200: taskCounts } } },
    async (request, reply) => {
      const actor = actorOf(request);
      const query = withMe(request.query, actor.userId);
      return sendCachedJson(reply, app.ctx.reads, actor.workspaceId, `task-counts ${JSON.stringify(query)}`, taskCounts, async () => ({ body: await countTasks(db, actor.workspaceId, query) }));
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
    async (request, reply) => {
      const actor = actorOf(request);
      const outbox = new Outbox(actor.workspaceId);
      const row = await db.transaction().execute((tx) => createTask(tx, actor, request.body, outbox));
      outbox.flush(changes);
      return reply.code(201).send(serialize(row));
    },
  );

  app.patch(
    '/tasks/:id',
    { config: { access: 'tasks.work' }, schema: { tags: ['tasks'], params: idParams, body: updateTaskBody, response: { 200: task, 400: errorBody, 403: errorBody, 404: errorBody, 409: errorBody } } },
    async (request) => {
      const actor = actorOf(request);
      const outbox = new Outbox(actor.workspaceId);
      const row = await db.transaction().execute((tx) => updateTask(tx, actor, request.params.id, request.body, outbox));
      outbox.flush(changes);
      return serialize(row);
    },
  );

  app.delete(
    '/tasks/:id',
    { config: { access: 'tasks.manage' }, schema: { tags: ['tasks'], params: idParams } },
    async (request, reply) => {
      const actor = actorOf(request);
      const outbox = new Outbox(actor.workspaceId);
      await db.transaction().execute(async (tx) => {
        const removed = await tx.deleteFrom('tasks').where('id', '=', request.params.id).where('workspaceId', '=', actor.workspaceId).returning(['id', 'title', 'deviceId']).executeTakeFirst();
        if (!removed) throw notFound();
        outbox.add('task.deleted', { id: removed.id });
        await recordActivity(tx, { workspaceId: actor.workspaceId, userId: actor.userId, action: `Task "${removed.title}" deleted`, deviceId: removed.deviceId, type: 'warning' }, { action: 'task.deleted', entityType: 'task', entityId: removed.id }, outbox);
      });
      outbox.flush(changes);
      return reply.code(204).send();
    },
  );
};
