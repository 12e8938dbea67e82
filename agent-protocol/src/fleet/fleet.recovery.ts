/**
 * What a farm host does for its phones' health: it checks each listed phone (a shell echo, the UI reader, a frame,
 * each within a limit), reads their vitals on an interval, and climbs the recovery ladder (`fleet.ladder.ts`) for a
 * phone that fails, doing each rung for real through `RecoveryActions` (adb and uhubctl in `fleet.adb.ts`) and
 * reporting every check, reading and rung so the console can show it. Nothing here loops: a phone whose rungs are
 * spent waits for a person (the replug task) and is not touched again until it answers.
 *
 * A rebooted phone is waited for: the reboot rung ends when the phone says `sys.boot_completed` is 1 (or, past the
 * boot limit, it ends failed and the phone counts as not recovered); it is not checked, and gets no other rung, until
 * then. The ladder's memory and the boots seen are kept per serial across the phone leaving and coming back, and in
 * the host's state folder across a restart of the host (`fleet.memory.ts`).
 */
import { defaultLadderLimits, RecoveryLadder, type LadderLimits, type RecoveryRung } from './fleet.ladder.ts';
import type { FleetMemoryStore } from './fleet.memory.ts';
import { bootCompleted, staggeredReboots, type BootLimits, defaultBootLimits } from './fleet.boot.ts';
import {
  BootWatch,
  defaultVitalsLimits,
  judgeVitals,
  parseBatteryHealth,
  parseDf,
  parseUptime,
  type PhoneVitals,
  type VitalsAlert,
  type VitalsLimits,
} from './fleet.vitals.ts';

/** One of the three health checks. */
export type HealthCheck = 'shell' | 'ui_reader' | 'frame';

export interface HealthResult {
  serial: string;
  ok: boolean;
  /** The checks that failed, each with what went wrong; empty when the phone is well. */
  failed: { check: HealthCheck; error: string }[];
  /** One sentence for the console ("The shell did not answer within 5 s."), null when well. */
  reason: string | null;
}

/** Where a phone hangs on the USB bus, for uhubctl and for the person asked to replug it. */
export interface UsbPlace {
  hubLocation: string;
  port: number;
}

/** The work behind each check and each rung; the host gives the adb-backed one, the tests a fake. */
export interface RecoveryActions {
  /** Runs one shell command on the phone and answers its output. */
  shell(serial: string, command: string, timeoutMs: number): Promise<string>;
  /** Asks the phone's UI reader for an answer (its status, or a dump where it has no server). */
  uiReader(serial: string, timeoutMs: number): Promise<void>;
  /** Takes one frame of the screen. */
  frame(serial: string, timeoutMs: number): Promise<void>;
  /** Rung `reconnect`: drops and reopens the host's transport to the phone. */
  reconnect(serial: string): Promise<void>;
  /** Rung `restart_reader`: restarts the phone's UI reader. */
  restartReader(serial: string): Promise<void>;
  /** Rung `adb_reconnect`: the adb server drops and re-enumerates the phone (`host-serial:<serial>:reconnect`). */
  adbReconnect(serial: string): Promise<void>;
  /** Rung `restart_adb_server`: `host:kill`, then the server is started again. */
  restartAdbServer(): Promise<void>;
  /** Rung `reboot`. */
  reboot(serial: string): Promise<void>;
  /** Rung `power_cycle`: `uhubctl -l <hub> -p <port> -a cycle`. */
  powerCycle(place: UsbPlace): Promise<void>;
}

/** Around an adb server restart the host stops taking work and waits for running tasks, then restores its phones. */
export interface WorkGate {
  /** Stop taking work; resolves when running tasks ended or `waitMs` passed (tasks still running are cut off). */
  pause(waitMs: number): Promise<void>;
  /** Take work again and restore the phones' UI readers and streams. */
  resume(): Promise<void>;
}

/** When the host reboots its idle phones on its own, e.g. each night at 04:00. Off unless turned on. */
export interface ScheduledRestartPolicy {
  enabled: boolean;
  /** Local time of day, 0..23 and 0..59. */
  hour: number;
  minute: number;
  /** Only phones running no task are rebooted (a busy phone waits for the next night). */
  idleOnly: boolean;
}

export const defaultScheduledRestart: ScheduledRestartPolicy = { enabled: false, hour: 4, minute: 0, idleOnly: true };

export interface HealthLimits {
  shellMs: number;
  uiReaderMs: number;
  frameMs: number;
}

export const defaultHealthLimits: HealthLimits = { shellMs: 5_000, uiReaderMs: 15_000, frameMs: 10_000 };

/** A reading of a phone's vitals as the host reports it. */
export interface VitalsReport extends PhoneVitals {
  serial: string;
  androidVersion: string | null;
  appVersions: Record<string, string>;
  alerts: VitalsAlert[];
  readAt: number;
}

export type RecoveryOutcome = 'done' | 'failed' | 'skipped';

/** One rung taken and how it went. */
export interface RungReport {
  serial: string;
  rung: RecoveryRung;
  outcome: RecoveryOutcome;
  /** What went wrong doing it, or why it was skipped. */
  detail: string | null;
  at: number;
  /** For the replug task: where the phone hangs. */
  place: UsbPlace | null;
}

export interface FleetReporter {
  health(result: HealthResult): void;
  vitals(report: VitalsReport): void;
  rung(report: RungReport): void;
}

export interface FleetRecoveryOptions {
  actions: RecoveryActions;
  report: FleetReporter;
  /** Where a phone hangs, from the host's USB tree; null when unknown. */
  place?: (serial: string) => UsbPlace | null;
  /** uhubctl is turned on for this host and was found able to write. */
  powerCycleReady?: () => boolean;
  gate?: WorkGate;
  ladder?: LadderLimits;
  health?: HealthLimits;
  vitals?: VitalsLimits;
  /** Packages whose version is reported with the vitals (the apps the farm works in). */
  apps?: readonly string[];
  /** How long the host waits for running tasks before restarting the adb server. */
  drainMs?: number;
  /** How long a rebooted phone may take to finish booting, how often it is asked, how many reboot at once. */
  boot?: BootLimits;
  /**
   * Set when the adb server runs on another machine (`adb -H`): a restart could stop it but not start it again, so
   * the rung is reported skipped with this sentence instead of tried.
   */
  adbServerRemote?: string | null;
  /** Where the ladder's memory and the boots seen are kept across host restarts. */
  memory?: FleetMemoryStore;
  /**
   * How long one rung may take (2 min by default; restarting a UI reader on a stuck phone can hang): past it, the rung
   * is reported failed and the next round climbs on, instead of the phone waiting on it for ever.
   */
  rungMs?: number;
  now?: () => number;
}

const shellCommands = {
  battery: 'dumpsys battery',
  df: 'df /data',
  uptime: 'cat /proc/uptime',
  android: 'getprop ro.build.version.release',
};

export class FleetRecovery {
  readonly ladder: RecoveryLadder;
  private readonly failing = new Map<string, HealthResult>();
  /** Phones being worked on right now: one rung at a time per phone (and phones the scheduled restart reboots). */
  private readonly climbing = new Set<string>();
  /** Phones rebooted by the ladder and not yet booted: when, and until when they are waited for. */
  private readonly booting = new Map<string, { since: number; until: number }>();
  private readonly bootLimits: BootLimits;
  private savedMemory = '';
  private readonly boots: BootWatch;
  private readonly now: () => number;
  private readonly limits: HealthLimits;
  private readonly vitalsLimits: VitalsLimits;
  /** Alerts already reported per phone, so one overheating phone is one alert until it cools down. */
  private readonly raised = new Map<string, Set<string>>();
  private lastScheduledDay: string | null = null;

  constructor(private readonly options: FleetRecoveryOptions) {
    this.now = options.now ?? Date.now;
    this.ladder = new RecoveryLadder(options.ladder ?? defaultLadderLimits, this.now);
    this.limits = options.health ?? defaultHealthLimits;
    this.vitalsLimits = options.vitals ?? defaultVitalsLimits;
    this.bootLimits = options.boot ?? defaultBootLimits;
    this.boots = new BootWatch(this.vitalsLimits);
    const stored = options.memory?.load();
    if (stored) {
      this.ladder.restore(stored.ladder);
      this.boots.restore(stored.boots);
    }
    this.ladder.onChange = () => this.persist();
  }

  /** New ladder limits from the host's settings; what the ladder remembers stays. */
  setLadderLimits(limits: LadderLimits): void {
    this.ladder.setLimits(limits);
  }

  /** Writes the ladder's memory and the boots seen, when they changed since last written. */
  private persist(): void {
    const store = this.options.memory;
    if (!store) return;
    const now = this.now();
    const memory = { version: 1 as const, ladder: this.ladder.snapshot(), boots: this.boots.snapshot(now) };
    const text = JSON.stringify(memory);
    if (text === this.savedMemory) return;
    this.savedMemory = text;
    store.save(memory);
  }

  /** Whether the host is working on the phone now (a rung under way, a reboot not yet booted): not to be checked. */
  busy(serial: string): boolean {
    return this.climbing.has(serial) || this.booting.has(serial);
  }

  /** The phones failing now, with what failed. */
  unresponsive(): HealthResult[] {
    return [...this.failing.values()];
  }

  /** The phones the ladder has work for: failing, or rebooted and not yet booted (even while adb does not list them). */
  waiting(): string[] {
    return [...new Set([...this.failing.keys(), ...this.booting.keys()])];
  }

  /** Runs the three checks on a phone; a phone that fails is remembered as unresponsive until it passes again. */
  async check(serial: string, checks: readonly HealthCheck[] = ['shell', 'ui_reader', 'frame']): Promise<HealthResult> {
    const { actions } = this.options;
    const failed: HealthResult['failed'] = [];
    for (const check of checks) {
      try {
        if (check === 'shell') {
          const output = await within(actions.shell(serial, 'echo farm-ok', this.limits.shellMs), this.limits.shellMs, 'The shell');
          if (!output.includes('farm-ok')) throw new Error(`The shell answered "${output.trim().slice(0, 80)}" to an echo.`);
        } else if (check === 'ui_reader') {
          await within(actions.uiReader(serial, this.limits.uiReaderMs), this.limits.uiReaderMs, 'The UI reader');
        } else {
          await within(actions.frame(serial, this.limits.frameMs), this.limits.frameMs, 'The screen');
        }
      } catch (error) {
        failed.push({ check, error: describe(error) });
        // A phone whose shell hangs will hang the rest too: one failure is enough to say it is unresponsive.
        if (check === 'shell') break;
      }
    }
    const result: HealthResult = { serial, ok: failed.length === 0, failed, reason: failed.length === 0 ? null : failed.map((item) => item.error).join(' ') };
    const was = this.failing.get(serial);
    if (result.ok) {
      this.failing.delete(serial);
      this.ladder.recovered(serial);
    } else {
      this.failing.set(serial, result);
    }
    // Report changes only (and each new failure reason), so a phone failing for an hour is not a report a minute.
    if (result.ok ? was !== undefined : was?.reason !== result.reason) this.options.report.health(result);
    return result;
  }

  /**
   * The phone left adb's list (a rung's reboot or reconnect, a loose cable, a person unplugging it). It is not
   * checked while away, but the ladder's counts and episode and its boots stay: it is the same phone when it comes
   * back. A phone the ladder rebooted stays failing until it finished booting.
   */
  left(serial: string): void {
    if (!this.booting.has(serial)) this.failing.delete(serial);
    this.raised.delete(serial);
  }

  /**
   * Takes the next rung for a failing phone, reports it and answers it; null when the phone is well, a rung is already
   * under way for it, or its rungs are spent (the person was asked).
   */
  async recover(serial: string): Promise<RungReport | null> {
    if (this.climbing.has(serial)) return null;
    if (this.booting.has(serial)) return this.awaitBoot(serial);
    if (!this.failing.has(serial)) return null;
    const place = this.options.place?.(serial) ?? null;
    // Phones already waiting for a person are past restarting anything for: they do not make a restart worth it.
    const failingTogether = [...this.failing.keys()].filter((other) => !this.ladder.askedPerson(other)).length;
    const rung = this.ladder.next(serial, { failingTogether, canPowerCycle: place !== null && (this.options.powerCycleReady?.() ?? false) });
    if (!rung) return null;
    this.climbing.add(serial);
    let outcome: RecoveryOutcome = 'done';
    let detail: string | null = null;
    try {
      if (rung === 'restart_adb_server' && this.options.adbServerRemote) {
        outcome = 'skipped';
        detail = this.options.adbServerRemote;
      } else {
        await within(this.take(serial, rung, place), this.options.rungMs ?? 120_000, 'The rung');
      }
    } catch (error) {
      outcome = 'failed';
      detail = describe(error);
    } finally {
      this.climbing.delete(serial);
    }
    // A reboot sent is reported once the phone finished booting (or did not in time): `awaitBoot`.
    if (rung === 'reboot' && outcome === 'done') {
      this.booting.set(serial, { since: this.now(), until: this.now() + this.bootLimits.waitMs });
      return null;
    }
    return this.reportRung({ serial, rung, outcome, detail, at: this.now(), place: rung === 'replug_task' || rung === 'power_cycle' ? place : null });
  }

  private reportRung(report: RungReport): RungReport {
    this.options.report.rung(report);
    return report;
  }

  /**
   * A rebooted phone: asks it whether it finished booting. Booted, the reboot is reported done and the next round
   * checks it; past the limit, the reboot is reported failed and the phone stays failing for the next rung.
   */
  private async awaitBoot(serial: string): Promise<RungReport | null> {
    const boot = this.booting.get(serial);
    if (!boot) return null;
    this.climbing.add(serial);
    try {
      const booted = await bootCompleted(this.options.actions, serial, this.limits.shellMs);
      const now = this.now();
      if (!booted && now < boot.until) return null;
      this.booting.delete(serial);
      const seconds = Math.round((now - boot.since) / 1000);
      if (booted) return this.reportRung({ serial, rung: 'reboot', outcome: 'done', detail: `Booted again in ${seconds} s.`, at: now, place: null });
      this.failing.set(serial, this.failing.get(serial) ?? { serial, ok: false, failed: [], reason: 'It did not finish booting.' });
      const wait = this.bootLimits.waitMs;
      const limit = wait >= 60_000 && wait % 60_000 === 0 ? `${wait / 60_000} min` : formatSeconds(wait);
      return this.reportRung({ serial, rung: 'reboot', outcome: 'failed', detail: `It did not finish booting within ${limit}.`, at: now, place: null });
    } finally {
      this.climbing.delete(serial);
    }
  }

  private async take(serial: string, rung: RecoveryRung, place: UsbPlace | null): Promise<void> {
    const { actions } = this.options;
    switch (rung) {
      case 'reconnect':
        return actions.reconnect(serial);
      case 'restart_reader':
        return actions.restartReader(serial);
      case 'adb_reconnect':
        return actions.adbReconnect(serial);
      case 'restart_adb_server': {
        // Once for every phone failing with this one: the ladder will not offer it again for a while.
        const gate = this.options.gate;
        await gate?.pause(this.options.drainMs ?? 60_000);
        try {
          await actions.restartAdbServer();
        } finally {
          await gate?.resume();
        }
        return;
      }
      case 'reboot':
        return actions.reboot(serial);
      case 'power_cycle':
        if (!place) throw new Error("The phone's hub and port are not known.");
        return actions.powerCycle(place);
      case 'replug_task':
        // The server creates the task from this report; the host has nothing to do but wait.
        return;
    }
  }

  /** Reads a phone's vitals (battery, /data, uptime, Android and app versions) and the alerts they raise. */
  async readVitals(serial: string): Promise<VitalsReport> {
    const limit = this.limits.shellMs;
    const run = (command: string) => within(this.options.actions.shell(serial, command, limit), limit, 'The shell');
    const battery = await run(shellCommands.battery);
    const df = await run(shellCommands.df);
    // toolbox's df (Android 6 and older) takes no path: it prints every mount, /data among them.
    const disk = parseDf(df) ?? parseDf(await run('df'));
    const uptimeSeconds = parseUptime(await run(shellCommands.uptime));
    const android = (await run(shellCommands.android)).trim() || null;
    const appVersions: Record<string, string> = {};
    for (const app of this.options.apps ?? []) {
      const version = /versionName=(\S+)/.exec(await run(`dumpsys package ${app} | grep versionName`))?.[1];
      if (version) appVersions[app] = version;
    }
    const level = /^\s*level:\s*(\d+)\s*$/m.exec(battery)?.[1];
    const temperature = /^\s*temperature:\s*(-?\d+)\s*$/m.exec(battery)?.[1];
    const vitals: PhoneVitals = {
      batteryLevel: level === undefined ? null : Number(level),
      // dumpsys prints tenths of a degree.
      temperatureC: temperature === undefined ? null : Number(temperature) / 10,
      batteryHealth: parseBatteryHealth(battery),
      disk,
      uptimeSeconds,
    };
    const now = this.now();
    const alerts = judgeVitals(vitals, this.vitalsLimits);
    const loop = uptimeSeconds === null ? null : this.boots.see(serial, uptimeSeconds, now);
    const raised = this.raised.get(serial) ?? new Set<string>();
    this.raised.set(serial, raised);
    // An alert is reported when it starts, not again while it lasts; a reboot loop is reported once per loop.
    const fresh = alerts.filter((alert) => !raised.has(alert.kind));
    for (const kind of [...raised]) if (!alerts.some((alert) => alert.kind === kind)) raised.delete(kind);
    for (const alert of fresh) raised.add(alert.kind);
    if (loop) fresh.push(loop);
    this.persist();
    const report: VitalsReport = { serial, ...vitals, androidVersion: android, appVersions, alerts: fresh, readAt: now };
    this.options.report.vitals(report);
    return report;
  }

  /**
   * The scheduled restart, when its time came today and it did not run yet: reboots each phone `isIdle` says is idle
   * (all of them when the policy is not idle-only), a few at a time (`fleet.boot.ts`), and answers the serials
   * rebooted. Call it once a minute.
   */
  async scheduledRestart(
    policy: ScheduledRestartPolicy,
    serials: readonly string[],
    isIdle: (serial: string) => boolean,
    at = new Date(this.now()),
  ): Promise<string[]> {
    if (!policy.enabled) return [];
    const day = `${at.getFullYear()}-${at.getMonth()}-${at.getDate()}`;
    const minutes = at.getHours() * 60 + at.getMinutes();
    const due = policy.hour * 60 + policy.minute;
    // Within the hour after the set time: a host started at 04:30 still restarts tonight, one started at noon does not.
    if (this.lastScheduledDay === day || minutes < due || minutes >= due + 60) return [];
    this.lastScheduledDay = day;
    const chosen = serials.filter((serial) => !this.busy(serial) && (!policy.idleOnly || isIdle(serial)));
    for (const serial of chosen) this.climbing.add(serial);
    try {
      return await staggeredReboots(chosen, this.options.actions, this.bootLimits, this.limits.shellMs, (serial, outcome, detail) =>
        this.reportRung({ serial, rung: 'reboot', outcome, detail, at: this.now(), place: null }),
      );
    } finally {
      for (const serial of chosen) this.climbing.delete(serial);
    }
  }
}

/** `work`, or an error naming `what` when it takes longer than `ms`. */
export async function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${formatSeconds(ms)}.`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
