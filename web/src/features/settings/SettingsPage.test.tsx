import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { answer, buildMe, renderRoutes, Route, stubApi } from '../../test/render';
import { SettingsPage } from './SettingsPage';
import { useAuthStore } from '../auth/auth.store';

const routes = <Route path="/settings/*" element={<SettingsPage />} />;

const member = { id: 'u2', email: 'vera@example.com', name: 'Vera Assistant', role: 'va', isActive: true, createdAt: '2025-01-01T00:00:00.000Z' };
const me = buildMe({ id: 'u1', name: 'Olga Operator' });

function api(extra: Record<string, Parameters<typeof stubApi>[0][string]> = {}) {
  useAuthStore.getState().setUser(me);
  return stubApi({
    'GET /api/auth/me': { user: me },
    'GET /api/workspace': {
      id: 'w1',
      name: 'North Farm',
      createdAt: '2025-01-01T00:00:00.000Z',
      requireTwoFactor: false,
      retention: { screenshotsDays: 14, screenshotsPerDevice: 1000, activityDays: 180, finishedTasksDays: 180 },
    },
    'GET /api/users': [{ ...me, isActive: true }, member],
    'GET /api/invitations': [],
    'GET /api/wall-links': [],
    'GET /api/storage': { usedBytes: 1024 ** 3, quotaBytes: 5 * 1024 ** 3 },
    'GET /api/auth/two-factor': { enabled: false, required: false, recoveryCodesLeft: 0 },
    'GET /api/reset-requests': [],
    'GET /api/auth/sessions': [],
    ...extra,
  });
}

describe('Settings: two-factor sign-in', () => {
  it('is set up with a QR code and a first code, and shows the recovery codes once', async () => {
    const calls = api({
      'POST /api/auth/two-factor/setup': { secret: 'JBSWY3DPEHPK3PXP', otpauthUrl: 'otpauth://totp/x', qrCode: 'data:image/png;base64,AAAA' },
      'POST /api/auth/two-factor/enable': { recoveryCodes: ['abcde-fghjk', 'mnpqr-stuvw'] },
    });
    renderRoutes(routes, '/settings/two-factor');
    const section = within(await screen.findByRole('region', { name: 'Two-factor sign-in' }));
    fireEvent.click(await section.findByRole('button', { name: 'Turn On Two-Factor Sign-In' }));
    expect(await screen.findByAltText('QR code for your authenticator app')).toBeTruthy();
    fireEvent.change(screen.getByLabelText(/^Code/), { target: { value: '123456' } });
    fireEvent.click(screen.getByRole('button', { name: 'Verify and Turn On' }));
    expect(await screen.findByText('abcde-fghjk')).toBeTruthy();
    expect(screen.getByText('Two-Factor Sign-In On')).toBeTruthy();
    expect(calls.find((call) => call.url === '/api/auth/two-factor/enable')?.body).toEqual({ code: '123456' });
  });

  it('lets an operator require it of operators', async () => {
    const calls = api({ 'PUT /api/workspace/two-factor': { required: true } });
    renderRoutes(routes, '/settings/workspace');
    fireEvent.click(await screen.findByRole('switch', { name: /Require two-factor sign-in for operators/ }));
    expect(await screen.findByText('Operators now sign in with a second step.')).toBeTruthy();
    expect(calls.find((call) => call.url === '/api/workspace/two-factor')).toMatchObject({ method: 'PUT', body: { required: true } });
  });
});

describe('Settings: resetting a member’s password', () => {
  it('makes a one-time link after asking, and shows it to copy', async () => {
    const calls = api({
      'POST /api/users/u2/password-reset': answer(201, { token: 'tok', url: '/reset-password?token=tok', expiresAt: '2030-01-01T00:00:00.000Z' }),
    });
    renderRoutes(routes, '/settings/members');
    const row = within(await screen.findByRole('listitem', { name: 'Vera Assistant' }));
    fireEvent.click(row.getByRole('button', { name: 'Reset Password' }));
    expect(await screen.findByText(/Make a one-time link for Vera Assistant to choose a new password\?/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Make Reset Link' }));
    const link = (await screen.findByRole('textbox', { name: 'Password reset link' })) as HTMLInputElement;
    expect(link.value).toBe(`${window.location.origin}/reset-password?token=tok`);
    expect(calls.find((call) => call.url === '/api/users/u2/password-reset')?.method).toBe('POST');
    // One's own row has no reset action.
    expect(within(screen.getByRole('listitem', { name: 'Olga Operator' })).queryByRole('button', { name: 'Reset Password' })).toBeNull();
  });
});

describe('Settings: an operator’s reset takes two operators', () => {
  const second = { id: 'u3', email: 'sol@example.com', name: 'Sol Second', role: 'operator', isActive: true, createdAt: '2025-01-01T00:00:00.000Z' };
  const third = { id: 'u4', email: 'tia@example.com', name: 'Tia Third', role: 'operator', isActive: true, createdAt: '2025-01-01T00:00:00.000Z' };
  const pending = (requestedById: string, userId = 'u4', userName = 'Tia Third') => ({
    id: 'rq1',
    userId,
    userName,
    requestedById,
    requestedByName: requestedById === 'u1' ? 'Olga Operator' : 'Sol Second',
    createdAt: '2025-01-01T00:00:00.000Z',
    expiresAt: '2030-01-01T00:00:00.000Z',
  });

  /** The row of a member an operator may not reset alone offers "Request Reset", not a link, and asks the API. */
  async function expectResetRequest(target: object) {
    const calls = api({
      'GET /api/users': [{ ...me, isActive: true }, member, target],
      'POST /api/users/u3/reset-requests': answer(201, pending('u1', 'u3', 'Sol Second')),
    });
    renderRoutes(routes, '/settings/members');
    const row = within(await screen.findByRole('listitem', { name: 'Sol Second' }));
    expect(row.queryByRole('button', { name: 'Reset Password' })).toBeNull();
    fireEvent.click(row.getByRole('button', { name: 'Request Reset' }));
    expect(await screen.findByText("Another operator must approve the reset of Sol Second's password.")).toBeTruthy();
    expect(calls.find((call) => call.url === '/api/users/u3/reset-requests')?.method).toBe('POST');
  }

  it('offers "Request Reset" for an operator (no direct link) and asks the API', () => expectResetRequest(second));

  it('offers "Request Reset", not a link, for a VA who was an operator in the last 30 days', () =>
    expectResetRequest({ ...second, role: 'va', resetsAsOperator: true }));

  it('lets a second operator approve a pending request and shows the link; whoever asked only waits', async () => {
    const calls = api({
      'GET /api/users': [{ ...me, isActive: true }, second, third],
      'GET /api/reset-requests': [pending('u3')],
      'POST /api/reset-requests/rq1/approve': answer(201, { token: 'tok', url: '/reset-password?token=tok', expiresAt: '2030-01-01T00:00:00.000Z' }),
    });
    renderRoutes(routes, '/settings/members');
    const waiting = within(await screen.findByRole('listitem', { name: 'Reset of Tia Third' }));
    expect(waiting.getByText(/Sol Second asked to reset Tia Third's password/)).toBeTruthy();
    fireEvent.click(waiting.getByRole('button', { name: 'Approve' }));
    const link = (await screen.findByRole('textbox', { name: 'Password reset link' })) as HTMLInputElement;
    expect(link.value).toBe(`${window.location.origin}/reset-password?token=tok`);
    expect(calls.find((call) => call.url === '/api/reset-requests/rq1/approve')?.method).toBe('POST');
  });

  it('shows no Approve to the operator who asked', async () => {
    api({ 'GET /api/users': [{ ...me, isActive: true }, second, third], 'GET /api/reset-requests': [pending('u1')] });
    renderRoutes(routes, '/settings/members');
    const waiting = within(await screen.findByRole('listitem', { name: 'Reset of Tia Third' }));
    expect(waiting.getByText(/Waiting for another operator to approve it/)).toBeTruthy();
    expect(waiting.queryByRole('button', { name: 'Approve' })).toBeNull();
  });
});

describe('Settings: sessions', () => {
  const sessions = [
    {
      id: 's1',
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
      ip: '203.0.113.7',
      createdAt: '2025-01-01T00:00:00.000Z',
      lastSeenAt: new Date().toISOString(),
      current: true,
    },
    {
      id: 's2',
      userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1',
      ip: '198.51.100.4',
      createdAt: '2025-01-02T00:00:00.000Z',
      lastSeenAt: '2025-01-03T00:00:00.000Z',
      current: false,
    },
  ];

  it('lists where the person is signed in and ends another session', async () => {
    const calls = api({ 'GET /api/auth/sessions': sessions, 'DELETE /api/auth/sessions/s2': answer(204, null) });
    renderRoutes(routes, '/settings/sessions');
    const section = within(await screen.findByRole('region', { name: 'Sessions' }));
    const current = within(await section.findByRole('listitem', { name: 'Session: Chrome on Linux' }));
    expect(current.getByText('This session')).toBeTruthy();
    expect(current.getByText(/203\.0\.113\.7/)).toBeTruthy();
    expect(current.queryByRole('button', { name: 'End Session' })).toBeNull();
    const phone = within(section.getByRole('listitem', { name: 'Session: Safari on iOS' }));
    fireEvent.click(phone.getByRole('button', { name: 'End Session' }));
    expect(await screen.findByText('Safari on iOS is signed out.')).toBeTruthy();
    expect(calls.find((call) => call.url === '/api/auth/sessions/s2')?.method).toBe('DELETE');
  });

  it("lets an operator end a member's sessions after asking", async () => {
    const calls = api({ 'DELETE /api/users/u2/sessions': answer(204, null) });
    renderRoutes(routes, '/settings/members');
    const row = within(await screen.findByRole('listitem', { name: 'Vera Assistant' }));
    fireEvent.click(row.getByRole('button', { name: 'End Sessions' }));
    expect(await screen.findByText(/Sign Vera Assistant out everywhere\?/)).toBeTruthy();
    fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'End Sessions' }));
    expect(await screen.findByText('Vera Assistant is signed out everywhere.')).toBeTruthy();
    expect(calls.find((call) => call.url === '/api/users/u2/sessions')?.method).toBe('DELETE');
  });
});

describe('Settings: history', () => {
  it('saves how long screenshots, activity and finished tasks are kept, refusing a value out of range', async () => {
    const calls = api({
      'PUT /api/workspace/retention': {
        id: 'w1',
        name: 'North Farm',
        timeZone: 'UTC',
        createdAt: '2025-01-01T00:00:00.000Z',
        requireTwoFactor: false,
        retention: { screenshotsDays: 3, screenshotsPerDevice: 1000, activityDays: 180, finishedTasksDays: 180 },
      },
    });
    renderRoutes(routes, '/settings/workspace');
    const form = within(await screen.findByRole('form', { name: 'History' }));
    fireEvent.change(form.getByRole('textbox', { name: /^Screenshots per phone/ }), { target: { value: '5' } });
    fireEvent.click(form.getByRole('button', { name: 'Save History Settings' }));
    expect(await form.findByText('Keep 10 to 100000 screenshots per phone')).toBeTruthy();
    fireEvent.change(form.getByRole('textbox', { name: /^Screenshots per phone/ }), { target: { value: '1000' } });
    fireEvent.change(form.getByRole('textbox', { name: /^Screenshots\b(?! per)/ }), { target: { value: '3' } });
    fireEvent.click(form.getByRole('button', { name: 'Save History Settings' }));
    expect(await screen.findByText('History older than this is removed within the hour.')).toBeTruthy();
    expect(calls.find((call) => call.url === '/api/workspace/retention')).toMatchObject({
      method: 'PUT',
      body: { screenshotsDays: 3, screenshotsPerDevice: 1000, activityDays: 180, finishedTasksDays: 180 },
    });
  });
});

describe('Settings: storage', () => {
  it('shows operators the files stored against the quota, with a bar', async () => {
    api({ 'GET /api/storage': { usedBytes: Math.round(4.6 * 1024 ** 3), quotaBytes: 5 * 1024 ** 3 } });
    renderRoutes(routes, '/settings/storage');
    const section = within(await screen.findByRole('region', { name: 'Storage' }));
    expect(await section.findByText('4.6 GB of 5 GB used')).toBeTruthy();
    expect(section.getByText('92%')).toBeTruthy();
    expect(section.getByRole('progressbar', { name: 'Storage used' }).getAttribute('aria-valuenow')).toMatch(/^(92|91\.99\d*)$/);
  });

  it('says when the storage is full', async () => {
    api({ 'GET /api/storage': { usedBytes: 5 * 1024 ** 3, quotaBytes: 5 * 1024 ** 3 } });
    renderRoutes(routes, '/settings/storage');
    expect(await screen.findByText('The storage is full: uploads are refused and new screenshots are dropped.')).toBeTruthy();
  });
});

describe('Settings: its own navigation', () => {
  const elsewhere = (
    <>
      {routes}
      <Route path="/campaigns/recipes" element={<p>Campaigns → Recipes</p>} />
      <Route path="/devices/apps" element={<p>Devices → Apps</p>} />
    </>
  );
  const navLinks = async () => within(await screen.findByRole('navigation', { name: 'Settings' })).getAllByRole('link');

  it('leads /settings to the profile, and offers an operator every part at its own address', async () => {
    api();
    renderRoutes(routes, '/settings');
    expect(await screen.findByRole('region', { name: 'Profile' })).toBeTruthy();
    const links = await navLinks();
    expect(links.map((link) => [link.textContent, link.getAttribute('href')])).toEqual([
      ['Profile', '/settings/profile'],
      ['Two-factor sign-in', '/settings/two-factor'],
      ['Sessions', '/settings/sessions'],
      ['Workspace', '/settings/workspace'],
      ['Members', '/settings/members'],
      ['Invitations', '/settings/invitations'],
      ['Phone hosts', '/settings/hosts'],
      ['Wall screens', '/settings/wall-links'],
      ['Storage', '/settings/storage'],
      ['Notifications', '/settings/notifications'],
      ['Alerts', '/settings/alerts'],
      ['Audit log', '/settings/audit-log'],
    ]);
    expect(links[0]?.getAttribute('aria-current')).toBe('page');
    fireEvent.click(links[5]!);
    expect(await screen.findByRole('region', { name: 'Invitations' })).toBeTruthy();
    expect(screen.queryByRole('region', { name: 'Profile' })).toBeNull();
  });

  it('leads an old one-page link to its part, or to where the section moved', async () => {
    api();
    renderRoutes(elsewhere, '/settings#phone-hosts-title');
    expect(await screen.findByRole('region', { name: 'Phone hosts' })).toBeTruthy();
  });

  it('leads the old recipes link to Campaigns → Recipes', async () => {
    api();
    renderRoutes(elsewhere, '/settings#recipes-title');
    expect(await screen.findByText('Campaigns → Recipes')).toBeTruthy();
  });

  it("shows a VA only a VA's parts, and 'Page Not Found' at an operator's part", async () => {
    const va = buildMe({ id: 'u2', name: 'Vera Assistant', role: 'va' });
    useAuthStore.getState().setUser(va);
    stubApi({ 'GET /api/auth/me': { user: va }, 'GET /api/auth/two-factor': { enabled: false, required: false, recoveryCodesLeft: 0 } });
    const { unmount } = renderRoutes(routes, '/settings/two-factor');
    expect((await navLinks()).map((link) => link.textContent)).toEqual(['Profile', 'Two-factor sign-in', 'Sessions', 'Workspace', 'Members', 'Notifications']);
    unmount();
    renderRoutes(routes, '/settings/audit-log');
    expect(await screen.findByRole('heading', { name: 'Page Not Found' })).toBeTruthy();
    expect(screen.queryByRole('navigation', { name: 'Settings' })).toBeNull();
  });

  it('tells a person without a workspace so, beside their own parts', async () => {
    const alone = buildMe({ role: 'va', workspaceId: null, workspaceName: null });
    useAuthStore.getState().setUser(alone);
    stubApi({ 'GET /api/auth/me': { user: alone } });
    renderRoutes(routes, '/settings/members');
    expect(await screen.findByText(/not part of a workspace yet/)).toBeTruthy();
    expect((await navLinks()).map((link) => link.textContent)).toEqual(['Profile', 'Two-factor sign-in', 'Sessions']);
    expect(screen.queryByRole('region', { name: 'Members' })).toBeNull();
  });
});
