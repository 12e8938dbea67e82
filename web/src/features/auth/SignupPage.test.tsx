import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { answer, buildMe, renderRoutes, Route, stubApi } from '../../test/render';
import { SignupPage } from './SignupPage';

const routes = (
  <>
    <Route path="/signup" element={<SignupPage />} />
    <Route path="/dashboard" element={<p>Dashboard screen</p>} />
  </>
);

function fill(label: RegExp, value: string) {
  fireEvent.change(screen.getByLabelText(label), { target: { value } });
}

describe('SignupPage', () => {
  it('blocks a submit without a role with the destructive toast', async () => {
    const calls = stubApi({});
    renderRoutes(routes, '/signup');

    expect(screen.getByRole('heading', { name: 'Get Started' })).toBeTruthy();
    expect(screen.getByText('Create your account')).toBeTruthy();
    fill(/Full Name/, 'Ada Lovelace');
    fill(/^Email/, 'ada@example.com');
    fill(/^Password/, 'correct horse battery');
    fireEvent.click(screen.getByRole('button', { name: 'Create Account' }));

    expect(await screen.findByText('Role required')).toBeTruthy();
    expect(screen.getByText('Please select your role to continue.')).toBeTruthy();
    expect(calls.some((call) => call.url === '/api/auth/signup')).toBe(false);
  });

  it('joins through an invitation with the role it sets, then greets by the returned name', async () => {
    const calls = stubApi({
      'GET /api/invitations/lookup/tok123': { workspaceName: 'North Farm', role: 'va', email: 'grace@example.com', expiresAt: '2030-01-01T00:00:00.000Z' },
      'POST /api/auth/signup': answer(201, { user: buildMe({ name: 'Grace Hopper', role: 'va' }) }),
    });
    renderRoutes(routes, '/signup?invite=tok123');

    expect(await screen.findByText(/You were invited to North Farm as a Virtual Assistant/)).toBeTruthy();
    await waitFor(() => expect((screen.getByLabelText(/^Email/) as HTMLInputElement).value).toBe('grace@example.com'));
    fill(/Full Name/, 'Grace Hopper');
    fill(/^Password/, 'correct horse battery');
    fireEvent.click(screen.getByRole('button', { name: 'Create Account' }));

    expect(await screen.findByText('Account created successfully')).toBeTruthy();
    expect(screen.getByText('Welcome, Grace Hopper!')).toBeTruthy();
    expect(await screen.findByText('Dashboard screen')).toBeTruthy();
    expect(calls.find((call) => call.url === '/api/auth/signup')?.body).toEqual({
      name: 'Grace Hopper',
      email: 'grace@example.com',
      password: 'correct horse battery',
      role: 'va',
      inviteToken: 'tok123',
    });
  });

  it("shows the server's refusal as 'Signup failed'", async () => {
    stubApi({
      'GET /api/invitations/lookup/tok9': { workspaceName: 'North Farm', role: 'operator', email: null, expiresAt: '2030-01-01T00:00:00.000Z' },
      'POST /api/auth/signup': answer(409, { error: 'An account with this email already exists' }),
    });
    renderRoutes(routes, '/signup?invite=tok9');

    await screen.findByText(/You were invited to North Farm/);
    fill(/Full Name/, 'Ada Lovelace');
    fill(/^Email/, 'ada@example.com');
    fill(/^Password/, 'correct horse battery');
    fireEvent.click(screen.getByRole('button', { name: 'Create Account' }));

    expect(await screen.findByText('Signup failed')).toBeTruthy();
    expect(screen.getByText('An account with this email already exists')).toBeTruthy();
  });
});
