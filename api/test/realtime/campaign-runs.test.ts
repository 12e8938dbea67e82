/**
 * Activating a campaign plans its day (rounds of its routines inside its active hours, the round under way at once);
 * each due run becomes a task for its phone; the task settles the run; pausing calls everything off.
 */
import { describe, expect, it } from 'vitest';
import { buildAccount, buildCampaign, buildDevice } from '../helpers/factories.ts';
import { appWithPeople } from '../helpers/file-app.ts';
import { until } from './phones.ts';

const { t, operator, va } = await appWithPeople({ runWorkers: true, redisUrl: undefined });

/** A campaign working all day (so the test does not depend on the hour), with a warm-up and a post routine. */
async function campaignWithRoutines(accountDeviceId: string | null, overrides: Record<string, unknown> = {}) {
  const campaign = await buildCampaign(operator, { activeHoursStart: 0, activeHoursEnd: 24, ...overrides });
  const account = await buildAccount(operator, accountDeviceId ? { deviceId: accountDeviceId } : {});
  await operator.post(`/api/campaigns/${campaign.id}/accounts`, { accountId: account.id });
  const warmup = await operator.post('/api/routines', { campaignId: campaign.id, type: 'warmup', accountId: account.id, intensity: 1 });
  const post = await operator.post('/api/routines', { campaignId: campaign.id, type: 'create_post', accountId: account.id, intensity: 1 });
  expect([warmup.status, post.status]).toEqual([201, 201]);
  return { campaign, account, warmup: warmup.body as { id: string }, post: post.body as { id: string } };
}

type Run = {
  id: string;
  status: string;
  scheduledAt: string;
  routineId: string;
  round: number;
  planDay: string;
  note: string | null;
  failureCode: string | null;
};
const runsOf = async (campaignId: string) => (await operator.get(`/api/campaign-sessions?campaignId=${campaignId}`)).body as Run[];

describe('campaign runs', () => {
  it('activating plans today: the round under way starts now, routines in sequence; the due one becomes a task for the phone VA', async () => {
    const device = await buildDevice(operator, { assignedToId: va.user!.id });
    const { campaign, account, warmup, post } = await campaignWithRoutines(device.id);
    expect(await runsOf(campaign.id)).toEqual([]);

    // Five activations racing plan the day once.
    const dayBefore = new Date().toISOString().slice(0, 10);
    const activations = await Promise.all(Array.from({ length: 5 }, () => operator.patch(`/api/campaigns/${campaign.id}`, { status: 'active' })));
    expect(activations.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    await t.app.ctx.jobs!.runNow('campaigns.due');
    await t.app.ctx.jobs!.runNow('campaigns.due');
    const runs = await runsOf(campaign.id);
    expect(runs).toHaveLength(2);
    const byTime = [...runs].sort((a, b) => a.scheduledAt.localeCompare(b.scheduledAt));
    expect(byTime.map((run) => run.routineId)).toEqual([warmup.id, post.id]);
    // The warm-up (5 min) runs first; the post routine is due once it has had its time.
    expect(Date.parse(byTime[1]!.scheduledAt) - Date.parse(byTime[0]!.scheduledAt)).toBe(5 * 60_000);
    expect(byTime.map((run) => run.status)).toEqual(['in-progress', 'pending']);
    // Today, on whichever side of midnight (UTC) the plan fell.
    expect([dayBefore, new Date().toISOString().slice(0, 10)]).toContain(byTime[0]!.planDay);

    const tasks = ((await va.get('/api/tasks?assignedToId=me')).body as { id: string; title: string; type: string; deviceId: string }[]).filter((task) =>
      task.title.includes(campaign.name),
    );
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({ type: 'warmup', deviceId: device.id, title: `Warmup for @${account.username} (${campaign.name})` });

    await va.patch(`/api/tasks/${tasks[0]!.id}`, { status: 'completed' });
    expect((await runsOf(campaign.id)).find((run) => run.id === byTime[0]!.id)?.status).toBe('completed');

    // Paused: the waiting run is called off, with the reason; activated again, what did not run is planned again.
    await operator.patch(`/api/campaigns/${campaign.id}`, { status: 'paused' });
    const paused = await runsOf(campaign.id);
    expect(paused.find((run) => run.routineId === post.id)).toMatchObject({ status: 'cancelled', note: 'The campaign was paused' });
    await operator.patch(`/api/campaigns/${campaign.id}`, { status: 'active' });
    const again = await runsOf(campaign.id);
    const open = (routineId: string) => again.filter((run) => run.routineId === routineId && (run.status === 'pending' || run.status === 'in-progress'));
    expect(open(post.id)).toHaveLength(1);
    expect(open(warmup.id)).toHaveLength(0);
    expect(again).toHaveLength(3);
  });

  it('fails a due run whose account has no phone, and says why', async () => {
    const { campaign, account } = await campaignWithRoutines(null);
    await operator.patch(`/api/campaigns/${campaign.id}`, { status: 'active' });
    await t.app.ctx.jobs!.runNow('campaigns.due');
    expect((await runsOf(campaign.id)).map((run) => run.status).sort()).toEqual(['failed', 'pending']);
    const feed = (await operator.get('/api/activities')).body as { action: string }[];
    expect(feed.some((a) => a.action === `Warmup of "${campaign.name}" failed: @${account.username} has no phone`)).toBe(true);
  });

  it('keeps its active hours, cooldown and caps, and refuses hours that do not make sense', async () => {
    const campaign = await buildCampaign(operator);
    expect(campaign).toMatchObject({ activeHoursStart: 9, activeHoursEnd: 21, cooldownMinutes: 30, dailyCaps: {} });
    const changed = await operator.patch(`/api/campaigns/${campaign.id}`, {
      activeHoursStart: 8,
      activeHoursEnd: 22,
      cooldownMinutes: 45,
      dailyCaps: { likes: 150, comments: 10 },
    });
    expect(changed.body).toMatchObject({ activeHoursStart: 8, activeHoursEnd: 22, cooldownMinutes: 45, dailyCaps: { likes: 150, comments: 10 } });
    const backwards = await operator.patch(`/api/campaigns/${campaign.id}`, { activeHoursStart: 22 });
    expect(backwards).toMatchObject({ status: 400, body: { error: 'Active hours must end after they start.' } });
    const silly = await operator.patch(`/api/campaigns/${campaign.id}`, { cooldownMinutes: 5000, dailyCaps: { likes: -1 } });
    expect(silly.status).toBe(400);
    expect(silly.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['cooldownMinutes', 'dailyCaps.likes']);
  });

  it('takes every account on the phones of a group, in step as phones join or leave it (read when planned and when due)', async () => {
    const [one, two, three] = [await buildDevice(operator), await buildDevice(operator), await buildDevice(operator)];
    const first = await buildAccount(operator, { deviceId: one.id });
    const second = await buildAccount(operator, { deviceId: two.id });
    const third = await buildAccount(operator, { deviceId: three.id });
    // An account of another platform on a phone of the group is not the campaign's.
    await buildAccount(operator, { deviceId: one.id, platform: 'tiktok' });
    const group = (await operator.post('/api/groups', { name: `Client ${Math.random().toString(36).slice(2, 6)}`, deviceIds: [one.id, two.id] })).body;

    // Bad input: a group of no one's, a group routine on a campaign without a group, a group routine naming an account.
    expect(await operator.post('/api/campaigns', { name: 'G', platform: 'instagram', niche: 'x', keywords: ['k'], groupId: one.id })).toMatchObject({
      status: 400,
      body: { details: [{ field: 'groupId', message: "Group must be one of this workspace's groups or tags" }] },
    });
    const plain = await buildCampaign(operator);
    expect(await operator.post('/api/routines', { campaignId: plain.id, type: 'warmup', forGroup: true })).toMatchObject({
      status: 400,
      body: { details: [{ field: 'forGroup' }] },
    });
    expect(await operator.post('/api/routines', { campaignId: plain.id, type: 'warmup', forGroup: true, accountId: first.id })).toMatchObject({
      status: 400,
      body: { details: [{ field: 'accountId' }] },
    });
    expect(await t.db.selectFrom('routines').select('id').where('campaignId', '=', plain.id).execute()).toEqual([]);

    const campaign = await buildCampaign(operator, { activeHoursStart: 0, activeHoursEnd: 24, groupId: group.id, cooldownMinutes: 0 });
    expect(campaign.groupId).toBe(group.id);
    // The workspace's day is put about noon wherever the clock stands, so a later round of today is still ahead
    // (late in a UTC evening, today's last round has begun and the next planning adds none).
    const offset = 12 - new Date().getUTCHours();
    const noonZone = offset === 0 ? 'UTC' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
    const { workspaceId: ownWorkspace } = await t.db.selectFrom('campaigns').select('workspaceId').where('id', '=', campaign.id).executeTakeFirstOrThrow();
    await t.db.updateTable('workspaces').set({ timeZone: noonZone }).where('id', '=', ownWorkspace).execute();
    const routine = await operator.post('/api/routines', { campaignId: campaign.id, type: 'warmup', forGroup: true, intensity: 10 });
    expect(routine).toMatchObject({ status: 201, body: { forGroup: true, accountId: null } });
    const usernames = async () =>
      ((await operator.get(`/api/campaigns/${campaign.id}/group-accounts`)).body as { username: string }[]).map((row) => row.username).sort();
    expect(await usernames()).toEqual([first.username, second.username].sort());
    const accountOf = (run: Run) => (run as Run & { accountId: string }).accountId;

    // Activated: one run per account on the group's phones each round, side by side (each on its own phone); the
    // round under way goes out at once.
    await operator.patch(`/api/campaigns/${campaign.id}`, { status: 'active' });
    const runs = await runsOf(campaign.id);
    expect(new Set(runs.map(accountOf))).toEqual(new Set([first.id, second.id]));
    for (const round of new Set(runs.map((run) => run.round))) {
      const inRound = runs.filter((run) => run.round === round);
      expect(inRound).toHaveLength(2);
      expect(new Set(inRound.map((run) => run.scheduledAt)).size).toBe(1);
    }
    const current = await until(async () => {
      const out = (await runsOf(campaign.id)).filter((run) => run.status === 'in-progress');
      return out.length === 2 ? out : undefined;
    }, 'the round under way out on both phones');

    // The second phone leaves the group and a third joins; the round under way ends, the next falls due.
    expect((await operator.post(`/api/groups/${group.id}/devices`, { remove: [two.id], add: [three.id] })).status).toBe(200);
    await t.db
      .updateTable('tasks')
      .set({ status: 'completed', completedAt: new Date() })
      .where(
        'campaignSessionId',
        'in',
        current.map((run) => run.id),
      )
      .execute();
    await t.db
      .updateTable('campaignSessions')
      .set({ status: 'completed', completedAt: new Date() })
      .where(
        'id',
        'in',
        current.map((run) => run.id),
      )
      .execute();
    // A later round of the day, due now (written as the planner writes it, so the test does not hang on the hour).
    const next = 99;
    const { workspaceId } = await t.db.selectFrom('campaigns').select('workspaceId').where('id', '=', campaign.id).executeTakeFirstOrThrow();
    await t.db
      .insertInto('campaignSessions')
      .values(
        [first, second].map((account) => ({
          workspaceId,
          campaignId: campaign.id,
          routineId: routine.body.id as string,
          accountId: account.id,
          planDay: current[0]!.planDay,
          round: next,
          scheduledAt: new Date(Date.now() - 1000),
        })),
      )
      .execute();
    await t.app.ctx.jobs!.runNow('campaigns.due');
    const after = (await runsOf(campaign.id)).filter((run) => run.round === next);
    // Read when due: the account whose phone left gets no run; the one still in the group does.
    expect(after.find((run) => accountOf(run) === second.id)).toMatchObject({
      status: 'cancelled',
      note: `@${second.username}'s phone is no longer in the campaign's group`,
    });
    expect(after.find((run) => accountOf(run) === first.id)?.status).toBe('in-progress');
    // Read when planned: the phone that joined gets the campaign's runs from the next planning (each minute).
    await t.app.ctx.jobs!.runNow('campaigns.plan');
    expect(await usernames()).toEqual([first.username, third.username].sort());
    expect((await runsOf(campaign.id)).some((run) => accountOf(run) === third.id && run.status === 'pending')).toBe(true);
  });
});
