import { describe, expect, it } from 'vitest';
import { canMove, dayOf, droppedAt, visibleDays, windowOf } from './calendar.model';

describe('the calendar model', () => {
  it('shows six Monday-first weeks around a month, and the seven days of a week', () => {
    const month = visibleDays('month', '2026-11-23', 'UTC');
    expect(month).toHaveLength(42);
    expect(month[0]).toBe('2026-10-26');
    expect(month.at(-1)).toBe('2026-12-06');
    expect(visibleDays('week', '2026-11-23', 'UTC')).toEqual([
      '2026-11-23',
      '2026-11-24',
      '2026-11-25',
      '2026-11-26',
      '2026-11-27',
      '2026-11-28',
      '2026-11-29',
    ]);
    expect(visibleDays('week', '2026-11-29', 'UTC')[0]).toBe('2026-11-23');
  });

  it('asks the API for the window of those days in the person’s zone', () => {
    expect(windowOf(['2026-03-01', '2026-03-07'], 'Asia/Tokyo')).toEqual({ from: '2026-02-28T15:00:00.000Z', to: '2026-03-07T15:00:00.000Z' });
  });

  it('places a post on its day in the zone and moves it keeping its time of day, or to an hour', () => {
    expect(dayOf('2026-03-01T16:30:00.000Z', 'Asia/Tokyo')).toBe('2026-03-02');
    expect(dayOf('2026-03-01T16:30:00.000Z', 'UTC')).toBe('2026-03-01');
    expect(droppedAt('2026-03-01T16:30:00.000Z', '2026-03-05', null, 'Asia/Tokyo')).toBe('2026-03-04T16:30:00.000Z');
    expect(droppedAt('2026-03-01T16:30:00.000Z', '2026-03-05', 9, 'Asia/Tokyo')).toBe('2026-03-05T00:30:00.000Z');
    // Across the spring change in Paris the wall-clock time is kept.
    expect(droppedAt('2026-03-27T09:00:00.000Z', '2026-03-30', null, 'Europe/Paris')).toBe('2026-03-30T08:00:00.000Z');
  });

  it('lets scheduled and failed posts move, not published ones or drafts', () => {
    expect(canMove({ status: 'scheduled' })).toBe(true);
    expect(canMove({ status: 'failed' })).toBe(true);
    expect(canMove({ status: 'published' })).toBe(false);
    expect(canMove({ status: 'draft' })).toBe(false);
  });
});
