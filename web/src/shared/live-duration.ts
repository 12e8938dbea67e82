/**
 * Running sessions count up on screen between server updates: the server sends a session's duration as of the
 * moment it answered (a REST read or a pushed event), and the screen adds the seconds since that row arrived.
 * Arrival times are kept per row object, so a row that a later read or event did not change keeps its own.
 */
import type { Session } from '@farm/contracts';
import type { QueryClient } from '@tanstack/react-query';
import { useNow } from './clock';

const arrivals = new WeakMap<object, number>();

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

/** Records `at` as the arrival time of each row (or the one row) not seen before. */
export function markArrival(data: unknown, at = Date.now()): void {
  const rows: unknown[] = Array.isArray(data) ? data : [data];
  for (const row of rows) if (isObject(row) && !arrivals.has(row)) arrivals.set(row, at);
}

/** When this row arrived; a row never marked counts from now on. */
export function arrivalOf(row: object, now = Date.now()): number {
  const known = arrivals.get(row);
  if (known !== undefined) return known;
  arrivals.set(row, now);
  return now;
}

type Timed = Pick<Session, 'duration' | 'isActive' | 'endedAt'>;

/** A session runs while it is active and not ended; paused and stopped ones stand still. */
export function isRunning(session: Pick<Session, 'isActive' | 'endedAt'>): boolean {
  return session.isActive && session.endedAt === null;
}

/** The duration to show at `now`: the server's figure plus the whole seconds since it arrived, while running. */
export function liveDuration(session: Timed, arrivedAt: number, now: number): number {
  if (!isRunning(session)) return session.duration;
  return session.duration + Math.max(0, Math.floor((now - arrivedAt) / 1000));
}

/** Stamps the rows of every sessions read (list or single) as they land in the cache. */
export function watchSessionArrivals(queryClient: QueryClient): () => void {
  return queryClient.getQueryCache().subscribe((event) => {
    if (event.type !== 'updated' || event.action.type !== 'success') return;
    if (event.query.queryKey[0] !== '/api/sessions') return;
    markArrival(event.query.state.data);
  });
}

/** A session's duration in seconds, ticking every second while it runs. */
export function useLiveDuration(session: Timed): number {
  const running = isRunning(session);
  const now = useNow(running);
  return liveDuration(session, arrivalOf(session), now);
}
