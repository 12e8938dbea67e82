import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { answer, buildMe, renderRoutes, Route, stubApi } from '../../test/render';
import { ProtectedRoute } from './ProtectedRoute';
import { AUTH_STORAGE_KEY } from './auth.store';

const routes = (
  <>
    <Route path="/login" element={<p>Login screen</p>} />
    <Route
      path="/dashboard"
      element={
        <ProtectedRoute>
          <p>Secret dashboard</p>
        </ProtectedRoute>
      }
    />
  </>
);

describe('ProtectedRoute', () => {
  it('sends a visitor who is not signed in to /login and shows nothing meanwhile', async () => {
    window.localStorage.setItem(AUTH_STORAGE_KEY, JSON.stringify({ email: 'old@example.com', name: 'Old', role: 'va' }));
    stubApi({ 'GET /api/auth/me': answer(401, { error: 'Not signed in' }) });
    const { container } = renderRoutes(routes, '/dashboard');

    expect(screen.queryByText('Secret dashboard')).toBeNull();
    expect(container.querySelector('p')).toBeNull();
    expect(await screen.findByText('Login screen')).toBeTruthy();
    expect(screen.queryByText('Secret dashboard')).toBeNull();
    // A stale record of an ended session is dropped.
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });

  it('shows the screen to a signed-in person and remembers them as auth_user', async () => {
    stubApi({ 'GET /api/auth/me': { user: buildMe() } });
    renderRoutes(routes, '/dashboard');

    expect(await screen.findByText('Secret dashboard')).toBeTruthy();
    await waitFor(() =>
      expect(JSON.parse(window.localStorage.getItem(AUTH_STORAGE_KEY) ?? 'null')).toEqual({
        email: 'ada@example.com',
        name: 'Ada Lovelace',
        role: 'operator',
      }),
    );
  });
});
