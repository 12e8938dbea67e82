/**
 * Activating a campaign plans its day (rounds of its routines inside its active hours, the round under way at once);
 * each due run becomes a task for its phone; the task settles the run; pausing calls everything off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, people, type Client, type TestApp } from '../helpers/app.ts';
import { buildAccount, buildCampaign, buildDevice } from '../helpers/factories.ts';

let t: TestApp;
let operator: Client;
let va: Client;

beforeAll(async () => {
  t = await buildTestApp({ runWorkers: true, redisUrl: undefined });
  ({ operator, va } = await people(t.app));
});
afterAll(async () => {
  await t?.close();
});

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
    expect(byTime[0]!.planDay).toBe(new Date().toISOString().slice(0, 10));

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
});
