import { describe, expect, it } from 'vitest';
import { FairSlots, ScreenshotRate } from './sessions.agent.ts';

describe('the screenshot slots', () => {
  it('lets a workspace alone use every slot, and holds each to its share once others store too', () => {
    const slots = new FairSlots(4);
    for (let n = 0; n < 4; n += 1) expect(slots.take('a')).toBe(true);
    expect(slots.take('a')).toBe(false);
    // Full: b waits for a slot, then gets it; a cannot take back more than its share (4 / 2).
    expect(slots.take('b')).toBe(false);
    slots.give('a');
    expect(slots.take('b')).toBe(true);
    slots.give('a');
    expect(slots.take('a')).toBe(false);
    expect(slots.take('b')).toBe(true);
    expect(slots.take('b')).toBe(false);
    slots.give('b');
    slots.give('b');
    slots.give('a');
    slots.give('a');
    for (let n = 0; n < 4; n += 1) expect(slots.take('c')).toBe(true);
  });
});

describe('the screenshot rate', () => {
  it('counts a phone’s last minute and says how long until the next may go', () => {
    const rate = new ScreenshotRate();
    for (let n = 0; n < 3; n += 1) expect(rate.take('phone', 3, 1000 + n * 1000)).toBe(0);
    expect(rate.take('phone', 3, 10_000)).toBe(51_000);
    expect(rate.take('other', 3, 10_000)).toBe(0);
    expect(rate.take('phone', 3, 61_001)).toBe(0);
  });
});
