import { fireEvent, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { answer, renderRoutes, Route, stubApi } from '../../test/render';
import { ResetPasswordPage } from './ResetPasswordPage';

const routes = (
  <>
    <Route path="/reset-password" element={<ResetPasswordPage />} />
    <Route path="/login" element={<p>Login screen</p>} />
  </>
);

describe('ResetPasswordPage', () => {
  it('sets a new password from a reset link, then sends the person to login', async () => {
    const calls = stubApi({
      'GET /api/password-resets/lookup/tok1': { name: 'Mia Member', email: 'mia@example.com', expiresAt: '2030-01-01T00:00:00.000Z' },
      'POST /api/auth/password-reset': { ok: true },
    });
    renderRoutes(routes, '/reset-password?token=tok1');

    expect(await screen.findByText('Choose a new password for mia@example.com')).toBeTruthy();
    fireEvent.change(screen.getByLabelText(/^New Password/), { target: { value: 'short' } });
    fireEvent.change(screen.getByLabelText(/^Confirm Password/), { target: { value: 'short' } });
    fireEvent.click(screen.getByRole('button', { name: 'Set New Password' }));
    expect(await screen.findByText('Password must be at least 8 characters')).toBeTruthy();

    fireEvent.change(screen.getByLabelText(/^New Password/), { target: { value: 'a fresh password' } });
    fireEvent.change(screen.getByLabelText(/^Confirm Password/), { target: { value: 'another one' } });
    fireEvent.click(screen.getByRole('button', { name: 'Set New Password' }));
    expect(await screen.findByText('The two passwords do not match')).toBeTruthy();

    fireEvent.change(screen.getByLabelText(/^Confirm Password/), { target: { value: 'a fresh password' } });
    fireEvent.click(screen.getByRole('button', { name: 'Set New Password' }));
    expect(await screen.findByText('Password Updated')).toBeTruthy();
    expect(await screen.findByText('Login screen')).toBeTruthy();
    expect(calls.find((call) => call.url === '/api/auth/password-reset')?.body).toEqual({ token: 'tok1', password: 'a fresh password' });
  });

  it('says when the link is invalid or has expired', async () => {
    stubApi({ 'GET /api/password-resets/lookup/old': answer(404, { error: 'This password reset link is invalid or has expired' }) });
    renderRoutes(routes, '/reset-password?token=old');
    expect(await screen.findByText('This password reset link is invalid or has expired')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Set New Password' })).toBeNull();
  });
});
