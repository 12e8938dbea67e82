import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { CampaignsPage } from './CampaignsPage';
import { buildCampaign, renderScreen, scriptApi } from './test-utils';

describe('CampaignsPage', () => {
  it('offers to create the first campaign when there is none', async () => {
    scriptApi({ 'GET /api/campaigns': [] });
    renderScreen(<CampaignsPage />);
    expect(screen.getByRole('heading', { name: 'Campaign Engine' })).toBeTruthy();
    expect(await screen.findByRole('button', { name: 'Create First Campaign' })).toBeTruthy();
  });

  it('hides campaign management from a VA', async () => {
    scriptApi({ 'GET /api/campaigns': [buildCampaign()] });
    renderScreen(<CampaignsPage />, { role: 'va' });
    expect(await screen.findByText('Summer Push')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'New Campaign' })).toBeNull();
    expect(screen.queryByRole('button', { name: /Actions for/ })).toBeNull();
  });

  it('shows the first three keywords, the status and the daily target on a card linking to the campaign', async () => {
    scriptApi({ 'GET /api/campaigns': [buildCampaign({ status: 'active', engagementTarget: 250 })] });
    renderScreen(<CampaignsPage />);
    const link = await screen.findByRole('link', { name: 'Summer Push' });
    expect(link.getAttribute('href')).toBe('/campaigns/c1');
    expect(screen.getByText('gym')).toBeTruthy();
    expect(screen.getByText('protein')).toBeTruthy();
    expect(screen.queryByText('cardio')).toBeNull();
    expect(screen.getByText('Active')).toBeTruthy();
    expect(screen.getByText('250')).toBeTruthy();
  });

  it('activates a campaign from the card menu', async () => {
    const calls = scriptApi({
      'GET /api/campaigns': [buildCampaign()],
      'PATCH /api/campaigns/c1': buildCampaign({ status: 'active' }),
    });
    const user = userEvent.setup();
    renderScreen(<CampaignsPage />);
    await user.click(await screen.findByRole('button', { name: 'Actions for Summer Push' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Activate' }));
    expect(await screen.findByText('Campaign Updated')).toBeTruthy();
    expect(calls.find((call) => call.method === 'PATCH')?.body).toEqual({ status: 'active' });
  });

  it('validates the New Campaign form with the spec messages, then creates the campaign', async () => {
    const calls = scriptApi({
      'GET /api/campaigns': [],
      'POST /api/campaigns': (body) => ({ ...buildCampaign(), ...(body as object), id: 'c2' }),
    });
    const user = userEvent.setup();
    renderScreen(<CampaignsPage />);
    await user.click(await screen.findByRole('button', { name: 'Create First Campaign' }));
    const dialog = await screen.findByRole('dialog', { name: 'New Campaign' });
    const inDialog = within(dialog);

    await user.type(inDialog.getByLabelText(/Campaign Name/), 'Summer Push');
    await user.type(inDialog.getByLabelText(/Niche/), 'Fitness');
    await user.click(inDialog.getByRole('button', { name: 'Create Campaign' }));
    expect(await screen.findByText('Validation Error')).toBeTruthy();
    expect(screen.getByText('Please provide at least one keyword or reference account.')).toBeTruthy();

    await user.type(inDialog.getByLabelText('Keywords'), 'gym, , workout');
    // The input clamps typed numbers to at least 1, so only a blank target is left to refuse.
    const target = inDialog.getByLabelText(/Daily Engagement Target/);
    await user.clear(target);
    await user.click(inDialog.getByRole('button', { name: 'Create Campaign' }));
    expect(await screen.findByText('Engagement target must be greater than 0.')).toBeTruthy();

    await user.clear(target);
    await user.type(target, '150');
    await user.click(inDialog.getByRole('button', { name: 'Create Campaign' }));
    expect(await screen.findByText('Campaign Created')).toBeTruthy();
    const post = calls.find((call) => call.method === 'POST');
    expect(post?.body).toMatchObject({
      name: 'Summer Push',
      platform: 'instagram',
      niche: 'Fitness',
      keywords: ['gym', 'workout'],
      referenceAccounts: [],
      engagementTarget: 150,
    });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'New Campaign' })).toBeNull());
  }, 20_000);

  it("shows the spec's sentence when creating fails", async () => {
    scriptApi({
      'GET /api/campaigns': [],
      'POST /api/campaigns': new Response('boom', { status: 500 }),
    });
    const user = userEvent.setup();
    renderScreen(<CampaignsPage />);
    await user.click(await screen.findByRole('button', { name: 'Create First Campaign' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New Campaign' }));
    await user.type(dialog.getByLabelText(/Campaign Name/), 'X');
    await user.type(dialog.getByLabelText(/Niche/), 'Y');
    await user.type(dialog.getByLabelText('Keywords'), 'z');
    await user.click(dialog.getByRole('button', { name: 'Create Campaign' }));
    expect(await screen.findByText('Failed to create campaign. Please try again.')).toBeTruthy();
    expect(screen.getByText('Error')).toBeTruthy();
  }, 10_000);
});
