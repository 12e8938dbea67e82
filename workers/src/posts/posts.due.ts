/**
 * `posts.due`: every scheduled post whose time has come becomes one task for the phone that holds its account
 * (given to that phone's VA; leased to its agent when one is online). PostgreSQL is the source of truth: the
 * processor reads what is due, so a missed trigger, a restart or a dead worker loses nothing. The task's source key
 * is the post and its schedule version, so a second run, a second worker or a retried job makes nothing twice, and a
 * post rescheduled after a failure (a new version) is due again.
 */
import { sql } from 'kysely';
import { platformNames } from '@farm/agent-protocol/values';
import { serialize, type TaskRow } from '@farm/sql';
import { recordActivity } from '../activities.ts';
import { agentThere } from '../devices/status.ts';
import type { JobDeps } from '../jobs.types.ts';
import { Outboxes } from '../outbox.ts';
import { createTasks, type NewTask } from '../tasks/lifecycle.ts';
import { waitingReason } from './waiting.ts';
import { postSourceKey, postSourceKeySql } from './source-key.ts';

/** Due posts taken per transaction; a run goes on with the next batch until none is left or its time is up. */
export const POSTS_PER_BATCH = 500;
const RUN_BUDGET_MS = 20_000;

export interface DueResult {
  tasks: number;
  failed: number;
}

/** Where a batch ended: the next batch of the run takes the posts after it (a post stays scheduled while it runs). */
interface Cursor {
  scheduledAt: Date;
  id: string;
}

export { postSourceKey } from './source-key.ts';

export async function processPostsDue(_data: unknown, deps: JobDeps): Promise<DueResult> {
  const started = Date.now();
  const total: DueResult = { tasks: 0, failed: 0 };
  let after: Cursor | undefined;
  for (;;) {
    const batch = await dueBatch(deps, after);
    total.tasks += batch.tasks;
    total.failed += batch.failed;
    if (!batch.last || Date.now() - started > RUN_BUDGET_MS) return total;
    after = batch.last;
  }
}

/**
 * One transaction's batch of due posts, after `after` in (scheduled time, id) order. Its `last` is where the next
 * batch starts, absent when this one was not full (nothing more is due). A post another worker holds is skipped here
 * and is that worker's; one this run passed over (its account paused, say) is looked at again by the next run.
 */
async function dueBatch(deps: JobDeps, after: Cursor | undefined): Promise<DueResult & { last?: Cursor }> {
  const outboxes = new Outboxes();
  const result = await deps.db.transaction().execute(async (tx) => {
    const due = await tx
      .selectFrom('posts as p')
      .innerJoin('accounts as a', 'a.id', 'p.accountId')
      .leftJoin('devices as d', 'd.id', 'a.deviceId')
      .select([
        'p.id',
        'p.workspaceId',
        'p.caption',
        'p.hashtags',
        'p.mediaUrls',
        'p.scheduleVersion',
        'p.scheduledAt',
        'a.id as accountId',
        'a.username',
        'a.platform',
        'd.id as deviceId',
        'd.name as deviceName',
        'd.status as deviceStatus',
        'd.lastSeenAt',
        'd.assignedToId',
      ])
      .where('p.status', '=', 'scheduled')
      .where('p.scheduledAt', '<=', deps.now?.() ?? sql<Date>`now()`)
      .$if(after !== undefined, (query) =>
        query.where(({ eb, refTuple, tuple }) => eb(refTuple('p.scheduledAt', 'p.id'), '>', tuple(after!.scheduledAt, after!.id))),
      )
      // A paused or suspended account publishes nothing until a person resumes it (the stuck-post watchdog says so).
      .where('a.status', 'not in', ['paused', 'suspended'])
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('tasks as t').select('t.id').where('t.sourceKey', '=', postSourceKeySql('p.id', 'p.scheduleVersion')))),
      )
      .orderBy('p.scheduledAt')
      .orderBy('p.id')
      .limit(POSTS_PER_BATCH)
      .forUpdate('p')
      .skipLocked()
      .execute();
    let failed = 0;
    const inputs: NewTask[] = [];
    for (const post of due) {
      if (!post.deviceId) {
        const updated = await tx
          .updateTable('posts')
          .set({ status: 'failed', failureCode: 'no_device', failureMessage: `@${post.username} has no phone`, waitingCode: null, waitingMessage: null })
          .where('id', '=', post.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        const outbox = outboxes.for(post.workspaceId);
        outbox.add('post.updated', serialize(updated));
        await recordActivity(
          tx,
          { workspaceId: post.workspaceId, userId: null, action: `Post for @${post.username} failed: the account has no phone`, type: 'error' },
          undefined,
          outbox,
        );
        failed += 1;
        continue;
      }
      inputs.push({
        workspaceId: post.workspaceId,
        title: `Publish post for @${post.username}`,
        description: [post.caption, post.hashtags.join(' ')].filter(Boolean).join('\n\n'),
        type: 'post',
        priority: 'high',
        deviceId: post.deviceId,
        assignedToId: post.assignedToId,
        deadline: new Date(Date.now() + 3600_000),
        work: {
          kind: 'post.publish',
          postId: post.id,
          account: { id: post.accountId, username: post.username, platform: post.platform },
          caption: post.caption,
          hashtags: post.hashtags,
          mediaUrls: post.mediaUrls,
        },
        expectedSeconds: 180,
        sourceKey: postSourceKey(post.id, post.scheduleVersion),
        postId: post.id,
        accountId: post.accountId,
        notifyAssignee: !agentThere(post),
      });
    }
    const tasks = await createTasks(tx, inputs, outboxes);
    // A post whose phone has no agent online, or that no recipe can publish, waits for a person: it says so at once.
    const byId = new Map(due.map((post) => [post.id, post]));
    const byHand = new Set(tasks.filter((task) => (task.work as { kind?: unknown }).kind === 'manual').map((task) => task.id));
    for (const task of tasks) {
      const post = byId.get(task.postId!)!;
      const waiting = waitingReason({
        deviceName: post.deviceName,
        deviceStatus: post.deviceStatus,
        lastSeenAt: post.lastSeenAt,
        task: { ...task, byHand: byHand.has(task.id) },
      });
      if (waiting) {
        const updated = await tx
          .updateTable('posts')
          .set({ waitingCode: waiting.code, waitingMessage: waiting.message })
          .where('id', '=', post.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        outboxes.for(post.workspaceId).add('post.updated', serialize(updated));
      }
    }
    // One line in the feed per workspace and batch, not one per post.
    const perWorkspace = new Map<string, TaskRow[]>();
    for (const task of tasks) {
      const made = perWorkspace.get(task.workspaceId);
      if (made) made.push(task);
      else perWorkspace.set(task.workspaceId, [task]);
    }
    for (const [workspaceId, made] of perWorkspace) {
      const only = made.length === 1 ? made[0]! : undefined;
      const hand = made.filter((task) => byHand.has(task.id)).length;
      let action: string;
      if (only) {
        const post = byId.get(only.postId!)!;
        action = byHand.has(only.id)
          ? `Scheduled post for @${post.username} is due: no recipe publishes on ${platformNames[post.platform]}, so it is a task to post by hand`
          : `Scheduled post for @${post.username} is due: sent to ${post.deviceName ?? 'its phone'}`;
      } else if (hand === 0) action = `${made.length} scheduled posts are due: sent to their phones`;
      else if (hand === made.length) action = `${made.length} scheduled posts are due: no recipe publishes them, so they are tasks to post by hand`;
      else action = `${made.length} scheduled posts are due: ${made.length - hand} sent to their phones, ${hand} to post by hand (no recipe publishes them)`;
      await recordActivity(tx, { workspaceId, userId: null, action, deviceId: only?.deviceId ?? null, type: 'info' }, undefined, outboxes.for(workspaceId));
    }
    const end = due.length === POSTS_PER_BATCH ? due[due.length - 1]! : undefined;
    return { tasks: tasks.length, failed, last: end && { scheduledAt: end.scheduledAt!, id: end.id } };
  });
  outboxes.flush(deps.announce);
  return result;
}
