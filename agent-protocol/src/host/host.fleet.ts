/**
 * A farm host's fleet health over adb: checks every listed phone each round (and climbs the recovery ladder for one
 * that fails), reads vitals on a longer interval, reads the USB tree and its capacity warnings, checks that uhubctl
 * may write, runs the scheduled restart, and reports all of it on the host's control connection. Settings come from
 * the server (`host.settings`) and apply at once.
 */
import type { AdbHost } from '../adb/adb.host.ts';
import { adbRecoveryActions, checkUhubctl } from '../fleet/fleet.adb.ts';
import { defaultHostFleetSettings, type FleetHostMessage, type FleetHostMessageName, type HostFleetSettings } from '../fleet/fleet.messages.ts';
import { FleetRecovery, type HealthLimits, type UsbPlace, type WorkGate } from '../fleet/fleet.recovery.ts';
import { capacityWarnings, readUsbTree, type UsbTree } from '../fleet/fleet.usb.ts';

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
  sysRoot?: string;
  log?: (line: string) => void;
}

export class FleetHealth {
  private settings: HostFleetSettings = defaultHostFleetSettings;
  private recovery: FleetRecovery;
  private tree: UsbTree | null = null;
  private uhubctlProblem: string | null = null;
  private readonly timers: NodeJS.Timeout[] = [];
  private rounding = false;

  constructor(private readonly options: FleetHealthOptions) {
    this.recovery = this.build();
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
      frame: async (serial) => {
        const phone = adb.phone(serial);
        if (!phone) throw new Error('adb lists the phone but it has no open transport.');
        await phone.screenshot({ maxSide: 320, quality: 40 });
      },
    });
    const s = this.settings;
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
      powerCycleReady: () => s.uhubctl.enabled && this.uhubctlProblem === null,
      gate: this.options.gate,
      ladder: { ...s.ladder, adbServerRestartsPerHour: 3 },
      ...(this.options.health ? { health: this.options.health } : {}),
      apps: ['com.instagram.android', 'com.zhiliaoapp.musically', 'com.google.android.youtube'],
    });
  }

  private place(serial: string): UsbPlace | null {
    const device = this.tree?.devices.find((item) => item.serial === serial);
    if (!device) return null;
    const wanted = this.settings.uhubctl.hubLocation;
    // With a hub set, only phones on that hub (or hubs below it) are power-cycled.
    if (wanted && device.hubLocation !== wanted && !device.hubLocation.startsWith(`${wanted}.`)) return null;
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

  /** New settings from the server: the ladder starts over with its limits (counts kept only within a policy). */
  async apply(settings: HostFleetSettings): Promise<void> {
    this.settings = settings;
    this.recovery = this.build();
    await this.refreshUsb();
  }

  phoneLeft(serial: string): void {
    this.recovery.forget(serial);
    void this.refreshUsb();
  }

  phoneArrived(): void {
    void this.refreshUsb();
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
    if (uhubctl.enabled) {
      const check = await checkUhubctl(uhubctl.hubLocation || (this.tree?.hubs[0]?.location ?? '1'));
      this.uhubctlProblem = check.ok ? null : check.problem;
    }
    const serials = this.options.adb.list().map((device) => device.serial);
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
      const listed = this.options.adb.list().filter((device) => device.state === 'device');
      await Promise.all(listed.map((device) => this.recovery.check(device.serial)));
      for (const failing of this.recovery.unresponsive()) await this.recovery.recover(failing.serial);
    } finally {
      this.rounding = false;
    }
  }

  private async readAllVitals(): Promise<void> {
    const failing = new Set(this.recovery.unresponsive().map((item) => item.serial));
    for (const device of this.options.adb.list()) {
      if (device.state !== 'device' || failing.has(device.serial)) continue;
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
