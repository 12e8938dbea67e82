/** Row times to the ISO strings of the contracts. */
export function iso(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : new Date(value).toISOString();
}
export function isoOrNull(value: Date | string | null | undefined): string | null {
  return value === null || value === undefined ? null : iso(value);
}

/** A time set "now" in the browser may reach the server a little late: that much of the past still counts as now. */
export const FUTURE_GRACE_MS = 60_000;

/** True when `at` is not in the past (within the grace), for fields that need the future: a schedule, a deadline. */
export function isFuture(at: string | Date, now = Date.now()): boolean {
  return new Date(at).getTime() >= now - FUTURE_GRACE_MS;
}
