import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { answer, buildMe, renderRoutes, Route, stubApi } from '../test/render';
import { AppRoutes } from './routes';

const app = <Route path="*" element={<AppRoutes />} />;

describe('AppRoutes', () => {
  it("reads 'Page Not Found' on an unknown path", async () => {
    stubApi({});
    renderRoutes(app, '/no/such/place');
    expect(await screen.findByRole('heading', { name: 'Page Not Found' })).toBeTruthy();
  });

  it('sends a visitor without a session from a shell route to /login', async () => {
    stubApi({
      'GET /api/auth/me': answer(401, { error: 'Not signed in' }),
      'GET /api/config': { demo: false, demoCredentials: null },
    });
    renderRoutes(app, '/devices');
    expect(await screen.findByRole('button', { name: 'Login' }, { timeout: 5000 })).toBeTruthy();
    expect(screen.queryByText('Manage your device fleet')).toBeNull();
  });

  it('tells a VA without a workspace so, inside the VA portal', async () => {
    stubApi({ 'GET /api/auth/me': { user: buildMe({ role: 'va', workspaceId: null, workspaceName: null }) } });
    renderRoutes(app, '/dashboard');
    expect(await screen.findByText(/not part of a workspace yet/, undefined, { timeout: 5000 })).toBeTruthy();
    expect(screen.getAllByText('VA Portal').length).toBeGreaterThan(0);
    expect(screen.getByRole('link', { name: 'Devices' })).toBeTruthy();
  });
});
