/**
 * `campaigns.due`: each pending run of an active campaign's routine whose time has come becomes one task for
 * the phone holding the routine's account (its VA gets it; its agent, when online, runs it). The run is then
 * in progress; finishing the task finishes the run. Same guarantees as posts.due: the database says what is
 * due, SKIP LOCKED and a unique task-per-run index make repeats and racing workers harmless.
 */
import type { Kysely } from 'kysely';
import type { DB, RoutineType, TaskType } from '@farm/sql';
import type { Announcement } from './changes.ts';
import type { PostsDueDeps } from './posts.due.ts';

export const RUNS_PER_JOB = 500;

/** What kind of work a routine is for a phone. */
export const taskTypeOfRoutine: Record<RoutineType, TaskType> = {
  basic: 'engage',
  warmup: 'warmup',
  doom_scroll: 'warmup',
  basic_scroll: 'warmup',
  branch_from_account: 'engage',
  engage_comments: 'engage',
  create_post: 'post',
};

const iso = (row: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(row).map(([key, value]) => [key, value instanceof Date ? value.toISOString() : value]));

export async function processCampaignsDue(_data: unknown, deps: PostsDueDeps): Promise<{ tasks: number; failed: number }> {
  const now = deps.now?.() ?? new Date();
  const announcements: Announcement[] = [];
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
        'c.name as campaignName',
        'r.type',
        'r.name as routineName',
        'r.duration',
        'r.settings',
        'a.username',
        'd.id as deviceId',
        'd.assignedToId',
      ])
      .where('cs.status', '=', 'pending')
      .where('cs.scheduledAt', '<=', now)
      .where('c.status', '=', 'active')
      .where('r.isActive', '=', true)
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('tasks as t').select('t.id').whereRef('t.campaignSessionId', '=', 'cs.id'))))
      .orderBy('cs.scheduledAt')
      .limit(RUNS_PER_JOB)
      .forUpdate('cs')
      .skipLocked()
      .execute();
    let tasks = 0;
    let failed = 0;
    for (const run of due) {
      if (!run.deviceId) {
        await tx.updateTable('campaignSessions').set({ status: 'failed', completedAt: now }).where('id', '=', run.id).execute();
        const activity = await tx
          .insertInto('activities')
          .values({ workspaceId: run.workspaceId, userId: null, action: `${run.routineName} of "${run.campaignName}" failed: ${run.username ? `@${run.username} has no phone` : 'no account'}`, type: 'error' })
          .returningAll()
          .executeTakeFirstOrThrow();
        announcements.push({ workspaceId: run.workspaceId, event: 'activity.created', payload: iso(activity) });
        failed += 1;
        continue;
      }
      const task = await tx
        .insertInto('tasks')
        .values({
          workspaceId: run.workspaceId,
          title: `${run.routineName} for @${run.username} (${run.campaignName})`,
          description: `Routine ${run.type}, about ${run.duration} min. Settings: ${JSON.stringify(run.settings)}`,
          type: taskTypeOfRoutine[run.type],
          priority: 'medium',
          deviceId: run.deviceId,
          assignedToId: run.assignedToId,
          deadline: new Date(now.getTime() + Math.max(run.duration, 10) * 4 * 60_000),
          campaignSessionId: run.id,
        })
        .onConflict((oc) => oc.column('campaignSessionId').where('campaignSessionId', 'is not', null).doNothing())
        .returningAll()
        .executeTakeFirst();
      if (!task) continue;
      await tx.updateTable('campaignSessions').set({ status: 'in-progress', startedAt: now }).where('id', '=', run.id).execute();
      announcements.push({ workspaceId: run.workspaceId, event: 'task.created', payload: iso(task) });
      if (task.assignedToId) announcements.push({ workspaceId: run.workspaceId, event: 'task.assigned', payload: iso(task), userId: task.assignedToId });
      tasks += 1;
    }
    return { tasks, failed };
  });
  for (const change of announcements) deps.announce(change);
  return result;
}

/** The end of a run's task is the end of the run. Idempotent. */
export function settleRunOfTask(db: Kysely<DB>, taskId: string, outcome: 'completed' | 'failed', at = new Date()) {
  return db
    .updateTable('campaignSessions')
    .set({ status: outcome, completedAt: at })
    .where('id', '=', (eb) => eb.selectFrom('tasks').select('campaignSessionId').where('id', '=', taskId))
    .where('status', 'in', ['pending', 'in-progress'])
    .returningAll()
    .executeTakeFirst();
}

/**
 * The runs of a campaign that was just activated: each active routine with an account, one after another in
 * sequence, the first now and each next one when the previous one's duration has passed.
 */
export async function scheduleCampaignRuns(db: Kysely<DB>, workspaceId: string, campaignId: string, now = new Date()) {
  const routines = await db
    .selectFrom('routines')
    .select(['id', 'accountId', 'duration'])
    .where('campaignId', '=', campaignId)
    .where('workspaceId', '=', workspaceId)
    .where('isActive', '=', true)
    .where('accountId', 'is not', null)
    .orderBy('sequence')
    .execute();
  // A campaign paused and activated again keeps its runs that are still waiting.
  const waiting = await db.selectFrom('campaignSessions').select('routineId').where('campaignId', '=', campaignId).where('status', '=', 'pending').execute();
  const already = new Set(waiting.map((row) => row.routineId));
  let at = now.getTime();
  const values = [];
  for (const routine of routines) {
    if (!already.has(routine.id)) values.push({ workspaceId, campaignId, routineId: routine.id, accountId: routine.accountId, scheduledAt: new Date(at) });
    at += routine.duration * 60_000;
  }
  if (values.length === 0) return [];
  return db.insertInto('campaignSessions').values(values).returningAll().execute();
}
