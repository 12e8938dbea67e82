/**
 * A farm host's fleet health over adb: checks every listed phone each round (and climbs the recovery ladder for one
 * that fails), reads vitals on a longer interval, reads the USB tree and its capacity warnings, checks that uhubctl
 * may write, runs the scheduled restart, and reports all of it on the host's control connection. Settings come from
 * the server (`host.settings`) and apply at once, to the one ladder the host keeps for its life: changing a limit
 * never clears what the ladder remembers, and that memory is written to the host's state folder.
 */
import type { AdbHost } from '../adb/adb.host.ts';
import { adbRecoveryActions, checkUhubctl } from '../fleet/fleet.adb.ts';
import { defaultHostFleetSettings, type FleetHostMessage, type FleetHostMessageName, type HostFleetSettings } from '../fleet/fleet.messages.ts';
import type { BootLimits } from '../fleet/fleet.boot.ts';
import { fileMemoryStore, fleetMemoryFile, type FleetMemoryStore } from '../fleet/fleet.memory.ts';
import { FleetRecovery, type HealthLimits, type UsbPlace, type WorkGate } from '../fleet/fleet.recovery.ts';
import { capacityWarnings, readUsbTree, uhubctlLocation, type UsbTree } from '../fleet/fleet.usb.ts';

export interface FleetHealthOptions {
  adb: AdbHost;
  adbHost: string;
  adbPort: number;
  adbBin?: string;
  send: <N extends FleetHostMessageName>(name: N, message: FleetHostMessage<N>) => void;
  /** Whether the phone runs no task now (for the scheduled restart). */
  isIdle: (serial: string) => boolean;
  gate: WorkGate;
  /** Restarts the phone's UI reader (and, through the host, its screen source). */
  restartReader: (serial: string) => Promise<void>;
  checkMs?: number;
  vitalsMs?: number;
  /** Each check's time limit (5 s shell, 15 s UI reader, 10 s frame by default). */
  health?: HealthLimits;
  /** A rebooted phone's boot limit and the scheduled restart's batch (5 min, 4 at a time by default). */
  boot?: BootLimits;
  /** How long one rung may take before it counts failed (2 min by default). */
  rungMs?: number;
  /** The host's state folder: the ladder's memory is kept there across restarts of the host. */
  stateDir?: string;
  /** Where the memory is kept instead (tests); neither: it lasts as long as the process. */
  memory?: FleetMemoryStore;
  sysRoot?: string;
  log?: (line: string) => void;
}

/** Loopback names: an adb server there is this machine's, which the host can start again after killing it. */
const loopback = new Set(['127.0.0.1', 'localhost', '::1']);

export class FleetHealth {
  private settings: HostFleetSettings = defaultHostFleetSettings;
  private readonly recovery: FleetRecovery;
  private tree: UsbTree | null = null;
  private uhubctlProblem: string | null = null;
  private readonly timers: NodeJS.Timeout[] = [];
  private rounding = false;

  constructor(private readonly options: FleetHealthOptions) {
    this.recovery = this.build();
    if (this.remoteAdb()) this.options.log?.(this.remoteAdb() ?? '');
  }

  /** Why the adb server cannot be restarted from here, or null when it runs on this machine. */
  private remoteAdb(): string | null {
    const { adbHost, adbPort } = this.options;
    if (loopback.has(adbHost)) return null;
    return `The adb server runs at ${adbHost}:${adbPort}, on another machine: this host cannot start it again after a restart, so it leaves it running. Restart it on that machine if its phones fail together.`;
  }

  private build(): FleetRecovery {
    const { adb } = this.options;
    const actions = adbRecoveryActions({
      server: { host: this.options.adbHost, port: this.options.adbPort },
      ...(this.options.adbBin ? { adbBin: this.options.adbBin } : {}),
      reopen: (serial) => adb.reopen(serial),
      restartReader: this.options.restartReader,
      shell: async (serial, command, timeoutMs) => {
        const phone = adb.phone(serial);
        if (!phone) throw new Error('adb lists the phone but it has no open transport.');
        return phone.exec(command, timeoutMs);
      },
      uiReader: async (serial) => {
        const phone = adb.phone(serial);
        if (!phone) throw new Error('adb lists the phone but it has no open transport.');
        await phone.uiReader();
      },
      frame: async (serial, timeoutMs) => {
        const phone = adb.phone(serial);
        if (!phone) throw new Error('adb lists the phone but it has no open transport.');
        // A screenshot the phone gave since the last round, within the check's limit, shows its screen is captured
        // (its agent takes one every 15 s by default): another now would cost the phone and the host the same again.
        const shot = phone.lastScreenshot;
        if (shot && Date.now() - shot.at < (this.options.checkMs ?? 30_000) && shot.tookMs <= timeoutMs) return;
        await phone.screenshot({ maxSide: 320, quality: 40 });
      },
    });
    const stateDir = this.options.stateDir;
    const memory = this.options.memory ?? (stateDir ? fileMemoryStore(fleetMemoryFile(stateDir), (line) => this.options.log?.(line)) : undefined);
    return new FleetRecovery({
      actions,
      report: {
        health: (result) => this.options.send('host.health', result),
        vitals: (report) =>
          this.options.send('host.vitals', {
            serial: report.serial,
            batteryLevel: report.batteryLevel,
            temperatureC: report.temperatureC,
            batteryHealth: report.batteryHealth,
            freeBytes: report.disk?.freeBytes ?? null,
            totalBytes: report.disk?.totalBytes ?? null,
            uptimeSeconds: report.uptimeSeconds,
            androidVersion: report.androidVersion,
            appVersions: report.appVersions,
            alerts: report.alerts,
          }),
        rung: (report) => {
          this.options.log?.(`${report.serial}: recovery ${report.rung} ${report.outcome}${report.detail ? ` (${report.detail})` : ''}`);
          this.options.send('host.recovery', { serial: report.serial, rung: report.rung, outcome: report.outcome, detail: report.detail, place: report.place });
        },
      },
      place: (serial) => this.place(serial),
      // Read at each use: settings change while the ladder keeps its memory.
      powerCycleReady: () => this.settings.uhubctl.enabled && this.uhubctlProblem === null,
      gate: this.options.gate,
      ladder: this.settings.ladder,
      adbServerRemote: this.remoteAdb(),
      ...(memory ? { memory } : {}),
      ...(this.options.boot ? { boot: this.options.boot } : {}),
      ...(this.options.rungMs ? { rungMs: this.options.rungMs } : {}),
      ...(this.options.health ? { health: this.options.health } : {}),
      apps: ['com.instagram.android', 'com.zhiliaoapp.musically', 'com.google.android.youtube'],
    });
  }

  private place(serial: string): UsbPlace | null {
    const device = this.tree?.devices.find((item) => item.serial === serial);
    if (!device) return null;
    const wanted = uhubctlLocation(this.settings.uhubctl.hubLocation);
    // With a hub set, only phones on that hub (or hubs below it) are power-cycled.
    if (wanted && device.hubLocation !== wanted && !device.hubLocation.startsWith(wanted.includes('-') ? `${wanted}.` : `${wanted}-`)) return null;
    return { hubLocation: device.hubLocation, port: device.port };
  }

  async start(): Promise<void> {
    await this.refreshUsb();
    this.timers.push(setInterval(() => void this.round(), this.options.checkMs ?? 30_000));
    this.timers.push(setInterval(() => void this.readAllVitals(), this.options.vitalsMs ?? 5 * 60_000));
    this.timers.push(setInterval(() => void this.scheduled(), 60_000));
    for (const timer of this.timers) timer.unref();
  }

  stop(): void {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
  }

  /** New settings from the server: the ladder's limits change, what it remembers (counts, episodes, boots) stays. */
  async apply(settings: HostFleetSettings): Promise<void> {
    this.settings = settings;
    this.recovery.setLadderLimits(settings.ladder);
    await this.refreshUsb();
  }

  /** The phone left adb's list: not checked while away, remembered for when it comes back. */
  phoneLeft(serial: string): void {
    this.recovery.left(serial);
    void this.refreshUsb();
  }

  /**
   * A phone came (or came back): the USB tree is read again, and its uptime at once, so a phone rebooting in a loop
   * is seen at each boot rather than at the next vitals round, which may come after several.
   */
  phoneArrived(serial?: string): void {
    void this.refreshUsb();
    if (serial) void this.recovery.readVitals(serial).catch(() => undefined);
  }

  /** Reads the USB tree, checks uhubctl where it is on, and reports both with the capacity warnings. */
  async refreshUsb(): Promise<void> {
    try {
      this.tree = await readUsbTree(this.options.sysRoot ?? '/sys');
    } catch (error) {
      this.options.log?.(`cannot read the USB tree: ${error instanceof Error ? error.message : String(error)}`);
      this.tree = null;
    }
    const { uhubctl } = this.settings;
    this.uhubctlProblem = null;
    const serials = this.options.adb.list().map((device) => device.serial);
    if (uhubctl.enabled) {
      // No hub set: the hub of a phone the host sees (a root hub, `1`, for a phone on a motherboard port), or every
      // hub uhubctl can switch when no phone is placed yet.
      const placed = this.tree?.devices.find((device) => serials.includes(device.serial))?.hubLocation ?? null;
      const check = await checkUhubctl(uhubctlLocation(uhubctl.hubLocation) || placed);
      this.uhubctlProblem = check.ok ? null : check.problem;
    }
    const tree = this.tree ?? { controllers: [], hubs: [], devices: [] };
    const listed = new Set(serials);
    this.options.send('host.usb', {
      controllers: tree.controllers.map((controller) => ({ id: controller.id, kind: controller.kind, driver: controller.driver })),
      phones: tree.devices
        .filter((device) => listed.has(device.serial))
        .map((device) => ({ serial: device.serial, controllerId: device.controllerId, hubLocation: device.hubLocation, port: device.port })),
      warnings: capacityWarnings(tree, serials, this.settings.capacity),
      uhubctl: { enabled: uhubctl.enabled, problem: this.uhubctlProblem },
    });
  }

  /** One round: every phone adb lists as a device is checked; each failing phone gets its next rung. */
  async round(): Promise<void> {
    if (this.rounding) return;
    this.rounding = true;
    try {
      // A phone the host is working on (a rung under way, a reboot not booted yet) is not checked meanwhile.
      const listed = this.options.adb.list().filter((device) => device.state === 'device' && !this.recovery.busy(device.serial));
      await Promise.all(listed.map((device) => this.recovery.check(device.serial)));
      for (const serial of this.recovery.waiting()) await this.recovery.recover(serial);
    } finally {
      this.rounding = false;
    }
  }

  private async readAllVitals(): Promise<void> {
    const failing = new Set(this.recovery.unresponsive().map((item) => item.serial));
    for (const device of this.options.adb.list()) {
      if (device.state !== 'device' || failing.has(device.serial) || this.recovery.busy(device.serial)) continue;
      await this.recovery.readVitals(device.serial).catch(() => undefined);
    }
  }

  private async scheduled(): Promise<void> {
    const serials = this.options.adb
      .list()
      .filter((device) => device.state === 'device')
      .map((device) => device.serial);
    await this.recovery.scheduledRestart(this.settings.scheduledRestart, serials, this.options.isIdle);
  }
}
