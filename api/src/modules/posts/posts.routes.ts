import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PostRow, PostStatus } from '@farm/sql';
import {
  bulkRefused,
  bulkResult,
  createPostBody,
  errorBody,
  idParams,
  post,
  postBulkBody,
  postTransitions,
  postWindowQuery,
  updatePostBody,
  type PostBulkBody,
  type UpdatePostBody,
} from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { AppError, badRequest, notFound } from '../../errors.ts';
import { DEFAULT_LIMIT, page } from '../../shared/paging.ts';
import { assertOwned } from '../../shared/refs.ts';
import { serialize } from '../../shared/serialize.ts';
import type { Actor, Tx } from '../../shared/types.ts';
import { isFuture } from '../../shared/time.ts';
import { runBulk, selectIds } from '../../shared/bulk.ts';
import { accountOfPost, deletePost, filteredPosts, findPost, insertPost, listPosts, lockPost, updatePost } from './posts.queries.ts';
import { cancelTasks, Outboxes } from '@farm/workers';
import { write, type WriteOutbox } from '../../events/write.ts';

/** What a post's content may be edited in: not once it is published. */
const EDITABLE: readonly PostStatus[] = ['draft', 'scheduled', 'failed'];

function assertFuture(at: string | null | undefined): void {
  if (at && !isFuture(at)) throw badRequest('scheduledAt', 'Schedule Date & Time must be in the future');
}

async function announce(tx: Tx, actor: Actor, row: PostRow, status: PostStatus | 'deleted', outbox: WriteOutbox): Promise<void> {
  const account = await accountOfPost(tx, row.accountId);
  const verb = { draft: 'saved as draft', scheduled: 'scheduled', published: 'published', failed: 'failed to publish', deleted: 'deleted' }[status];
  await outbox.record(
    {
      userId: actor.userId,
      action: `Post for @${account.username} ${verb}`,
      deviceId: account.deviceId,
      type: status === 'published' ? 'success' : status === 'failed' ? 'error' : status === 'deleted' ? 'warning' : 'info',
    },
    { action: `post.${status}`, entityType: 'post', entityId: row.id },
  );
}

/** One person's change to one post, as PATCH and the bulk actions make it. */
async function changePost(tx: Tx, actor: Actor, id: string, body: UpdatePostBody, outbox: WriteOutbox): Promise<PostRow> {
  const before = await lockPost(tx, actor.workspaceId, id);
  if (!before) throw notFound();
  const changes: Record<string, unknown> = {};
  const edits = (['accountId', 'caption', 'hashtags', 'mediaUrls'] as const).filter((key) => body[key] !== undefined);
  if (edits.length > 0 && !EDITABLE.includes(before.status)) throw new AppError(409, `A ${before.status} post cannot be edited`);
  if (body.accountId !== undefined && body.accountId !== before.accountId) {
    await assertOwned(tx, 'accounts', actor.workspaceId, body.accountId, 'accountId');
    changes.accountId = body.accountId;
  }
  if (body.campaignId !== undefined) {
    if (body.campaignId !== null) await assertOwned(tx, 'campaigns', actor.workspaceId, body.campaignId, 'campaignId');
    changes.campaignId = body.campaignId;
  }
  if (body.caption !== undefined) changes.caption = body.caption;
  if (body.hashtags !== undefined) changes.hashtags = body.hashtags;
  if (body.mediaUrls !== undefined) changes.mediaUrls = body.mediaUrls;
  if (body.scheduledAt !== undefined && (body.status ?? before.status) === 'scheduled') {
    assertFuture(body.scheduledAt);
    changes.scheduledAt = body.scheduledAt;
  }
  const status = body.status;
  if (status !== undefined && status !== before.status) {
    if (!postTransitions[before.status].includes(status)) throw new AppError(409, `A ${before.status} post cannot become ${status}`);
    changes.status = status;
    if (status === 'published') changes.publishedAt = body.publishedAt ?? new Date().toISOString();
    if (status === 'draft') changes.scheduledAt = null;
    if (status === 'scheduled') {
      const at = body.scheduledAt ?? before.scheduledAt?.toISOString() ?? null;
      if (!at) throw badRequest('scheduledAt', 'Schedule Date & Time is required for scheduled posts');
      assertFuture(at);
      changes.scheduledAt = at;
    }
  }
  if (Object.keys(changes).length === 0) return before;
  // What or when of a scheduled post changed, or it became (or stopped being) scheduled: a new schedule version
  // (a failed post given another go is due again), and the task out for the old one is called off, its phone told.
  const after = (changes.status as PostStatus | undefined) ?? before.status;
  const edited = (['accountId', 'caption', 'hashtags', 'mediaUrls'] as const).some(
    (key) => changes[key] !== undefined && JSON.stringify(changes[key]) !== JSON.stringify(before[key]),
  );
  const moved = changes.scheduledAt !== undefined && changes.scheduledAt !== (before.scheduledAt?.toISOString() ?? null);
  const wasScheduled = before.status === 'scheduled';
  if ((wasScheduled && (edited || moved || after !== 'scheduled')) || (!wasScheduled && after === 'scheduled')) {
    Object.assign(changes, { scheduleVersion: before.scheduleVersion + 1, waitingCode: null, waitingMessage: null, failureCode: null, failureMessage: null });
    if (wasScheduled) {
      const reason =
        after === 'draft'
          ? 'The post was unscheduled'
          : after === 'published'
            ? 'The post was published by a person'
            : edited
              ? 'The post was edited'
              : 'The post was rescheduled';
      await cancelTasks(tx, { postId: before.id }, { message: reason, cause: 'change' }, Outboxes.of(outbox));
    }
  }
  const updated = await updatePost(tx, before.id, changes);
  outbox.add('post.updated', serialize(updated));
  if (status !== undefined && status !== before.status) await announce(tx, actor, updated, status, outbox);
  else
    await outbox.record(
      { userId: actor.userId, action: `Post for @${(await accountOfPost(tx, updated.accountId)).username} edited`, type: 'info' },
      { action: 'post.updated', entityType: 'post', entityId: updated.id, data: { fields: Object.keys(changes) } },
    );
  return updated;
}

async function removePost(tx: Tx, actor: Actor, id: string, outbox: WriteOutbox): Promise<void> {
  const before = await lockPost(tx, actor.workspaceId, id);
  if (!before) throw notFound();
  // A task out for the post is called off first: its phone must not publish what was deleted.
  await cancelTasks(tx, { postId: before.id }, { message: 'The post was deleted', cause: 'change' }, Outboxes.of(outbox));
  await announce(tx, actor, before, 'deleted', outbox);
  await deletePost(tx, actor.workspaceId, id);
  outbox.add('post.deleted', { id });
}

export const postsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  app.get(
    '/posts',
    { config: { access: 'workspace.read' }, schema: { tags: ['posts'], querystring: postWindowQuery, response: { 200: z.array(post) } } },
    async (request, reply) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await listPosts(db, actorOf(request).workspaceId, { ...request.query, limit });
      return page(reply, rows, limit, (row) => row.createdAt).map(serialize);
    },
  );

  app.get(
    '/posts/:id',
    { config: { access: 'workspace.read' }, schema: { tags: ['posts'], params: idParams, response: { 200: post, 404: errorBody } } },
    async (request) => {
      const row = await findPost(db, actorOf(request).workspaceId, request.params.id);
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
        if (body.campaignId !== undefined && body.campaignId !== null) await assertOwned(tx, 'campaigns', actor.workspaceId, body.campaignId, 'campaignId');
        const created = await insertPost(tx, {
          workspaceId: actor.workspaceId,
          accountId: body.accountId,
          campaignId: body.campaignId ?? null,
          caption: body.caption,
          status: body.status,
          hashtags: body.hashtags ?? [],
          mediaUrls: body.mediaUrls ?? [],
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
      const answer = await runBulk(app.ctx, actor.workspaceId, async (tx, outbox) => {
        const ids = body.ids ?? (await selectIds(filteredPosts(tx.selectFrom('posts').select('id'), actor.workspaceId, body.filter ?? {})));
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
