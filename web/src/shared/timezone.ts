/**
 * The person's own time zone for the calendar and schedules: chosen in Settings, the browser's by default,
 * kept in this browser. Times are stored in UTC; this only decides how they are laid out and read.
 */
import dayjs, { type Dayjs } from 'dayjs';
import timezone from 'dayjs/plugin/timezone';
import utc from 'dayjs/plugin/utc';
import { useSyncExternalStore } from 'react';

dayjs.extend(utc);
dayjs.extend(timezone);

const KEY = 'user_time_zone';
const listeners = new Set<() => void>();

export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export function userTimeZone(): string {
  try {
    return localStorage.getItem(KEY) || browserTimeZone();
  } catch {
    return browserTimeZone();
  }
}

export function setUserTimeZone(zone: string | null): void {
  try {
    if (zone) localStorage.setItem(KEY, zone);
    else localStorage.removeItem(KEY);
  } catch {
    // storage refused (private mode): the browser's zone stays in use
  }
  for (const listener of listeners) listener();
}

export function useUserTimeZone(): string {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    userTimeZone,
    userTimeZone,
  );
}

/** A time in the zone. */
export function inZone(time: string | Date | number, zone: string): Dayjs {
  return dayjs(time).tz(zone);
}

/** Midnight of a calendar day (YYYY-MM-DD) in the zone. */
export function startOfDay(day: string, zone: string): Dayjs {
  return dayjs.tz(day, zone).startOf('day');
}

/** The zones Intl knows, for pickers. */
export function timeZoneNames(): string[] {
  const supported = (Intl as unknown as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.('timeZone');
  return supported && supported.length > 0 ? supported : ['UTC', browserTimeZone()];
}
