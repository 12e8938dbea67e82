import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubApi } from '../test/render';
import { App } from './App';

afterEach(() => window.history.pushState({}, '', '/'));

describe('App', () => {
  // Sign-up loads the console's chunks on demand, which a busy machine takes a while to import into jsdom.
  it('shows the landing page without calling the API, and its call to action opens sign-up', { timeout: 40_000 }, async () => {
    const calls = stubApi({ 'GET /api/config': { demo: false, demoCredentials: null } });
    // jsdom draws nothing: the hero's animation finds no canvas context and stays still.
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
    window.history.pushState({}, '', '/');
    render(<App />);
    const cta = screen.getByRole('link', { name: 'Get Started' });
    expect(calls).toEqual([]);
    // The brand logos arrive just after the first paint.
    expect(await screen.findByLabelText('Customer brands')).toBeTruthy();

    await userEvent.click(cta);
    expect(await screen.findByRole('heading', { name: 'Get Started' }, { timeout: 30_000 })).toBeTruthy();
    expect(window.location.pathname).toBe('/signup');
  });

  it('opens a console page at its own address', { timeout: 40_000 }, async () => {
    stubApi({ 'GET /api/config': { demo: false, demoCredentials: null } });
    window.history.pushState({}, '', '/login');
    render(<App />);
    expect(await screen.findByRole('heading', { name: 'Welcome back' }, { timeout: 30_000 })).toBeTruthy();
  });
});
