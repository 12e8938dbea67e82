import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PostRow, PostStatus } from '@farm/sql';
import { createPostBody, errorBody, idParams, post, postListQuery, postTransitions, updatePostBody } from '../../contracts/index.ts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { AppError, badRequest, notFound } from '../../errors.ts';
import { Outbox } from '../../realtime/outbox.ts';
import { DEFAULT_LIMIT, decodeCursor, page, pastCursor } from '../../shared/paging.ts';
import { assertOwned } from '../../shared/refs.ts';
import { serialize } from '../../shared/serialize.ts';
import type { Actor, Tx } from '../../shared/types.ts';
import { recordActivity } from '../activities/activities.queries.ts';

/** A schedule may be set at most a minute in the past (clock skew), never earlier. */
const SCHEDULE_GRACE_MS = 60_000;

function assertFuture(at: string | null | undefined): void {
  if (at && Date.parse(at) < Date.now() - SCHEDULE_GRACE_MS) throw badRequest('scheduledAt', 'scheduledAt: must be in the future');
}

async function announce(tx: Tx, actor: Actor, row: PostRow, status: PostStatus, outbox: Outbox): Promise<void> {
  const account = await tx.selectFrom('accounts').select(['username', 'deviceId']).where('id', '=', row.accountId).executeTakeFirstOrThrow();
  const verb = { draft: 'saved as draft', scheduled: 'scheduled', published: 'published', failed: 'failed to publish' }[status];
  await recordActivity(
    tx,
    { workspaceId: actor.workspaceId, userId: actor.userId, action: `Post for @${account.username} ${verb}`, deviceId: account.deviceId, type: status === 'published' ? 'success' : status === 'failed' ? 'error' : 'info' },
    { action: `post.${status}`, entityType: 'post', entityId: row.id },
    outbox,
  );
}

export const postsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, changes } = app.ctx;

  app.get(
    '/posts',
    { config: { access: 'workspace.read' }, schema: { tags: ['posts'], querystring: postListQuery, response: { 200: z.array(post) } } },
    async (request, reply) => {
      const { campaignId, accountId, status } = request.query;
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const cursor = decodeCursor(request.query.cursor);
      let query = db.selectFrom('posts').selectAll().where('workspaceId', '=', actorOf(request).workspaceId);
      if (campaignId === 'none') query = query.where('campaignId', 'is', null);
      else if (campaignId) query = query.where('campaignId', '=', campaignId);
      if (accountId) query = query.where('accountId', '=', accountId);
      if (status) query = query.where('status', '=', status);
      if (cursor) {
        query = query.where(pastCursor(cursor, 'newest'));
      }
      const rows = await query.orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
      return page(reply, rows, limit, (row) => row.createdAt).map(serialize);
    },
  );

  app.get(
    '/posts/:id',
    { config: { access: 'workspace.read' }, schema: { tags: ['posts'], params: idParams, response: { 200: post, 404: errorBody } } },
    async (request) => {
      const row = await db.selectFrom('posts').selectAll().where('id', '=', request.params.id).where('workspaceId', '=', actorOf(request).workspaceId).executeTakeFirst();
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
      if (body.status === 'failed') throw badRequest('status', 'status: a post cannot be created as failed');
      if (body.status === 'scheduled') assertFuture(body.scheduledAt);
      const outbox = new Outbox(actor.workspaceId);
      const row = await db.transaction().execute(async (tx) => {
        await assertOwned(tx, 'accounts', actor.workspaceId, body.accountId, 'accountId');
        if (body.campaignId) await assertOwned(tx, 'campaigns', actor.workspaceId, body.campaignId, 'campaignId');
        const created = await tx
          .insertInto('posts')
          .values({
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
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        outbox.add('post.created', serialize(created));
        await announce(tx, actor, created, created.status, outbox);
        return created;
      });
      outbox.flush(changes);
      return reply.code(201).send(serialize(row));
    },
  );

  app.patch(
    '/posts/:id',
    { config: { access: 'posts.write' }, schema: { tags: ['posts'], params: idParams, body: updatePostBody, response: { 200: post, 400: errorBody, 404: errorBody, 409: errorBody } } },
    async (request) => {
      const actor = actorOf(request);
      const body = request.body;
      const outbox = new Outbox(actor.workspaceId);
      const row = await db.transaction().execute(async (tx) => {
        const before = await tx.selectFrom('posts').selectAll().where('id', '=', request.params.id).where('workspaceId', '=', actor.workspaceId).forUpdate().executeTakeFirst();
        if (!before) throw notFound();
        const changes: Record<string, unknown> = {};
        if (body.campaignId !== undefined) {
          if (body.campaignId) await assertOwned(tx, 'campaigns', actor.workspaceId, body.campaignId, 'campaignId');
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
        const updated = await tx.updateTable('posts').set(changes).where('id', '=', before.id).returningAll().executeTakeFirstOrThrow();
        outbox.add('post.updated', serialize(updated));
        if (status !== undefined && status !== before.status) await announce(tx, actor, updated, status, outbox);
        return updated;
      });
      outbox.flush(changes);
      return serialize(row);
    },
  );

  app.delete(
    '/posts/:id',
    { config: { access: 'posts.write' }, schema: { tags: ['posts'], params: idParams } },
    async (request, reply) => {
      const actor = actorOf(request);
      const outbox = new Outbox(actor.workspaceId);
      const removed = await db.deleteFrom('posts').where('id', '=', request.params.id).where('workspaceId', '=', actor.workspaceId).returning('id').executeTakeFirst();
      if (!removed) throw notFound();
      outbox.add('post.deleted', { id: removed.id });
      outbox.flush(changes);
      return reply.code(204).send();
    },
  );
};
