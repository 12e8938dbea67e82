import type { SelectQueryBuilder } from 'kysely';
import type { DB, Platform, PostStatus } from '@farm/sql';
import type { Db, Tx } from '../../shared/types.ts';
import { decodeCursor, pastCursor } from '../../shared/paging.ts';
import { escapeLike } from '../devices/devices.queries.ts';

export interface PostFilter {
  campaignId?: string | undefined;
  accountId?: string | undefined;
  status?: PostStatus | undefined;
  platform?: Platform | undefined;
  search?: string | undefined;
  /** The calendar's window: posts whose scheduledAt or publishedAt falls in [from, to). */
  from?: string | undefined;
  to?: string | undefined;
  /** A VA: only the posts they may work (their phones' accounts, their own drafts; posts.rules.ts). */
  viewer?: string | undefined;
}

/** The list's filters, on a query over `posts`. */
export function filteredPosts<O>(query: SelectQueryBuilder<DB, 'posts', O>, workspaceId: string, filter: PostFilter) {
  let q = query.where('workspaceId', '=', workspaceId);
  if (filter.campaignId === 'none') q = q.where('campaignId', 'is', null);
  else if (filter.campaignId) q = q.where('campaignId', '=', filter.campaignId);
  if (filter.accountId) q = q.where('accountId', '=', filter.accountId);
  if (filter.status) q = q.where('status', '=', filter.status);
  if (filter.platform)
    q = q.where('accountId', 'in', (eb) =>
      eb.selectFrom('accounts').select('id').where('workspaceId', '=', workspaceId).where('platform', '=', filter.platform!),
    );
  if (filter.search) q = q.where('caption', 'ilike', `%${escapeLike(filter.search)}%`);
  if (filter.viewer) {
    const va = filter.viewer;
    q = q.where((eb) =>
      eb.or([
        eb(
          'accountId',
          'in',
          eb
            .selectFrom('accounts as a')
            .innerJoin('devices as d', 'd.id', 'a.deviceId')
            .select('a.id')
            .where('a.workspaceId', '=', workspaceId)
            .where('d.assignedToId', '=', va),
        ),
        eb.and([eb('createdById', '=', va), eb('status', '=', 'draft')]),
      ]),
    );
  }
  if (filter.from || filter.to) {
    const from = filter.from ? new Date(filter.from) : new Date(0);
    const to = filter.to ? new Date(filter.to) : new Date('9999-12-31T00:00:00Z');
    q = q.where((eb) =>
      eb.or([eb.and([eb('scheduledAt', '>=', from), eb('scheduledAt', '<', to)]), eb.and([eb('publishedAt', '>=', from), eb('publishedAt', '<', to)])]),
    );
  }
  return q;
}

/** Newest first. */
/** The query of the ids a bulk action's filter names (see `selectIds`). */
export function postIdsMatching(tx: Tx, workspaceId: string, filter: PostFilter) {
  return filteredPosts(tx.selectFrom('posts').select('id'), workspaceId, filter);
}

export function listPosts(db: Db, workspaceId: string, filter: PostFilter & { cursor?: string | undefined; limit: number }) {
  const cursor = decodeCursor(filter.cursor);
  let query = filteredPosts(db.selectFrom('posts').selectAll(), workspaceId, filter);
  if (cursor) query = query.where(pastCursor(cursor, 'newest'));
  return query
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.limit + 1)
    .execute();
}

export function findPost(db: Db, workspaceId: string, id: string, viewer?: string) {
  return filteredPosts(db.selectFrom('posts').selectAll(), workspaceId, { viewer }).where('id', '=', id).executeTakeFirst();
}

/** Whether the account is on a phone assigned to the VA, in their workspace. */
export async function accountOnPhoneOf(tx: Tx, actor: { userId: string; workspaceId: string }, accountId: string): Promise<boolean> {
  const row = await tx
    .selectFrom('accounts as a')
    .innerJoin('devices as d', 'd.id', 'a.deviceId')
    .select('a.id')
    .where('a.id', '=', accountId)
    .where('a.workspaceId', '=', actor.workspaceId)
    .where('d.assignedToId', '=', actor.userId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The post, locked for the rest of the transaction. */
export function lockPost(tx: Tx, workspaceId: string, id: string) {
  return tx.selectFrom('posts').selectAll().where('id', '=', id).where('workspaceId', '=', workspaceId).forUpdate().executeTakeFirst();
}

export interface NewPost {
  workspaceId: string;
  accountId: string;
  campaignId: string | null;
  caption: string;
  status: PostStatus;
  hashtags: string[];
  mediaUrls: string[];
  scheduledAt: string | null;
  publishedAt: Date | null;
  createdById: string;
}

export function insertPost(tx: Tx, post: NewPost) {
  return tx.insertInto('posts').values(post).returningAll().executeTakeFirstOrThrow();
}

export function updatePost(tx: Tx, id: string, changes: Record<string, unknown>) {
  return tx.updateTable('posts').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export function deletePost(tx: Tx, workspaceId: string, id: string) {
  return tx.deleteFrom('posts').where('id', '=', id).where('workspaceId', '=', workspaceId).returning(['id', 'accountId']).executeTakeFirst();
}

export function accountOfPost(tx: Tx, accountId: string) {
  return tx.selectFrom('accounts').select(['username', 'deviceId', 'platform']).where('id', '=', accountId).executeTakeFirstOrThrow();
}
