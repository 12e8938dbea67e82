/**
 * A stand-in for the adb server on a loopback port, speaking the part of the adb host protocol adbkit uses:
 * `host:version`, `host:devices(-l)`, `host:track-devices`, `host:transport:<serial>` followed by `shell:<cmd>`
 * (adb's v1 shell: a command's output then close, or streamed while a started process runs; `shell:sh` kept open
 * as a shell reading stdin), `localabstract:<name>` (a socket a phone process listens on, minicap's), `tcp:<port>` (a
 * port a phone process listens on, the UiAutomator2 server's 6790) and `sync:`
 * with SEND/DATA/DONE. Requests are a 4-hex-digit length and the text; answers OKAY or FAIL with a length-prefixed
 * message. Phones behind it are `FakeAndroid`s.
 *
 * Each plugged phone gets a transport id as adb numbers its transports (`NextTransportId()` in AOSP's
 * packages/modules/adb transport.cpp: 1, 2, 3… for the server's life, never reused), shown by `host:devices-l` as
 * `transport_id:N` and reached with `host:transport-id:N`. Two ways a phone comes back, as that file has them: a
 * connection that drops and is made again keeps its transport (`transport_destroy` hands a network phone to the
 * ReconnectHandler: `offline`, then `device` on the same id: `blip`), while a USB phone that re-enumerates is a new
 * transport (`register_usb_transport`: a new id, listed `offline` until its CNXN, then `device`: `replug`). Every
 * change to the list is sent whole to each track-devices connection (`update_transports`).
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { FakeAndroid } from './fake-android.ts';

export type FakeDeviceState = 'device' | 'unauthorized' | 'offline';

interface Entry {
  state: FakeDeviceState;
  phone: FakeAndroid;
  /** Connections switched to this phone's transport: unplugging ends them, as adb does. */
  sockets: Set<Socket>;
  /** adb's number for this transport: a phone plugged again gets a new one. */
  transportId: number;
}

const encode = (text: string | Buffer) => {
  const body = typeof text === 'string' ? Buffer.from(text) : text;
  return Buffer.concat([Buffer.from(body.length.toString(16).padStart(4, '0').toUpperCase()), body]);
};

/** Reads exactly what a connection sends, in order, across TCP chunks. */
class Reader {
  private buffer = Buffer.alloc(0);
  private waiting: { size: number; resolve: (data: Buffer) => void } | null = null;
  closed = false;

  constructor(socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.flush();
    });
    socket.on('close', () => (this.closed = true));
  }

  private flush(): void {
    if (this.waiting && this.buffer.length >= this.waiting.size) {
      const { size, resolve } = this.waiting;
      this.waiting = null;
      const data = this.buffer.subarray(0, size);
      this.buffer = this.buffer.subarray(size);
      resolve(data);
    }
  }

  read(size: number): Promise<Buffer> {
    return new Promise((resolve) => {
      this.waiting = { size, resolve };
      this.flush();
    });
  }

  /** Everything sent from now on, as it comes. */
  take(): Buffer {
    const data = this.buffer;
    this.buffer = Buffer.alloc(0);
    return data;
  }
}

export class FakeAdbServer {
  private readonly server: Server;
  private readonly devices = new Map<string, Entry>();
  private readonly trackers = new Set<Socket>();
  private readonly sockets = new Set<Socket>();
  /** Every request the server got, in order (`host:transport:…`, `shell:…`, `sync:`). */
  readonly requests: string[] = [];
  port = 0;
  /** How long a rebooting phone is gone from the list (adb drops every transport to it meanwhile). */
  rebootMs = 2_000;
  /**
   * How long after it is listed again a rebooted phone takes to finish booting: adbd starts early in boot, so adb
   * lists the phone as a device while `getprop sys.boot_completed` still prints an empty line (0 by default).
   */
  bootCompletedMs = 0;
  /** Phones whose fault outlives a reboot (a stuck framework that comes back stuck): frozen again once listed. */
  readonly stuck = new Set<string>();
  /** When a rebooted phone says it booted (`/proc/uptime` counts from it): now, or earlier on a scaled clock. */
  bootTime: () => number = () => Date.now();
  /** How long `host-serial:<serial>:reconnect` leaves a phone offline before it is a device again. */
  reconnectMs = 200;
  /** Times `host:kill` was asked; a killed server drops every connection and answers again at once (restarted). */
  kills = 0;
  private nextTransportId = 1;

  constructor() {
    this.server = createServer((socket) => void this.serve(socket));
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this.port;
  }

  async close(): Promise<void> {
    for (const { phone } of this.devices.values()) phone.shutdown();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Ends every track-devices connection, as a restarting adb server does. */
  dropTrackers(): void {
    for (const socket of this.trackers) socket.destroy();
    this.trackers.clear();
  }

  plug(phone: FakeAndroid, state: FakeDeviceState = 'device'): void {
    this.devices.set(phone.serial, { state, phone, sockets: new Set(), transportId: this.nextTransportId++ });
    this.announce();
  }

  /** The transport id adb gave the phone now listed under `serial`, or null when it is not listed. */
  transportId(serial: string): number | null {
    return this.devices.get(serial)?.transportId ?? null;
  }

  /**
   * The phone's connection drops and is made again on the same transport (a network phone's Wi-Fi, adbd restarting):
   * every stream to it ends, it is listed `offline` for `offlineMs`, then in its state before. Resolves once it is back.
   */
  blip(serial: string, offlineMs: number): Promise<void> {
    const entry = this.devices.get(serial);
    if (!entry) throw new Error(`no fake phone ${serial}`);
    for (const open of entry.sockets) open.destroy();
    const state = entry.state;
    this.setState(serial, 'offline');
    return new Promise((resolve) =>
      setTimeout(() => {
        if (this.devices.get(serial) === entry) this.setState(serial, state);
        resolve();
      }, offlineMs),
    );
  }

  /**
   * The phone leaves the list (a loose cable, a hub resetting its port) and is enumerated again after `awayMs` as a
   * new transport with a new id: listed `offline` first, `device` once its CNXN came (`handshakeMs` later). Streams
   * to it end when it goes. Resolves once it is a device again.
   */
  replug(serial: string, awayMs: number, handshakeMs = 20): Promise<void> {
    const entry = this.devices.get(serial);
    if (!entry) throw new Error(`no fake phone ${serial}`);
    this.unplug(serial);
    return new Promise((resolve) =>
      setTimeout(() => {
        this.plug(entry.phone, 'offline');
        setTimeout(() => {
          if (this.devices.get(serial)?.phone === entry.phone) this.setState(serial, entry.state);
          resolve();
        }, handshakeMs);
      }, awayMs),
    );
  }

  setState(serial: string, state: FakeDeviceState): void {
    const entry = this.devices.get(serial);
    if (!entry) throw new Error(`no fake phone ${serial}`);
    entry.state = state;
    this.announce();
  }

  unplug(serial: string): void {
    for (const socket of this.devices.get(serial)?.sockets ?? []) socket.destroy();
    this.devices.delete(serial);
    this.announce();
  }

  /** A reboot: the phone leaves the list (every transport to it dropped), then boots and is listed again. */
  reboot(serial: string): void {
    const entry = this.devices.get(serial);
    if (!entry) return;
    this.unplug(serial);
    setTimeout(() => {
      entry.phone.frozen = this.stuck.has(serial);
      entry.phone.bootedAt = this.bootTime();
      entry.phone.bootCompletedAt = Date.now() + this.bootCompletedMs;
      this.plug(entry.phone, entry.state);
    }, this.rebootMs).unref();
  }

  private list(long = false): string {
    return [...this.devices.entries()]
      .map(([serial, { state, phone, transportId }]) =>
        long
          ? `${serial.padEnd(22)} ${state} product:${phone.product} model:${phone.model.replace(/ /g, '_')} device:${phone.product} transport_id:${transportId}`
          : `${serial}\t${state}`,
      )
      .map((line) => `${line}\n`)
      .join('');
  }

  private announce(): void {
    for (const socket of this.trackers) socket.write(encode(this.list()));
  }

  private async serve(socket: Socket): Promise<void> {
    this.sockets.add(socket);
    socket.on('close', () => {
      this.sockets.delete(socket);
      this.trackers.delete(socket);
    });
    socket.on('error', () => undefined);
    const reader = new Reader(socket);
    let transport: Entry | null = null;
    for (;;) {
      const length = Number.parseInt((await reader.read(4)).toString('ascii'), 16);
      const request = (await reader.read(length)).toString('utf8');
      this.requests.push(request);
      const fail = (message: string) => {
        socket.write(Buffer.concat([Buffer.from('FAIL'), encode(message)]));
        socket.end();
      };
      if (request === 'host:version') {
        socket.end(Buffer.concat([Buffer.from('OKAY'), encode('0029')]));
        return;
      }
      if (request === 'host:devices' || request === 'host:devices-l') {
        socket.end(Buffer.concat([Buffer.from('OKAY'), encode(this.list(request.endsWith('-l')))]));
        return;
      }
      if (request === 'host:track-devices') {
        socket.write('OKAY');
        socket.write(encode(this.list()));
        this.trackers.add(socket);
        return;
      }
      if (request === 'host:kill') {
        // As a killed server: every connection ends; the test's server keeps listening, as one started again would.
        this.kills += 1;
        socket.end('OKAY');
        for (const other of this.sockets) if (other !== socket) other.destroy();
        this.trackers.clear();
        return;
      }
      const reconnect = /^host-serial:(.+):reconnect$/.exec(request);
      if (reconnect) {
        const serial = reconnect[1] ?? '';
        const entry = this.devices.get(serial);
        if (!entry) return fail(`device '${serial}' not found`);
        socket.end(Buffer.concat([Buffer.from('OKAY'), encode('reconnecting')]));
        // adb drops the transport and enumerates the device again: offline, then a device.
        for (const open of entry.sockets) open.destroy();
        const state = entry.state;
        this.setState(serial, 'offline');
        setTimeout(() => this.devices.has(serial) && this.setState(serial, state), this.reconnectMs).unref();
        return;
      }
      if (request.startsWith('host:transport:') || request.startsWith('host:transport-id:')) {
        const byId = request.startsWith('host:transport-id:');
        const wanted = request.slice(byId ? 'host:transport-id:'.length : 'host:transport:'.length);
        const entry = byId ? [...this.devices.values()].find((item) => String(item.transportId) === wanted) : this.devices.get(wanted);
        if (!entry) return fail(byId ? `no device with transport id '${wanted}'` : `device '${wanted}' not found`);
        if (entry.state === 'unauthorized') {
          return fail(
            "device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set\nTry 'adb kill-server' if that seems wrong.\nOtherwise check for a confirmation dialog on your device.",
          );
        }
        if (entry.state === 'offline') return fail('device offline');
        transport = entry;
        entry.sockets.add(socket);
        socket.on('close', () => entry.sockets.delete(socket));
        socket.write('OKAY');
        continue;
      }
      if (!transport) return fail(`unknown host service '${request}'`);
      const phone = transport.phone;
      // adbd itself answers a reboot even when the phone's shell hangs (a frozen framework, a stuck app).
      if (request === 'reboot:') {
        socket.end('OKAY');
        this.reboot(phone.serial);
        return;
      }
      // A frozen phone: adb lists it, the transport opens, nothing it is asked ever comes back.
      if (phone.frozen) return;
      if (request === 'shell:sh') {
        socket.write('OKAY');
        phone.shellsOpened += 1;
        return this.interactive(socket, reader, phone);
      }
      if (request.startsWith('shell:')) {
        socket.write('OKAY');
        const output = await phone.sh(request.slice('shell:'.length), (chunk) => !socket.destroyed && socket.write(chunk));
        if (!phone.frozen && !socket.destroyed) socket.end(output);
        return;
      }
      if (request.startsWith('localabstract:')) {
        // As adb does when nothing listens there: the device closes the stream and the host answers FAIL "closed".
        const listener = phone.listener(request.slice('localabstract:'.length));
        if (!listener) return fail('closed');
        socket.write('OKAY');
        listener.accept(socket);
        return;
      }
      if (request.startsWith('tcp:')) {
        // A stream to a port on the phone (the UiAutomator2 server's 6790); as for localabstract, nothing listening
        // there closes the stream and the host answers FAIL "closed".
        const listener = phone.tcpListener(Number(request.slice('tcp:'.length).split(':')[0]));
        if (!listener) return fail('closed');
        socket.write('OKAY');
        listener.accept(socket);
        return;
      }
      if (request === 'sync:') {
        socket.write('OKAY');
        return this.sync(socket, reader, phone);
      }
      return fail(`closed`);
    }
  }

  /** `shell:sh`: lines in, their output out, until the client hangs up. */
  private async interactive(socket: Socket, reader: Reader, phone: FakeAndroid): Promise<void> {
    let pending = reader.take().toString('utf8');
    const lines: string[] = [];
    let running = false;
    const drain = async () => {
      if (running) return;
      running = true;
      while (lines.length > 0) {
        const line = lines.shift() as string;
        const output = await phone.sh(line);
        if (phone.frozen || socket.destroyed) break;
        socket.write(output);
      }
      running = false;
    };
    const feed = (text: string) => {
      pending += text;
      let newline = pending.indexOf('\n');
      while (newline >= 0) {
        lines.push(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
        newline = pending.indexOf('\n');
      }
      void drain();
    };
    socket.on('data', (chunk: Buffer) => feed(chunk.toString('utf8')));
    feed('');
  }

  /** `sync:` SEND path,mode; DATA chunks; DONE mtime → OKAY. */
  private async sync(socket: Socket, reader: Reader, phone: FakeAndroid): Promise<void> {
    for (;;) {
      const id = (await reader.read(4)).toString('ascii');
      const size = (await reader.read(4)).readUInt32LE(0);
      if (id === 'QUIT') return void socket.end();
      if (id !== 'SEND') {
        socket.end(Buffer.concat([Buffer.from('FAIL'), Buffer.from([11, 0, 0, 0]), Buffer.from('unsupported')]));
        return;
      }
      const target = (await reader.read(size)).toString('utf8');
      const comma = target.lastIndexOf(',');
      const path = target.slice(0, comma);
      const mode = Number(target.slice(comma + 1));
      const chunks: Buffer[] = [];
      for (;;) {
        const kind = (await reader.read(4)).toString('ascii');
        const value = (await reader.read(4)).readUInt32LE(0);
        if (kind === 'DATA') {
          chunks.push(await reader.read(value));
          continue;
        }
        if (kind === 'DONE') {
          phone.receive(path, mode, Buffer.concat(chunks), value);
          socket.write(Buffer.concat([Buffer.from('OKAY'), Buffer.alloc(4)]));
          break;
        }
        socket.end();
        return;
      }
    }
  }
}
