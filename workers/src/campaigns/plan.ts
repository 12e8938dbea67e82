/**
 * A campaign's day: its routines run in rounds spread over the campaign's active hours. Each routine runs a number
 * of times a day set by its intensity; in a round the routines run in sequence, each when the previous one's time
 * has passed; each round starts at a jittered time inside its share of the day, the same time however often the day
 * is planned (the jitter is derived from the campaign, day and round), so planning is idempotent.
 */
import { createHash } from 'node:crypto';
import dayjs from 'dayjs';
import timezone from 'dayjs/plugin/timezone.js';
import utc from 'dayjs/plugin/utc.js';

dayjs.extend(utc);
dayjs.extend(timezone);

/** Runs a day for a routine of this intensity (1 to 10): 1 at the gentlest, 6 at the most intense. */
export const runsPerDay = (intensity: number) => Math.max(1, Math.ceil(Math.min(10, Math.max(1, intensity)) * 0.6));

export interface PlanRoutine {
  id: string;
  accountId: string;
  intensity: number;
  /** Minutes. */
  duration: number;
  sequence: number;
}

export interface PlanInput {
  campaignId: string;
  /** The workspace's calendar day, YYYY-MM-DD. */
  day: string;
  timeZone: string;
  activeHoursStart: number;
  activeHoursEnd: number;
  routines: PlanRoutine[];
  now: Date;
  /** The campaign was just activated: the round under way now starts at once instead of waiting for tomorrow. */
  startNow: boolean;
}

export interface PlannedRun {
  routineId: string;
  accountId: string;
  round: number;
  scheduledAt: Date;
}

/** The active window of a day, as instants. */
export function activeWindow(day: string, timeZone: string, startHour: number, endHour: number): { start: Date; end: Date } {
  const midnight = dayjs.tz(`${day} 00:00`, timeZone);
  return { start: midnight.add(startHour, 'hour').toDate(), end: midnight.add(endHour, 'hour').toDate() };
}

/** The calendar day (YYYY-MM-DD) of an instant in a zone. */
export const dayIn = (at: Date, timeZone: string) => dayjs(at).tz(timeZone).format('YYYY-MM-DD');

function fraction(seed: string): number {
  return createHash('sha256').update(seed).digest().readUInt32BE(0) / 2 ** 32;
}

export function planDay(input: PlanInput): PlannedRun[] {
  const routines = [...input.routines].sort((a, b) => a.sequence - b.sequence);
  if (routines.length === 0 || input.activeHoursEnd <= input.activeHoursStart) return [];
  const { start, end } = activeWindow(input.day, input.timeZone, input.activeHoursStart, input.activeHoursEnd);
  const rounds = Math.max(...routines.map((routine) => runsPerDay(routine.intensity)));
  const share = (end.getTime() - start.getTime()) / rounds;
  const now = input.now.getTime();
  const current = now >= start.getTime() && now < end.getTime() ? Math.floor((now - start.getTime()) / share) : -1;
  const planned: PlannedRun[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const members = routines.filter((routine) => {
      const n = runsPerDay(routine.intensity);
      return Array.from({ length: n }, (_, j) => Math.floor((j * rounds) / n)).includes(round);
    });
    if (members.length === 0) continue;
    const length = members.reduce((sum, routine, index) => (members[index - 1]?.id === routine.id ? sum : sum + Math.max(1, routine.duration) * 60_000), 0);
    const slack = Math.max(0, share - length);
    let at = start.getTime() + round * share + fraction(`${input.campaignId}:${input.day}:${round}`) * slack;
    if (input.startNow && round === current) at = now;
    else if (input.startNow && current >= 0 && round < current) continue;
    else if (at < now - 60_000) continue;
    // A group routine comes once per account, each on its own phone: its accounts share its slot in the round.
    for (const [index, routine] of members.entries()) {
      planned.push({ routineId: routine.id, accountId: routine.accountId, round, scheduledAt: new Date(Math.round(at)) });
      if (members[index + 1]?.id !== routine.id) at += Math.max(1, routine.duration) * 60_000;
    }
  }
  return planned;
}
