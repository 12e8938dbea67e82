import type { Session } from '@farm/contracts';
import { act, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from './api';
import { arrivalOf, liveDuration, markArrival, watchSessionArrivals } from './live-duration';
import { LiveDuration } from './ui/LiveDuration';

const stamp = '2025-01-01T00:00:00.000Z';
function session(overrides: Partial<Session> = {}): Session {
  return {
    id: 's1',
    deviceId: 'd1',
    vaId: null,
    taskId: null,
    currentTask: null,
    duration: 70,
    screenshots: 0,
    isActive: true,
    startedAt: stamp,
    endedAt: null,
    ...overrides,
  };
}

describe('liveDuration', () => {
  it('adds the whole seconds since the row arrived while the session runs', () => {
    expect(liveDuration(session(), 1000, 1000)).toBe(70);
    expect(liveDuration(session(), 1000, 1999)).toBe(70);
    expect(liveDuration(session(), 1000, 4500)).toBe(73);
  });

  it('stands still when paused or ended, and never counts back', () => {
    expect(liveDuration(session({ isActive: false }), 1000, 60_000)).toBe(70);
    expect(liveDuration(session({ endedAt: stamp }), 1000, 60_000)).toBe(70);
    expect(liveDuration(session(), 5000, 1000)).toBe(70);
  });
});

describe('session arrivals', () => {
  beforeEach(() => vi.useFakeTimers({ now: 50_000 }));
  afterEach(() => vi.useRealTimers());

  it('stamps each sessions row when it lands in the cache, and keeps the stamp of rows a later write left alone', () => {
    const client = createQueryClient();
    const stop = watchSessionArrivals(client);
    const first = session();
    client.setQueryData(['/api/sessions'], [first]);
    expect(arrivalOf(first)).toBe(50_000);

    vi.setSystemTime(53_000);
    const second = session({ id: 's2', duration: 5 });
    client.setQueryData(['/api/sessions'], [first, second]);
    expect(arrivalOf(first)).toBe(50_000);
    expect(arrivalOf(second)).toBe(53_000);
    stop();
  });

  it('counts a running session up every second on screen, from its own arrival', () => {
    const row = session({ duration: 3599 });
    markArrival([row]);
    render(<LiveDuration session={row} />);
    expect(screen.getByText('59:59')).toBeTruthy();

    act(() => {
      vi.advanceTimersByTime(1000);
    });
    expect(screen.getByText('1:00:00')).toBeTruthy();
    act(() => {
      vi.advanceTimersByTime(2000);
    });
    expect(screen.getByText('1:00:02')).toBeTruthy();
  });

  it('shows a paused session without ticking', () => {
    const row = session({ isActive: false });
    render(<LiveDuration session={row} />);
    act(() => {
      vi.advanceTimersByTime(5000);
    });
    expect(screen.getByText('1:10')).toBeTruthy();
  });
});
