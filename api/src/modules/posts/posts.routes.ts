/**
 * Posts: everyone in the workspace reads them (a VA the posts of their phones' accounts and their own drafts); who may
 * draft, publish, reschedule and delete which is in posts.rules.ts, and the changes themselves in posts.service.ts.
 */
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
import { notFound } from '../../errors.ts';
import { DEFAULT_LIMIT, page } from '../../shared/paging.ts';
import { serialize } from '../../shared/serialize.ts';
import { findPost, listPosts } from './posts.queries.ts';
import { bulkPosts, changePost, createPost, removePost } from './posts.service.ts';
import { assertOperatorFor, postViewer } from './posts.rules.ts';

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
    async (request, reply) => reply.code(201).send(serialize(await createPost(app.ctx, actorOf(request), request.body))),
  );

  app.patch(
    '/posts/:id',
    {
      config: { access: 'posts.write' },
      schema: { tags: ['posts'], params: idParams, body: updatePostBody, response: { 200: post, 400: errorBody, 404: errorBody, 409: errorBody } },
    },
    async (request) => serialize(await changePost(app.ctx, actorOf(request), request.params.id, request.body)),
  );

  app.delete('/posts/:id', { config: { access: 'posts.write' }, schema: { tags: ['posts'], params: idParams } }, async (request, reply) => {
    await removePost(app.ctx, actorOf(request), request.params.id);
    return reply.code(204).send();
  });

  app.post(
    '/posts/bulk',
    { config: { access: 'posts.write' }, schema: { tags: ['posts'], body: postBulkBody, response: { 200: bulkResult, 400: errorBody, 409: bulkRefused } } },
    async (request, reply) => {
      const actor = actorOf(request);
      assertOperatorFor(actor, 'bulk');
      const answer = await bulkPosts(app.ctx, actor, request.body as PostBulkBody);
      if (answer.refused) return reply.code(409).send(answer.body);
      return answer.body;
    },
  );
};
