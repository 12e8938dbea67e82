/**
 * A phone's timeline in words (issue #50): each audit fact of its blips, its host's recovery rungs and its reboots
 * read as one entry of its details' Timeline. The facts are written as they happen (fleet.timeline.agent.ts for
 * blips and reboots, fleet.health.agent.ts for rungs); their data is read back here, whatever an older row lacks.
 */
import { fleetHostMessages } from '@farm/agent-protocol';
import type { TimelineEntry, TimelineKind } from '@farm/contracts';
import { rungWords } from './fleet.health.agent.ts';

/**
 * A blip's or a reboot's fact: when the phone left, how long it was away (null: not back before its connection
 * closed), whether it went offline or left adb's list, and the transport it came back on.
 */
export interface AwayFact {
  since: string;
  awayMs: number | null;
  reason: 'offline' | 'gone';
  transport: 'same' | 'new' | null;
}

const kinds: Record<string, TimelineKind> = { 'phone.blip': 'blip', 'phone.rung': 'rung', 'phone.reboot': 'reboot' };

/** "3 s", "2 min 5 s", "1 h 4 min". */
export function awayWords(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return seconds % 60 ? `${minutes} min ${seconds % 60} s` : `${minutes} min`;
  return minutes % 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${Math.floor(minutes / 60)} h`;
}

/** What a blip or a reboot was, in words: the timeline's text and the activity feed's (after the phone's name). */
export function awayText(kind: 'blip' | 'reboot', fact: Pick<AwayFact, 'awayMs' | 'reason' | 'transport'>): string {
  if (fact.awayMs === null) return 'went away and was not back before its connection closed';
  const left = fact.reason === 'gone' ? "left adb's list" : 'went offline';
  if (kind === 'reboot') return `rebooted: back on a new transport after ${awayWords(fact.awayMs)}`;
  return `${left} and was back after ${awayWords(fact.awayMs)}, on ${fact.transport === 'new' ? 'a new' : 'the same'} transport`;
}

const rung = fleetHostMessages['host.recovery'].shape.rung;
const outcome = fleetHostMessages['host.recovery'].shape.outcome;
const reason = (value: unknown): AwayFact['reason'] => (value === 'gone' ? 'gone' : 'offline');
const transport = (value: unknown): AwayFact['transport'] => (value === 'same' || value === 'new' ? value : null);
const whole = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? Math.round(value) : null);

/** One audit row of the phone's timeline as its entry; null for an action this timeline does not show. */
export function timelineEntryOf(row: { id: string; action: string; data: unknown; createdAt: Date }): TimelineEntry | null {
  const kind = kinds[row.action];
  if (!kind) return null;
  const data = (row.data ?? {}) as Record<string, unknown>;
  const base = { id: row.id, at: row.createdAt.toISOString(), kind, awayMs: null, transport: null, rung: null, outcome: null };
  if (kind === 'rung') {
    const took = rung.safeParse(data.rung);
    const went = outcome.safeParse(data.outcome);
    if (!took.success || !went.success) return null;
    const what = rungWords[took.data];
    const detail = typeof data.detail === 'string' && data.detail ? `: ${data.detail}` : '';
    const text = went.data === 'done' ? `Its host ${what}` : `Its host ${went.data === 'failed' ? 'could not do it' : 'skipped it'} (${what})${detail}`;
    return { ...base, text, rung: took.data, outcome: went.data };
  }
  const fact = { awayMs: whole(data.awayMs), reason: reason(data.reason), transport: transport(data.transport) };
  const text = awayText(kind, fact);
  return { ...base, text: text.charAt(0).toUpperCase() + text.slice(1), awayMs: fact.awayMs, transport: fact.transport };
}
