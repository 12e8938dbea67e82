import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { beating } from './beating.ts';

describe('an agent beating on its own clock', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A clock that can run ahead of the timers, as a process's does while it is busy and its timers wait. */
  function laggingClock(random: number) {
    const clock = { late: 0, now: () => Date.now() + clock.late, random: () => random };
    return clock;
  }

  it('starts at a random point of the first period and keeps its phase after a late beat', () => {
    const clock = laggingClock(0.25);
    const start = clock.now();
    const at: number[] = [];
    const beats = beating(
      () => {
        at.push(clock.now() - start);
        // The second beat runs 300 ms late: the process was busy.
        if (at.length === 2) clock.late += 300;
      },
      1000,
      clock,
    );
    // 3,500 ms of the timers' time is 3,800 on the clock that ran ahead.
    vi.advanceTimersByTime(3500);
    beats.stop();
    // A plain interval would have gone on from 1,550: 2,550, 3,550.
    expect(at).toEqual([250, 1250, 2250, 3250]);
  });

  it('skips the beats a stall of over a period missed instead of sending them together', () => {
    const clock = laggingClock(0);
    const start = clock.now();
    const at: number[] = [];
    const beats = beating(
      () => {
        at.push(clock.now() - start);
        if (at.length === 1) clock.late += 2500;
      },
      1000,
      clock,
    );
    // 2,200 ms of the timers' time is 4,700 on the clock.
    vi.advanceTimersByTime(2200);
    beats.stop();
    expect(at).toEqual([0, 3000, 4000]);
  });

  it('beats no more once stopped, even from inside a beat', () => {
    let count = 0;
    const beats = beating(
      () => {
        count += 1;
        if (count === 2) beats.stop();
      },
      100,
      laggingClock(0),
    );
    vi.advanceTimersByTime(1000);
    expect(count).toBe(2);
  });
});
