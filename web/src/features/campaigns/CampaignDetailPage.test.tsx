import { COMMENTS_BY_VA } from './components/CommentsByVaNote';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { CampaignDetailPage } from './CampaignDetailPage';
import { buildAccount, buildCampaign, buildPost, buildRoutine } from '../../test/fixtures';
import { renderScreen, stubApi, type Reply } from '../../test/render';

const alpha = buildAccount({ id: 'a1', username: 'alpha' });
const beta = buildAccount({ id: 'a2', username: 'beta' });
const gamma = buildAccount({ id: 'a3', username: 'gamma' });
const swiper = buildAccount({ id: 'a4', username: 'swiper', platform: 'tinder' });

function api(overrides: Record<string, Reply> = {}) {
  return stubApi({
    'GET /api/campaigns/c1': buildCampaign({ status: 'active', accountIds: ['a1'] }),
    'GET /api/accounts': [alpha, beta, gamma, swiper],
    'GET /api/campaigns/c1/accounts': [alpha],
    'GET /api/routines?campaignId=c1': [
      buildRoutine({ id: 'r2', type: 'branch_from_account', settings: { branchDepth: 3 }, sequence: 2 }),
      buildRoutine({ id: 'r1', sequence: 1 }),
    ],
    'GET /api/campaign-sessions?campaignId=c1': [],
    'GET /api/posts?campaignId=c1': [],
    'GET /api/posts?campaignId=none': [buildPost({ id: 'p9', caption: 'Loose post' })],
    ...overrides,
  });
}

const open = (role: 'operator' | 'va' = 'operator') => renderScreen(<CampaignDetailPage />, { path: '/campaigns/c1', route: '/campaigns/:id', role });

describe('CampaignDetailPage', { timeout: 20_000 }, () => {
  it('shows the campaign with its lists, and None where a list is empty', async () => {
    api();
    open();
    expect(screen.getByText('Loading campaign...')).toBeTruthy();
    expect(await screen.findByRole('heading', { name: 'Summer Push' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Pause' })).toBeTruthy();
    expect(screen.getByText('None')).toBeTruthy();
    expect(screen.getByText('cardio')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Back to Campaigns' }).getAttribute('href')).toBe('/campaigns');
    expect(screen.getByRole('heading', { name: 'Scheduled Content' })).toBeTruthy();
  });

  it("says 'Failed to fetch campaign' when the campaign cannot be read", async () => {
    api({ 'GET /api/campaigns/c1': new Response('{"error":"Not found"}', { status: 404 }) });
    open();
    expect(await screen.findByText('Failed to fetch campaign')).toBeTruthy();
  });

  it('lists routines in sequence with their account and derived minutes', async () => {
    api();
    open();
    const list = await screen.findByRole('list', { name: 'Automation routines' });
    const rows = within(list).getAllByRole('listitem');
    expect(rows.map((row) => row.textContent)).toEqual([expect.stringContaining('Warmup'), expect.stringContaining('Branch From Account')]);
    expect(rows[1]?.textContent).toContain('@alpha · 15 min · Intensity 5');
  });

  it('pauses an active campaign', async () => {
    const calls = api({ 'PATCH /api/campaigns/c1': buildCampaign({ status: 'paused' }) });
    const user = userEvent.setup();
    open();
    await user.click(await screen.findByRole('button', { name: 'Pause' }));
    expect(await screen.findByText('Campaign Updated')).toBeTruthy();
    expect(calls.find((call) => call.method === 'PATCH')?.body).toEqual({ status: 'paused' });
  });

  it('adds a routine: type first, live duration, account required', async () => {
    const calls = api({ 'POST /api/routines': buildRoutine({ id: 'r3', sequence: 3 }) });
    const user = userEvent.setup();
    open();
    await user.click(await screen.findByRole('button', { name: 'Add Routine' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Add Routine' }));
    const submit = dialog.getByRole('button', { name: 'Add Routine' });
    expect(submit.hasAttribute('disabled')).toBe(true);

    await user.click(dialog.getByRole('combobox', { name: /^Routine Type/ }));
    await user.click(await screen.findByRole('option', { name: 'Engage Comments' }));
    expect(dialog.getByText('10 min')).toBeTruthy();
    // Comment text is a person's work: the form says so and offers nothing to type one.
    expect(dialog.getByText(COMMENTS_BY_VA)).toBeTruthy();
    expect(dialog.queryByLabelText(/comment/i)).toBeNull();
    const posts = dialog.getByLabelText('Target Posts');
    await user.clear(posts);
    await user.type(posts, '7');
    expect(dialog.getByText('14 min')).toBeTruthy();

    await user.click(submit);
    expect(await screen.findByText('Account Required')).toBeTruthy();
    expect(screen.getByText('Please select an account for this routine.')).toBeTruthy();

    await user.click(dialog.getByRole('combobox', { name: /^Account/ }));
    await user.click(await screen.findByRole('option', { name: '@alpha' }));
    await user.click(submit);
    expect(await screen.findByText('Routine Added')).toBeTruthy();
    expect(calls.find((call) => call.method === 'POST')?.body).toMatchObject({
      campaignId: 'c1',
      type: 'engage_comments',
      accountId: 'a1',
      intensity: 5,
      settings: { targetPosts: 7, engagementRate: 50 },
    });
  });

  it('links an account found by username', async () => {
    const calls = api({ 'POST /api/campaigns/c1/accounts': { id: 'l1', campaignId: 'c1', accountId: 'a3', createdAt: '' } });
    const user = userEvent.setup();
    open();
    await user.click(await screen.findByRole('button', { name: 'Add Account' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Add Account' }));
    // Linked and other-platform accounts are not offered.
    expect(dialog.queryByText('@alpha')).toBeNull();
    expect(dialog.queryByText('@swiper')).toBeNull();
    await user.type(dialog.getByLabelText('Search accounts'), 'gam');
    expect(dialog.queryByText('@beta')).toBeNull();
    await user.click(dialog.getByRole('button', { name: 'Link @gamma' }));
    expect(await screen.findByText('Account Linked')).toBeTruthy();
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({ accountId: 'a3' });
  });

  it('unlinks an account', async () => {
    const calls = api({ 'DELETE /api/campaigns/c1/accounts/a1': undefined });
    const user = userEvent.setup();
    open();
    await user.click(await screen.findByRole('button', { name: 'Unlink @alpha' }));
    expect(await screen.findByText('Account Unlinked')).toBeTruthy();
    expect(calls.some((call) => call.method === 'DELETE' && call.url === '/api/campaigns/c1/accounts/a1')).toBe(true);
  });

  it('adds a post that has no campaign', async () => {
    const calls = api({ 'PATCH /api/posts/p9': buildPost({ id: 'p9', campaignId: 'c1' }) });
    const user = userEvent.setup();
    open();
    await user.click(await screen.findByRole('button', { name: 'Add Post' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Add Post' }));
    await user.click(await dialog.findByRole('button', { name: 'Add post: Loose post' }));
    expect(await screen.findByText('Post Added')).toBeTruthy();
    expect(calls.find((call) => call.method === 'PATCH')?.body).toEqual({ campaignId: 'c1' });
  });

  it('has no scheduled content for tinder campaigns', async () => {
    api({ 'GET /api/campaigns/c1': buildCampaign({ platform: 'tinder' }) });
    open();
    expect(await screen.findByRole('heading', { name: 'Summer Push' })).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Scheduled Content' })).toBeNull();
  });

  it('leaves management out for a VA', async () => {
    api();
    open('va');
    expect(await screen.findByRole('heading', { name: 'Summer Push' })).toBeTruthy();
    for (const name of ['Pause', 'Edit', 'Delete', 'Add Routine', 'Add Account']) {
      expect(screen.queryByRole('button', { name })).toBeNull();
    }
    expect(screen.queryByRole('button', { name: 'Unlink @alpha' })).toBeNull();
  });

  it('keeps Add Routine disabled while no account is linked', async () => {
    api({ 'GET /api/campaigns/c1/accounts': [] });
    const user = userEvent.setup();
    open();
    await user.click(await screen.findByRole('button', { name: 'Add Routine' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Add Routine' }));
    expect(dialog.getByText('No linked accounts')).toBeTruthy();
    await user.click(dialog.getByRole('combobox', { name: /^Routine Type/ }));
    await user.click(await screen.findByRole('option', { name: 'Warmup' }));
    expect(dialog.getByRole('button', { name: 'Add Routine' }).hasAttribute('disabled')).toBe(true);
  });

  it('edits the campaign with the create form, prefilled', async () => {
    const calls = api({ 'PATCH /api/campaigns/c1': buildCampaign({ niche: 'Running' }) });
    const user = userEvent.setup();
    open();
    await user.click(await screen.findByRole('button', { name: 'Edit' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Edit Campaign' }));
    expect((dialog.getByLabelText('Keywords') as HTMLInputElement).value).toBe('gym, workout, protein, cardio');
    const niche = dialog.getByLabelText(/^Niche/);
    await user.clear(niche);
    await user.type(niche, 'Running');
    await user.click(dialog.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('Campaign Updated')).toBeTruthy();
    expect(calls.find((call) => call.method === 'PATCH')?.body).toMatchObject({
      name: 'Summer Push',
      niche: 'Running',
      keywords: ['gym', 'workout', 'protein', 'cardio'],
      engagementTarget: 100,
    });
  });

  it('deletes the campaign after confirmation and returns to the list', async () => {
    const calls = api({ 'DELETE /api/campaigns/c1': undefined });
    const user = userEvent.setup();
    open();
    await user.click(await screen.findByRole('button', { name: 'Delete' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Delete Campaign' }));
    await user.click(dialog.getByRole('button', { name: 'Delete Campaign' }));
    expect(await screen.findByText('Elsewhere')).toBeTruthy();
    expect(calls.some((call) => call.method === 'DELETE' && call.url === '/api/campaigns/c1')).toBe(true);
  });
});
