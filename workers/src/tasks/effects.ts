/**
 * What settling a task means beyond the task: its post is published or failed, its campaign run ends, the account's
 * daily actions are counted, a campaign that reached its daily target stops for the day, and an account the platform
 * blocked has its automation paused until a person resumes it.
 */
import { sql } from 'kysely';
import type { PostRow, TaskRow } from '@farm/sql';
import { serialize } from '@farm/sql';
import { accountSafetyCodes, failureLabels, type FailureCode } from '@farm/agent-protocol/failures';
import type { EngagementReport } from '@farm/agent-protocol/work';
import { recordActivity } from '../activities.ts';
import { raiseAlert } from '../alerts.ts';
import type { Tx } from '../db.ts';
import type { Outboxes } from '../outbox.ts';
import { localDaySql } from '../time.ts';
import { scheduleVersionOf } from '../posts/source-key.ts';

/** Who or what settled the task. */
export type OutcomeCause =
  /** The phone that ran it reported. */
  | 'phone'
  /** A person moved it (Tasks page, My Tasks). */
  | 'person'
  /** The automation decided (leases, safety pauses, daily targets). */
  | 'automation'
  /** What the task was for changed (its post was edited or deleted, its campaign paused): it has no more purpose. */
  | 'change';

export interface OutcomeDetail {
  cause: OutcomeCause;
  failure?: { code: FailureCode; message?: string | undefined } | undefined;
  engagement?: EngagementReport | undefined;
  finishedAt?: Date | undefined;
}

/** Work the lifecycle does next, outside this module (so the two do not import each other). */
export type FollowUp =
  | { kind: 'cancel-account-automation'; accountId: string; message: string }
  /** What the phone could not get past needs a person: a task for the phone's VA (or the operators when it has none). */
  | {
      kind: 'ask-person';
      workspaceId: string;
      accountId: string;
      deviceId: string | null;
      title: string;
      description: string;
      /** The publishing task whose post the phone could not confirm: the person's task asks whether it went up. */
      unconfirmedTaskId?: string | undefined;
    };

/** Failures only a person can get past on the phone, and what to ask of them. */
const forAPerson: Partial<Record<FailureCode, (username: string) => string>> = {
  login_required: (username) => `Log @${username} back in`,
  account_blocked: (username) => `Check @${username}: the platform blocked or challenged it`,
};

/**
 * What the phone itself needs from a person before any work can run on it: the account is fine (nothing is paused),
 * but the phone holds another account, or is locked with a PIN the host cannot enter.
 */
const forThePhone: Partial<Record<FailureCode, (username: string) => string>> = {
  wrong_account: (username) => `Sign in as @${username}`,
  device_locked: () => 'Unlock the phone',
};

/**
 * What a farm host asks of a person when its recovery ladder is spent for a phone (issue #41): unplug it and plug it
 * in again, at the hub and port the host read from its USB bus. A high-priority task for the phone's VA (the API
 * creates it from the host's `replug_task` rung); in its own function, beside the phone's other needs above.
 */
export function replugTask(phone: { name: string }, where: { hostName: string; hubLocation: string | null; port: number | null }) {
  const at = where.hubLocation ? `hub ${where.hubLocation}, port ${where.port ?? '?'}` : 'its USB port (the host could not tell which)';
  return {
    title: `Replug ${phone.name}`,
    description:
      `${phone.name} stopped answering on host "${where.hostName}" and the host could not bring it back. ` +
      `Unplug it from ${at}, wait ten seconds and plug it in again. If it does not come back, restart it by hand, ` +
      'try another cable, and look at the battery: a swollen one lifts the back or the screen.',
    priority: 'high' as const,
  };
}

/** The schedule version a post's task was made for (see `posts/source-key.ts`). */
export function postVersionOf(task: Pick<TaskRow, 'sourceKey'>): number | undefined {
  return scheduleVersionOf(task.sourceKey);
}

/** A post its phone published: what it no longer fails or waits for (its time is set beside). */
const published = { status: 'published', failureCode: null, failureMessage: null, waitingCode: null, waitingMessage: null } as const;

const engagementTotal = (engagement: EngagementReport | undefined) => (engagement?.likes ?? 0) + (engagement?.follows ?? 0) + (engagement?.comments ?? 0);

export async function applyOutcome(
  tx: Tx,
  task: TaskRow,
  outcome: 'completed' | 'failed' | 'cancelled' | 'retried',
  detail: OutcomeDetail,
  outboxes: Outboxes,
): Promise<FollowUp[]> {
  const outbox = outboxes.for(task.workspaceId);
  const followUps: FollowUp[] = [];
  const message = detail.failure ? (detail.failure.message ?? failureLabels[detail.failure.code]) : null;

  if (task.postId) {
    const version = postVersionOf(task);
    let query = tx.updateTable('posts').where('id', '=', task.postId);
    if (version !== undefined) query = query.where('scheduleVersion', '=', version);
    let post: PostRow | undefined;
    if (outcome === 'completed') {
      // Announced there; nothing more to do for a published post here.
      await publishPostsOf(tx, [{ task, finishedAt: detail.finishedAt }], outboxes);
    } else if (outcome === 'failed' || (outcome === 'cancelled' && detail.cause !== 'change')) {
      post = await query
        .set({
          status: 'failed',
          failureCode: detail.failure?.code ?? 'unknown',
          failureMessage: postFailureReason(detail.failure?.code, message),
          waitingCode: null,
          waitingMessage: null,
        })
        .where('status', '=', 'scheduled')
        .returningAll()
        .executeTakeFirst();
    } else if (outcome === 'retried') {
      post = await query.set({ status: 'scheduled', failureCode: null, failureMessage: null }).where('status', '=', 'failed').returningAll().executeTakeFirst();
    }
    if (post) outbox.add('post.updated', serialize(post));
    // A post that failed is an alert for the workspace's webhooks (the periodic check would find it too: raised once).
    if (post?.status === 'failed') {
      await raiseAlert(tx, post.workspaceId, 'post.failed', {
        id: post.id,
        at: (post.scheduledAt ?? post.createdAt).toISOString(),
        text: `A post failed to publish: ${post.failureMessage ?? 'no reason given'}`,
        reason: post.failureCode,
      });
    }
  }

  if (task.campaignSessionId) {
    if (outcome === 'retried') {
      await tx
        .updateTable('campaignSessions')
        .set({ status: 'in-progress', completedAt: null, failureCode: null, note: null })
        .where('id', '=', task.campaignSessionId)
        .execute();
    } else {
      const run = await tx
        .updateTable('campaignSessions')
        .set({
          status: outcome,
          completedAt: sql<Date>`now()`,
          engagementActions: engagementTotal(detail.engagement),
          failureCode: detail.failure?.code ?? null,
          note: message,
        })
        .where('id', '=', task.campaignSessionId)
        .where('status', 'in', ['pending', 'in-progress'])
        .returningAll()
        .executeTakeFirst();
      if (run && outcome === 'completed' && engagementTotal(detail.engagement) > 0) await stopAtDailyTarget(tx, run.campaignId, run.planDay, outboxes);
    }
  }

  if (task.accountId && outcome !== 'retried') {
    await countDailyActions(tx, [dailyActionsOf(task, outcome, detail.engagement)]);
    if (outcome === 'failed' && detail.failure && accountSafetyCodes.has(detail.failure.code)) {
      const paused = await tx
        .updateTable('accounts')
        .set({ status: 'paused', pausedCode: detail.failure.code, pausedMessage: message })
        .where('id', '=', task.accountId)
        .where('status', 'in', ['active', 'warmup', 'creation_pending'])
        .returningAll()
        .executeTakeFirst();
      if (paused) {
        outbox.add('account.updated', serialize(paused));
        await recordActivity(
          tx,
          {
            workspaceId: task.workspaceId,
            userId: null,
            action: `Automation paused for @${paused.username}: ${message}. Resume the account once a person has checked it.`,
            deviceId: task.deviceId,
            type: 'error',
          },
          { action: 'account.paused', entityType: 'account', entityId: paused.id, data: { code: detail.failure.code, taskId: task.id } },
          outbox,
        );
        await raiseAlert(tx, task.workspaceId, 'account.paused', {
          id: paused.id,
          at: paused.updatedAt.toISOString(),
          text: `Automation paused for @${paused.username} (${paused.platform}): ${message}`,
          username: paused.username,
          platform: paused.platform,
          reason: detail.failure.code,
        });
        followUps.push({ kind: 'cancel-account-automation', accountId: paused.id, message: `@${paused.username} was paused for safety` });
        const ask = forAPerson[detail.failure.code];
        if (ask) {
          followUps.push({
            kind: 'ask-person',
            workspaceId: task.workspaceId,
            accountId: paused.id,
            deviceId: task.deviceId,
            title: ask(paused.username),
            description: `The phone stopped on ${paused.platform}: ${message}. Sort it out on the phone, then resume @${paused.username} on the Accounts page so its automation runs again.`,
          });
        }
      }
    }
  }
  const question = outcome === 'failed' ? await askWhetherPosted(tx, task, detail) : undefined;
  if (question) followUps.push(question);
  const onPhone = outcome === 'failed' && detail.failure ? forThePhone[detail.failure.code] : undefined;
  if (onPhone && task.accountId && detail.failure) {
    const account = await tx.selectFrom('accounts').select(['username', 'platform']).where('id', '=', task.accountId).executeTakeFirst();
    if (account) {
      followUps.push({
        kind: 'ask-person',
        workspaceId: task.workspaceId,
        accountId: task.accountId,
        deviceId: task.deviceId,
        title: onPhone(account.username),
        description: `The phone could not start the work for @${account.username} (${account.platform}): ${message}. Once it is done on the phone, retry the failed task.`,
      });
    }
  }
  return followUps;
}

/** The reason a failed post shows: one the phone could not confirm reads "Not confirmed" (its VA is asked). */
function postFailureReason(code: FailureCode | undefined, message: string | null): string | null {
  return code === 'post_unconfirmed' ? 'Not confirmed' : message;
}

/**
 * A post the phone published but the app never confirmed may be up or not: rather than post it twice, the phone's VA
 * is asked to look (a phone with no VA leaves the task unassigned, for the operators to give out, as every person's
 * task on a phone) and answers "It is up" or "It is not" (`posts/confirmations.ts`).
 */
async function askWhetherPosted(tx: Tx, task: TaskRow, detail: OutcomeDetail): Promise<FollowUp | undefined> {
  if (detail.failure?.code !== 'post_unconfirmed' || !task.postId || !task.accountId) return undefined;
  const account = await tx.selectFrom('accounts').select(['username', 'platform']).where('id', '=', task.accountId).executeTakeFirst();
  if (!account) return undefined;
  const said = detail.failure.message?.trim();
  return {
    kind: 'ask-person',
    workspaceId: task.workspaceId,
    accountId: task.accountId,
    deviceId: task.deviceId,
    title: `Check whether the post of @${account.username} went up`,
    description:
      `The phone published a post for @${account.username} (${account.platform}) on attempt ${task.attempt}, but the app never confirmed it` +
      `${said ? ` (${said})` : ''}. Open the profile on the phone: if the post is there, answer "It is up" (with the time it went up, if you know it); ` +
      'if it is not, answer "It is not" and the phone publishes it again.',
    unconfirmedTaskId: task.id,
  };
}

/** A task that completed on its phone, with what the phone said of it. */
export interface Completion {
  task: TaskRow;
  engagement?: EngagementReport | undefined;
  finishedAt?: Date | undefined;
}

/**
 * As `applyOutcome` for many tasks their phones completed, in two statements whatever their number (a busy farm's
 * results, written together): their posts published and their accounts' daily actions counted. A campaign run's task
 * is not for here: it ends its run and may stop its campaign for the day, which `applyOutcome` does.
 */
export async function applyCompletions(tx: Tx, done: readonly Completion[], outboxes: Outboxes): Promise<void> {
  await publishPostsOf(tx, done, outboxes);
  await countDailyActions(
    tx,
    done.map(({ task, engagement }) => dailyActionsOf(task, 'completed', engagement)),
  );
}

/**
 * The one rule of "a completed task publishes its post": the post of each completed task, if it is still scheduled
 * for the schedule the task was made for, becomes published at the task's finish (else now), and is announced.
 */
async function publishPostsOf(tx: Tx, done: readonly Pick<Completion, 'task' | 'finishedAt'>[], outboxes: Outboxes): Promise<void> {
  const withPosts = done.filter(({ task }) => task.postId !== null);
  if (withPosts.length > 0) {
    // A post's task made for an older schedule (its version in the source key) publishes nothing: the post moved on.
    const given = sql<{ postId: string; version: number | null; finishedAt: Date | null }>`(select * from unnest(
        ${withPosts.map(({ task }) => task.postId)}::uuid[],
        ${withPosts.map(({ task }) => postVersionOf(task) ?? null)}::int[],
        ${withPosts.map(({ finishedAt }) => finishedAt?.toISOString() ?? null)}::timestamptz[]) as g(post_id, version, finished_at))`;
    const posts = await tx
      .updateTable('posts')
      .from(given.as('g'))
      .set({ ...published, publishedAt: sql<Date>`coalesce(g.finished_at, now())` })
      .whereRef('posts.id', '=', 'g.postId')
      .where((eb) => eb.or([eb('g.version', 'is', null), eb('posts.scheduleVersion', '=', eb.ref('g.version'))]))
      .where('posts.status', '=', 'scheduled')
      .returningAll('posts')
      .execute();
    for (const post of posts) outboxes.for(post.workspaceId).add('post.updated', serialize(post));
  }
}

/** What a settled task (or a dry run) adds to its account's actions of the day (nothing, for one of no account). */
export interface DailyActions {
  accountId: string | null;
  workspaceId: string;
  likes: number;
  follows: number;
  comments: number;
  posts: number;
}

function dailyActionsOf(task: TaskRow, outcome: 'completed' | 'failed' | 'cancelled', engagement: EngagementReport | undefined): DailyActions {
  return {
    accountId: task.accountId,
    workspaceId: task.workspaceId,
    likes: engagement?.likes ?? 0,
    follows: engagement?.follows ?? 0,
    // A comment handed to a VA counts once the VA marks its task done, as a post counts once it is up.
    comments: (engagement?.comments ?? 0) || (outcome === 'completed' && task.handOver?.kind === 'comment' ? 1 : 0),
    posts: (engagement?.posts ?? 0) || (outcome === 'completed' && task.postId ? 1 : 0),
  };
}

/**
 * Adds actions to their accounts' rows of the day (in each workspace's time zone), one statement for any number:
 * summed per account first (a row may be changed once per statement), in the accounts' order (so two writers of the
 * same accounts wait for each other rather than deadlock).
 */
export async function countDailyActions(tx: Tx, actions: readonly DailyActions[]): Promise<void> {
  const byAccount = new Map<string, DailyActions>();
  for (const one of actions) {
    if (!one.accountId || one.likes + one.follows + one.comments + one.posts === 0) continue;
    const sum = byAccount.get(one.accountId);
    byAccount.set(
      one.accountId,
      sum
        ? { ...sum, likes: sum.likes + one.likes, follows: sum.follows + one.follows, comments: sum.comments + one.comments, posts: sum.posts + one.posts }
        : one,
    );
  }
  if (byAccount.size === 0) return;
  const rows = [...byAccount.values()].sort((a, b) => (a.accountId! < b.accountId! ? -1 : 1));
  await tx
    .insertInto('accountDailyActions')
    .values(rows.map(({ accountId, workspaceId, ...counts }) => ({ accountId: accountId!, workspaceId, day: localDaySql(workspaceId), ...counts })))
    .onConflict((oc) =>
      oc.columns(['accountId', 'day']).doUpdateSet({
        likes: sql<number>`account_daily_actions.likes + excluded.likes`,
        follows: sql<number>`account_daily_actions.follows + excluded.follows`,
        comments: sql<number>`account_daily_actions.comments + excluded.comments`,
        posts: sql<number>`account_daily_actions.posts + excluded.posts`,
      }),
    )
    .execute();
}

/** A campaign whose phones reported its daily engagement target for the day stops there: the day's waiting runs are cancelled. */
async function stopAtDailyTarget(tx: Tx, campaignId: string, day: string | null, outboxes: Outboxes): Promise<void> {
  if (!day) return;
  const campaign = await tx
    .selectFrom('campaigns as c')
    .select(['c.id', 'c.workspaceId', 'c.name', 'c.engagementTarget'])
    .select((eb) =>
      eb
        .selectFrom('campaignSessions as cs')
        .select(sql<number>`coalesce(sum(cs.engagement_actions), 0)::int`.as('done'))
        .whereRef('cs.campaignId', '=', 'c.id')
        .where('cs.planDay', '=', day)
        .as('done'),
    )
    .where('c.id', '=', campaignId)
    .executeTakeFirst();
  if (!campaign || (campaign.done ?? 0) < campaign.engagementTarget) return;
  const stopped = await tx
    .updateTable('campaignSessions')
    .set({ status: 'cancelled', completedAt: sql<Date>`now()`, note: `The daily engagement target (${campaign.engagementTarget}) was reached` })
    .where('campaignId', '=', campaignId)
    .where('planDay', '=', day)
    .where('status', '=', 'pending')
    .returning('id')
    .execute();
  if (stopped.length === 0) return;
  await recordActivity(
    tx,
    {
      workspaceId: campaign.workspaceId,
      userId: null,
      action: `Campaign "${campaign.name}" reached its daily engagement target (${campaign.done} of ${campaign.engagementTarget}); it resumes tomorrow`,
      type: 'success',
    },
    undefined,
    outboxes.for(campaign.workspaceId),
  );
}
