/** Activating a campaign schedules its routines; each due run becomes a task for its phone; the task settles the run. */
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

async function campaignWithRoutines(accountDeviceId: string | null) {
  const campaign = await buildCampaign(operator);
  const account = await buildAccount(operator, accountDeviceId ? { deviceId: accountDeviceId } : {});
  await operator.post(`/api/campaigns/${campaign.id}/accounts`, { accountId: account.id });
  const warmup = await operator.post('/api/routines', { campaignId: campaign.id, type: 'warmup', accountId: account.id });
  const post = await operator.post('/api/routines', { campaignId: campaign.id, type: 'create_post', accountId: account.id });
  expect([warmup.status, post.status]).toEqual([201, 201]);
  return { campaign, account };
}

const runsOf = async (campaignId: string) =>
  (await operator.get(`/api/campaign-sessions?campaignId=${campaignId}`)).body as { id: string; status: string; scheduledAt: string; routineId: string }[];

describe('campaign runs', () => {
  it('activating schedules one run per routine in sequence; the due one becomes a task for the phone VA', async () => {
    const device = await buildDevice(operator, { assignedToId: va.user!.id });
    const { campaign, account } = await campaignWithRoutines(device.id);
    expect(await runsOf(campaign.id)).toEqual([]);

    expect((await operator.patch(`/api/campaigns/${campaign.id}`, { status: 'active' })).status).toBe(200);
    await t.app.ctx.jobs!.runNow('campaigns.due');
    await t.app.ctx.jobs!.runNow('campaigns.due');
    const runs = await runsOf(campaign.id);
    expect(runs).toHaveLength(2);
    // The warm-up (5 min) runs first; the post routine is due once it has had its time.
    const byTime = [...runs].sort((a, b) => a.scheduledAt.localeCompare(b.scheduledAt));
    expect(Date.parse(byTime[1]!.scheduledAt) - Date.parse(byTime[0]!.scheduledAt)).toBe(5 * 60_000);
    expect(byTime.map((run) => run.status)).toEqual(['in-progress', 'pending']);

    const tasks = ((await va.get('/api/tasks?assignedToId=me')).body as { id: string; title: string; type: string; deviceId: string }[]).filter((task) =>
      task.title.includes(campaign.name),
    );
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({ type: 'warmup', deviceId: device.id, title: `Warmup for @${account.username} (${campaign.name})` });

    await va.patch(`/api/tasks/${tasks[0]!.id}`, { status: 'completed' });
    expect((await runsOf(campaign.id)).find((run) => run.id === byTime[0]!.id)?.status).toBe('completed');

    // Paused and activated again: the run still waiting is kept, not doubled; the finished routine runs again.
    await operator.patch(`/api/campaigns/${campaign.id}`, { status: 'paused' });
    await operator.patch(`/api/campaigns/${campaign.id}`, { status: 'active' });
    const again = await runsOf(campaign.id);
    const open = (routineId: string) => again.filter((run) => run.routineId === routineId && (run.status === 'pending' || run.status === 'in-progress'));
    expect(open(byTime[1]!.routineId)).toHaveLength(1);
    expect(open(byTime[0]!.routineId)).toHaveLength(1);
    expect(again).toHaveLength(3);
  });

  it('fails a due run whose account has no phone, and saying why', async () => {
    const { campaign, account } = await campaignWithRoutines(null);
    await operator.patch(`/api/campaigns/${campaign.id}`, { status: 'active' });
    await t.app.ctx.jobs!.runNow('campaigns.due');
    expect((await runsOf(campaign.id)).map((run) => run.status).sort()).toEqual(['failed', 'pending']);
    const feed = (await operator.get('/api/activities')).body as { action: string }[];
    expect(feed.some((a) => a.action === `Warmup of "${campaign.name}" failed: @${account.username} has no phone`)).toBe(true);
  });
});
