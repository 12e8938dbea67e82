import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { answer, buildMe, renderRoutes, Route, stubApi } from '../../test/render';
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
      'GET /api/config': { demo: true, demoCredentials: { email: 'demo@example.com', password: 'demo-pass-1' } },
      'POST /api/auth/login': { user: buildMe({ name: 'Demo Operator', email: 'demo@example.com' }) },
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
      'GET /api/config': { demo: false, demoCredentials: null },
      'POST /api/auth/login': answer(401, { error: 'Invalid email or password' }),
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

describe('LoginPage with two-factor sign-in', () => {
  it('asks for the code after the password and signs in with it', async () => {
    const calls = stubApi({
      'GET /api/config': { demo: false, demoCredentials: null },
      'POST /api/auth/login': { twoFactor: 'code', challenge: 'step-1' },
      'POST /api/auth/login/two-factor': (body) =>
        (body as { code: string }).code === '123456'
          ? { user: buildMe({ name: 'Ada Lovelace' }) }
          : answer(401, { error: 'That code is not right. Please try again.' }),
    });
    renderRoutes(routes, '/login');
    fireEvent.change(screen.getByLabelText(/^Email/), { target: { value: 'ada@example.com' } });
    fireEvent.change(screen.getByLabelText(/^Password/), { target: { value: 'right-password' } });
    fireEvent.click(screen.getByRole('button', { name: 'Login' }));

    expect(await screen.findByText('Two-factor sign-in')).toBeTruthy();
    expect(screen.getByText('Enter the 6-digit code from your authenticator app, or one of your recovery codes.')).toBeTruthy();
    fireEvent.change(screen.getByLabelText(/^Code/), { target: { value: '000000' } });
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText('That code is not right. Please try again.')).toBeTruthy();
    expect(screen.queryByText('Dashboard screen')).toBeNull();

    fireEvent.change(screen.getByLabelText(/^Code/), { target: { value: '123456' } });
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText('Login successful')).toBeTruthy();
    expect(screen.getByText('Welcome back, Ada Lovelace!')).toBeTruthy();
    expect(await screen.findByText('Dashboard screen')).toBeTruthy();
    expect(calls.filter((call) => call.url === '/api/auth/login/two-factor').map((call) => call.body)).toEqual([
      { challenge: 'step-1', code: '000000' },
      { challenge: 'step-1', code: '123456' },
    ]);
  });

  it('sets two-factor sign-in up when the workspace requires it, and shows the recovery codes once', async () => {
    stubApi({
      'GET /api/config': { demo: false, demoCredentials: null },
      'POST /api/auth/login': { twoFactor: 'setup', challenge: 'step-2' },
      'POST /api/auth/login/two-factor/setup': { secret: 'JBSWY3DPEHPK3PXP', otpauthUrl: 'otpauth://totp/x', qrCode: 'data:image/png;base64,AAAA' },
      'POST /api/auth/login/two-factor': { user: buildMe({ name: 'Ada Lovelace' }), recoveryCodes: ['abcde-fghjk', 'mnpqr-stuvw'] },
    });
    renderRoutes(routes, '/login');
    fireEvent.change(screen.getByLabelText(/^Email/), { target: { value: 'ada@example.com' } });
    fireEvent.change(screen.getByLabelText(/^Password/), { target: { value: 'right-password' } });
    fireEvent.click(screen.getByRole('button', { name: 'Login' }));

    expect(await screen.findByText('Set up two-factor sign-in')).toBeTruthy();
    expect(await screen.findByAltText('QR code for your authenticator app')).toBeTruthy();
    expect((screen.getByLabelText('Setup key (if you cannot scan)') as HTMLInputElement).value).toBe('JBSWY3DPEHPK3PXP');
    fireEvent.change(screen.getByLabelText(/^Code/), { target: { value: '123456' } });
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));

    expect(await screen.findByText('abcde-fghjk')).toBeTruthy();
    expect(screen.getByText('mnpqr-stuvw')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'I Have Saved My Codes' }));
    expect(await screen.findByText('Login successful')).toBeTruthy();
    expect(await screen.findByText('Dashboard screen')).toBeTruthy();
  });
});
