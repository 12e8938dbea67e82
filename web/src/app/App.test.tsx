import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubApi } from '../test/render';
import { App } from './App';

afterEach(() => window.history.pushState({}, '', '/'));

describe('App', () => {
  it('shows the landing page without calling the API, and its call to action opens sign-up', async () => {
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
    expect(await screen.findByRole('heading', { name: 'Get Started' })).toBeTruthy();
    expect(window.location.pathname).toBe('/signup');
  });

  it('opens a console page at its own address', async () => {
    stubApi({ 'GET /api/config': { demo: false, demoCredentials: null } });
    window.history.pushState({}, '', '/login');
    render(<App />);
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeTruthy();
  });
});
