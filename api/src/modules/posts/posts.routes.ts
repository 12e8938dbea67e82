import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  bulkRefused,
  bulkResult,
  createPostBody,
  errorBody,
  idParams,
  post,
  postBulkBody,
  postWindowQuery,
  updatePostBody,
  type PostBulkBody,
} from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { AppError, badRequest, notFound } from '../../errors.ts';
import { DEFAULT_LIMIT, page } from '../../shared/paging.ts';
import { assertOwned } from '../../shared/refs.ts';
import { serialize } from '../../shared/serialize.ts';
import { runBulk, selectIds } from '../../events/bulk.ts';
import { findPost, insertPost, listPosts, postIdsMatching } from './posts.queries.ts';
import { announce, assertFuture, changePost, removePost } from './posts.service.ts';
import { resolveMediaUrls } from '../uploads/uploads.service.ts';
import { assertMayWorkPost, assertOperatorFor, postViewer } from './posts.rules.ts';
import { write } from '../../events/write.ts';

export const postsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  app.get(
    '/posts',
    { config: { access: 'workspace.read' }, schema: { tags: ['posts'], querystring: postWindowQuery, response: { 200: z.array(post) } } },
    async (request, reply) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const actor = actorOf(request);
      const rows = await listPosts(db, actor.workspaceId, { ...request.query, limit, viewer: postViewer(actor) });
      return page(reply, rows, limit, (row) => row.createdAt).map(serialize);
    },
  );

  app.get(
    '/posts/:id',
    { config: { access: 'workspace.read' }, schema: { tags: ['posts'], params: idParams, response: { 200: post, 404: errorBody } } },
    async (request) => {
      const actor = actorOf(request);
      const row = await findPost(db, actor.workspaceId, request.params.id, postViewer(actor));
      if (!row) throw notFound();
      return serialize(row);
    },
  );

  app.post(
    '/posts',
    { config: { access: 'posts.write' }, schema: { tags: ['posts'], body: createPostBody, response: { 201: post, 400: errorBody } } },
    async (request, reply) => {
      const actor = actorOf(request);
      const { createdById: _ignored, ...body } = request.body;
      if (body.status === 'failed') throw badRequest('status', 'Status cannot be failed for a new post');
      if (body.status === 'scheduled') assertFuture(body.scheduledAt);
      const row = await write(app.ctx, actor.workspaceId, async (tx, outbox) => {
        await assertOwned(tx, 'accounts', actor.workspaceId, body.accountId, 'accountId');
        await assertMayWorkPost(tx, actor, null, { accountId: body.accountId, status: body.status });
        if (body.campaignId !== undefined && body.campaignId !== null) await assertOwned(tx, 'campaigns', actor.workspaceId, body.campaignId, 'campaignId');
        const created = await insertPost(tx, {
          workspaceId: actor.workspaceId,
          accountId: body.accountId,
          campaignId: body.campaignId ?? null,
          caption: body.caption,
          status: body.status,
          hashtags: body.hashtags ?? [],
          mediaUrls: await resolveMediaUrls(tx, actor.workspaceId, body.mediaUrls ?? []),
          // The schedule belongs only to a scheduled post.
          scheduledAt: body.status === 'scheduled' ? (body.scheduledAt ?? null) : null,
          publishedAt: body.status === 'published' ? new Date() : null,
          createdById: actor.userId,
        });
        outbox.add('post.created', serialize(created));
        await announce(tx, actor, created, created.status, outbox);
        return created;
      });
      return reply.code(201).send(serialize(row));
    },
  );

  app.patch(
    '/posts/:id',
    {
      config: { access: 'posts.write' },
      schema: { tags: ['posts'], params: idParams, body: updatePostBody, response: { 200: post, 400: errorBody, 404: errorBody, 409: errorBody } },
    },
    async (request) => {
      const actor = actorOf(request);
      const row = await write(app.ctx, actor.workspaceId, (tx, outbox) => changePost(tx, actor, request.params.id, request.body, outbox));
      return serialize(row);
    },
  );

  app.delete('/posts/:id', { config: { access: 'posts.write' }, schema: { tags: ['posts'], params: idParams } }, async (request, reply) => {
    const actor = actorOf(request);
    await write(app.ctx, actor.workspaceId, (tx, outbox) => removePost(tx, actor, request.params.id, outbox));
    return reply.code(204).send();
  });

  app.post(
    '/posts/bulk',
    { config: { access: 'posts.write' }, schema: { tags: ['posts'], body: postBulkBody, response: { 200: bulkResult, 400: errorBody, 409: bulkRefused } } },
    async (request, reply) => {
      const actor = actorOf(request);
      const body = request.body as PostBulkBody;
      assertOperatorFor(actor, 'bulk');
      const answer = await runBulk(app.ctx, actor.workspaceId, async (tx, outbox) => {
        const ids = body.ids ?? (await selectIds(postIdsMatching(tx, actor.workspaceId, body.filter ?? {})));
        return {
          ids,
          apply: async (id: string) => {
            if (body.action === 'delete') return removePost(tx, actor, id, outbox);
            if (body.action === 'update') return void (await changePost(tx, actor, id, body.changes, outbox));
            const current = await findPost(tx, actor.workspaceId, id);
            if (!current) throw notFound();
            if (current.status !== 'scheduled' || !current.scheduledAt) throw new AppError(409, `A ${current.status} post has no schedule to move`);
            const at = new Date(current.scheduledAt.getTime() + body.offsetMinutes * 60_000).toISOString();
            await changePost(tx, actor, id, { scheduledAt: at }, outbox);
          },
        };
      });
      if (answer.refused) return reply.code(409).send(answer.body);
      return answer.body;
    },
  );
};
