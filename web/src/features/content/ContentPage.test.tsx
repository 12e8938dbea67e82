import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { buildAccount, buildCampaign, buildPost } from '../../test/fixtures';
import { renderScreen, stubApi, type Reply } from '../../test/render';
import { ContentPage } from './ContentPage';

const accounts = [
  buildAccount({ id: 'a1', username: 'alpha', platform: 'instagram', status: 'active' }),
  buildAccount({ id: 'a2', username: 'warming', platform: 'tiktok', status: 'warmup' }),
];
const campaigns = [buildCampaign({ id: 'c1', name: 'Live One', status: 'active' }), buildCampaign({ id: 'c2', name: 'Sleeping', status: 'paused' })];

function api(posts = [buildPost()], overrides: Record<string, Reply> = {}) {
  return stubApi({
    'GET /api/posts': posts,
    'GET /api/posts?limit=50': posts,
    'GET /api/accounts': accounts,
    'GET /api/campaigns': campaigns,
    ...overrides,
  });
}

describe('ContentPage', { timeout: 20_000 }, () => {
  it('shows the empty state', async () => {
    api([]);
    renderScreen(<ContentPage />);
    expect(screen.getByRole('heading', { name: 'Content' })).toBeTruthy();
    expect(screen.getByText('Loading posts...')).toBeTruthy();
    expect(await screen.findByText('No posts yet')).toBeTruthy();
    expect(screen.getByText('Create your first post to get started')).toBeTruthy();
  });

  it('offers import and bulk actions to operators only', async () => {
    api([buildPost({ id: 'p1', caption: 'Mine' })]);
    const operator = renderScreen(<ContentPage />);
    await screen.findByRole('article', { name: 'Post: Mine' });
    expect(screen.getByRole('button', { name: 'Import CSV' })).toBeTruthy();
    expect(screen.getAllByRole('checkbox').length).toBeGreaterThan(0);
    operator.unmount();

    api([buildPost({ id: 'p1', caption: 'Mine' })]);
    renderScreen(<ContentPage />, { role: 'va' });
    await screen.findByRole('article', { name: 'Post: Mine' });
    expect(screen.queryByRole('button', { name: 'Import CSV' })).toBeNull();
    expect(screen.queryAllByRole('checkbox')).toHaveLength(0);
  });

  it('shows each post with its account, hashtags and the actions its status allows', async () => {
    api([
      buildPost({ id: 'p1', caption: 'x'.repeat(70), hashtags: ['#one'] }),
      buildPost({ id: 'p2', accountId: 'gone', status: 'scheduled', scheduledAt: '2030-01-01T10:00:00.000Z', caption: 'Later' }),
    ]);
    renderScreen(<ContentPage />);
    const first = await screen.findByRole('article', { name: `Post: ${'x'.repeat(50)}...` });
    expect(within(first).getByText('alpha (instagram)')).toBeTruthy();
    expect(within(first).getByText('#one')).toBeTruthy();
    expect(within(first).getByRole('button', { name: 'Publish' })).toBeTruthy();
    expect(within(first).queryByRole('button', { name: 'Unschedule' })).toBeNull();

    const second = screen.getByRole('article', { name: 'Post: Later' });
    expect(within(second).getByText('Unknown Account')).toBeTruthy();
    expect(within(second).getByText(/^Scheduled: /)).toBeTruthy();
    expect(within(second).getByRole('button', { name: 'Unschedule' })).toBeTruthy();
    expect(within(second).queryByRole('button', { name: 'Publish' })).toBeNull();
  });

  it('says which post needs new media and why, never loading an outside address', async () => {
    api([
      buildPost({
        id: 'p1',
        caption: 'Old one',
        mediaUrls: ['https://cdn.example.com/pier.jpg', '/api/objects/6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b'],
        mediaProblem: 'The media at https://cdn.example.com/pier.jpg could not be taken in: the server answered 404. Upload the media to the post instead.',
      }),
    ]);
    renderScreen(<ContentPage />);
    const card = within(await screen.findByRole('article', { name: 'Post: Old one' }));
    expect(card.getByRole('alert').textContent).toBe(
      'Needs new media: The media at https://cdn.example.com/pier.jpg could not be taken in: the server answered 404. Upload the media to the post instead.',
    );
    expect(card.getByText('Media 1: outside link')).toBeTruthy();
    expect(card.getAllByRole('img').map((image) => image.getAttribute('src'))).toEqual(['/api/objects/6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b']);
  });

  it('publishes a draft with the current time', async () => {
    const calls = api([buildPost()], { 'PATCH /api/posts/p1': buildPost({ status: 'published' }) });
    const user = userEvent.setup();
    renderScreen(<ContentPage />);
    await user.click(await screen.findByRole('button', { name: 'Publish' }));
    expect(await screen.findByText('Post Updated')).toBeTruthy();
    expect(screen.getByText('Post status has been updated successfully')).toBeTruthy();
    const body = calls.find((call) => call.method === 'PATCH')?.body as { status: string; publishedAt: string };
    expect(body.status).toBe('published');
    expect(Math.abs(Date.parse(body.publishedAt) - Date.now())).toBeLessThan(60_000);
  });

  it('unschedules a scheduled post back to draft', async () => {
    const calls = api([buildPost({ status: 'scheduled', scheduledAt: '2030-01-01T10:00:00.000Z' })], {
      'PATCH /api/posts/p1': buildPost(),
    });
    const user = userEvent.setup();
    renderScreen(<ContentPage />);
    await user.click(await screen.findByRole('button', { name: 'Unschedule' }));
    await screen.findByText('Post Updated');
    expect(calls.find((call) => call.method === 'PATCH')?.body).toEqual({ status: 'draft' });
  });

  it('deletes a post after confirmation', async () => {
    const calls = api([buildPost()], { 'DELETE /api/posts/p1': undefined });
    const user = userEvent.setup();
    renderScreen(<ContentPage />);
    await user.click(await screen.findByRole('button', { name: 'Delete' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Delete Post' }));
    await user.click(dialog.getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Post Deleted')).toBeTruthy();
    expect(screen.getByText('Post has been removed successfully')).toBeTruthy();
    expect(calls.some((call) => call.method === 'DELETE' && call.url === '/api/posts/p1')).toBe(true);
  });

  it('creates a scheduled post from active accounts and campaigns only', async () => {
    const calls = api([], { 'POST /api/posts': buildPost({ id: 'p5' }) });
    const user = userEvent.setup();
    renderScreen(<ContentPage />);
    await user.click(screen.getByRole('button', { name: 'Create Post' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Create Post' }));

    await user.click(dialog.getByRole('button', { name: 'Create Post' }));
    expect(await dialog.findByText('Caption is required')).toBeTruthy();
    expect(dialog.getByText('Account selection is required')).toBeTruthy();

    await user.click(dialog.getByRole('combobox', { name: /^Account/ }));
    expect(screen.queryByRole('option', { name: 'warming (tiktok)' })).toBeNull();
    await user.click(await screen.findByRole('option', { name: 'alpha (instagram)' }));

    await user.click(dialog.getByRole('combobox', { name: /^Campaign/ }));
    expect(screen.queryByRole('option', { name: 'Sleeping' })).toBeNull();
    expect(screen.getByRole('option', { name: 'None' })).toBeTruthy();
    await user.click(screen.getByRole('option', { name: 'Live One' }));

    await user.type(dialog.getByLabelText(/^Caption/), 'Sunset');
    await user.type(dialog.getByLabelText('Hashtags'), '#sun beach #sea');

    expect(dialog.queryByLabelText(/Schedule Date & Time/)).toBeNull();
    await user.click(dialog.getByRole('combobox', { name: /^Status/ }));
    await user.click(await screen.findByRole('option', { name: 'Schedule' }));
    fireEvent.change(dialog.getByLabelText(/Schedule Date & Time/), { target: { value: '2030-06-01T09:30' } });

    await user.click(dialog.getByRole('button', { name: 'Create Post' }));
    expect(await screen.findByText('Post Created')).toBeTruthy();
    expect(screen.getByText('Your post has been created successfully')).toBeTruthy();
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      accountId: 'a1',
      campaignId: 'c1',
      caption: 'Sunset',
      status: 'scheduled',
      hashtags: ['#sun', '#sea'],
      mediaUrls: [],
      scheduledAt: new Date('2030-06-01T09:30').toISOString(),
      createdById: 'u1',
    });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Create Post' })).toBeNull());
  });

  it("shows the server's message when it refuses a post", async () => {
    api([], { 'POST /api/posts': new Response('{"error":"scheduledAt: must be in the future"}', { status: 400 }) });
    const user = userEvent.setup();
    renderScreen(<ContentPage />);
    await user.click(screen.getByRole('button', { name: 'Create Post' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Create Post' }));
    await user.click(dialog.getByRole('combobox', { name: /^Account/ }));
    await user.click(await screen.findByRole('option', { name: 'alpha (instagram)' }));
    await user.type(dialog.getByLabelText(/^Caption/), 'Hi');
    await user.click(dialog.getByRole('button', { name: 'Create Post' }));
    expect(await screen.findByText('scheduledAt: must be in the future')).toBeTruthy();
  });
});
