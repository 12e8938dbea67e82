/**
 * `accounts.warmup`: an account in warm-up gets gentle warm-up runs on its phone every day until its warm-up end
 * date, then becomes active (with an activity). An account put in warm-up without dates gets them here.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { serialize } from '@farm/sql';
import { recordActivity } from '../activities.ts';
import { agentThere } from '../devices/status.ts';
import { activeWindow, dayIn } from '../campaigns/plan.ts';
import type { JobDeps } from '../jobs.types.ts';
import { Outboxes } from '../outbox.ts';
import { automation } from '../settings.ts';
import { createTasks, type NewTask } from '../tasks/lifecycle.ts';
import { allowanceOf, capsFor } from '../tasks/work.ts';
import { workspaceTimeZone } from '../time.ts';

export const warmupPlan = { runsPerDay: 2, minutes: 15, startHour: 9, endHour: 21 } as const;
/** A warm-up slot missed by more than this (the phone's farm was down) is skipped rather than run late. */
const LATE_MS = 2 * 3600_000;

const fraction = (seed: string) => createHash('sha256').update(seed).digest().readUInt32BE(0) / 2 ** 32;

/** The day's warm-up slots of an account: evenly spread over the warm-up hours, each jittered inside its share. */
export function warmupSlots(accountId: string, day: string, timeZone: string): Date[] {
  const { start, end } = activeWindow(day, timeZone, warmupPlan.startHour, warmupPlan.endHour);
  const share = (end.getTime() - start.getTime()) / warmupPlan.runsPerDay;
  const slack = share - warmupPlan.minutes * 60_000;
  return Array.from(
    { length: warmupPlan.runsPerDay },
    (_, slot) => new Date(Math.round(start.getTime() + slot * share + fraction(`${accountId}:${day}:${slot}`) * slack)),
  );
}

export async function processAccountsWarmup(_data: unknown, deps: JobDeps): Promise<{ finished: number; tasks: number }> {
  const now = deps.now?.() ?? new Date();
  const outboxes = new Outboxes();
  const result = await deps.db.transaction().execute(async (tx) => {
    const finished = await tx
      .updateTable('accounts')
      .set({ status: 'active' })
      .where('status', '=', 'warmup')
      .where('warmupEndDate', '<=', now)
      .returningAll()
      .execute();
    for (const account of finished) {
      const outbox = outboxes.for(account.workspaceId);
      outbox.add('account.updated', serialize(account));
      await recordActivity(
        tx,
        {
          workspaceId: account.workspaceId,
          userId: null,
          action: `@${account.username} finished warming up and is now active`,
          deviceId: account.deviceId,
          type: 'success',
        },
        { action: 'account.warmed-up', entityType: 'account', entityId: account.id },
        outbox,
      );
    }
    const dated = await tx
      .updateTable('accounts')
      .set({
        warmupStartDate: sql<Date>`coalesce(warmup_start_date, ${now})`,
        warmupEndDate: sql<Date>`coalesce(warmup_end_date, coalesce(warmup_start_date, ${now}) + (${automation().warmupDays} * interval '1 day'))`,
      })
      .where('status', '=', 'warmup')
      .where((eb) => eb.or([eb('warmupStartDate', 'is', null), eb('warmupEndDate', 'is', null)]))
      .returningAll()
      .execute();
    for (const account of dated) outboxes.for(account.workspaceId).add('account.updated', serialize(account));

    const warming = await tx
      .selectFrom('accounts as a')
      .innerJoin('devices as d', 'd.id', 'a.deviceId')
      .select([
        'a.id',
        'a.workspaceId',
        'a.username',
        'a.platform',
        'a.warmupEndDate',
        'd.id as deviceId',
        'd.assignedToId',
        'd.lastSeenAt',
        'd.status as deviceStatus',
      ])
      .where('a.status', '=', 'warmup')
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('tasks as t').select('t.id').whereRef('t.accountId', '=', 'a.id').where('t.status', 'in', ['pending', 'in-progress']))),
      )
      .execute();
    const inputs: NewTask[] = [];
    for (const account of warming) {
      const timeZone = await workspaceTimeZone(tx, account.workspaceId);
      const day = dayIn(now, timeZone);
      const slot = warmupSlots(account.id, day, timeZone).findIndex((at) => at.getTime() <= now.getTime() && now.getTime() - at.getTime() < LATE_MS);
      if (slot < 0 || (account.warmupEndDate && account.warmupEndDate.getTime() <= now.getTime())) continue;
      const allowance = await allowanceOf(tx, account.workspaceId, account.id, capsFor(account.platform));
      inputs.push({
        workspaceId: account.workspaceId,
        title: `Warm-up for @${account.username}`,
        description: `Account warm-up, about ${warmupPlan.minutes} min`,
        type: 'warmup',
        priority: 'low',
        deviceId: account.deviceId,
        assignedToId: account.assignedToId,
        deadline: new Date(now.getTime() + 3 * 3600_000),
        work: {
          kind: 'routine.run',
          routineType: 'warmup',
          routineName: 'Account warm-up',
          platform: account.platform,
          account: { id: account.id, username: account.username, platform: account.platform },
          durationMinutes: warmupPlan.minutes,
          intensity: 2,
          actions: ['like'],
          keywords: [],
          referenceAccounts: [],
          settings: { duration: warmupPlan.minutes },
          allowance: { ...allowance, likes: Math.min(allowance.likes, 20), follows: 0, comments: 0, posts: 0 },
          campaign: null,
          recipe: null,
        },
        expectedSeconds: warmupPlan.minutes * 60,
        sourceKey: `warmup:${account.id}:${day}:${slot}`,
        accountId: account.id,
        notifyAssignee: !agentThere(account),
      });
    }
    const tasks = await createTasks(tx, inputs, outboxes);
    return { finished: finished.length, tasks: tasks.length };
  });
  outboxes.flush(deps.announce);
  return result;
}
