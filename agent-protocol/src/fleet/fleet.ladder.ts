/**
 * The ladder a farm host climbs for a phone that stopped answering, from the gentlest rung to a person: each rung is
 * tried once per episode (from the phone failing to it answering again), no rung more often than its limit, and when
 * the rungs are spent a person is asked to replug the phone — once — and nothing else happens until it answers.
 * A policy only: it says which rung comes next and keeps the counts; the host does the work (`fleet.recovery.ts`).
 *
 * Its memory is per serial and outlives the phone object: a reboot, a uhubctl cycle or an adb restart takes the phone
 * off adb's list for a while, and the counts and the episode must still be there when it comes back, or "a reboot
 * twice a day" never holds. `snapshot()`/`restore()` carry it across a host restart (`fleet.memory.ts`).
 */
import { z } from 'zod';

export const recoveryRungs = [
  /** Drop and reopen the phone's adb transport on the host's side. */
  'reconnect',
  /** Restart the phone's UI reader and its screen source. */
  'restart_reader',
  /** `adb reconnect` for that serial (the adb server drops and re-enumerates the USB device). */
  'adb_reconnect',
  /** Restart the adb server: only when several phones fail together, since it cuts every phone off for seconds. */
  'restart_adb_server',
  /** `reboot` through adb. */
  'reboot',
  /** Power-cycle the phone's USB port with uhubctl, where the host has it set up and knows the phone's hub and port. */
  'power_cycle',
  /** A high-priority task for a person: "Replug NAME", with the host, hub and port. */
  'replug_task',
] as const;

export type RecoveryRung = (typeof recoveryRungs)[number];

export interface LadderLimits {
  /** Any one rung at most this many times an hour per phone. */
  perRungPerHour: number;
  /** Reboots at most this many times a day per phone. */
  rebootsPerDay: number;
  /** How many phones must be failing at once before restarting the adb server is worth cutting the others off. */
  adbServerRestartPhones: number;
  /** Restarts of the adb server at most this many times an hour per host. */
  adbServerRestartsPerHour: number;
}

export const defaultLadderLimits: LadderLimits = {
  perRungPerHour: 3,
  rebootsPerDay: 2,
  adbServerRestartPhones: 3,
  adbServerRestartsPerHour: 3,
};

/** What the host can do right now, beyond the rungs every host has. */
export interface LadderContext {
  /** Phones of this host failing at this moment, this one included. */
  failingTogether: number;
  /** uhubctl is on for this host, allowed to write, and the phone's hub and port are known. */
  canPowerCycle: boolean;
}

/** The ladder's memory as stored in the host's state folder: times are epoch milliseconds. */
export const ladderMemory = z.object({
  used: z.record(z.string(), z.partialRecord(z.enum(recoveryRungs), z.array(z.number()))),
  episodes: z.record(z.string(), z.object({ tried: z.array(z.enum(recoveryRungs)), askedPerson: z.boolean() })),
  adbServerRestarts: z.array(z.number()),
});
export type LadderMemory = z.infer<typeof ladderMemory>;

const hour = 60 * 60_000;
const day = 24 * hour;
/** How long one adb server restart counts for every phone that was failing with it. */
const adbServerSettleMs = 2 * 60_000;

interface Episode {
  tried: Set<RecoveryRung>;
  askedPerson: boolean;
}

export class RecoveryLadder {
  private readonly episodes = new Map<string, Episode>();
  /** When each rung was used, per phone: `serial` → rung → times. */
  private readonly used = new Map<string, Map<RecoveryRung, number[]>>();
  private adbServerRestarts: number[] = [];
  /** Told after every change, so the host can write the memory down. */
  onChange: () => void = () => undefined;

  constructor(
    private limits: LadderLimits = defaultLadderLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** New limits from the host's settings: the counts and episodes stay, only what they are held against changes. */
  setLimits(limits: LadderLimits): void {
    this.limits = limits;
  }

  /**
   * The next rung to try for a phone that still fails, and records it as used; null when nothing is left to do until
   * the phone answers again (the person was asked). A rung skipped for its limit is passed over, never waited for.
   */
  next(serial: string, context: LadderContext): RecoveryRung | null {
    const episode = this.episodes.get(serial) ?? { tried: new Set<RecoveryRung>(), askedPerson: false };
    this.episodes.set(serial, episode);
    for (const rung of recoveryRungs) {
      if (episode.tried.has(rung) || !this.allowed(serial, rung, context)) continue;
      episode.tried.add(rung);
      if (rung === 'replug_task') episode.askedPerson = true;
      this.record(serial, rung);
      this.onChange();
      return rung;
    }
    return null;
  }

  /** Whether the person was asked in this phone's current episode. */
  askedPerson(serial: string): boolean {
    return this.episodes.get(serial)?.askedPerson ?? false;
  }

  /** The phone answers again: its next failure starts a new episode at the bottom rung. The counts stay. */
  recovered(serial: string): void {
    if (this.episodes.delete(serial)) this.onChange();
  }

  /** Whether the phone is in an episode now (it failed and has not answered since). */
  climbing(serial: string): boolean {
    return this.episodes.has(serial);
  }

  /**
   * The memory to write down: the last day of uses (the longest limit looks back a day), and the open episodes of
   * phones used within that day (an episode older than that is of a phone long gone).
   */
  snapshot(): LadderMemory {
    const since = this.now() - day;
    const used: LadderMemory['used'] = {};
    for (const [serial, rungs] of this.used) {
      const kept: Partial<Record<RecoveryRung, number[]>> = {};
      for (const [rung, times] of rungs) {
        const recent = times.filter((at) => at > since);
        if (recent.length > 0) kept[rung] = recent;
      }
      if (Object.keys(kept).length > 0) used[serial] = kept;
    }
    const episodes: LadderMemory['episodes'] = {};
    for (const [serial, episode] of this.episodes) {
      if (used[serial]) episodes[serial] = { tried: [...episode.tried], askedPerson: episode.askedPerson };
    }
    return { used, episodes, adbServerRestarts: this.adbServerRestarts.filter((at) => at > this.now() - hour) };
  }

  /** Takes back a memory written by `snapshot()` (at start, before any phone is seen). */
  restore(memory: LadderMemory): void {
    this.used.clear();
    this.episodes.clear();
    for (const [serial, rungs] of Object.entries(memory.used)) {
      const map = new Map<RecoveryRung, number[]>();
      for (const rung of recoveryRungs) {
        const times = rungs[rung];
        if (times && times.length > 0) map.set(rung, [...times]);
      }
      this.used.set(serial, map);
    }
    for (const [serial, episode] of Object.entries(memory.episodes)) {
      this.episodes.set(serial, { tried: new Set(episode.tried), askedPerson: episode.askedPerson });
    }
    this.adbServerRestarts = [...memory.adbServerRestarts];
  }

  /** How often a rung was used for a phone in the last `windowMs` (for the console and the tests). */
  count(serial: string, rung: RecoveryRung, windowMs = hour): number {
    const since = this.now() - windowMs;
    return (this.used.get(serial)?.get(rung) ?? []).filter((at) => at > since).length;
  }

  private allowed(serial: string, rung: RecoveryRung, context: LadderContext): boolean {
    // The person too is asked at most so often: a phone that answers for a moment after each replug and fails again
    // would otherwise ask every round (the console keeps one open task per phone; this keeps the feed quiet).
    if (this.count(serial, rung) >= this.limits.perRungPerHour) return false;
    switch (rung) {
      case 'restart_adb_server': {
        if (context.failingTogether < this.limits.adbServerRestartPhones) return false;
        const now = this.now();
        // A restart a moment ago already served this phone: it still fails, so climb on rather than restart again.
        if (this.adbServerRestarts.some((at) => at > now - adbServerSettleMs)) return false;
        return this.adbServerRestarts.filter((at) => at > now - hour).length < this.limits.adbServerRestartsPerHour;
      }
      case 'reboot':
        return this.count(serial, 'reboot', day) < this.limits.rebootsPerDay;
      case 'power_cycle':
        return context.canPowerCycle;
      case 'reconnect':
      case 'restart_reader':
      case 'adb_reconnect':
      case 'replug_task':
        return true;
    }
  }

  private record(serial: string, rung: RecoveryRung): void {
    const at = this.now();
    const rungs = this.used.get(serial) ?? new Map<RecoveryRung, number[]>();
    // Keep a day of history: the longest limit looks back a day.
    rungs.set(rung, [...(rungs.get(rung) ?? []).filter((time) => time > at - day), at]);
    this.used.set(serial, rungs);
    if (rung === 'restart_adb_server') this.adbServerRestarts = [...this.adbServerRestarts.filter((time) => time > at - hour), at];
  }
}
