import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Device } from '@farm/contracts';
import { buildAccount } from '../../test/fixtures';
import { renderScreen, stubApi, type Reply } from '../../test/render';
import { deviceFixture } from '../../test/fixtures';
import { AccountsPage } from './AccountsPage';

const device: Device = deviceFixture({ name: 'Pixel 7', battery: 90 });

function api(accounts = [buildAccount()], overrides: Record<string, Reply> = {}) {
  return stubApi({ 'GET /api/accounts': accounts, 'GET /api/accounts?limit=50': accounts, 'GET /api/devices': [device], ...overrides });
}

describe('AccountsPage', { timeout: 20_000 }, () => {
  it('shows the empty state', async () => {
    api([]);
    renderScreen(<AccountsPage />);
    expect(screen.getByRole('heading', { name: 'Social Media Accounts' })).toBeTruthy();
    expect(await screen.findByText('No accounts yet')).toBeTruthy();
  });

  it('shows account cards that open the account', async () => {
    api([
      buildAccount({ id: 'a1', username: 'alpha', deviceId: 'd1', status: 'warmup', followers: 1200, bio: 'Runner' }),
      buildAccount({ id: 'a2', username: 'beta', deviceId: null }),
    ]);
    renderScreen(<AccountsPage />);
    const card = await screen.findByRole('link', { name: /@alpha/ });
    expect(card.getAttribute('href')).toBe('/accounts/a1');
    expect(within(card).getByText('Pixel 7')).toBeTruthy();
    expect(within(card).getByText('Warming up')).toBeTruthy();
    expect(within(card).getByText('Instagram')).toBeTruthy();
    expect(within(card).getByText('Runner')).toBeTruthy();
    expect(within(screen.getByRole('link', { name: /@beta/ })).getByText('Unknown Device')).toBeTruthy();
  });

  it('lets only operators add accounts', async () => {
    api();
    renderScreen(<AccountsPage />, { role: 'va' });
    await screen.findByText('@alpha');
    expect(screen.queryByRole('button', { name: 'Add Account' })).toBeNull();
  });

  it('adds an account, refusing a blank username first', async () => {
    const calls = api([], { 'POST /api/accounts': buildAccount({ id: 'a9' }) });
    const user = userEvent.setup();
    renderScreen(<AccountsPage />);
    await user.click(screen.getByRole('button', { name: 'Add Account' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Add Account' }));
    expect(dialog.getByText('Max 3 Instagram/TikTok accounts per device.')).toBeTruthy();

    await user.click(dialog.getByRole('button', { name: 'Add Account' }));
    expect(await dialog.findByText('Username is required')).toBeTruthy();

    await user.type(dialog.getByLabelText(/^Username/), 'newbie');
    await user.click(dialog.getByRole('combobox', { name: /^Device/ }));
    await user.click(await screen.findByRole('option', { name: 'Pixel 7' }));
    await user.click(dialog.getByRole('button', { name: 'Add Account' }));
    expect(await screen.findByText('Account Created')).toBeTruthy();
    expect(screen.getByText('Social media account has been added successfully')).toBeTruthy();
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      username: 'newbie',
      platform: 'instagram',
      status: 'creation_pending',
      deviceId: 'd1',
      bio: null,
      followers: 0,
      following: 0,
    });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Add Account' })).toBeNull());
  });

  it("shows the server's refusal for a full device", async () => {
    api([], { 'POST /api/accounts': new Response('{"error":"Max 3 Instagram/TikTok accounts per device."}', { status: 409 }) });
    const user = userEvent.setup();
    renderScreen(<AccountsPage />);
    await user.click(screen.getByRole('button', { name: 'Add Account' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Add Account' }));
    await user.type(dialog.getByLabelText(/^Username/), 'fourth');
    await user.click(dialog.getByRole('button', { name: 'Add Account' }));
    expect(await screen.findByText('Error')).toBeTruthy();
    expect(screen.getAllByText('Max 3 Instagram/TikTok accounts per device.').length).toBeGreaterThan(1);
  });

  it('collects the tinder profile with 2 to 6 uploaded images', async () => {
    let uploads = 0;
    const calls = api([], {
      'POST /api/object-storage/presigned-url': () => {
        uploads += 1;
        return { presignedUrl: `/api/objects/img${uploads}?expires=1&signature=s`, objectPath: `/api/objects/img${uploads}` };
      },
      'PUT /api/objects/img1?expires=1&signature=s': { objectPath: '/api/objects/img1' },
      'PUT /api/objects/img2?expires=1&signature=s': { objectPath: '/api/objects/img2' },
      'POST /api/accounts': buildAccount({ id: 'a9', platform: 'tinder' }),
    });
    const user = userEvent.setup();
    renderScreen(<AccountsPage />);
    await user.click(screen.getByRole('button', { name: 'Add Account' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Add Account' }));
    await user.type(dialog.getByLabelText(/^Username/), 'swiper');
    await user.click(dialog.getByRole('combobox', { name: /^Platform/ }));
    await user.click(await screen.findByRole('option', { name: 'Tinder' }));
    expect(dialog.getByText('Tinder Profile Details')).toBeTruthy();

    await user.click(dialog.getByRole('combobox', { name: /^Gender/ }));
    await user.click(await screen.findByRole('option', { name: 'Non-binary' }));
    await user.type(dialog.getByLabelText('Interests'), 'chess, , tea');

    const fileInput = document.querySelector<HTMLInputElement>('input[type="file"]');
    if (!fileInput) throw new Error('no file input');
    await user.upload(fileInput, new File(['a'], 'one.png', { type: 'image/png' }));
    expect(await dialog.findByText('1 of 6')).toBeTruthy();

    await user.click(dialog.getByRole('button', { name: 'Add Account' }));
    expect(await dialog.findByText('Tinder accounts need 2 to 6 profile images.')).toBeTruthy();

    await user.upload(fileInput, new File(['b'], 'two.png', { type: 'image/png' }));
    expect(await dialog.findByText('2 of 6')).toBeTruthy();
    await user.click(dialog.getByRole('button', { name: 'Add Account' }));
    expect(await screen.findByText('Account Created')).toBeTruthy();
    expect(calls.find((call) => call.method === 'POST' && call.url === '/api/accounts')?.body).toMatchObject({
      username: 'swiper',
      platform: 'tinder',
      gender: 'non-binary',
      interests: ['chess', 'tea'],
      profileImages: ['/api/objects/img1', '/api/objects/img2'],
    });
    expect(calls.find((call) => call.url === '/api/object-storage/presigned-url')?.body).toEqual({
      directory: '.private',
      filename: 'one.png',
    });
  });
});
