/**
 * A farm host: a PC with phones on USB (or a set of simulated phones). It keeps one control connection to the
 * console, and one connection per phone it sees, speaking for that phone with the host's credential and the phone's
 * serial: a phone plugged in appears in the console (registered by serial on first sight); one whose transport goes
 * (offline, or unplugged) shows "Reconnecting" while the host waits for it, then goes offline; one that stops
 * answering goes offline at once. Each phone keeps its own journal in the state folder.
 *
 * This file owns the control connection, what adb's events mean for the phones and holding their work; the phones
 * it speaks for (attached, bound again when one comes back, let go) are `host.phones.ts`, its simulated phones
 * `host.sim.ts`, fleet health `host.fleet.ts`, app jobs `host.apps.ts`, phone settings `host.settings.ts`.
 */
import { hostname } from 'node:os';
import { io, type Socket } from 'socket.io-client';
import { AdbHost, type AdbHostEvent, type AdbHostOptions } from '../adb/adb.host.ts';
import type { AdbPhone } from '../adb/adb.phone.ts';
import { scrcpyServerOnce } from '../adb/adb.scrcpy.ts';
import type { ServerToHost } from '../fleet/fleet.messages.ts';
import { hostFleetSettings } from '../fleet/fleet.messages.ts';
import { AGENT_NAMESPACE, type Ack, type HostToServer } from '../messages.ts';
import type { RecipeRunOptions } from '../recipes/recipe.runner.ts';
import type { DeviceBackend } from '../agent/device-backend.ts';
import { FleetHealth, type FleetHealthOptions } from './host.fleet.ts';
import { HostPhones } from './host.phones.ts';
import { HostApps, simulatedPackagePhone, type HostAppsOptions } from './host.apps.ts';
import { setPhoneSettings } from './host.settings.ts';
import { simulatedPhone, simulateLife } from './host.sim.ts';
import type { PackagePhone } from '../adb/adb.packages.ts';
import type { PhoneAgent } from '../agent/phone-agent.ts';
import type { AgentState } from '../agent/state.ts';

export const AGENT_VERSION = 'farm-agent/2';

export interface FarmHostOptions {
  server: string;
  /** The host's credential. */
  token: string;
  state: AgentState;
  backend: 'adb' | 'sim';
  /** Simulated phones to run (sim backend). */
  devices?: number;
  adbHost?: string;
  adbPort?: number;
  /**
   * The live screen as H.264: `SCRCPY_SERVER` (a path to scrcpy-server v3.1), else downloaded once into the state
   * folder; every file is checked against the pinned SHA-256. `false` keeps every phone on JPEG frames.
   */
  scrcpyServer?: string | false;
  /** A screenshot of each phone this often (0: on command only). */
  screenshotMs?: number;
  recipeOptions?: Pick<RecipeRunOptions, 'random' | 'clock' | 'pollMs' | 'busyPauseMs'>;
  /** How the host tracks adb (tests shorten the probe and name no adb program to start). */
  adb?: Pick<AdbHostOptions, 'adbBin' | 'probeMs' | 'reconnectMs'>;
  /** App jobs' limits and how often their progress is sent (tests scale them). */
  apps?: Pick<HostAppsOptions, 'limits' | 'progressMs'>;
  /** How long a phone whose transport went is waited for (shown "Reconnecting") before it is let go; 60 s by default. */
  returnWaitMs?: number;
  /** Fleet health's rhythm and limits (tests scale them down). */
  fleet?: Pick<FleetHealthOptions, 'checkMs' | 'vitalsMs' | 'health' | 'boot' | 'rungMs' | 'sysRoot'>;
  log?: (line: string) => void;
  /** Told when the console refuses the host (its credential was revoked). */
  onRefused?: (reason: string) => void;
}

export class FarmHost {
  private readonly control: Socket<ServerToHost, HostToServer>;
  private readonly phones: HostPhones;
  private readonly stops: (() => void | Promise<void>)[] = [];
  /** How app jobs reach a phone: adb's phone once adb runs, a simulated package manager for simulated phones. */
  private packagePhone: (serial: string) => PackagePhone | undefined = (serial) => (this.phones.has(serial) ? simulatedPackagePhone() : undefined);

  constructor(private readonly options: FarmHostOptions) {
    this.phones = new HostPhones({
      server: options.server,
      token: options.token,
      state: options.state,
      agentVersion: AGENT_VERSION,
      ...(options.screenshotMs ? { screenshotMs: options.screenshotMs } : {}),
      ...(options.recipeOptions ? { recipeOptions: options.recipeOptions } : {}),
      ...(options.returnWaitMs !== undefined ? { returnWaitMs: options.returnWaitMs } : {}),
      log: (line) => this.log(line),
    });
    this.control = io(new URL(AGENT_NAMESPACE, options.server).toString(), {
      transports: ['websocket'],
      auth: { hostToken: options.token },
      reconnectionDelayMax: 10_000,
    });
    this.control.on('connect', () => this.hello());
    const apps = new HostApps({
      server: options.server,
      token: options.token,
      dir: `${options.state.mediaDir}/apps`,
      phone: (serial) => this.packagePhone(serial),
      send: (name, message) => (this.control as unknown as Socket).emit(name, message),
      progress: (message) => (this.control as unknown as Socket).emit('host.app-progress', message),
      // The phone's agent: an install waits for its running task and holds it from new ones.
      work: (serial) => this.phones.agent(serial),
      ...options.apps,
      log: (line) => this.log(line),
    });
    this.control.on('app.run', (job, ack) => apps.take(job, ack));
    this.control.on('connect_error', (error) => {
      this.log(`cannot connect: ${error.message}`);
      if (error.message === 'unauthorized')
        options.onRefused?.("This host's credential is not valid any more (was it revoked?). Enroll it again with a new code.");
    });
  }

  /** Says what the host is and can do on its control connection. */
  private hello(): void {
    const { options } = this;
    this.control.emit(
      'host.hello',
      {
        agentVersion: AGENT_VERSION,
        hostname: hostname().slice(0, 200),
        backend: options.backend,
        phones: this.phones.size,
        // Settings are adb shell commands: simulated phones have none to set. Apps install on either.
        features: [...(options.backend === 'adb' ? (['phone-settings'] as const) : []), 'apps' as const],
      },
      (answer: Ack) => {
        if (answer.ok) this.log(`connected to ${options.server} as host ${String(answer.hostName ?? '')}`);
      },
    );
  }

  /** Starts seeing phones: the simulated ones at once, or every phone adb lists, as they come and go. */
  async start(): Promise<void> {
    if (this.options.backend === 'sim') return this.startSimulated();
    const scrcpy = this.options.scrcpyServer;
    const adb = new AdbHost({
      ...this.options.adb,
      ...(this.options.adbHost ? { adbHost: this.options.adbHost } : {}),
      ...(this.options.adbPort ? { adbPort: this.options.adbPort } : {}),
      phone: {
        mediaRoot: this.options.state.mediaDir,
        ...(scrcpy !== false ? { scrcpyServer: scrcpyServerOnce({ path: scrcpy }) } : {}),
      },
    });
    const off = adb.on((event) => this.adbEvent(adb, event));
    this.stops.push(off, () => adb.stop());
    this.packagePhone = (serial) => adb.phone(serial) ?? undefined;
    await adb.start();
    await this.startFleet(adb);
  }

  private async startSimulated(): Promise<void> {
    const count = this.options.devices ?? 5;
    for (let index = 1; index <= count; index += 1) {
      const ui = simulatedPhone(index);
      this.stops.push(simulateLife(ui));
      await this.phones.take(ui, { onStep: (label) => (ui.caption = label) });
    }
  }

  /**
   * A phone adb sees comes (it is attached), comes back on a new phone object (its agent drives that one: adb closed
   * the old one when it went offline or was reopened), goes offline or leaves adb's list (it is waited for), or stops
   * answering (it is let go); the rest is logged.
   */
  private adbEvent(adb: AdbHost, event: AdbHostEvent): void {
    const failed = (error: unknown) => this.log(`${event.type === 'server' ? 'adb' : event.serial}: ${error instanceof Error ? error.message : String(error)}`);
    switch (event.type) {
      case 'ready':
        this.log(`${event.serial}: ${event.info.manufacturer} ${event.info.model}, Android ${event.info.androidVersion}`);
        void this.phones.take(event.phone, { info: event.info, uptimeMs: () => uptimeMs(event.phone) }).catch(failed);
        return;
      case 'responsive': {
        const phone = adb.phone(event.serial);
        if (phone) void this.phones.take(phone).catch(failed);
        return;
      }
      case 'detached':
        this.log(`${event.serial}: gone from adb's list; waiting for it to come back`);
        void this.phones.away(event.serial, 'gone');
        return;
      case 'unresponsive':
        this.log(`${event.serial}: not answering (${event.reason})`);
        void this.phones.leave(event.serial);
        return;
      case 'state':
        if (event.state === 'unauthorized') this.log(`${event.serial}: waiting for "Allow USB debugging" on the phone`);
        if (event.state === 'offline') this.log(`${event.serial}: offline (adb lost its connection); waiting for it to come back`);
        // adb closed the phone's object: whatever the state, the host waits for it to be a device again.
        if (event.state !== 'device') void this.phones.away(event.serial, 'offline');
        return;
      case 'server':
        this.log(event.connected ? 'adb server connected' : `adb server not reachable${event.error ? `: ${event.error}` : ''}`);
        return;
      case 'attached':
        return;
    }
  }

  /** Health checks, vitals, the recovery ladder and the USB bus for the host's adb phones (`host.fleet.ts`). */
  private async startFleet(adb: AdbHost): Promise<void> {
    const fleet = new FleetHealth({
      ...this.options.fleet,
      adb,
      // The ladder's memory lives beside the phones' journals, so a restarted host keeps its counts.
      stateDir: this.options.state.dir,
      adbHost: this.options.adbHost ?? '127.0.0.1',
      adbPort: this.options.adbPort ?? 5037,
      send: (name, message) => (this.control as unknown as Socket).emit(name, message),
      isIdle: (serial) => this.phones.backend(serial)?.state().status !== 'busy',
      gate: {
        pause: (waitMs) => this.hold(waitMs),
        // The phones come back through adb's events (ready → attached, or bound again with a new UI reader and streams).
        resume: async () => this.release(),
      },
      restartReader: async (serial) => {
        const phone = adb.phone(serial);
        // The screen source too: its streams end, and the phone's agent starts them again while someone watches.
        await phone?.restartScreen();
        const server = phone?.uiServer;
        if (!server) return;
        await server.stop();
        await server.start();
      },
      log: (line) => this.log(line),
    });
    const off = adb.on((event) => {
      if (event.type === 'detached') fleet.phoneLeft(event.serial);
      if (event.type === 'ready') fleet.phoneArrived(event.serial);
    });
    this.control.on('host.settings', (raw) => {
      const parsed = hostFleetSettings.safeParse(raw);
      if (parsed.success) void fleet.apply(parsed.data);
      else this.log(`ignored fleet settings the server sent: ${parsed.error.issues[0]?.message ?? 'not valid'}`);
    });
    this.control.on('host.phone-settings', (raw, ack) => {
      void setPhoneSettings(adb, raw, (line) => this.log(line)).then((answer) => (typeof ack === 'function' ? ack(answer) : undefined));
    });
    this.stops.push(off, () => fleet.stop());
    await fleet.start();
  }

  /**
   * Before the adb server restarts: every phone stops taking work (the server is told on each phone's connection, so
   * it hands none out), running tasks get up to `waitMs` to end, and those still running then are cut off and
   * reported `device_offline`, which the server tries again once the phones are back. Resolves when each cut-off
   * result was sent (or written down for the phone's next connection).
   */
  async hold(waitMs: number, cutOffMs = 10_000): Promise<void> {
    this.phones.hold(true);
    const busy = () => this.phones.busy();
    const until = Date.now() + waitMs;
    while (Date.now() < until && busy().length > 0) await sleep(Math.min(500, Math.max(10, until - Date.now())));
    const cut = busy();
    this.log(`restarting the adb server (${cut.length} ${cut.length === 1 ? 'task' : 'tasks'} cut off)`);
    const message = 'The farm host restarted its adb server while this task ran; it goes out again once the phone is back.';
    await Promise.race([Promise.all(cut.map((agent) => agent.cutOff('device_offline', message))), sleep(cutOffMs)]);
  }

  /** After the adb server restart: the phones take work again (those that came back meanwhile were held too). */
  release(): void {
    this.phones.hold(false);
  }

  /** The phones this host speaks for now. */
  get serials(): string[] {
    return this.phones.serials;
  }

  agent(serial: string): PhoneAgent | undefined {
    return this.phones.agent(serial);
  }

  /** The backend that drives the phone now (its `phone` is the object adb gave for the phone's current connection). */
  backend(serial: string): DeviceBackend | undefined {
    return this.phones.backend(serial);
  }

  async close(): Promise<void> {
    for (const stop of this.stops.splice(0)) await stop();
    await this.phones.close();
    this.control.disconnect();
  }

  private log(line: string): void {
    this.options.log?.(line);
  }
}

/** How long the phone has been up (`/proc/uptime`'s first number), or null when it cannot be read. */
async function uptimeMs(phone: AdbPhone): Promise<number | null> {
  const seconds = Number.parseFloat((await phone.exec('cat /proc/uptime', 5000)).trim().split(/\s+/)[0] ?? '');
  return Number.isFinite(seconds) ? Math.round(seconds * 1000) : null;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
