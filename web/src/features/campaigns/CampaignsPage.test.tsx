import { COMMENTS_BY_VA } from './components/CommentsByVaNote';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { CampaignsPage } from './CampaignsPage';
import { buildCampaign } from '../../test/fixtures';
import { renderScreen, stubApi } from '../../test/render';

describe('CampaignsPage', { timeout: 20_000 }, () => {
  it('offers to create the first campaign when there is none', async () => {
    stubApi({ 'GET /api/campaigns': [] });
    renderScreen(<CampaignsPage />);
    expect(screen.getByRole('heading', { name: 'Campaign Engine' })).toBeTruthy();
    expect(await screen.findByRole('button', { name: 'Create First Campaign' })).toBeTruthy();
  });

  it('hides campaign management from a VA', async () => {
    stubApi({ 'GET /api/campaigns': [buildCampaign()] });
    renderScreen(<CampaignsPage />, { role: 'va' });
    expect(await screen.findByText('Summer Push')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'New Campaign' })).toBeNull();
    expect(screen.queryByRole('button', { name: /Actions for/ })).toBeNull();
  });

  it('shows the first three keywords, the status and the daily target on a card linking to the campaign', async () => {
    stubApi({ 'GET /api/campaigns': [buildCampaign({ status: 'active', engagementTarget: 250 })] });
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
    const calls = stubApi({
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
    const calls = stubApi({
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
  });

  it('says that comments are written by a VA wherever a campaign offers them, and only there', async () => {
    stubApi({ 'GET /api/campaigns': [] });
    const user = userEvent.setup();
    renderScreen(<CampaignsPage />);
    await user.click(await screen.findByRole('button', { name: 'Create First Campaign' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New Campaign' }));
    await user.click(dialog.getByRole('switch', { name: 'Search and like' }));
    expect(dialog.queryByText(COMMENTS_BY_VA)).toBeNull();
    await user.click(dialog.getByRole('checkbox', { name: 'Comment' }));
    expect(dialog.getAllByText(COMMENTS_BY_VA)).toHaveLength(1);
    await user.click(dialog.getByRole('switch', { name: 'Engage commenters' }));
    await user.click(dialog.getAllByRole('checkbox', { name: 'Comment' })[1]!);
    expect(dialog.getAllByText(COMMENTS_BY_VA)).toHaveLength(2);
    // Nothing asks for comment text.
    expect(dialog.queryByRole('textbox', { name: /comment/i })).toBeNull();
  });

  it("shows the spec's sentence when creating fails", async () => {
    stubApi({
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
  });

  it('uploads up to five reference images for auto-like and reports refused files', async () => {
    let reserved = 0;
    const calls = stubApi({
      'GET /api/campaigns': [],
      'POST /api/objects/upload': () => {
        reserved += 1;
        return { url: `/api/objects/o${reserved}?expires=1&signature=s` };
      },
      'PUT /api/objects/o1?expires=1&signature=s': { objectPath: '/api/objects/o1' },
      'PUT /api/objects/o2?expires=1&signature=s': { objectPath: '/api/objects/o2' },
      'PUT /api/campaign-images': (body) => ({ objectPath: String((body as { imageURL: string }).imageURL).split('?')[0] }),
    });
    const user = userEvent.setup({ applyAccept: false });
    renderScreen(<CampaignsPage />);
    await user.click(await screen.findByRole('button', { name: 'Create First Campaign' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New Campaign' }));
    await user.click(dialog.getByRole('switch', { name: 'Enable auto-like' }));

    const input = document.querySelector<HTMLInputElement>('input[type="file"]');
    if (!input) throw new Error('no file input');
    await user.upload(input, [new File(['a'], 'a.png', { type: 'image/png' }), new File(['b'], 'b.jpg', { type: 'image/jpeg' })]);
    expect(await screen.findByText('Images Uploaded')).toBeTruthy();
    expect(screen.getByText('2 images uploaded successfully')).toBeTruthy();
    expect(dialog.getAllByRole('img', { name: /^Image \d$/ })).toHaveLength(2);
    expect(calls.filter((call) => call.url === '/api/campaign-images').map((call) => call.body)).toEqual([
      { imageURL: '/api/objects/o1?expires=1&signature=s' },
      { imageURL: '/api/objects/o2?expires=1&signature=s' },
    ]);

    await user.upload(input, new File(['%PDF'], 'brief.pdf', { type: 'application/pdf' }));
    expect(await screen.findByText('You can only upload: image/*')).toBeTruthy();

    await user.click(dialog.getByRole('button', { name: 'Remove image 1' }));
    expect(dialog.getAllByRole('img', { name: /^Image \d$/ })).toHaveLength(1);
  });
});
