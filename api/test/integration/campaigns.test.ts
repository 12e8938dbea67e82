/**
 * Campaigns: the create form's rules with the spec's messages, both spellings of the tinder swipe settings,
 * status changes, and linking accounts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages, type Account, type Campaign } from '@farm/contracts';
import { buildTestApp, signUp, type Client, type TestApp } from '../helpers/app.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { buildAccount, buildCampaign, buildLinkedCampaign, buildPost, buildRoutine } from '../helpers/factories.ts';

let t: TestApp;
let operator: Client;
beforeAll(async () => {
  t = await buildTestApp();
  operator = await signUp(t.app);
});
afterAll(async () => {
  await t?.close();
});

const base = { name: 'Spring Glow', platform: 'instagram', niche: 'Beauty', keywords: ['skincare'] };
const create = (body: Record<string, unknown>) => operator.post<Campaign>('/api/campaigns', body);

describe('POST /api/campaigns', () => {
  it('creates a draft with the defaults, recording who made it', async () => {
    const answer = await create({ ...base, keywords: [' skincare ', 'glow'], referenceAccounts: ['@glowrecipe'] });
    expectStatus(answer, 201);
    expect(answer.body).toMatchObject({
      name: 'Spring Glow',
      platform: 'instagram',
      niche: 'Beauty',
      keywords: ['skincare', 'glow'],
      referenceAccounts: ['@glowrecipe'],
      engagementTarget: 100,
      status: 'draft',
      customLore: null,
      guidelines: null,
      searchAndLike: false,
      engageCommenters: false,
      autoLikeEnabled: false,
      autoswipeEnabled: false,
      autoswipeGenderPreference: null,
      autoswipeAgeMin: 18,
      autoswipeAgeMax: 35,
      autoswipeDistanceMax: 50,
      autoswipeBioKeywords: [],
      createdById: operator.user!.id,
      accountIds: [],
    });
    expect(answer.body).not.toHaveProperty('workspaceId');
    expect((await operator.get('/api/activities')).body[0]).toMatchObject({ action: 'Campaign "Spring Glow" created', type: 'success' });
  });

  it('keeps every automation option', async () => {
    const answer = await create({
      ...base,
      customLore: 'A glowing persona',
      guidelines: 'Be kind',
      searchAndLike: true,
      searchKeywords: ['serum', ' ', 'toner '],
      searchAndLikeActions: ['like', 'follow'],
      followAccountList: true,
      accountsToFollow: ['@a', '@b'],
      followFromAccount: true,
      followTargetAccounts: ['@c'],
      followType: 'followers',
      engageCommenters: true,
      engageCommentersActions: ['comment'],
      autoLikeEnabled: true,
      autoLikeGuidelines: 'Only daylight photos',
    });
    expectStatus(answer, 201);
    expect(answer.body).toMatchObject({
      customLore: 'A glowing persona',
      guidelines: 'Be kind',
      searchAndLike: true,
      searchKeywords: ['serum', 'toner'],
      searchAndLikeActions: ['like', 'follow'],
      followAccountList: true,
      accountsToFollow: ['@a', '@b'],
      followFromAccount: true,
      followTargetAccounts: ['@c'],
      followType: 'followers',
      engageCommenters: true,
      engageCommentersActions: ['comment'],
      autoLikeEnabled: true,
      autoLikeGuidelines: 'Only daylight photos',
    });
  });

  it('accepts the form spelling of the swipe settings and answers the stored names', async () => {
    const answer = await create({
      ...base,
      platform: 'tinder',
      autoSwipeEnabled: true,
      swipeGender: 'women',
      swipeAgeMin: 21,
      swipeAgeMax: 30,
      swipeDistance: 25,
      swipeBioKeywords: ['hiking', ' ', 'dogs'],
    });
    expectStatus(answer, 201);
    expect(answer.body).toMatchObject({
      autoswipeEnabled: true,
      autoswipeGenderPreference: 'women',
      autoswipeAgeMin: 21,
      autoswipeAgeMax: 30,
      autoswipeDistanceMax: 25,
      autoswipeBioKeywords: ['hiking', 'dogs'],
    });
    for (const formName of ['swipeGender', 'swipeAgeMin', 'swipeAgeMax', 'swipeDistance', 'swipeBioKeywords', 'autoSwipeEnabled']) {
      expect(answer.body).not.toHaveProperty(formName);
    }
  });

  it('accepts the stored spelling, which wins when both are sent', async () => {
    const stored = await create({
      ...base,
      platform: 'tinder',
      autoswipeEnabled: true,
      autoswipeGenderPreference: 'men',
      autoswipeAgeMin: 25,
      autoswipeAgeMax: 40,
      autoswipeDistanceMax: 160,
      autoswipeBioKeywords: ['art'],
    });
    expectStatus(stored, 201);
    expect(stored.body).toMatchObject({
      autoswipeEnabled: true,
      autoswipeGenderPreference: 'men',
      autoswipeAgeMin: 25,
      autoswipeAgeMax: 40,
      autoswipeDistanceMax: 160,
      autoswipeBioKeywords: ['art'],
    });
    const both = await create({ ...base, platform: 'tinder', swipeAgeMin: 30, autoswipeAgeMin: 20 });
    expect(both.body.autoswipeAgeMin).toBe(20);
  });

  it('accepts reference accounts without keywords', async () => {
    const answer = await create({ ...base, keywords: undefined, referenceAccounts: ['@muse'] });
    expectStatus(answer, 201);
    expect(answer.body).toMatchObject({ keywords: [], referenceAccounts: ['@muse'] });
  });

  it.each([
    ['keywords', { keywords: [] }, messages.keywordOrReference],
    ['keywords', { keywords: undefined }, messages.keywordOrReference],
    ['keywords', { keywords: ['glow', '  '] }, messages.keywordsEmpty],
    ['keywords', { keywords: [''] }, messages.keywordsEmpty],
    ['referenceAccounts', { referenceAccounts: ['@ok', ''] }, messages.referenceAccountsEmpty],
    ['engagementTarget', { engagementTarget: 0 }, messages.engagementTarget],
    ['engagementTarget', { engagementTarget: -5 }, messages.engagementTarget],
    ['engagementTarget', { engagementTarget: 2.5 }, messages.engagementTarget],
    ['engagementTarget', { engagementTarget: '100' }, messages.engagementTarget],
    ['autoswipeAgeMin', { swipeAgeMin: 17 }, messages.swipeAgeMin],
    ['autoswipeAgeMin', { autoswipeAgeMin: 101 }, messages.swipeAgeMin],
    ['autoswipeAgeMax', { swipeAgeMax: 17 }, messages.swipeAgeMax],
    ['autoswipeAgeMax', { autoswipeAgeMax: 101 }, messages.swipeAgeMax],
    ['autoswipeDistanceMax', { swipeDistance: 0 }, messages.swipeDistance],
    ['autoswipeDistanceMax', { autoswipeDistanceMax: 161 }, messages.swipeDistance],
    ['autoswipeAgeMin', { swipeAgeMin: 40, swipeAgeMax: 30 }, messages.swipeAgeOrder],
    ['name', { name: ' ' }, 'Name is required'],
    ['niche', { niche: '' }, 'Niche is required'],
    ['platform', { platform: 'facebook' }, 'Platform must be one of instagram, tiktok or tinder'],
    ['autoLikeReferenceImages', { autoLikeReferenceImages: ['1', '2', '3', '4', '5', '6'] }, 'You can only upload 5 file(s)'],
    ['autoswipeGenderPreference', { swipeGender: 'robots' }, 'Gender preference must be one of men, women or everyone'],
  ])('refuses %s with its message (%j)', async (field, overrides, message) => {
    expectFieldError(await create({ ...base, ...overrides }), field, message);
  });

  it('accepts the bounds of the swipe settings', async () => {
    const low = await create({ ...base, platform: 'tinder', swipeAgeMin: 18, swipeAgeMax: 18, swipeDistance: 1 });
    expect(low.body).toMatchObject({ autoswipeAgeMin: 18, autoswipeAgeMax: 18, autoswipeDistanceMax: 1 });
    const high = await create({ ...base, platform: 'tinder', swipeAgeMin: 100, swipeAgeMax: 100, swipeDistance: 160 });
    expect(high.body).toMatchObject({ autoswipeAgeMin: 100, autoswipeAgeMax: 100, autoswipeDistanceMax: 160 });
    expectStatus(await create({ ...base, engagementTarget: 1 }), 201);
  });
});

describe('PATCH /api/campaigns/:id', () => {
  it('activates and pauses, with an activity each time', async () => {
    const campaign = await buildCampaign(operator, { name: 'Toggle' });
    const active = await operator.patch<Campaign>(`/api/campaigns/${campaign.id}`, { status: 'active' });
    expectStatus(active, 200);
    expect(active.body.status).toBe('active');
    expect((await operator.patch<Campaign>(`/api/campaigns/${campaign.id}`, { status: 'paused' })).body.status).toBe('paused');
    const actions = (await operator.get<{ action: string }[]>('/api/activities')).body.map((row) => row.action);
    expect(actions.slice(0, 2)).toEqual(['Campaign "Toggle" paused', 'Campaign "Toggle" activated']);
    expect((await operator.get(`/api/campaigns/${campaign.id}`)).body.status).toBe('paused');
  });

  it('accepts both swipe spellings and answers the stored names', async () => {
    const campaign = await buildCampaign(operator, { platform: 'tinder' });
    const form = await operator.patch<Campaign>(`/api/campaigns/${campaign.id}`, {
      swipeGender: 'everyone',
      swipeAgeMax: 50,
      swipeDistance: 80,
      autoSwipeEnabled: true,
    });
    expectStatus(form, 200);
    expect(form.body).toMatchObject({
      autoswipeGenderPreference: 'everyone',
      autoswipeAgeMin: 18,
      autoswipeAgeMax: 50,
      autoswipeDistanceMax: 80,
      autoswipeEnabled: true,
    });
    expect(form.body).not.toHaveProperty('swipeGender');
    const stored = await operator.patch<Campaign>(`/api/campaigns/${campaign.id}`, { autoswipeAgeMin: 30, autoswipeBioKeywords: ['books'] });
    expect(stored.body).toMatchObject({ autoswipeAgeMin: 30, autoswipeAgeMax: 50, autoswipeBioKeywords: ['books'] });
  });

  it('keeps the rules against what is stored', async () => {
    const campaign = await buildCampaign(operator, { keywords: ['glow'], referenceAccounts: [] });
    expectFieldError(await operator.patch(`/api/campaigns/${campaign.id}`, { keywords: [] }), 'keywords', messages.keywordOrReference);
    expectFieldError(await operator.patch(`/api/campaigns/${campaign.id}`, { keywords: ['ok', ' '] }), 'keywords', messages.keywordsEmpty);
    expectFieldError(await operator.patch(`/api/campaigns/${campaign.id}`, { referenceAccounts: [' '] }), 'referenceAccounts', messages.referenceAccountsEmpty);
    expectFieldError(await operator.patch(`/api/campaigns/${campaign.id}`, { engagementTarget: 0 }), 'engagementTarget', messages.engagementTarget);
    // Stored maximum age is 35: a minimum of 40 alone is out of order.
    expectFieldError(await operator.patch(`/api/campaigns/${campaign.id}`, { swipeAgeMin: 40 }), 'autoswipeAgeMin', messages.swipeAgeOrder);
    expectFieldError(await operator.patch(`/api/campaigns/${campaign.id}`, { swipeDistance: 200 }), 'autoswipeDistanceMax', messages.swipeDistance);
    expect((await operator.get(`/api/campaigns/${campaign.id}`)).body).toEqual(campaign);

    const swapped = await operator.patch<Campaign>(`/api/campaigns/${campaign.id}`, { keywords: [], referenceAccounts: ['@muse'], engagementTarget: 250 });
    expectStatus(swapped, 200);
    expect(swapped.body).toMatchObject({ keywords: [], referenceAccounts: ['@muse'], engagementTarget: 250 });
  });

  it('answers the campaign unchanged for an empty body, and 404 for an unknown one', async () => {
    const campaign = await buildCampaign(operator);
    const answer = await operator.patch(`/api/campaigns/${campaign.id}`, {});
    expectStatus(answer, 200);
    expect(answer.body).toEqual(campaign);
    expectError(await operator.patch('/api/campaigns/6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b', { status: 'active' }), 404, messages.notFound);
  });
});

describe('linked accounts', () => {
  it('links, lists, refuses a second link, and unlinks; accountIds follow', async () => {
    const campaign = await buildCampaign(operator);
    const first = await buildAccount(operator, { username: 'first_acct' });
    const second = await buildAccount(operator, { username: 'second_acct' });

    const link = await operator.post(`/api/campaigns/${campaign.id}/accounts`, { accountId: first.id });
    expectStatus(link, 201);
    expect(link.body).toEqual({ id: expect.any(String), campaignId: campaign.id, accountId: first.id, createdAt: expect.any(String) });
    expectStatus(await operator.post(`/api/campaigns/${campaign.id}/accounts`, { accountId: second.id }), 201);

    expect((await operator.get<Campaign>(`/api/campaigns/${campaign.id}`)).body.accountIds).toEqual([first.id, second.id]);
    const listed = await operator.get<Account[]>(`/api/campaigns/${campaign.id}/accounts`);
    expect(listed.body.map((row) => row.username)).toEqual(['first_acct', 'second_acct']);
    expect((await operator.get<Campaign[]>('/api/campaigns')).body.find((row) => row.id === campaign.id)?.accountIds).toEqual([first.id, second.id]);

    expectError(await operator.post(`/api/campaigns/${campaign.id}/accounts`, { accountId: first.id }), 409, 'This account is already linked to the campaign');

    expectStatus(await operator.delete(`/api/campaigns/${campaign.id}/accounts/${first.id}`), 204);
    expect((await operator.get<Campaign>(`/api/campaigns/${campaign.id}`)).body.accountIds).toEqual([second.id]);
    expectError(await operator.delete(`/api/campaigns/${campaign.id}/accounts/${first.id}`), 404, messages.notFound);
    expectStatus(await operator.get(`/api/accounts/${first.id}`), 200);
  });

  it('refuses an unknown account and an unknown campaign', async () => {
    const campaign = await buildCampaign(operator);
    const account = await buildAccount(operator);
    expectFieldError(
      await operator.post(`/api/campaigns/${campaign.id}/accounts`, { accountId: '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b' }),
      'accountId',
      "Account must be one of this workspace's accounts",
    );
    expectError(await operator.post('/api/campaigns/6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b/accounts', { accountId: account.id }), 404, messages.notFound);
    expectError(await operator.get('/api/campaigns/6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b/accounts'), 404, messages.notFound);
  });

  it('drops the link when the account is deleted', async () => {
    const { campaign, account } = await buildLinkedCampaign(operator);
    expectStatus(await operator.delete(`/api/accounts/${account.id}`), 204);
    expect((await operator.get<Campaign>(`/api/campaigns/${campaign.id}`)).body.accountIds).toEqual([]);
  });
});

describe('lists and delete', () => {
  it('lists newest first and filters by status and platform', async () => {
    const owner = await signUp(t.app);
    const a = await buildCampaign(owner, { platform: 'instagram' });
    const b = await buildCampaign(owner, { platform: 'tiktok' });
    const c = await buildCampaign(owner, { platform: 'tinder' });
    await owner.patch(`/api/campaigns/${b.id}`, { status: 'active' });
    const ids = async (url: string) => (await owner.get<Campaign[]>(url)).body.map((row) => row.id);
    expect(await ids('/api/campaigns')).toEqual([c.id, b.id, a.id]);
    expect(await ids('/api/campaigns?status=active')).toEqual([b.id]);
    expect(await ids('/api/campaigns?platform=tinder')).toEqual([c.id]);
    expectFieldError(await owner.get('/api/campaigns?platform=facebook'), 'platform', 'Platform must be one of instagram, tiktok or tinder');
  });

  it('deletes a campaign with its routines and links; its posts stay without a campaign', async () => {
    const { campaign, account } = await buildLinkedCampaign(operator);
    const routine = await buildRoutine(operator, campaign.id, account.id);
    const post = await buildPost(operator, account.id, { campaignId: campaign.id });
    expectStatus(await operator.delete(`/api/campaigns/${campaign.id}`), 204);
    expectError(await operator.get(`/api/campaigns/${campaign.id}`), 404, messages.notFound);
    expectError(await operator.delete(`/api/campaigns/${campaign.id}`), 404, messages.notFound);
    expect((await operator.get<{ id: string }[]>(`/api/routines?campaignId=${campaign.id}`)).body).toEqual([]);
    expectError(await operator.patch(`/api/routines/${routine.id}`, { intensity: 2 }), 404, messages.notFound);
    expect((await operator.get(`/api/posts/${post.id}`)).body.campaignId).toBeNull();
  });
});
