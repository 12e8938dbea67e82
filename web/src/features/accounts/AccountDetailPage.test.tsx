import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { buildAccount } from '../../test/fixtures';
import { renderScreen, stubApi, type Reply } from '../../test/render';
import { AccountDetailPage } from './AccountDetailPage';

const stored = buildAccount({ id: 'a1', username: 'alpha', status: 'warmup', followers: 10, following: 4, bio: null });

function api(overrides: Record<string, Reply> = {}) {
  return stubApi({ 'GET /api/accounts/a1': stored, 'GET /api/devices': [], ...overrides });
}

const open = (role: 'operator' | 'va' = 'operator') => renderScreen(<AccountDetailPage />, { path: '/accounts/a1', route: '/accounts/:id', role });

describe('AccountDetailPage', { timeout: 20_000 }, () => {
  it('shows the account, with the fallbacks for bio and device', async () => {
    api();
    open();
    expect(screen.getByText('Loading account...')).toBeTruthy();
    expect(await screen.findByRole('heading', { name: '@alpha' })).toBeTruthy();
    expect(screen.getByText('No bio set')).toBeTruthy();
    expect(screen.getByText('Unknown Device')).toBeTruthy();
    expect(screen.getAllByText('Warming up').length).toBeGreaterThan(0);
    expect(screen.getByRole('link', { name: /Back to Accounts/ }).getAttribute('href')).toBe('/accounts');
    expect(screen.getByText('Created')).toBeTruthy();
    expect(screen.getByText('Last Updated')).toBeTruthy();
  });

  it("says 'Failed to fetch account' when it cannot be read", async () => {
    api({ 'GET /api/accounts/a1': new Response('{"error":"Not found"}', { status: 404 }) });
    open();
    expect(await screen.findByText('Failed to fetch account')).toBeTruthy();
  });

  it('saves only what changed, and only once something did', async () => {
    const calls = api({ 'PATCH /api/accounts/a1': { ...stored, status: 'active', followers: 250 } });
    const user = userEvent.setup();
    open();
    await user.click(await screen.findByRole('button', { name: 'Edit' }));
    const save = screen.getByRole('button', { name: 'Save Changes' });
    expect(save.hasAttribute('disabled')).toBe(true);

    const followers = screen.getByLabelText('Followers');
    await user.clear(followers);
    await user.type(followers, '250');
    await user.click(screen.getByRole('combobox', { name: /^Status/ }));
    await user.click(await screen.findByRole('option', { name: 'Active' }));
    expect(save.hasAttribute('disabled')).toBe(false);

    await user.click(save);
    expect(await screen.findByText('Account Updated')).toBeTruthy();
    expect(screen.getByText('Account information has been updated successfully')).toBeTruthy();
    expect(calls.find((call) => call.method === 'PATCH')?.body).toEqual({ status: 'active', followers: 250 });
    expect(await screen.findByRole('button', { name: 'Edit' })).toBeTruthy();
  });

  it('cancels an edit without saving', async () => {
    const calls = api();
    const user = userEvent.setup();
    open();
    await user.click(await screen.findByRole('button', { name: 'Edit' }));
    await user.type(screen.getByLabelText('Bio'), 'Hello');
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.getByText('No bio set')).toBeTruthy();
    expect(calls.some((call) => call.method === 'PATCH')).toBe(false);
  });

  it("shows the server's message when saving fails", async () => {
    api({ 'PATCH /api/accounts/a1': new Response('{"error":"Username is required"}', { status: 400 }) });
    const user = userEvent.setup();
    open();
    await user.click(await screen.findByRole('button', { name: 'Edit' }));
    await user.type(screen.getByLabelText('Bio'), 'Hello');
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('Error')).toBeTruthy();
    expect(screen.getByText('Username is required')).toBeTruthy();
  });

  it('uploads a profile picture as a data URL', async () => {
    const calls = api({ 'PATCH /api/accounts/a1': { ...stored, profilePicture: '/api/objects/x' } });
    const user = userEvent.setup();
    const { container } = open();
    await screen.findByRole('heading', { name: '@alpha' });
    const input = container.querySelector<HTMLInputElement>('input[type="file"]');
    if (!input) throw new Error('no file input');
    await user.upload(input, new File(['png'], 'me.png', { type: 'image/png' }));
    expect(await screen.findByText('Account Updated')).toBeTruthy();
    const body = calls.find((call) => call.method === 'PATCH')?.body as { profilePicture: string };
    expect(body.profilePicture.startsWith('data:image/png;base64,')).toBe(true);
  });

  it('lets a VA change only the counts', async () => {
    api();
    const user = userEvent.setup();
    open('va');
    await user.click(await screen.findByRole('button', { name: 'Edit' }));
    expect(screen.getByLabelText(/^Username/).hasAttribute('disabled')).toBe(true);
    expect(screen.getByLabelText('Bio').hasAttribute('disabled')).toBe(true);
    expect(screen.getByLabelText('Followers').hasAttribute('disabled')).toBe(false);
    expect(screen.queryByRole('button', { name: 'Delete' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Upload Picture' })).toBeNull();
  });

  it('deletes the account after confirmation', async () => {
    const calls = api({ 'DELETE /api/accounts/a1': undefined });
    const user = userEvent.setup();
    open();
    await user.click(await screen.findByRole('button', { name: 'Delete' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Delete Account' }));
    await user.click(dialog.getByRole('button', { name: 'Delete Account' }));
    expect(await screen.findByText('Elsewhere')).toBeTruthy();
    expect(calls.some((call) => call.method === 'DELETE' && call.url === '/api/accounts/a1')).toBe(true);
  });
});
