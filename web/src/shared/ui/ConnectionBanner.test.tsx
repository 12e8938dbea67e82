import { MantineProvider } from '@mantine/core';
import { act, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConnectionBanner } from './ConnectionBanner';
import { ConnectionIndicator } from './ConnectionIndicator';

describe('connection indicator and banner', () => {
  beforeEach(() => vi.useFakeTimers({ now: 100_000 }));
  afterEach(() => vi.useRealTimers());

  it('names the state for assistive technology', () => {
    const { rerender } = render(
      <MantineProvider env="test">
        <ConnectionIndicator status="live" />
      </MantineProvider>,
    );
    expect(screen.getByRole('status', { name: 'Connection: Live' })).toBeTruthy();
    rerender(
      <MantineProvider env="test">
        <ConnectionIndicator status="reconnecting" />
      </MantineProvider>,
    );
    expect(screen.getByRole('status', { name: 'Connection: Reconnecting' })).toBeTruthy();
  });

  it('shows the banner only once the connection has been down for 5 seconds, and hides it when back', () => {
    const view = (status: 'live' | 'reconnecting' | 'offline', downSince: number | null) => (
      <MantineProvider env="test">
        <ConnectionBanner status={status} downSince={downSince} />
      </MantineProvider>
    );
    const { rerender } = render(view('reconnecting', 100_000));
    expect(screen.queryByRole('alert')).toBeNull();

    act(() => {
      vi.advanceTimersByTime(4900);
    });
    expect(screen.queryByRole('alert')).toBeNull();
    act(() => {
      vi.advanceTimersByTime(200);
    });
    expect(screen.getByRole('alert').textContent).toContain('Connection lost');

    rerender(view('offline', 100_000));
    expect(screen.getByRole('alert').textContent).toContain('You are offline');

    rerender(view('live', null));
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
