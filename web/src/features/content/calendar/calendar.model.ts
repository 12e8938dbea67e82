/** The calendar's days and slots in the person's time zone, and where a dropped post lands. */
import type { Dayjs } from 'dayjs';
import type { Platform, Post, PostStatus } from '@farm/contracts';
import { inZone, startOfDay } from '../../../shared/timezone';

export type CalendarView = 'month' | 'week';

/** Monday-first weeks. */
function startOfWeek(day: Dayjs): Dayjs {
  return day.subtract((day.day() + 6) % 7, 'day').startOf('day');
}

/** The days shown: six weeks around the month, or the seven days of the week, each as YYYY-MM-DD. */
export function visibleDays(view: CalendarView, anchor: string, zone: string): string[] {
  const day = startOfDay(anchor, zone);
  const first = view === 'month' ? startOfWeek(day.startOf('month')) : startOfWeek(day);
  const count = view === 'month' ? 42 : 7;
  return Array.from({ length: count }, (_, index) => first.add(index, 'day').format('YYYY-MM-DD'));
}

/** The API window [from, to) covering those days. */
export function windowOf(days: readonly string[], zone: string): { from: string; to: string } {
  return { from: startOfDay(days[0]!, zone).toISOString(), to: startOfDay(days.at(-1)!, zone).add(1, 'day').toISOString() };
}

/** The time a post sits at on the calendar: its schedule, else when it was published. */
export function postTime(post: Pick<Post, 'scheduledAt' | 'publishedAt'>): string | null {
  return post.scheduledAt ?? post.publishedAt;
}

export function dayOf(time: string, zone: string): string {
  return inZone(time, zone).format('YYYY-MM-DD');
}

/** Scheduled and failed posts can be moved (a failed one is retried at the new time); published ones stay. */
export function canMove(post: Pick<Post, 'status'>): boolean {
  return post.status === 'scheduled' || post.status === 'failed';
}

/**
 * Where a dropped post goes: on a day (month view) it keeps its time of day; on an hour (week view) it keeps
 * its minutes. Answered in ISO (UTC).
 */
export function droppedAt(time: string, day: string, hour: number | null, zone: string): string {
  const current = inZone(time, zone);
  const target = startOfDay(day, zone)
    .hour(hour ?? current.hour())
    .minute(current.minute());
  return target.toISOString();
}

export const statusColors: Record<PostStatus, string> = { draft: 'gray', scheduled: 'blue', published: 'green', failed: 'red' };
export const platformColors: Record<Platform, string> = {
  tiktok: 'grape',
  instagram: 'pink',
  facebook: 'indigo',
  twitter: 'cyan',
  youtube: 'red',
  tinder: 'orange',
};
