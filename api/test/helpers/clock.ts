/**
 * For tests of windows the database draws from its own clock (`now()`: the last 24 hours, today in a zone), where a
 * fixed JavaScript clock does not reach: the test and the server each read the wall clock, and the window would move
 * if an hour turned between the two. Waiting out the last seconds of an hour (every zone's midnight here is on an
 * hour) first keeps the result from depending on where the wall clock falls.
 */
import { setTimeout as sleep } from 'node:timers/promises';

const HOUR = 3_600_000;

/** Waits, when less than `marginMs` of the current hour remain, until the next hour has begun. */
export async function clearOfHourEdge(marginMs = 20_000): Promise<void> {
  const left = HOUR - (Date.now() % HOUR);
  if (left < marginMs) await sleep(left + 50);
}
