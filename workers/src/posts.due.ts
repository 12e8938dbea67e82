/**
 * `posts.due`: every scheduled post whose time has come becomes one task for the phone that holds its
 * account (given to that phone's VA; handed to its agent when one is online). PostgreSQL is the source of
 * truth: the processor reads what is due, so a missed trigger, a restart or a dead worker loses nothing, and
 * the unique task-per-post index plus SKIP LOCKED make a second run, or a second worker, do nothing twice.
 * A post whose account has no phone fails at once, with a reason in the activity feed.
 */
import type { Kysely } from 'kysely';
import type { DB } from '@farm/sql';
import type { Announce, Announcement } from './changes.ts';

export interface PostsDueDeps {
  db: Kysely<DB>;
  announce: Announce;
  now?: () => Date;
}

export interface PostsDueResult {
  tasks: number;
  failed: number;
}

/** How many due posts one run takes; the next run takes the rest. */
export const POSTS_PER_RUN = 500;

const iso = (row: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(row).map(([key, value]) => [key, value instanceof Date ? value.toISOString() : value]));

export async function processPostsDue(_data: unknown, deps: PostsDueDeps): Promise<PostsDueResult> {
  const now = deps.now?.() ?? new Date();
  const announcements: Announcement[] = [];
  const result = await deps.db.transaction().execute(async (tx) => {
    const due = await tx
      .selectFrom('posts as p')
      .innerJoin('accounts as a', 'a.id', 'p.accountId')
      .leftJoin('devices as d', 'd.id', 'a.deviceId')
      .select(['p.id', 'p.workspaceId', 'p.caption', 'p.hashtags', 'p.scheduledAt', 'a.username', 'a.platform', 'd.id as deviceId', 'd.assignedToId'])
      .where('p.status', '=', 'scheduled')
      .where('p.scheduledAt', '<=', now)
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('tasks as t').select('t.id').whereRef('t.postId', '=', 'p.id'))))
      .orderBy('p.scheduledAt')
      .limit(POSTS_PER_RUN)
      .forUpdate('p')
      .skipLocked()
      .execute();
    let tasks = 0;
    let failed = 0;
    for (const post of due) {
      if (!post.deviceId) {
        const updated = await tx.updateTable('posts').set({ status: 'failed' }).where('id', '=', post.id).returningAll().executeTakeFirstOrThrow();
        const activity = await tx
          .insertInto('activities')
          .values({ workspaceId: post.workspaceId, userId: null, action: `Post for @${post.username} failed: the account has no phone`, type: 'error' })
          .returningAll()
          .executeTakeFirstOrThrow();
        announcements.push({ workspaceId: post.workspaceId, event: 'post.updated', payload: iso(updated) }, { workspaceId: post.workspaceId, event: 'activity.created', payload: iso(activity) });
        failed += 1;
        continue;
      }
      const task = await tx
        .insertInto('tasks')
        .values({
          workspaceId: post.workspaceId,
          title: `Publish post for @${post.username}`,
          description: [post.caption, post.hashtags.join(' ')].filter(Boolean).join('\n\n'),
          type: 'post',
          priority: 'high',
          deviceId: post.deviceId,
          assignedToId: post.assignedToId,
          deadline: new Date(now.getTime() + 3600_000),
          postId: post.id,
        })
        .onConflict((oc) => oc.column('postId').where('postId', 'is not', null).doNothing())
        .returningAll()
        .executeTakeFirst();
      if (!task) continue;
      const activity = await tx
        .insertInto('activities')
        .values({ workspaceId: post.workspaceId, userId: null, action: `Scheduled post for @${post.username} is due: sent to the phone`, deviceId: post.deviceId, type: 'info' })
        .returningAll()
        .executeTakeFirstOrThrow();
      announcements.push(
        { workspaceId: post.workspaceId, event: 'task.created', payload: iso(task) },
        { workspaceId: post.workspaceId, event: 'activity.created', payload: iso(activity) },
      );
      if (task.assignedToId) announcements.push({ workspaceId: post.workspaceId, event: 'task.assigned', payload: iso(task), userId: task.assignedToId });
      tasks += 1;
    }
    return { tasks, failed };
  });
  for (const change of announcements) deps.announce(change);
  return result;
}

/** The end of a post's task is the end of the post: completed publishes it, failed fails it. Idempotent. */
export async function settlePostOfTask(db: Kysely<DB>, taskId: string, outcome: 'completed' | 'failed', at = new Date()) {
  return db
    .updateTable('posts')
    .set(outcome === 'completed' ? { status: 'published', publishedAt: at } : { status: 'failed' })
    .where('id', '=', (eb) => eb.selectFrom('tasks').select('postId').where('id', '=', taskId))
    .where('status', '=', 'scheduled')
    .returningAll()
    .executeTakeFirst();
}
