/**
 * Campaign runs: planned per day (`campaigns.plan`, and at once when a campaign is activated), turned into tasks when
 * due (`campaigns.due`), and called off when the campaign is paused or a routine removed. Each run is a campaign
 * session keyed by routine, day and round, so planning twice (two activations racing, two workers) plans once.
 */
import { sql } from 'kysely';
import type { RoutineType } from '@farm/sql';
import { recordActivity } from '../activities.ts';
import { agentThere } from '../devices/status.ts';
import type { Db, Tx } from '../db.ts';
import type { JobDeps } from '../jobs.types.ts';
import { Outboxes } from '../outbox.ts';
import { cancelTasks, createTasks, type NewTask } from '../tasks/lifecycle.ts';
import { allowanceOf, capsFor, exhausted, taskTypeOfRoutine } from '../tasks/work.ts';
import { workspaceTimeZone } from '../time.ts';
import { activeWindow, dayIn, planDay } from './plan.ts';

/** Accounts whose automation is stopped: their routines are not planned. */
const stoppedAccounts = ['paused', 'suspended'] as const;

/** Plans the campaign's runs for today (in the workspace's zone); answers how many new runs were planned. */
export async function planCampaign(db: Db, campaignId: string, options: { startNow: boolean; now?: Date }): Promise<number> {
  const campaign = await db
    .selectFrom('campaigns')
    .select(['id', 'workspaceId', 'status', 'activeHoursStart', 'activeHoursEnd', 'groupId', 'platform'])
    .where('id', '=', campaignId)
    .executeTakeFirst();
  if (campaign?.status !== 'active') return 0;
  const own = await db
    .selectFrom('routines as r')
    .innerJoin('accounts as a', 'a.id', 'r.accountId')
    .select(['r.id', 'r.accountId', 'r.intensity', 'r.duration', 'r.sequence'])
    .where('r.campaignId', '=', campaignId)
    .where('r.isActive', '=', true)
    .where('r.forGroup', '=', false)
    .where('a.status', 'not in', stoppedAccounts)
    .execute();
  const routines = [...own.map((routine) => ({ ...routine, accountId: routine.accountId! })), ...(await groupRuns(db, campaign))];
  const timeZone = await workspaceTimeZone(db, campaign.workspaceId);
  const now = options.now ?? new Date();
  const day = dayIn(now, timeZone);
  const plan = planDay({
    campaignId,
    day,
    timeZone,
    activeHoursStart: campaign.activeHoursStart,
    activeHoursEnd: campaign.activeHoursEnd,
    routines,
    now,
    startNow: options.startNow,
  });
  if (plan.length === 0) return 0;
  const inserted = await db
    .insertInto('campaignSessions')
    .values(
      plan.map((run) => ({
        workspaceId: campaign.workspaceId,
        campaignId,
        routineId: run.routineId,
        accountId: run.accountId,
        planDay: day,
        round: run.round,
        scheduledAt: run.scheduledAt,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['routineId', 'accountId', 'planDay', 'round']).where('planDay', 'is not', null).where('status', '<>', 'cancelled').doNothing(),
    )
    .returning('id')
    .execute();
  return inserted.length;
}

/**
 * The campaign's group routines, once for each account on the group's phones now (of the campaign's platform, its
 * automation not stopped). Membership is read here and again when each run falls due (`processCampaignsDue`), never
 * copied: a phone joining the group gets the campaign's runs from the next planning (each minute), one leaving it
 * gets none after it left.
 */
async function groupRuns(db: Db | Tx, campaign: { id: string; workspaceId: string; groupId: string | null; platform: string }) {
  if (!campaign.groupId) return [];
  const routines = await db
    .selectFrom('routines')
    .select(['id', 'intensity', 'duration', 'sequence'])
    .where('campaignId', '=', campaign.id)
    .where('isActive', '=', true)
    .where('forGroup', '=', true)
    .execute();
  if (routines.length === 0) return [];
  const accounts = await db
    .selectFrom('accounts as a')
    .innerJoin('deviceGroupMembers as m', 'm.deviceId', 'a.deviceId')
    .select('a.id')
    .where('m.groupId', '=', campaign.groupId)
    .where('a.workspaceId', '=', campaign.workspaceId)
    .where('a.platform', '=', campaign.platform as 'instagram')
    .where('a.status', 'not in', stoppedAccounts)
    .orderBy('a.id')
    .execute();
  return routines.flatMap((routine) => accounts.map((account) => ({ ...routine, accountId: account.id })));
}

/** `campaigns.plan`: every active campaign has today planned (a new day, new routines, a campaign activated elsewhere). */
export async function processCampaignsPlan(_data: unknown, deps: JobDeps): Promise<{ planned: number }> {
  const active = await deps.db.selectFrom('campaigns').select('id').where('status', '=', 'active').orderBy('id').execute();
  let planned = 0;
  for (const campaign of active) planned += await planCampaign(deps.db, campaign.id, { startNow: false, ...(deps.now ? { now: deps.now() } : {}) });
  return { planned };
}

/**
 * Calls off a campaign's open runs: the tasks of runs under way are cancelled (their phones told), waiting runs
 * cancelled with the reason. `routineId` narrows it to one routine's runs.
 */
export async function cancelCampaignRuns(
  tx: Tx,
  filter: { campaignId: string; routineId?: string; pendingOnly?: boolean },
  note: string,
  outboxes: Outboxes,
): Promise<number> {
  let open = tx
    .selectFrom('campaignSessions')
    .select(['id', 'status'])
    .where('campaignId', '=', filter.campaignId)
    .where('status', 'in', filter.pendingOnly ? ['pending'] : ['pending', 'in-progress']);
  if (filter.routineId) open = open.where('routineId', '=', filter.routineId);
  const runs = await open.forUpdate().execute();
  if (runs.length === 0) return 0;
  await cancelTasks(tx, { campaignSessionIds: runs.map((run) => run.id) }, { message: note, cause: 'change' }, outboxes);
  await tx
    .updateTable('campaignSessions')
    .set({ status: 'cancelled', completedAt: sql<Date>`now()`, failureCode: 'cancelled', note })
    .where(
      'id',
      'in',
      runs.map((run) => run.id),
    )
    .where('status', 'in', ['pending', 'in-progress'])
    .execute();
  return runs.length;
}

/** Runs taken per transaction by `campaigns.due`. */
export const RUNS_PER_BATCH = 200;

/**
 * `campaigns.due`: each due run of an active campaign becomes one task for the phone holding its account, unless
 * the day's engagement target is reached, the account's allowance for what the routine does is spent, the account
 * is busy or cooling down (the run waits), or no time is left in the day's active hours.
 */
export async function processCampaignsDue(_data: unknown, deps: JobDeps): Promise<{ tasks: number; failed: number; deferred: number; skipped: number }> {
  const outboxes = new Outboxes();
  const now = deps.now?.() ?? new Date();
  const result = await deps.db.transaction().execute(async (tx) => {
    const due = await tx
      .selectFrom('campaignSessions as cs')
      .innerJoin('campaigns as c', 'c.id', 'cs.campaignId')
      .innerJoin('routines as r', 'r.id', 'cs.routineId')
      .leftJoin('accounts as a', 'a.id', 'cs.accountId')
      .leftJoin('devices as d', 'd.id', 'a.deviceId')
      .select([
        'cs.id',
        'cs.workspaceId',
        'cs.planDay',
        'cs.round',
        'c.id as campaignId',
        'c.name as campaignName',
        'c.niche',
        'c.guidelines',
        'c.keywords',
        'c.searchKeywords',
        'c.referenceAccounts',
        'c.accountsToFollow',
        'c.followTargetAccounts',
        'c.engagementTarget',
        'c.activeHoursStart',
        'c.activeHoursEnd',
        'c.cooldownMinutes',
        'c.dailyCaps',
        'r.type',
        'r.name as routineName',
        'r.duration',
        'r.intensity',
        'r.actions',
        'r.settings',
        'r.platform',
        'r.forGroup',
        sql<boolean>`exists (select 1 from device_group_members m where m.group_id = c.group_id and m.device_id = a.device_id)`.as('inGroup'),
        'a.id as accountId',
        'a.username',
        'a.platform as accountPlatform',
        'a.status as accountStatus',
        'd.id as deviceId',
        'd.name as deviceName',
        'd.status as deviceStatus',
        'd.lastSeenAt',
        'd.assignedToId',
      ])
      .where('cs.status', '=', 'pending')
      .where('cs.scheduledAt', '<=', now)
      .where('c.status', '=', 'active')
      .where('r.isActive', '=', true)
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('tasks as t').select('t.id').where('t.sourceKey', '=', sql<string>`'run:' || cs.id`))))
      .orderBy('cs.scheduledAt')
      .limit(RUNS_PER_BATCH)
      .forUpdate('cs')
      .skipLocked()
      .execute();
    const counts = { tasks: 0, failed: 0, deferred: 0, skipped: 0 };
    const inputs: NewTask[] = [];
    const starting: string[] = [];
    // One run at a time per account: a run of this batch counts as the account's work under way.
    const claimed = new Set<string>();
    const end = async (id: string, status: 'failed' | 'cancelled', code: 'no_device' | 'daily_cap' | 'cancelled', note: string) => {
      await tx.updateTable('campaignSessions').set({ status, completedAt: now, failureCode: code, note }).where('id', '=', id).execute();
    };
    for (const run of due) {
      const outbox = outboxes.for(run.workspaceId);
      if (!run.accountId || !run.deviceId) {
        await end(run.id, 'failed', 'no_device', run.username ? `@${run.username} has no phone` : 'The routine has no account');
        await recordActivity(
          tx,
          {
            workspaceId: run.workspaceId,
            userId: null,
            action: `${run.routineName} of "${run.campaignName}" failed: ${run.username ? `@${run.username} has no phone` : 'no account'}`,
            type: 'error',
          },
          undefined,
          outbox,
        );
        counts.failed += 1;
        continue;
      }
      // A group routine's run goes out only while the account's phone is still in the campaign's group (read now).
      if (run.forGroup && !run.inGroup) {
        await end(run.id, 'cancelled', 'cancelled', `@${run.username}'s phone is no longer in the campaign's group`);
        counts.skipped += 1;
        continue;
      }
      if (run.accountStatus === 'paused' || run.accountStatus === 'suspended') {
        await end(run.id, 'cancelled', 'cancelled', `@${run.username} is ${run.accountStatus}`);
        counts.skipped += 1;
        continue;
      }
      const done = await tx
        .selectFrom('campaignSessions')
        .select(sql<number>`coalesce(sum(engagement_actions), 0)::int`.as('done'))
        .where('campaignId', '=', run.campaignId)
        .where('planDay', '=', run.planDay)
        .executeTakeFirstOrThrow();
      if (run.planDay && done.done >= run.engagementTarget) {
        await end(run.id, 'cancelled', 'cancelled', `The daily engagement target (${run.engagementTarget}) was reached`);
        counts.skipped += 1;
        continue;
      }
      const allowance = await allowanceOf(tx, run.workspaceId, run.accountId, capsFor(run.accountPlatform ?? run.platform, run.dailyCaps));
      if (exhausted(run.type as RoutineType, allowance)) {
        await end(run.id, 'cancelled', 'daily_cap', `@${run.username} has used today's allowance for this routine`);
        counts.skipped += 1;
        continue;
      }
      const waitUntil = claimed.has(run.accountId)
        ? new Date(now.getTime() + 60_000)
        : await accountFreeAt(tx, run.accountId, run.cooldownMinutes, { campaignId: run.campaignId, planDay: run.planDay, round: run.round }, now);
      if (waitUntil) {
        const timeZone = await workspaceTimeZone(tx, run.workspaceId);
        const window = activeWindow(run.planDay ?? dayIn(now, timeZone), timeZone, run.activeHoursStart, run.activeHoursEnd);
        if (waitUntil.getTime() >= window.end.getTime()) {
          await end(run.id, 'cancelled', 'cancelled', "No time was left in the day's active hours after the account's cooldown");
          counts.skipped += 1;
        } else {
          await tx.updateTable('campaignSessions').set({ scheduledAt: waitUntil }).where('id', '=', run.id).execute();
          counts.deferred += 1;
        }
        continue;
      }
      const live = agentThere(run);
      inputs.push({
        workspaceId: run.workspaceId,
        title: `${run.routineName} for @${run.username} (${run.campaignName})`,
        description: `Routine ${run.type} of "${run.campaignName}", about ${run.duration} min`,
        type: taskTypeOfRoutine[run.type as RoutineType],
        priority: 'medium',
        deviceId: run.deviceId,
        assignedToId: run.assignedToId,
        deadline: new Date(now.getTime() + Math.max(run.duration, 10) * 4 * 60_000),
        work: {
          kind: 'routine.run',
          routineType: run.type,
          routineName: run.routineName,
          platform: run.accountPlatform ?? run.platform,
          account: { id: run.accountId, username: run.username!, platform: run.accountPlatform ?? run.platform },
          durationMinutes: run.duration,
          intensity: run.intensity,
          actions: run.actions,
          keywords: [...new Set([...run.keywords, ...run.searchKeywords])],
          referenceAccounts: [...new Set([...run.referenceAccounts, ...run.followTargetAccounts, ...run.accountsToFollow])],
          settings: run.settings,
          allowance,
          campaign: { id: run.campaignId, name: run.campaignName, niche: run.niche, guidelines: run.guidelines },
          recipe: null,
        },
        expectedSeconds: Math.max(60, run.duration * 60),
        sourceKey: `run:${run.id}`,
        campaignSessionId: run.id,
        accountId: run.accountId,
        notifyAssignee: !live,
      });
      starting.push(run.id);
      claimed.add(run.accountId);
    }
    const tasks = await createTasks(tx, inputs, outboxes);
    counts.tasks = tasks.length;
    if (starting.length > 0) await tx.updateTable('campaignSessions').set({ status: 'in-progress', startedAt: now }).where('id', 'in', starting).execute();
    return counts;
  });
  outboxes.flush(deps.announce);
  return result;
}

/**
 * When the account is free for another run: nothing if now; otherwise once its work under way ends (checked again in
 * a minute) or its cooldown since the last run has passed. Runs of the same round follow one another without it.
 */
async function accountFreeAt(
  tx: Tx,
  accountId: string,
  cooldownMinutes: number,
  round: { campaignId: string; planDay: string | null; round: number | null },
  now: Date,
): Promise<Date | undefined> {
  const busy = await tx
    .selectFrom('tasks')
    .select('id')
    .where('accountId', '=', accountId)
    .where('status', 'in', ['pending', 'in-progress'])
    .executeTakeFirst();
  if (busy) return new Date(now.getTime() + 60_000);
  if (cooldownMinutes <= 0) return undefined;
  const last = await tx
    .selectFrom('tasks as t')
    .leftJoin('campaignSessions as cs', 'cs.id', 't.campaignSessionId')
    .select(sql<Date | null>`max(t.completed_at)`.as('endedAt'))
    .where('t.accountId', '=', accountId)
    .where('t.status', 'in', ['completed', 'failed'])
    .where('t.completedAt', '>', new Date(now.getTime() - cooldownMinutes * 60_000))
    .where((eb) =>
      eb.or([
        eb('cs.id', 'is', null),
        eb('cs.campaignId', '<>', round.campaignId),
        eb('cs.planDay', 'is distinct from', round.planDay),
        eb('cs.round', 'is distinct from', round.round),
      ]),
    )
    .executeTakeFirst();
  if (!last?.endedAt) return undefined;
  return new Date(new Date(last.endedAt).getTime() + cooldownMinutes * 60_000);
}
