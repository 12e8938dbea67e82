/** Automation routines of a campaign: derived durations (SPEC §9), sequences, the linked-account rule, the bounds. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages, type Account, type Campaign, type CampaignSession, type Routine } from '@farm/contracts';
import { buildTestApp, signUp, type Client, type TestApp } from '../helpers/app.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { buildAccount, buildLinkedCampaign, buildRoutine } from '../helpers/factories.ts';

let t: TestApp;
let operator: Client;
/** A campaign with a linked account, for tests that only read the answer to the routine they add. */
let shared: { campaign: Campaign; account: Account };
beforeAll(async () => {
  t = await buildTestApp();
  operator = await signUp(t.app);
  shared = await buildLinkedCampaign(operator);
});
afterAll(async () => {
  await t?.close();
});

const create = (body: Record<string, unknown>) => operator.post<Routine>('/api/routines', body);

describe('derived durations and defaults (SPEC §9)', () => {
  it.each([
    ['warmup', {}, 5, { duration: 5, actionCount: 10 }],
    ['warmup', { settings: { duration: 8, actionCount: 25 } }, 8, { duration: 8, actionCount: 25 }],
    ['warmup', { duration: 12 }, 12, { duration: 12, actionCount: 10 }],
    ['doom_scroll', {}, 10, { duration: 10, speed: 'medium' }],
    ['doom_scroll', { settings: { duration: 20, speed: 'fast' } }, 20, { duration: 20, speed: 'fast' }],
    ['branch_from_account', {}, 10, { branchDepth: 2, engagementRate: 50 }],
    [
      'branch_from_account',
      { settings: { branchDepth: 3, engagementRate: 0, sourceAccount: '@muse' } },
      15,
      { branchDepth: 3, engagementRate: 0, sourceAccount: '@muse' },
    ],
    ['branch_from_account', { settings: { branchDepth: 5, engagementRate: 100 } }, 25, { branchDepth: 5, engagementRate: 100 }],
    ['create_post', {}, 10, { contentType: 'video' }],
    ['create_post', { settings: { contentType: 'carousel' }, duration: 45 }, 10, { contentType: 'carousel', duration: 45 }],
    ['engage_comments', {}, 10, { targetPosts: 5, engagementRate: 50 }],
    ['engage_comments', { settings: { targetPosts: 4 } }, 8, { targetPosts: 4, engagementRate: 50 }],
    ['basic_scroll', {}, 3, { duration: 3 }],
    ['basic_scroll', { settings: { duration: 7 } }, 7, { duration: 7 }],
    ['basic', {}, 0, {}],
  ])('%s %j runs %i minutes', async (type, extra, minutes, settings) => {
    const { campaign, account } = shared;
    const answer = await create({ campaignId: campaign.id, accountId: account.id, type, ...extra });
    expectStatus(answer, 201);
    expect(answer.body.duration).toBe(minutes);
    expect(answer.body.settings).toEqual(settings);
  });

  it('fills name, platform, intensity and flags from the type and the campaign', async () => {
    const { campaign, account } = await buildLinkedCampaign(operator, { platform: 'tiktok' });
    const answer = await create({ campaignId: campaign.id, accountId: account.id, type: 'doom_scroll' });
    expect(answer.body).toMatchObject({
      campaignId: campaign.id,
      accountId: account.id,
      name: 'Doom Scroll',
      platform: 'tiktok',
      intensity: 5,
      actions: [],
      isActive: true,
      sequence: 1,
    });
    const named = await create({
      campaignId: campaign.id,
      accountId: account.id,
      type: 'warmup',
      name: 'Morning',
      intensity: 9,
      actions: ['like', 'follow'],
      isActive: false,
    });
    expect(named.body).toMatchObject({ name: 'Morning', intensity: 9, actions: ['like', 'follow'], isActive: false });
    expect((await operator.get('/api/activities')).body[0]).toMatchObject({ action: `Routine "Morning" added to "${campaign.name}"`, type: 'info' });
  });
});

describe('sequence', () => {
  it('numbers routines count + 1 and closes the gap after a delete', async () => {
    const { campaign, account } = await buildLinkedCampaign(operator);
    const first = await buildRoutine(operator, campaign.id, account.id, { name: 'One' });
    const second = await buildRoutine(operator, campaign.id, account.id, { name: 'Two' });
    const third = await buildRoutine(operator, campaign.id, account.id, { name: 'Three' });
    expect([first.sequence, second.sequence, third.sequence]).toEqual([1, 2, 3]);

    expectStatus(await operator.delete(`/api/routines/${second.id}`), 204);
    const listed = await operator.get<Routine[]>(`/api/routines?campaignId=${campaign.id}`);
    expect(listed.body.map((row) => [row.name, row.sequence])).toEqual([
      ['One', 1],
      ['Three', 2],
    ]);
    expect((await buildRoutine(operator, campaign.id, account.id, { name: 'Four' })).sequence).toBe(3);
    expect((await operator.get('/api/activities')).body[1]).toMatchObject({ action: 'Routine "Two" deleted', type: 'warning' });
    expectError(await operator.delete(`/api/routines/${second.id}`), 404, messages.notFound);
  });

  it('counts each campaign on its own', async () => {
    const one = await buildLinkedCampaign(operator);
    const two = await buildLinkedCampaign(operator);
    await buildRoutine(operator, one.campaign.id, one.account.id);
    await buildRoutine(operator, one.campaign.id, one.account.id);
    expect((await buildRoutine(operator, two.campaign.id, two.account.id)).sequence).toBe(1);
    const listed = await operator.get<Routine[]>(`/api/routines?campaignId=${two.campaign.id}`);
    expect(listed.body).toHaveLength(1);
  });
});

describe('refusals', () => {
  it('needs an account, linked to the campaign', async () => {
    const { campaign } = await buildLinkedCampaign(operator);
    const unlinked = await buildAccount(operator);
    expectFieldError(await create({ campaignId: campaign.id, type: 'warmup' }), 'accountId', messages.routineAccount);
    expectFieldError(await create({ campaignId: campaign.id, type: 'warmup', accountId: '' }), 'accountId', messages.routineAccount);
    expectFieldError(await create({ campaignId: campaign.id, type: 'warmup', accountId: unlinked.id }), 'accountId', 'Account must be linked to the campaign');
    expectFieldError(
      await create({ campaignId: campaign.id, type: 'warmup', accountId: '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b' }),
      'accountId',
      "Account must be one of this workspace's accounts",
    );
    expect((await operator.get(`/api/routines?campaignId=${campaign.id}`)).body).toEqual([]);
  });

  it('needs a campaign of this workspace and a type', async () => {
    const { campaign, account } = await buildLinkedCampaign(operator);
    expectFieldError(
      await create({ campaignId: '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b', type: 'warmup', accountId: account.id }),
      'campaignId',
      "Campaign must be one of this workspace's campaigns",
    );
    expectFieldError(
      await create({ campaignId: campaign.id, accountId: account.id }),
      'type',
      'Type must be one of basic, warmup, doom_scroll, branch_from_account, create_post, basic_scroll or engage_comments',
    );
  });

  it.each([
    ['settings.branchDepth', { branchDepth: 0 }, messages.branchDepth],
    ['settings.branchDepth', { branchDepth: 6 }, messages.branchDepth],
    ['settings.branchDepth', { branchDepth: 2.5 }, messages.branchDepth],
    ['settings.branchDepth', { branchDepth: '3' }, messages.branchDepth],
    ['settings.engagementRate', { engagementRate: -1 }, messages.engagementRate],
    ['settings.engagementRate', { engagementRate: 101 }, messages.engagementRate],
    ['settings.engagementRate', { engagementRate: 'high' }, messages.engagementRate],
  ])('refuses %s %j with its message', async (field, settings, message) => {
    const { campaign, account } = shared;
    expectFieldError(await create({ campaignId: campaign.id, accountId: account.id, type: 'branch_from_account', settings }), field, message);
  });
});

describe('PATCH /api/routines/:id', () => {
  it('derives the duration again from new settings', async () => {
    const { campaign, account } = await buildLinkedCampaign(operator);
    const routine = await buildRoutine(operator, campaign.id, account.id, { type: 'branch_from_account' });
    const deeper = await operator.patch<Routine>(`/api/routines/${routine.id}`, { settings: { branchDepth: 4 } });
    expectStatus(deeper, 200);
    expect(deeper.body).toMatchObject({ duration: 20, settings: { branchDepth: 4, engagementRate: 50 } });
    const retyped = await operator.patch<Routine>(`/api/routines/${routine.id}`, { type: 'engage_comments' });
    expect(retyped.body).toMatchObject({ type: 'engage_comments', duration: 10, settings: { targetPosts: 5, engagementRate: 50 } });
    const renamed = await operator.patch<Routine>(`/api/routines/${routine.id}`, { name: 'Renamed', intensity: 2, isActive: false });
    expect(renamed.body).toMatchObject({ name: 'Renamed', intensity: 2, isActive: false, duration: 10 });
    expectFieldError(
      await operator.patch(`/api/routines/${routine.id}`, { settings: { engagementRate: 150 } }),
      'settings.engagementRate',
      messages.engagementRate,
    );
  });

  it('moves a routine only to an account linked to its campaign', async () => {
    const { campaign, account } = await buildLinkedCampaign(operator);
    const routine = await buildRoutine(operator, campaign.id, account.id);
    const other = await buildAccount(operator);
    expectFieldError(await operator.patch(`/api/routines/${routine.id}`, { accountId: other.id }), 'accountId', 'Account must be linked to the campaign');
    await operator.post(`/api/campaigns/${campaign.id}/accounts`, { accountId: other.id });
    expect((await operator.patch<Routine>(`/api/routines/${routine.id}`, { accountId: other.id })).body.accountId).toBe(other.id);
  });

  it('answers 404 for an unknown routine', async () => {
    expectError(await operator.patch('/api/routines/6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b', { intensity: 3 }), 404, messages.notFound);
  });
});

describe('GET /api/routines and /api/campaign-sessions', () => {
  it('lists the routines of one campaign in sequence order', async () => {
    const { campaign, account } = await buildLinkedCampaign(operator);
    const a = await buildRoutine(operator, campaign.id, account.id, { type: 'create_post' });
    const b = await buildRoutine(operator, campaign.id, account.id, { type: 'basic_scroll' });
    const listed = await operator.get<Routine[]>(`/api/routines?campaignId=${campaign.id}`);
    expectStatus(listed, 200);
    expect(listed.body).toEqual([a, b]);
  });

  it("lists a campaign's sessions, newest first", async () => {
    const { campaign, account } = await buildLinkedCampaign(operator);
    const other = await buildLinkedCampaign(operator);
    const routine = await buildRoutine(operator, campaign.id, account.id);
    const workspaceId = operator.user!.workspaceId!;
    const older = new Date(Date.now() - 60_000);
    await t.db
      .insertInto('campaignSessions')
      .values([
        { workspaceId, campaignId: campaign.id, routineId: routine.id, accountId: account.id, status: 'completed', createdAt: older },
        { workspaceId, campaignId: campaign.id, routineId: routine.id, accountId: account.id, status: 'pending', scheduledAt: new Date() },
        { workspaceId, campaignId: other.campaign.id, status: 'pending' },
      ])
      .execute();
    const listed = await operator.get<CampaignSession[]>(`/api/campaign-sessions?campaignId=${campaign.id}`);
    expectStatus(listed, 200);
    expect(listed.body.map((row) => row.status)).toEqual(['pending', 'completed']);
    expect(listed.body[0]).toMatchObject({
      campaignId: campaign.id,
      routineId: routine.id,
      accountId: account.id,
      sessionId: null,
      startedAt: null,
      completedAt: null,
    });
  });
});
