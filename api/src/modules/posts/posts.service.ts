/**
 * A person's changes to posts: the rules of what may change when, the schedule version, the task out for the old
 * schedule called off, and the feed entry. The routes and the bulk actions both come through here, each write one
 * `write()`; a bulk action changes each post as its own route would, all or nothing.
 */
import type { z } from 'zod';
import type { PostRow, PostStatus } from '@farm/sql';
import { postTransitions, type createPostBody, type PostBulkBody, type UpdatePostBody } from '@farm/contracts';
import { cancelTasks, Outboxes } from '@farm/workers';
import { AppError, badRequest, notFound } from '../../errors.ts';
import { runBulk, selectIds } from '../../events/bulk.ts';
import { write, type WriteContext, type WriteOutbox } from '../../events/write.ts';
import { assertOwned } from '../../shared/refs.ts';
import { serialize } from '../../shared/serialize.ts';
import { isFuture } from '../../shared/time.ts';
import type { Actor, Tx } from '../../shared/types.ts';
import { resolveMediaUrls } from '../uploads/uploads.service.ts';
import { accountOfPost, deletePost, findPost, insertPost, lockPost, postIdsMatching, updatePost } from './posts.queries.ts';
import { assertMayWorkPost } from './posts.rules.ts';

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
async function changeOnePost(tx: Tx, actor: Actor, id: string, body: UpdatePostBody, outbox: WriteOutbox): Promise<PostRow> {
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
  if (body.mediaUrls !== undefined) {
    changes.mediaUrls = await resolveMediaUrls(tx, actor.workspaceId, body.mediaUrls);
    // New media answers a problem found with the old (the posts.media job).
    if (before.mediaProblem !== null) changes.mediaProblem = null;
  }
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
  await assertMayWorkPost(tx, actor, before, {
    accountId: (changes.accountId as string | undefined) ?? before.accountId,
    status: (changes.status as PostStatus | undefined) ?? before.status,
  });
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

/** One person's deletion of one post, as DELETE and the bulk delete make it. */
async function removeOnePost(tx: Tx, actor: Actor, id: string, outbox: WriteOutbox): Promise<void> {
  const before = await lockPost(tx, actor.workspaceId, id);
  if (!before) throw notFound();
  await assertMayWorkPost(tx, actor, before, null);
  // A task out for the post is called off first: its phone must not publish what was deleted.
  await cancelTasks(tx, { postId: before.id }, { message: 'The post was deleted', cause: 'change' }, Outboxes.of(outbox));
  await announce(tx, actor, before, 'deleted', outbox);
  await deletePost(tx, actor.workspaceId, id);
  outbox.add('post.deleted', { id });
}

/** A new post: never failed; a scheduled one is due in the future, a published one is published now. */
export async function createPost(ctx: WriteContext, actor: Actor, input: z.output<typeof createPostBody>): Promise<PostRow> {
  // Who made the post is the person asking, whatever the body says.
  const { createdById: _ignored, ...body } = input;
  if (body.status === 'failed') throw badRequest('status', 'Status cannot be failed for a new post');
  if (body.status === 'scheduled') assertFuture(body.scheduledAt);
  return write(ctx, actor.workspaceId, async (tx, outbox) => {
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
}

export function changePost(ctx: WriteContext, actor: Actor, id: string, body: UpdatePostBody): Promise<PostRow> {
  return write(ctx, actor.workspaceId, (tx, outbox) => changeOnePost(tx, actor, id, body, outbox));
}

export async function removePost(ctx: WriteContext, actor: Actor, id: string): Promise<void> {
  await write(ctx, actor.workspaceId, (tx, outbox) => removeOnePost(tx, actor, id, outbox));
}

/** Many posts at once (operators'): update, delete, or move each scheduled one by minutes; all or nothing. */
export function bulkPosts(ctx: WriteContext, actor: Actor, body: PostBulkBody): ReturnType<typeof runBulk> {
  return runBulk(ctx, actor.workspaceId, async (tx, outbox) => {
    const ids = body.ids ?? (await selectIds(postIdsMatching(tx, actor.workspaceId, body.filter ?? {})));
    return {
      ids,
      apply: async (id: string) => {
        if (body.action === 'delete') return removeOnePost(tx, actor, id, outbox);
        if (body.action === 'update') return void (await changeOnePost(tx, actor, id, body.changes, outbox));
        const current = await findPost(tx, actor.workspaceId, id);
        if (!current) throw notFound();
        if (current.status !== 'scheduled' || !current.scheduledAt) throw new AppError(409, `A ${current.status} post has no schedule to move`);
        const at = new Date(current.scheduledAt.getTime() + body.offsetMinutes * 60_000).toISOString();
        await changeOnePost(tx, actor, id, { scheduledAt: at }, outbox);
      },
    };
  });
}
