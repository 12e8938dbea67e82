/**
 * A farm host's view of its phones through the adb server (`adb start-server`, 127.0.0.1:5037 by default):
 * which phones are plugged in, which still wait for the PC to be authorised on them, which went offline, and
 * which stopped answering. Everything comes out as one stream of events; `farm-agent host` turns them into
 * devices of the console.
 */
import { createRequire } from 'node:module';
import type { Client } from '@devicefarmer/adbkit';
import { PhoneError, withTimeout, type PhoneInfo } from '../phone/phone.device.ts';
import { AdbPhone, type AdbPhoneOptions } from './adb.phone.ts';

/** What adb says of a device: `device` is ready; `unauthorized` waits for "Allow USB debugging" on the phone. */
export type AdbDeviceState =
  | 'device'
  | 'unauthorized'
  | 'offline'
  | 'authorizing'
  | 'connecting'
  | 'recovery'
  | 'bootloader'
  | 'sideload'
  | 'no permissions'
  | (string & {});

export type AdbHostEvent =
  /** A serial appeared in adb's list (plugged in, or seen when tracking started). */
  | { type: 'attached'; serial: string; state: AdbDeviceState }
  /** A known serial changed state (authorised, went offline, came back). */
  | { type: 'state'; serial: string; state: AdbDeviceState; previous: AdbDeviceState }
  /** An authorised phone answered and said what it is: it can take work. */
  | { type: 'ready'; serial: string; phone: AdbPhone; info: PhoneInfo }
  /** The serial left adb's list: unplugged, or the adb server is gone. */
  | { type: 'detached'; serial: string }
  /** The phone is listed but does not answer commands within their time. */
  | { type: 'unresponsive'; serial: string; reason: string }
  | { type: 'responsive'; serial: string }
  /** The connection to the adb server itself. */
  | { type: 'server'; connected: boolean; error?: string };

export interface AdbHostOptions {
  adbHost?: string;
  adbPort?: number;
  /** The adb program adbkit runs (`adb start-server`) when nothing listens on the port; `adb` from PATH by default. */
  adbBin?: string;
  /** Probe each ready phone this often (a cheap echo) so a silent phone is noticed while idle; 0 turns it off. */
  probeMs?: number;
  /** First wait before reconnecting to a lost adb server; doubles up to 30 s. */
  reconnectMs?: number;
  phone?: AdbPhoneOptions;
}

/** What adb has at one moment: phones listed, and the ones that answered. */
export interface AdbHostDevice {
  serial: string;
  state: AdbDeviceState;
  phone: AdbPhone | null;
  info: PhoneInfo | null;
  health: 'responsive' | 'unresponsive';
}

interface TrackedDevice {
  id: string;
  type: string;
}

type Tracker = Awaited<ReturnType<Client['trackDevices']>>;

// adbkit is CommonJS whose default export differs between Node's ESM loader and bundlers; require() reads it one way.
const adbkit = createRequire(import.meta.url)('@devicefarmer/adbkit') as typeof import('@devicefarmer/adbkit');

export function createAdbClient(options: Pick<AdbHostOptions, 'adbHost' | 'adbPort' | 'adbBin'> = {}): Client {
  return adbkit.Adb.createClient({ host: options.adbHost ?? '127.0.0.1', port: options.adbPort ?? 5037, bin: options.adbBin ?? 'adb' });
}

export class AdbHost {
  readonly client: Client;
  private readonly listeners = new Set<(event: AdbHostEvent) => void>();
  private readonly devices = new Map<string, AdbHostDevice>();
  private tracker: Tracker | null = null;
  private running = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private probeTimer: NodeJS.Timeout | null = null;
  private reconnectDelay: number;
  serverConnected = false;

  /** The last connection error adbkit reported on its own (a socket reset after a command finished). */
  lastClientError: string | null = null;

  constructor(private readonly options: AdbHostOptions = {}) {
    this.client = createAdbClient(options);
    // adbkit re-emits stray socket errors on the client; unheard, an 'error' event would end the process.
    this.client.on('error', (error: Error) => (this.lastClientError = error.message));
    this.reconnectDelay = options.reconnectMs ?? 1000;
  }

  /** Subscribes to the host's events; answers the function that unsubscribes. */
  on(listener: (event: AdbHostEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: AdbHostEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  /** The adb server's protocol version (41 for current platform tools). */
  version(): Promise<number> {
    return withTimeout(Promise.resolve(this.client.version()), this.options.phone?.commandTimeoutMs ?? 10_000, 'The adb server');
  }

  list(): AdbHostDevice[] {
    return [...this.devices.values()].map((device) => ({ ...device }));
  }

  phone(serial: string): AdbPhone | null {
    return this.devices.get(serial)?.phone ?? null;
  }

  /** Starts tracking; resolves once the first connection to the adb server was tried. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.connect();
    const probeMs = this.options.probeMs ?? 5000;
    if (probeMs > 0) this.probeTimer = setInterval(() => void this.probe(), probeMs);
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.reconnectTimer = null;
    this.probeTimer = null;
    const tracker = this.tracker;
    this.tracker = null;
    tracker?.end();
    for (const device of this.devices.values()) await device.phone?.close();
    this.devices.clear();
  }

  private async connect(): Promise<void> {
    try {
      const tracker = await withTimeout(Promise.resolve(this.client.trackDevices()), 10_000, 'The adb server');
      if (!this.running) {
        tracker.end();
        return;
      }
      this.tracker = tracker;
      this.serverConnected = true;
      this.reconnectDelay = this.options.reconnectMs ?? 1000;
      this.emit({ type: 'server', connected: true });
      tracker.on('add', (device: TrackedDevice) => this.added(device.id, device.type));
      tracker.on('change', (device: TrackedDevice) => this.changed(device.id, device.type));
      tracker.on('remove', (device: TrackedDevice) => void this.removed(device.id));
      tracker.on('error', (error: Error) => this.lost(tracker, error.message));
      tracker.on('end', () => this.lost(tracker, 'The adb server closed the connection.'));
      // The tracker may have read the first list before these listeners were attached: take it from a listing.
      const listed = await withTimeout(Promise.resolve(this.client.listDevices()), 10_000, 'The adb server');
      if (this.tracker !== tracker) return;
      for (const device of listed) if (!this.devices.has(device.id)) this.added(device.id, device.type);
    } catch (error) {
      const tracker = this.tracker;
      this.tracker = null;
      tracker?.end();
      this.serverConnected = false;
      this.emit({ type: 'server', connected: false, error: describe(error) });
      this.scheduleReconnect();
    }
  }

  private lost(tracker: Tracker, reason: string): void {
    if (this.tracker !== tracker) return;
    this.tracker = null;
    this.serverConnected = false;
    // Without the server nothing can be said of the phones: they are gone until it lists them again.
    for (const serial of [...this.devices.keys()]) void this.removed(serial);
    this.emit({ type: 'server', connected: false, error: reason });
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (!this.running || this.reconnectTimer) return;
    const delay = this.reconnectDelay;
    this.reconnectDelay = Math.min(delay * 2, 30_000);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.connect();
    }, delay);
  }

  private added(serial: string, state: AdbDeviceState): void {
    if (this.devices.has(serial)) {
      this.changed(serial, state);
      return;
    }
    this.devices.set(serial, { serial, state, phone: null, info: null, health: 'responsive' });
    this.emit({ type: 'attached', serial, state });
    if (state === 'device') void this.ready(serial);
  }

  private changed(serial: string, state: AdbDeviceState): void {
    const device = this.devices.get(serial);
    if (!device) {
      this.added(serial, state);
      return;
    }
    const previous = device.state;
    if (previous === state) return;
    device.state = state;
    this.emit({ type: 'state', serial, state, previous });
    if (state === 'device' && previous !== 'device') void this.ready(serial);
    if (state !== 'device' && device.phone) {
      const phone = device.phone;
      device.phone = null;
      void phone.close();
    }
  }

  private async removed(serial: string): Promise<void> {
    const device = this.devices.get(serial);
    if (!device) return;
    this.devices.delete(serial);
    this.emit({ type: 'detached', serial });
    await device.phone?.close();
  }

  /** Opens the phone and reads what it is; a phone that does not answer is reported, not waited on. */
  private async ready(serial: string): Promise<void> {
    const device = this.devices.get(serial);
    if (!device) return;
    const phone = new AdbPhone(serial, this.client.getDevice(serial), {
      ...this.options.phone,
      onHealth: (health, reason) => this.health(serial, phone, health, reason),
    });
    device.phone = phone;
    try {
      const info = await phone.info();
      if (this.devices.get(serial)?.phone !== phone) return;
      device.info = info;
      this.emit({ type: 'ready', serial, phone, info });
    } catch (error) {
      if (this.devices.get(serial)?.phone !== phone) return;
      if (device.health === 'responsive') this.health(serial, phone, 'unresponsive', describe(error));
      // Read it again on the next probe that gets an answer.
    }
  }

  private health(serial: string, phone: AdbPhone, health: 'responsive' | 'unresponsive', reason: string): void {
    const device = this.devices.get(serial);
    if (!device || device.phone !== phone || device.health === health) return;
    device.health = health;
    this.emit(health === 'unresponsive' ? { type: 'unresponsive', serial, reason } : { type: 'responsive', serial });
    if (health === 'responsive' && !device.info) void this.retryInfo(serial, phone);
  }

  private async retryInfo(serial: string, phone: AdbPhone): Promise<void> {
    const device = this.devices.get(serial);
    if (!device || device.phone !== phone) return;
    try {
      const info = await phone.info();
      if (this.devices.get(serial)?.phone !== phone || device.info) return;
      device.info = info;
      this.emit({ type: 'ready', serial, phone, info });
    } catch {
      // Reported through health already.
    }
  }

  /**
   * Compares what the host knows with adb's own list. adb 29's device tracker stays silent about two changes that
   * `adb devices` shows (measured against Debian's adb 29.0.6, test/adb-server.e2e.test.ts): a network phone whose
   * connection dropped turns offline (and goes a minute later), and a phone waiting for "Allow USB debugging?" is
   * `unauthorized`. One `host:devices` request a round catches both.
   */
  private async reconcile(): Promise<void> {
    const tracker = this.tracker;
    if (!tracker) return;
    let listed: Awaited<ReturnType<Client['listDevices']>>;
    try {
      listed = await withTimeout(Promise.resolve(this.client.listDevices()), 10_000, 'The adb server');
    } catch {
      return; // The tracker reports a server that is gone.
    }
    if (this.tracker !== tracker) return;
    const seen = new Set<string>();
    for (const device of listed) {
      seen.add(device.id);
      this.changed(device.id, device.type);
    }
    for (const serial of [...this.devices.keys()]) if (!seen.has(serial)) await this.removed(serial);
  }

  /**
   * Drops the host's transport to a listed phone and opens it again (the recovery ladder's first rung): the old
   * `AdbPhone` is closed, its shells with it, and the phone is read again as when it was plugged in.
   */
  async reopen(serial: string): Promise<void> {
    const device = this.devices.get(serial);
    if (!device) throw new Error(`${serial} is not listed by adb.`);
    const old = device.phone;
    device.phone = null;
    device.info = null;
    device.health = 'responsive';
    await old?.close();
    if (device.state !== 'device') throw new Error(`${serial} is ${device.state}, not ready for a transport.`);
    await this.ready(serial);
    if (!this.devices.get(serial)?.info) throw new Error(`${serial} did not answer on a new transport.`);
  }

  /**
   * One round of probes; answers when every ready phone answered or timed out. A phone that answered something else
   * within the last probe interval (its heartbeat's reading every 5 s, a task's steps) is not pinged: it is not silent,
   * and the ping would be one more adb connection and shell process a phone every few seconds.
   */
  async probe(): Promise<void> {
    await this.reconcile();
    const probeMs = this.options.probeMs ?? 5000;
    await Promise.all(
      [...this.devices.values()].map(async (device) => {
        const phone = device.phone;
        if (!phone) return;
        try {
          if (!(probeMs > 0 && phone.answeredWithin(probeMs))) await phone.ping();
          // A phone whose first reading failed gets its info read now that it answers.
          if (!device.info) await this.retryInfo(device.serial, phone);
        } catch (error) {
          if (!(error instanceof PhoneError) && device.health === 'responsive') this.health(device.serial, phone, 'unresponsive', describe(error));
        }
      }),
    );
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
