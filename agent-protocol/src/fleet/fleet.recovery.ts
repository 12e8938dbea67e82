/**
 * What a farm host does for its phones' health: it checks each listed phone (a shell echo, the UI reader, a frame,
 * each within a limit), reads their vitals on an interval, and climbs the recovery ladder (`fleet.ladder.ts`) for a
 * phone that fails, doing each rung for real through `RecoveryActions` (adb and uhubctl in `fleet.adb.ts`) and
 * reporting every check, reading and rung so the console can show it. Nothing here loops: a phone whose rungs are
 * spent waits for a person (the replug task) and is not touched again until it answers.
 */
import { defaultLadderLimits, RecoveryLadder, type LadderLimits, type RecoveryRung } from './fleet.ladder.ts';
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
  /** Phones being worked on right now: one rung at a time per phone. */
  private readonly climbing = new Set<string>();
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
    this.boots = new BootWatch(this.vitalsLimits);
  }

  /** The phones failing now, with what failed. */
  unresponsive(): HealthResult[] {
    return [...this.failing.values()];
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

  /** The phone left the host: its failures, ladder and boots are forgotten. */
  forget(serial: string): void {
    this.failing.delete(serial);
    this.ladder.forget(serial);
    this.boots.forget(serial);
    this.raised.delete(serial);
  }

  /**
   * Takes the next rung for a failing phone, reports it and answers it; null when the phone is well, a rung is already
   * under way for it, or its rungs are spent (the person was asked).
   */
  async recover(serial: string): Promise<RungReport | null> {
    if (!this.failing.has(serial) || this.climbing.has(serial)) return null;
    const place = this.options.place?.(serial) ?? null;
    const rung = this.ladder.next(serial, {
      failingTogether: this.failing.size,
      canPowerCycle: place !== null && (this.options.powerCycleReady?.() ?? false),
    });
    if (!rung) return null;
    this.climbing.add(serial);
    let outcome: RecoveryOutcome = 'done';
    let detail: string | null = null;
    try {
      await this.take(serial, rung, place);
    } catch (error) {
      outcome = 'failed';
      detail = describe(error);
    } finally {
      this.climbing.delete(serial);
    }
    const report: RungReport = { serial, rung, outcome, detail, at: this.now(), place: rung === 'replug_task' || rung === 'power_cycle' ? place : null };
    this.options.report.rung(report);
    return report;
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
    const report: VitalsReport = { serial, ...vitals, androidVersion: android, appVersions, alerts: fresh, readAt: now };
    this.options.report.vitals(report);
    return report;
  }

  /**
   * The scheduled restart, when its time came today and it did not run yet: reboots each phone `isIdle` says is idle
   * (all of them when the policy is not idle-only) and answers the serials rebooted. Call it once a minute.
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
    const rebooted: string[] = [];
    for (const serial of serials) {
      if (policy.idleOnly && !isIdle(serial)) continue;
      let outcome: RecoveryOutcome = 'done';
      let detail: string | null = 'Scheduled restart.';
      try {
        await this.options.actions.reboot(serial);
        rebooted.push(serial);
      } catch (error) {
        outcome = 'failed';
        detail = `Scheduled restart: ${describe(error)}`;
      }
      this.options.report.rung({ serial, rung: 'reboot', outcome, detail, at: this.now(), place: null });
    }
    return rebooted;
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

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
