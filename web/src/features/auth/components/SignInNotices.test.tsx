import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { buildMe, renderRoutes, Route, stubApi } from '../../../test/render';
import { SignInNotices } from './SignInNotices';

const notice = {
  id: '6f1c0c43-58b1-4b8e-9d1f-0d6f6f0d1a11',
  kind: 'second_factor.paused',
  message: 'Wrong sign-in codes for your account were entered 10 times within 15 minutes, so codes from your app were refused for a while.',
  createdAt: '2026-11-26T10:00:00.000Z',
};

describe('SignInNotices', () => {
  it('shows the notices of /me once and marks them seen when closed', async () => {
    const calls = stubApi({
      'GET /api/auth/me': { user: buildMe(), notices: [notice] },
      'POST /api/auth/notices/seen': undefined,
    });
    renderRoutes(<Route path="/" element={<SignInNotices />} />);
    expect(await screen.findByText(notice.message)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'I understand' }));
    await waitFor(() => expect(screen.queryByText(notice.message)).toBeNull());
    expect(calls.filter((call) => call.method === 'POST')).toEqual([{ method: 'POST', url: '/api/auth/notices/seen', body: { ids: [notice.id] } }]);
  });

  it('shows nothing when there is nothing to tell', async () => {
    const calls = stubApi({ 'GET /api/auth/me': { user: buildMe(), notices: [] } });
    renderRoutes(<Route path="/" element={<SignInNotices />} />);
    await waitFor(() => expect(calls.length).toBeGreaterThan(0));
    expect(screen.queryByText('About your sign-in')).toBeNull();
  });
});
