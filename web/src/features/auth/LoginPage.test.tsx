import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { buildMe, renderRoutes, Route, stubApi } from '../../test/render';
import { AUTH_STORAGE_KEY } from './auth.store';
import { LoginPage } from './LoginPage';

const routes = (
  <>
    <Route path="/login" element={<LoginPage />} />
    <Route path="/dashboard" element={<p>Dashboard screen</p>} />
  </>
);

describe('LoginPage', () => {
  it('prefills the demo credentials and signs in', async () => {
    const calls = stubApi({
      'GET /api/config': { body: { demo: true, demoCredentials: { email: 'demo@example.com', password: 'demo-pass-1' } } },
      'POST /api/auth/login': { body: { user: buildMe({ name: 'Demo Operator', email: 'demo@example.com' }) } },
    });
    renderRoutes(routes, '/login');

    await waitFor(() => expect((screen.getByLabelText(/^Email/) as HTMLInputElement).value).toBe('demo@example.com'));
    fireEvent.click(screen.getByRole('button', { name: 'Login' }));

    expect(await screen.findByText('Login successful')).toBeTruthy();
    expect(screen.getByText('Welcome back, Demo Operator!')).toBeTruthy();
    expect(await screen.findByText('Dashboard screen')).toBeTruthy();
    expect(calls.find((call) => call.url === '/api/auth/login')?.body).toEqual({ email: 'demo@example.com', password: 'demo-pass-1' });
    expect(JSON.parse(window.localStorage.getItem(AUTH_STORAGE_KEY) ?? 'null')).toMatchObject({ name: 'Demo Operator' });
  });

  it('leaves the form empty outside demo mode and reports a failed login', async () => {
    stubApi({
      'GET /api/config': { body: { demo: false, demoCredentials: null } },
      'POST /api/auth/login': { status: 401, body: { error: 'Invalid email or password' } },
    });
    renderRoutes(routes, '/login');

    const email = screen.getByLabelText(/^Email/) as HTMLInputElement;
    expect(email.value).toBe('');
    expect(email.type).toBe('email');
    expect(email.required).toBe(true);
    fireEvent.change(email, { target: { value: 'ada@example.com' } });
    fireEvent.change(screen.getByLabelText(/^Password/), { target: { value: 'wrong-password' } });
    fireEvent.click(screen.getByRole('button', { name: 'Login' }));

    expect(await screen.findByText('Login failed')).toBeTruthy();
    expect(screen.getByText('Invalid email or password. Please try again.')).toBeTruthy();
    expect(screen.queryByText('Dashboard screen')).toBeNull();
  });
});
