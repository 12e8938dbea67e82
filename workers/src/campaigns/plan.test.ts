import { describe, expect, it } from 'vitest';
import { activeWindow, planDay, runsPerDay, type PlanInput } from './plan.ts';

const base: PlanInput = {
  campaignId: 'c1',
  day: '2026-11-23',
  timeZone: 'UTC',
  activeHoursStart: 9,
  activeHoursEnd: 21,
  routines: [
    { id: 'warm', accountId: 'a1', intensity: 5, duration: 5, sequence: 1 },
    { id: 'post', accountId: 'a1', intensity: 2, duration: 10, sequence: 2 },
  ],
  now: new Date('2026-11-23T06:00:00Z'),
  startNow: false,
};

describe('a campaign day', () => {
  it('runs each routine as often as its intensity says, 1 to 6 times a day', () => {
    expect([1, 2, 3, 5, 8, 10].map(runsPerDay)).toEqual([1, 2, 2, 3, 5, 6]);
  });

  it('spreads rounds over the active hours, routines in sequence inside a round', () => {
    const plan = planDay(base);
    expect(plan.filter((run) => run.routineId === 'warm')).toHaveLength(3);
    expect(plan.filter((run) => run.routineId === 'post')).toHaveLength(2);
    const { start, end } = activeWindow(base.day, 'UTC', 9, 21);
    for (const run of plan) {
      expect(run.scheduledAt.getTime()).toBeGreaterThanOrEqual(start.getTime());
      expect(run.scheduledAt.getTime()).toBeLessThan(end.getTime());
    }
    const round0 = plan.filter((run) => run.round === 0);
    expect(round0.map((run) => run.routineId)).toEqual(['warm', 'post']);
    expect(round0[1]!.scheduledAt.getTime() - round0[0]!.scheduledAt.getTime()).toBe(5 * 60_000);
    // Each round stays inside its share of the day (4 hours here).
    for (const run of plan) expect(Math.floor((run.scheduledAt.getTime() - start.getTime()) / (4 * 3600_000))).toBe(run.round);
  });

  it('plans the same times however often the day is planned', () => {
    expect(planDay(base)).toEqual(planDay(base));
    expect(
      planDay({ ...base, day: '2026-11-24' })[0]!
        .scheduledAt.toISOString()
        .slice(11),
    ).not.toBe(planDay(base)[0]!.scheduledAt.toISOString().slice(11));
  });

  it('skips rounds already past, and on activation starts the round under way at once', () => {
    const midday = new Date('2026-11-23T14:00:00Z');
    const later = planDay({ ...base, now: midday });
    expect(later.every((run) => run.scheduledAt.getTime() >= midday.getTime() - 60_000)).toBe(true);
    const activated = planDay({ ...base, now: midday, startNow: true });
    expect(activated[0]).toMatchObject({ routineId: 'warm', round: 1, scheduledAt: midday });
    expect(activated.map((run) => run.round).sort()).toEqual([1, 1, 2]);
  });

  it('follows the workspace time zone, and plans nothing outside a sane window', () => {
    const tokyo = planDay({ ...base, timeZone: 'Asia/Tokyo', now: new Date('2026-11-22T15:00:00Z') });
    const { start } = activeWindow(base.day, 'Asia/Tokyo', 9, 21);
    expect(start.toISOString()).toBe('2026-11-23T00:00:00.000Z');
    expect(tokyo[0]!.scheduledAt.getTime()).toBeGreaterThanOrEqual(start.getTime());
    expect(planDay({ ...base, activeHoursStart: 12, activeHoursEnd: 12 })).toEqual([]);
    expect(planDay({ ...base, routines: [] })).toEqual([]);
  });
});
