/** Campaign runs against a real database: planned once, due runs become tasks, daily targets, caps and cooldowns. */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Db } from '../db.ts';
import { Outboxes } from '../outbox.ts';
import { account, device, recorder, useTestDatabase, workspace } from '../../test/farm.ts';
import { acceptResult, dispatchNext } from '../tasks/lifecycle.ts';
import { cancelCampaignRuns, planCampaign, processCampaignsDue } from './runs.ts';

let db: Db;
useTestDatabase((opened) => (db = opened), { quick: true });

/** A fixed-offset zone where it is now two in the morning (Etc/GMT-6 is UTC+6). */
function earlyMorningZone(): string {
  const offset = ((((2 - new Date().getUTCHours()) % 24) + 36) % 24) - 12;
  return offset === 0 ? 'Etc/GMT' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
}

/** An active campaign working all day, one account on a live phone, and its routines. */
async function campaign(
  options: {
    target?: number;
    cooldown?: number;
    caps?: Record<string, number>;
    routines?: { type: 'warmup' | 'create_post' | 'engage_comments'; intensity?: number; duration?: number }[];
  } = {},
) {
  const ws = await workspace(db);
  // The day is planned in rounds: in a zone where it is early morning, the rest of the day lies ahead whenever this runs.
  await db.updateTable('workspaces').set({ timeZone: earlyMorningZone() }).where('id', '=', ws).execute();
  const phone = await device(db, ws);
  const acct = await account(db, ws, phone.id);
  const c = await db
    .insertInto('campaigns')
    .values({
      workspaceId: ws,
      name: 'Spring',
      platform: 'instagram',
      niche: 'Beauty',
      keywords: ['skincare'],
      status: 'active',
      engagementTarget: options.target ?? 100,
      activeHoursStart: 0,
      activeHoursEnd: 24,
      cooldownMinutes: options.cooldown ?? 0,
      dailyCaps: JSON.stringify(options.caps ?? {}),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const routines = [];
  for (const [index, routine] of (options.routines ?? [{ type: 'warmup' }]).entries()) {
    routines.push(
      await db
        .insertInto('routines')
        .values({
          workspaceId: ws,
          campaignId: c.id,
          type: routine.type,
          platform: 'instagram',
          accountId: acct.id,
          name: routine.type,
          intensity: routine.intensity ?? 1,
          duration: routine.duration ?? 5,
          sequence: index + 1,
        })
        .returningAll()
        .executeTakeFirstOrThrow(),
    );
  }
  return { ws, phone, acct, campaign: c, routines };
}

const runs = (campaignId: string) => db.selectFrom('campaignSessions').selectAll().where('campaignId', '=', campaignId).orderBy('scheduledAt').execute();

async function complete(phoneId: string, engagement: Record<string, number> = {}) {
  const task = (await dispatchNext(db, phoneId))!;
  const outboxes = new Outboxes();
  await db
    .transaction()
    .execute((tx) =>
      acceptResult(tx, phoneId, { taskId: task.id, attempt: task.attempt, status: 'completed', engagement }, outboxes.for(task.workspaceId), outboxes),
    );
  return task;
}

describe('campaign runs', () => {
  it('plans a day once, however many activations race', async () => {
    const { campaign: c } = await campaign({
      routines: [
        { type: 'warmup', intensity: 5 },
        { type: 'create_post', intensity: 2 },
      ],
    });
    const planned = await Promise.all(Array.from({ length: 5 }, () => planCampaign(db, c.id, { startNow: true })));
    const all = await runs(c.id);
    expect(planned.reduce((sum, n) => sum + n, 0)).toBe(all.length);
    expect(new Set(all.map((run) => `${run.routineId}/${run.round}`)).size).toBe(all.length);
    expect(await planCampaign(db, c.id, { startNow: false })).toBe(0);
  });

  it('turns a due run into one typed task for the account phone; the next routine of the round waits for it', async () => {
    const { campaign: c, phone, acct, routines } = await campaign({ routines: [{ type: 'warmup' }, { type: 'engage_comments' }] });
    await planCampaign(db, c.id, { startNow: true });
    const { deps } = recorder(db);
    const inAnHour = () => new Date(Date.now() + 3600_000);
    await processCampaignsDue(undefined, { ...deps, now: inAnHour });
    expect((await runs(c.id)).map((run) => run.status)).toEqual(['in-progress', 'pending']);
    const task = await db.selectFrom('tasks').selectAll().where('accountId', '=', acct.id).executeTakeFirstOrThrow();
    expect(task).toMatchObject({ type: 'warmup', deviceId: phone.id, status: 'pending' });
    expect(task.work).toMatchObject({
      kind: 'routine.run',
      routineType: 'warmup',
      account: { id: acct.id, username: acct.username },
      keywords: ['skincare'],
      allowance: { likes: 300, follows: 100, comments: 40, posts: 5 },
      campaign: { id: c.id, name: 'Spring' },
    });
    await complete(phone.id, { likes: 12 });
    // The waiting routine was put back a minute; a little later it goes.
    await processCampaignsDue(undefined, { ...deps, now: () => new Date(Date.now() + 2 * 3600_000) });
    const statuses = (await runs(c.id)).map((run) => [run.routineId, run.status]);
    expect(statuses).toEqual([
      [routines[0]!.id, 'completed'],
      [routines[1]!.id, 'in-progress'],
    ]);
    expect((await runs(c.id))[0]!.engagementActions).toBe(12);
    const used = await db.selectFrom('accountDailyActions').selectAll().where('accountId', '=', acct.id).executeTakeFirstOrThrow();
    expect(used).toMatchObject({ likes: 12, follows: 0, comments: 0 });
    // Counted on the workspace's day (its zone is set where it is about 2 in the morning).
    const { timeZone } = await db.selectFrom('workspaces').select('timeZone').where('id', '=', acct.workspaceId).executeTakeFirstOrThrow();
    expect(String(used.day).slice(0, 10)).toBe(new Intl.DateTimeFormat('en-CA', { timeZone }).format(new Date()));
    // The next routine's allowance is what is left of today's caps.
    const second = await db.selectFrom('tasks').selectAll().where('accountId', '=', acct.id).where('id', '<>', task.id).executeTakeFirstOrThrow();
    expect(second.work).toMatchObject({ routineType: 'engage_comments', allowance: { likes: 288, comments: 40 } });
  });

  it('stops for the day once the phones reported the daily engagement target', async () => {
    const { campaign: c, phone } = await campaign({ target: 20, routines: [{ type: 'warmup', intensity: 10 }] });
    await sql`update campaign_sessions set scheduled_at = now() - interval '1 minute'`.execute(db);
    await planCampaign(db, c.id, { startNow: true });
    const { deps } = recorder(db);
    await processCampaignsDue(undefined, deps);
    await complete(phone.id, { likes: 15, comments: 6 });
    const after = await runs(c.id);
    expect(after.filter((run) => run.status === 'completed')).toHaveLength(1);
    expect(after.filter((run) => run.status === 'pending')).toHaveLength(0);
    expect(after.filter((run) => run.status === 'cancelled').every((run) => run.note === 'The daily engagement target (20) was reached')).toBe(true);
    const feed = await db.selectFrom('activities').select('action').where('workspaceId', '=', c.workspaceId).execute();
    expect(feed.map((a) => a.action)).toContain('Campaign "Spring" reached its daily engagement target (21 of 20); it resumes tomorrow');
  });

  it("skips a routine whose actions are spent under the account's caps, and keeps the cooldown between runs", async () => {
    const capped = await campaign({ caps: { comments: 0, likes: 0 }, routines: [{ type: 'engage_comments' }] });
    await planCampaign(db, capped.campaign.id, { startNow: true });
    const { deps } = recorder(db);
    await processCampaignsDue(undefined, deps);
    expect((await runs(capped.campaign.id))[0]).toMatchObject({ status: 'cancelled', failureCode: 'daily_cap' });

    const cool = await campaign({ cooldown: 30, routines: [{ type: 'warmup', intensity: 10 }] });
    await planCampaign(db, cool.campaign.id, { startNow: true });
    await processCampaignsDue(undefined, deps);
    await complete(cool.phone.id);
    // The next round's run falls due soon after: it waits out the account's cooldown.
    await sql`update campaign_sessions set scheduled_at = now() - interval '1 second' where campaign_id = ${cool.campaign.id} and status = 'pending'`.execute(
      db,
    );
    await processCampaignsDue(undefined, deps);
    const waiting = (await runs(cool.campaign.id)).filter((run) => run.status === 'pending');
    expect(waiting.length).toBeGreaterThan(0);
    for (const run of waiting) expect(run.scheduledAt!.getTime()).toBeGreaterThan(Date.now() + 25 * 60_000);
    expect(await db.selectFrom('tasks').select('id').where('accountId', '=', cool.acct.id).where('status', '=', 'pending').execute()).toHaveLength(0);
  });

  it('calls off open runs when the campaign stops: the task under way is cancelled and its phone told', async () => {
    const { campaign: c, phone } = await campaign({ routines: [{ type: 'warmup', intensity: 4 }] });
    await planCampaign(db, c.id, { startNow: true });
    const { deps } = recorder(db);
    await processCampaignsDue(undefined, deps);
    await dispatchNext(db, phone.id);
    const outboxes = new Outboxes();
    await db.transaction().execute((tx) => cancelCampaignRuns(tx, { campaignId: c.id }, 'The campaign was paused', outboxes));
    const told: unknown[] = [];
    outboxes.flush((change) => (change.event === 'task.withdrawn' ? told.push(change.payload) : undefined));
    expect(told).toEqual([expect.objectContaining({ deviceId: phone.id, reason: 'The campaign was paused' })]);
    expect((await runs(c.id)).every((run) => run.status === 'cancelled')).toBe(true);
    // Planned again after a pause, today's rounds come back (cancelled runs leave room).
    expect(await planCampaign(db, c.id, { startNow: true })).toBeGreaterThan(0);
  });
});
