/**
 * A phone's adb daemon on a loopback TCP port, for Google's own adb server to `adb connect` to: the device side of
 * adb's transport protocol, rebuilt from AOSP's `protocol.txt`, `SERVICES.TXT`, `SYNC.TXT` and `shell_protocol.h`
 * (system/core/adb, Apache-2.0; facts only, no code taken). What the phone answers comes from a `FakeAndroid`, the
 * same phone the fake adb server stands in front of, so the two paths see one phone.
 *
 * The wire: messages of a 24-byte little-endian header (command, arg0, arg1, data length, data checksum, magic =
 * command ^ 0xffffffff) and a payload. Both sides send CNXN(version, maxdata, identity) first; the phone answers
 * with the lower of the two versions. Below 0x01000001 (A_VERSION_SKIP_CHECKSUM, "skip checksum (Dec 2017)" in
 * adb.h: older phones' adbd) every payload carries the byte sum of its data and a wrong one ends the connection; from
 * it on the sum may be zero. maxdata is the largest payload each side accepts: 4096 on the oldest phones
 * (MAX_PAYLOAD_V1), 256 KiB later (protocol.txt), 1 MiB in adb.h today (MAX_PAYLOAD).
 * Streams: OPEN(local, 0, "service\0") is answered OKAY(local, remote) or CLSE(0, remote); WRTE carries data and
 * waits for the other side's OKAY before the next one on that stream; CLSE ends a stream and is never answered.
 *
 * Services: `shell:<cmd>` and `exec:<cmd>` (raw: output, then close), `shell:` / `shell:sh` (a shell reading
 * lines), `shell,v2,…:<cmd>` (shell protocol v2: packets of id, 4-byte length and data; stdin 0, stdout 1,
 * stderr 2, exit 3, close-stdin 4, window size 5), `sync:` (STAT, LIST, SEND/DATA/DONE, RECV, QUIT),
 * `localabstract:<name>` and `tcp:<port>` (handed to what listens there on the phone). Anything else fails its OPEN.
 * It can ask for authentication as adbd does: AUTH TOKEN (20 random bytes), the host's SIGNATURE checked against the
 * keys it trusts (RSA PKCS#1 v1.5 over the token as a SHA-1 digest), a new TOKEN after a wrong one, and the host's
 * RSAPUBLICKEY held until `allow()` is called, as a person tapping "Allow USB debugging" does. Its connection can
 * drop (`drop`: the server connects again at once) or blip (`blip`: the next CNXN is answered late, as by an adbd
 * starting again, so the server lists the phone `offline` meanwhile on the same transport).
 */
import { constants, createPublicKey, publicDecrypt, randomBytes, type KeyObject } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { FakeAndroid } from './fake-android.ts';

export const A_SYNC = 0x434e5953;
export const A_CNXN = 0x4e584e43;
export const A_AUTH = 0x48545541;
export const A_OPEN = 0x4e45504f;
export const A_OKAY = 0x59414b4f;
export const A_CLSE = 0x45534c43;
export const A_WRTE = 0x45545257;
export const A_STLS = 0x534c5453;

/** The first protocol version; payloads carry checksums. */
export const A_VERSION_MIN = 0x01000000;
/** From this version on, neither side checks payload checksums. */
export const A_VERSION_SKIP_CHECKSUM = 0x01000001;
/** Older adbd's largest payload. */
export const MAX_PAYLOAD_V1 = 4096;
export const MAX_PAYLOAD = 1024 * 1024;

const AUTH_TOKEN = 1;
const AUTH_SIGNATURE = 2;
const AUTH_RSAPUBLICKEY = 3;
const TOKEN_SIZE = 20;

/** DER prefix of a SHA-1 DigestInfo: adb signs its 20-byte token as if it were a SHA-1 digest (RSA_sign NID_sha1). */
const SHA1_DIGEST_INFO = Buffer.from('3021300906052b0e03021a05000414', 'hex');

/**
 * Reads a key as adb sends it (`adbkey.pub`: base64 of a little-endian struct of the word count, n0inv, the modulus,
 * R^2 mod n and the exponent, then " user@host"), as adbd's auth code does before it checks a signature.
 */
export function adbPublicKey(text: string): KeyObject {
  const blob = Buffer.from(text.trim().split(/\s+/)[0] ?? '', 'base64');
  const words = blob.readUInt32LE(0);
  const modulus = Buffer.from(blob.subarray(8, 8 + words * 4)).reverse();
  const exponent = blob.readUInt32LE(8 + words * 8);
  const e = Buffer.alloc(4);
  e.writeUInt32BE(exponent, 0);
  const trimmed = e.subarray(e.findIndex((byte) => byte !== 0));
  return createPublicKey({ key: { kty: 'RSA', n: modulus.toString('base64url'), e: trimmed.toString('base64url') }, format: 'jwk' });
}

/** Whether `signature` is the token signed by the private half of `key`. */
export function signedBy(key: KeyObject, token: Buffer, signature: Buffer): boolean {
  try {
    return publicDecrypt({ key, padding: constants.RSA_PKCS1_PADDING }, signature).equals(Buffer.concat([SHA1_DIGEST_INFO, token]));
  } catch {
    return false;
  }
}

/** adb's "checksum": the sum of the payload's bytes, modulo 2^32. */
export function payloadChecksum(data: Buffer): number {
  let sum = 0;
  for (const byte of data) sum = (sum + byte) >>> 0;
  return sum;
}

export interface AdbMessage {
  command: number;
  arg0: number;
  arg1: number;
  data: Buffer;
}

export function encodeMessage(message: AdbMessage, withChecksum = true): Buffer {
  const header = Buffer.alloc(24);
  header.writeUInt32LE(message.command >>> 0, 0);
  header.writeUInt32LE(message.arg0 >>> 0, 4);
  header.writeUInt32LE(message.arg1 >>> 0, 8);
  header.writeUInt32LE(message.data.length, 12);
  header.writeUInt32LE(withChecksum ? payloadChecksum(message.data) : 0, 16);
  header.writeUInt32LE((message.command ^ 0xffffffff) >>> 0, 20);
  return Buffer.concat([header, message.data]);
}

const COMMAND_NAMES = new Map([
  [A_SYNC, 'SYNC'],
  [A_CNXN, 'CNXN'],
  [A_AUTH, 'AUTH'],
  [A_OPEN, 'OPEN'],
  [A_OKAY, 'OKAY'],
  [A_CLSE, 'CLSE'],
  [A_WRTE, 'WRTE'],
  [A_STLS, 'STLS'],
]);

export interface FakeAdbdOptions {
  /** The protocol version the phone speaks: A_VERSION_SKIP_CHECKSUM (Android 9 and later) by default. */
  version?: number;
  /** The largest payload the phone accepts: MAX_PAYLOAD by default, MAX_PAYLOAD_V1 for an old phone. */
  maxPayload?: number;
  /** What the phone advertises in its CNXN banner. */
  features?: string[];
  /** Ask for authentication: the host stays "unauthorized" until `allow()` is called. */
  requireAuth?: boolean;
}

/** What a phone of Android 10 advertises that this fake also does (adb's `transport.cpp` names them). */
export const DEFAULT_FEATURES = ['shell_v2', 'cmd', 'fixed_push_mkdir', 'apex'];

/** The phone side of one stream. */
interface Stream {
  local: number;
  remote: number;
  service: string;
  /** Data from the host, as it comes. */
  onData: (data: Buffer) => void;
  onClose: () => void;
  /** Data that came before the service took the stream. */
  early: Buffer[];
  queue: Buffer[];
  waitingOkay: boolean;
  closing: boolean;
  closed: boolean;
}

/** Bytes that arrive in pieces, read by exact sizes. */
class ByteQueue {
  private buffer = Buffer.alloc(0);
  private waiting: { size: number; resolve: (data: Buffer) => void; reject: (error: Error) => void } | null = null;
  private ended = false;

  push(data: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, data]);
    this.flush();
  }

  end(): void {
    this.ended = true;
    this.flush();
  }

  private flush(): void {
    const waiting = this.waiting;
    if (!waiting) return;
    if (this.buffer.length >= waiting.size) {
      this.waiting = null;
      const data = this.buffer.subarray(0, waiting.size);
      this.buffer = this.buffer.subarray(waiting.size);
      waiting.resolve(data);
    } else if (this.ended) {
      this.waiting = null;
      waiting.reject(new Error('stream closed'));
    }
  }

  read(size: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.waiting = { size, resolve, reject };
      this.flush();
    });
  }
}

/** A process on the phone that accepts connections (minicap's abstract socket, a server on a phone port). */
type PhoneListener = { accept(socket: Socket): void };

export class FakeAdbd {
  private readonly server: Server;
  private readonly connections = new Set<Connection>();
  private bridge: { server: Server; port: number; arrived: Map<number, Socket>; waiting: Map<number, (socket: Socket) => void> } | null = null;
  readonly version: number;
  readonly maxPayload: number;
  readonly features: string[];
  readonly requireAuth: boolean;
  /** Every service the host opened, in order (`shell:getprop`, `sync:`, …). */
  readonly opened: string[] = [];
  /** Every message received, by command name, in order. */
  readonly received: { command: string; length: number; checksum: number }[] = [];
  /** What the host said of itself in each CNXN (`host::features=…`). */
  readonly hostBanners: string[] = [];
  /** The public keys the host offered (AUTH RSAPUBLICKEY), as it sent them. */
  readonly offeredKeys: string[] = [];
  /** Keys the phone accepts, as "Always allow from this computer" stores them. */
  private readonly allowedKeys = new Set<string>();
  /** Connections made since listening (the adb server reconnects to a TCP phone it lost). */
  accepted = 0;
  /** No CNXN is answered before this time (`blip`: adbd is starting again on the phone). */
  private answerFrom = 0;
  port = 0;

  constructor(
    readonly phone: FakeAndroid,
    options: FakeAdbdOptions = {},
  ) {
    this.version = options.version ?? A_VERSION_SKIP_CHECKSUM;
    this.maxPayload = options.maxPayload ?? MAX_PAYLOAD;
    this.features = options.features ?? DEFAULT_FEATURES;
    this.requireAuth = options.requireAuth ?? false;
    this.server = createServer((socket) => {
      this.accepted += 1;
      const connection = new Connection(this, socket);
      this.connections.add(connection);
      socket.on('close', () => this.connections.delete(connection));
    });
  }

  /** The serial the adb server gives a phone it reached with `adb connect`. */
  get serial(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** The banner the phone sends in its CNXN, with the properties `adb devices -l` shows. */
  get banner(): string {
    const product = this.phone.product;
    return `device::ro.product.name=${product};ro.product.model=${this.phone.model};ro.product.device=${product};features=${this.features.join(',')}`;
  }

  async listen(port = 0): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this.port;
  }

  /** The person taps "Allow" on the phone: the key the host offered is trusted and waiting connections go on. */
  allow(): void {
    for (const key of this.offeredKeys) this.allowedKeys.add(key);
    for (const connection of this.connections) connection.allowed();
  }

  isAllowed(key: string): boolean {
    return this.allowedKeys.has(key);
  }

  /** The keys a signature is checked against. */
  trusted(): KeyObject[] {
    return [...this.allowedKeys].map(adbPublicKey);
  }

  /** Ends every connection, as pulling a phone's cable (or its Wi-Fi going) does; it still listens. */
  drop(): void {
    for (const connection of this.connections) connection.destroy();
  }

  /**
   * The phone's connection blips: every connection ends, and the adb server's next ones get their CNXN answered only
   * after `offlineMs`, as from an adbd that is starting again. The server keeps the phone's transport meanwhile and
   * lists it `offline` (transport.cpp: a network phone whose connection failed goes to its ReconnectHandler, which
   * connects again on the same transport and id), then `device` once the CNXN came.
   */
  blip(offlineMs: number): void {
    this.answerFrom = Date.now() + offlineMs;
    this.drop();
  }

  /** How long a CNXN waits before it is answered now (0: at once). */
  answerDelay(): number {
    return Math.max(0, this.answerFrom - Date.now());
  }

  /** Stops listening and ends every connection: the phone is gone. */
  async close(): Promise<void> {
    this.drop();
    this.phone.shutdown();
    const bridge = this.bridge;
    this.bridge = null;
    await Promise.all([
      new Promise<void>((resolve) => this.server.close(() => resolve())),
      bridge ? new Promise<void>((resolve) => bridge.server.close(() => resolve())) : Promise.resolve(),
    ]);
  }

  /**
   * A socket connected to `listener`, for a stream the host opened to a phone process: the processes of
   * `FakeAndroid` accept real sockets, so the stream is joined to one through a loopback pair.
   */
  async socketTo(listener: PhoneListener): Promise<Socket> {
    if (!this.bridge) {
      const arrived = new Map<number, Socket>();
      const waiting = new Map<number, (socket: Socket) => void>();
      const server = createServer((socket) => {
        // The server's side may arrive before or after the client's connect event: matched by the client's port.
        const port = socket.remotePort ?? 0;
        const waiter = waiting.get(port);
        waiting.delete(port);
        if (waiter) waiter(socket);
        else arrived.set(port, socket);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
      this.bridge = { server, port: (server.address() as AddressInfo).port, arrived, waiting };
    }
    const { port, arrived, waiting } = this.bridge;
    const client = connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve());
      client.once('error', reject);
    });
    const local = client.localPort ?? 0;
    const accepted =
      arrived.get(local) ??
      (await new Promise<Socket>((resolve) => {
        waiting.set(local, resolve);
      }));
    arrived.delete(local);
    listener.accept(accepted);
    return client;
  }

  /** What listens on a phone port (`tcp:6790`, the UI server) or abstract socket (`localabstract:minicap`), if anything. */
  listenerFor(service: string): PhoneListener | null {
    const phone: { listener(name: string): PhoneListener | null; tcpListener?: (port: number) => PhoneListener | null } = this.phone;
    if (service.startsWith('localabstract:')) return phone.listener(service.slice('localabstract:'.length));
    // `tcp:<port>` or `tcp:<port>:<host>`; only the phone's own ports are served.
    const tcp = /^tcp:(\d+)(?::(localhost|127\.0\.0\.1))?$/.exec(service);
    if (tcp) return phone.tcpListener?.(Number(tcp[1])) ?? null;
    return null;
  }
}

/** One TCP connection from the adb server: the transport of one phone. */
class Connection {
  private buffer = Buffer.alloc(0);
  private readonly streams = new Map<number, Stream>();
  private nextLocal = 1;
  private connected = false;
  /** The version both sides speak once the host's CNXN arrived. */
  private version = A_VERSION_MIN;
  /** The largest payload the host accepts. */
  private hostMax = MAX_PAYLOAD_V1;
  private authPending = false;
  private token = randomBytes(TOKEN_SIZE);

  constructor(
    private readonly adbd: FakeAdbd,
    private readonly socket: Socket,
  ) {
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      for (const stream of this.streams.values()) this.ended(stream);
      this.streams.clear();
    });
  }

  destroy(): void {
    this.socket.destroy();
  }

  private send(message: AdbMessage): void {
    if (this.socket.destroyed) return;
    // Before the CNXN's are exchanged the version is not agreed: checksum then, as adbd does.
    this.socket.write(encodeMessage(message, !this.connected || this.version < A_VERSION_SKIP_CHECKSUM));
  }

  private fail(reason: string): void {
    // protocol.txt: a bad header or payload closes the connection; the state is out of step after it.
    this.adbd.received.push({ command: `error: ${reason}`, length: 0, checksum: 0 });
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    while (this.buffer.length >= 24) {
      const command = this.buffer.readUInt32LE(0);
      const length = this.buffer.readUInt32LE(12);
      if ((this.buffer.readUInt32LE(20) ^ 0xffffffff) >>> 0 !== command) {
        this.fail('bad magic');
        return;
      }
      if (length > Math.max(this.adbd.maxPayload, MAX_PAYLOAD_V1)) {
        this.fail(`payload of ${length} bytes over ${this.adbd.maxPayload}`);
        return;
      }
      if (this.buffer.length < 24 + length) return;
      const message: AdbMessage = {
        command,
        arg0: this.buffer.readUInt32LE(4),
        arg1: this.buffer.readUInt32LE(8),
        data: Buffer.from(this.buffer.subarray(24, 24 + length)),
      };
      const checksum = this.buffer.readUInt32LE(16);
      this.buffer = this.buffer.subarray(24 + length);
      this.adbd.received.push({ command: COMMAND_NAMES.get(command) ?? command.toString(16), length, checksum });
      const checked = command === A_CNXN ? Math.min(message.arg0, this.adbd.version) : this.version;
      if (checked < A_VERSION_SKIP_CHECKSUM && checksum !== payloadChecksum(message.data)) {
        this.fail('bad checksum');
        return;
      }
      this.handle(message);
      if (this.socket.destroyed) return;
    }
  }

  private handle(message: AdbMessage): void {
    switch (message.command) {
      case A_CNXN:
        this.version = Math.min(message.arg0, this.adbd.version);
        this.hostMax = message.arg1;
        this.adbd.hostBanners.push(message.data.toString('utf8'));
        if (this.adbd.requireAuth) {
          this.authPending = true;
          this.sendToken();
        } else this.accept();
        return;
      case A_AUTH:
        this.auth(message);
        return;
      case A_OPEN:
        if (this.connected) this.open(message.arg0, message.data.toString('utf8').replace(/\0+$/, ''));
        return;
      case A_OKAY: {
        const stream = this.streams.get(message.arg1);
        if (!stream) return;
        stream.waitingOkay = false;
        this.pump(stream);
        return;
      }
      case A_WRTE: {
        const stream = this.streams.get(message.arg1);
        if (!stream) return;
        // Acknowledged at once: the handlers buffer what they are given.
        this.send({ command: A_OKAY, arg0: stream.local, arg1: stream.remote, data: Buffer.alloc(0) });
        stream.onData(message.data);
        return;
      }
      case A_CLSE: {
        const stream = this.streams.get(message.arg1);
        if (!stream) return;
        this.streams.delete(stream.local);
        this.ended(stream);
        return;
      }
      default:
        // A_SYNC is obsolete and A_STLS is not offered: anything else is a broken stream of messages.
        this.fail(`unexpected command ${message.command.toString(16)}`);
    }
  }

  private sendToken(): void {
    this.token = randomBytes(TOKEN_SIZE);
    this.send({ command: A_AUTH, arg0: AUTH_TOKEN, arg1: 0, data: this.token });
  }

  private auth(message: AdbMessage): void {
    if (!this.authPending) return;
    if (message.arg0 === AUTH_SIGNATURE) {
      if (this.adbd.trusted().some((key) => signedBy(key, this.token, message.data))) {
        this.accept();
        return;
      }
      // As adbd does: another token, so the host can try its next key (it sends its public key when out of keys).
      this.sendToken();
      return;
    }
    if (message.arg0 === AUTH_RSAPUBLICKEY) {
      const key = message.data.toString('utf8').replace(/\0+$/, '');
      if (!this.adbd.offeredKeys.includes(key)) this.adbd.offeredKeys.push(key);
      // The phone shows "Allow USB debugging?" and waits for `allow()`.
      if (this.adbd.isAllowed(key)) this.accept();
    }
  }

  allowed(): void {
    if (this.authPending && this.adbd.offeredKeys.some((key) => this.adbd.isAllowed(key))) this.accept();
  }

  private accept(): void {
    const wait = this.adbd.answerDelay();
    if (wait > 0) {
      setTimeout(() => this.accept(), wait);
      return;
    }
    if (this.socket.destroyed) return;
    this.authPending = false;
    this.send({ command: A_CNXN, arg0: this.version, arg1: this.adbd.maxPayload, data: Buffer.from(this.adbd.banner) });
    this.connected = true;
  }

  private open(remote: number, service: string): void {
    this.adbd.opened.push(service);
    const phone = this.adbd.phone;
    // A frozen phone: the OPEN is never answered, as when adbd is stuck.
    if (phone.frozen) return;
    const stream: Stream = {
      local: this.nextLocal++,
      remote,
      service,
      onData: (data) => stream.early.push(data),
      onClose: () => undefined,
      early: [],
      queue: [],
      waitingOkay: false,
      closing: false,
      closed: false,
    };
    const started = this.start(stream, service);
    if (!started) {
      this.send({ command: A_CLSE, arg0: 0, arg1: remote, data: Buffer.alloc(0) });
      return;
    }
    this.streams.set(stream.local, stream);
    this.send({ command: A_OKAY, arg0: stream.local, arg1: remote, data: Buffer.alloc(0) });
    void started().catch(() => this.close(stream));
  }

  /** Chooses the service; answers what runs it once the OPEN was answered, or null to refuse the OPEN. */
  private start(stream: Stream, service: string): (() => Promise<void>) | null {
    const shellV2 = /^shell,([^:]*):(.*)$/s.exec(service);
    if (shellV2) {
      const args = (shellV2[1] ?? '').split(',');
      if (!args.includes('v2') || !this.adbd.features.includes('shell_v2')) return null;
      return () => this.shellV2(stream, shellV2[2] ?? '');
    }
    if (service.startsWith('shell:') || service.startsWith('exec:')) {
      const command = service.slice(service.indexOf(':') + 1);
      if (command.trim() === '' || command.trim() === 'sh') return () => this.interactive(stream);
      return () => this.command(stream, command);
    }
    if (service === 'sync:') return () => this.sync(stream);
    if (service.startsWith('localabstract:') || service.startsWith('tcp:')) {
      const listener = this.adbd.listenerFor(service);
      if (!listener) return null;
      return () => this.forward(stream, listener);
    }
    return null;
  }

  /** Gives the stream's incoming data to `onData`, starting with what came before. */
  private take(stream: Stream, onData: (data: Buffer) => void, onClose?: () => void): void {
    stream.onData = onData;
    if (onClose) stream.onClose = onClose;
    for (const data of stream.early.splice(0)) onData(data);
  }

  /** Queues data for the host in payloads it accepts, one WRTE at a time. */
  write(stream: Stream, data: Buffer): void {
    if (stream.closed || stream.closing) return;
    const size = Math.min(this.hostMax, this.adbd.maxPayload);
    for (let offset = 0; offset < data.length; offset += size) stream.queue.push(data.subarray(offset, offset + size));
    this.pump(stream);
  }

  /** Closes the stream once what was written reached the host. */
  close(stream: Stream): void {
    if (stream.closed || stream.closing) return;
    stream.closing = true;
    this.pump(stream);
  }

  private pump(stream: Stream): void {
    if (stream.closed || stream.waitingOkay) return;
    const next = stream.queue.shift();
    if (next) {
      stream.waitingOkay = true;
      this.send({ command: A_WRTE, arg0: stream.local, arg1: stream.remote, data: next });
      return;
    }
    if (stream.closing) {
      stream.closed = true;
      this.streams.delete(stream.local);
      this.send({ command: A_CLSE, arg0: stream.local, arg1: stream.remote, data: Buffer.alloc(0) });
      stream.onClose();
    }
  }

  private ended(stream: Stream): void {
    if (stream.closed) return;
    stream.closed = true;
    stream.onClose();
  }

  /** A raw command: what it prints (as it prints it, for a process that keeps running), then the stream closes. */
  private async command(stream: Stream, command: string): Promise<void> {
    const output = await this.adbd.phone.sh(command, (chunk) => this.write(stream, chunk));
    if (this.adbd.phone.frozen) return;
    this.write(stream, output);
    this.close(stream);
  }

  /** `shell:` with no command (or `sh`): lines in, their output out, until the host closes the stream. */
  private async interactive(stream: Stream): Promise<void> {
    let pending = '';
    const lines: string[] = [];
    let running = false;
    const drain = async () => {
      if (running) return;
      running = true;
      while (lines.length > 0 && !stream.closed) {
        const output = await this.adbd.phone.sh(lines.shift() as string);
        if (this.adbd.phone.frozen) break;
        this.write(stream, output);
      }
      running = false;
    };
    this.take(stream, (data) => {
      pending += data.toString('utf8');
      for (let newline = pending.indexOf('\n'); newline >= 0; newline = pending.indexOf('\n')) {
        lines.push(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
      }
      void drain();
    });
  }

  /** Shell protocol v2: the output as stdout packets, then an exit packet with the status; stdin is read and dropped. */
  private async shellV2(stream: Stream, command: string): Promise<void> {
    const packet = (id: number, data: Buffer) => {
      const header = Buffer.alloc(5);
      header.writeUInt8(id, 0);
      header.writeUInt32LE(data.length, 1);
      return Buffer.concat([header, data]);
    };
    if (command.trim() === '') {
      // An interactive v2 shell: stdin packets carry lines, each answered on stdout.
      const input = new ByteQueue();
      this.take(
        stream,
        (data) => input.push(data),
        () => input.end(),
      );
      for (;;) {
        const header = await input.read(5);
        const data = await input.read(header.readUInt32LE(1));
        if (header[0] === 4) break;
        if (header[0] !== 0) continue;
        for (const line of data.toString('utf8').split('\n').slice(0, -1)) this.write(stream, packet(1, await this.adbd.phone.sh(line)));
      }
      this.write(stream, packet(3, Buffer.from([0])));
      return this.close(stream);
    }
    const output = await this.adbd.phone.sh(command, (chunk) => this.write(stream, packet(1, chunk)));
    if (this.adbd.phone.frozen) return;
    this.write(stream, packet(1, output));
    // The phone's exit status where the fake phone keeps one, else success.
    const status = (this.adbd.phone as FakeAndroid & { lastExitCode?: number }).lastExitCode ?? 0;
    this.write(stream, packet(3, Buffer.from([status])));
    this.close(stream);
  }

  /** `sync:`: requests of a 4-letter id and a 4-byte length, answered as adbd's file_sync_service does. */
  private async sync(stream: Stream): Promise<void> {
    const input = new ByteQueue();
    this.take(
      stream,
      (data) => input.push(data),
      () => input.end(),
    );
    const phone = this.adbd.phone;
    const word = (id: string, value: number) => {
      const buffer = Buffer.alloc(8);
      buffer.write(id, 0, 'ascii');
      buffer.writeUInt32LE(value >>> 0, 4);
      return buffer;
    };
    const failure = (message: string) => Buffer.concat([word('FAIL', Buffer.byteLength(message)), Buffer.from(message)]);
    for (;;) {
      const request = await input.read(8);
      const id = request.toString('ascii', 0, 4);
      const length = request.readUInt32LE(4);
      if (id === 'QUIT') return this.close(stream);
      // SYNC.TXT: a path is at most 1024 bytes.
      if (length > 1024) return this.close(stream);
      const path = (await input.read(length)).toString('utf8');
      if (id === 'STAT') {
        const file = phone.files.get(path);
        const stat = Buffer.alloc(16);
        stat.write('STAT', 0, 'ascii');
        // A missing file answers all zeros; a file is a regular one (0o100000) with its mode.
        if (file) {
          stat.writeUInt32LE(0o100644, 4);
          stat.writeUInt32LE(file.length, 8);
          stat.writeUInt32LE(Math.floor(Date.now() / 1000), 12);
        }
        this.write(stream, stat);
      } else if (id === 'LIST') {
        const dir = path.replace(/\/+$/, '');
        for (const [name, data] of phone.files) {
          if (!name.startsWith(`${dir}/`) || name.slice(dir.length + 1).includes('/')) continue;
          const entry = Buffer.from(name.slice(dir.length + 1));
          const dent = Buffer.alloc(20);
          dent.write('DENT', 0, 'ascii');
          dent.writeUInt32LE(0o100644, 4);
          dent.writeUInt32LE(data.length, 8);
          dent.writeUInt32LE(Math.floor(Date.now() / 1000), 12);
          dent.writeUInt32LE(entry.length, 16);
          this.write(stream, Buffer.concat([dent, entry]));
        }
        this.write(stream, Buffer.concat([word('DONE', 0), Buffer.alloc(12)]));
      } else if (id === 'SEND') {
        const comma = path.lastIndexOf(',');
        const target = comma >= 0 ? path.slice(0, comma) : path;
        const mode = comma >= 0 ? Number(path.slice(comma + 1)) : 0o644;
        const chunks: Buffer[] = [];
        for (;;) {
          const head = await input.read(8);
          const kind = head.toString('ascii', 0, 4);
          const value = head.readUInt32LE(4);
          if (kind === 'DATA') {
            // SYNC.TXT: DATA chunks are at most 64 KiB.
            if (value > 64 * 1024) return this.close(stream);
            chunks.push(await input.read(value));
            continue;
          }
          if (kind === 'DONE') {
            phone.receive(target, mode, Buffer.concat(chunks), value);
            this.write(stream, word('OKAY', 0));
            break;
          }
          this.write(stream, failure(`unexpected ${kind} while receiving ${target}`));
          return this.close(stream);
        }
      } else if (id === 'RECV') {
        const file = phone.files.get(path);
        if (!file) {
          this.write(stream, failure(`open failed: No such file or directory`));
          continue;
        }
        for (let offset = 0; offset < file.length; offset += 64 * 1024) {
          const chunk = file.subarray(offset, offset + 64 * 1024);
          this.write(stream, Buffer.concat([word('DATA', chunk.length), chunk]));
        }
        this.write(stream, word('DONE', 0));
      } else {
        this.write(stream, failure(`unknown sync request ${id}`));
        return this.close(stream);
      }
    }
  }

  /** A stream joined to a process on the phone that accepts connections. */
  private async forward(stream: Stream, listener: PhoneListener): Promise<void> {
    const socket = await this.adbd.socketTo(listener);
    socket.on('data', (chunk: Buffer) => this.write(stream, chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => this.close(stream));
    this.take(
      stream,
      (data) => socket.write(data),
      () => socket.destroy(),
    );
    if (stream.closed) socket.destroy();
  }
}
