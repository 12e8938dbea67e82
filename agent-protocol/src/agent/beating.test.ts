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

  /**
   * When each beat ran, on the clock, over `runMs` of the timers' time, 1,000 ms apart from `random` of the first
   * period; the `stall.after`-th beat runs so long that the clock is `stall.ms` ahead of the timers from then on.
   */
  function beatTimes(random: number, stall: { after: number; ms: number }, runMs: number): number[] {
    const clock = laggingClock(random);
    const start = clock.now();
    const at: number[] = [];
    const beats = beating(
      () => {
        at.push(clock.now() - start);
        if (at.length === stall.after) clock.late += stall.ms;
      },
      1000,
      clock,
    );
    vi.advanceTimersByTime(runMs);
    beats.stop();
    return at;
  }

  it('starts at a random point of the first period and keeps its phase after a late beat', () => {
    // The second beat runs 300 ms late; 3,500 ms of the timers' time is 3,800 on the clock that ran ahead. A plain
    // interval would have gone on from 1,550: 2,550, 3,550.
    expect(beatTimes(0.25, { after: 2, ms: 300 }, 3500)).toEqual([250, 1250, 2250, 3250]);
  });

  it('skips the beats a stall of over a period missed instead of sending them together', () => {
    // 2,200 ms of the timers' time is 4,700 on the clock.
    expect(beatTimes(0, { after: 1, ms: 2500 }, 2200)).toEqual([0, 3000, 4000]);
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
