/**
 * A fake scrcpy-server (3.3.1 protocol) for tests: H.264 clips made with Debian's ffmpeg (libx264, one slice per
 * frame, a short key-frame interval), cut into scrcpy's packets, streamed on the video socket after the dummy byte,
 * device name and codec header. A touch on the control socket switches to the next clip at its next key frame; a
 * reset-video sends the configuration and a key frame at once.
 *
 * The control socket is read as scrcpy 3.3.1's server reads it (`readControlMessages` below, ported from
 * server/src/main/java/com/genymobile/scrcpy/control/ControlMessageReader.java and util/Binary.java at tag v3.3.1),
 * not with the farm host's own encoder, so a layout the host gets wrong shows here.
 */
import { execFileSync } from 'node:child_process';
import { Duplex } from 'node:stream';
import { SCRCPY_CODEC_H264, type ScrcpyPacket } from '../src/adb/adb.scrcpy.ts';
import type { ScrcpyPhone } from '../src/adb/adb.scrcpy.session.ts';

/** The version this fake is: scrcpy-server refuses a client that names another ("The server version (…) does not match"). */
export const FAKE_SCRCPY_VERSION = '3.3.1';

/** Makes a clip with ffmpeg's lavfi source (`testsrc`, `color=c=blue`…), as an Annex-B H.264 byte stream. */
export function makeClip(source: string, options: { width?: number; height?: number; fps?: number; frames?: number; gop?: number } = {}): Buffer {
  const { width = 160, height = 320, fps = 30, frames = 30, gop = 10 } = options;
  return execFileSync(
    'ffmpeg',
    [
      ...['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', `${source}${source.includes('=') ? ':' : '='}size=${width}x${height}:rate=${fps}`],
      ...['-frames:v', String(frames), '-c:v', 'libx264', '-profile:v', 'baseline', '-pix_fmt', 'yuv420p', '-preset', 'ultrafast'],
      ...['-g', String(gop), '-keyint_min', String(gop), '-sc_threshold', '0', '-bf', '0', '-x264-params', 'slices=1'],
      ...['-f', 'h264', '-'],
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
}

/** Cuts an Annex-B stream into scrcpy packets: SPS+PPS as the config packet, each slice (with its SEI) a frame. */
export function clipPackets(stream: Buffer, fps = 30): ScrcpyPacket[] {
  const starts: number[] = [];
  for (let at = 0; at + 3 < stream.length; at++) {
    if (stream[at] === 0 && stream[at + 1] === 0 && stream[at + 2] === 1) {
      starts.push(at > 0 && stream[at - 1] === 0 ? at - 1 : at);
      at += 2;
    }
  }
  const nals = starts.map((start, i) => stream.subarray(start, starts[i + 1] ?? stream.length));
  const packets: ScrcpyPacket[] = [];
  let config: Buffer[] = [];
  let pending: Buffer[] = [];
  let frame = 0;
  for (const nal of nals) {
    const offset = nal[2] === 1 ? 3 : 4;
    const type = (nal[offset] as number) & 0x1f;
    if (type === 7 || type === 8) config.push(nal);
    else if (type === 1 || type === 5) {
      if (config.length > 0) {
        packets.push({ config: true, keyFrame: false, ptsUs: null, data: Buffer.concat(config) });
        config = [];
      }
      packets.push({ config: false, keyFrame: type === 5, ptsUs: Math.round((frame * 1e6) / fps), data: Buffer.concat([...pending, nal]) });
      pending = [];
      frame += 1;
    } else pending.push(nal);
  }
  return packets;
}

export function encodePacket(packet: ScrcpyPacket): Buffer {
  const head = Buffer.alloc(12);
  let pts = BigInt(packet.ptsUs ?? 0);
  if (packet.config) pts = 1n << 63n;
  else if (packet.keyFrame) pts |= 1n << 62n;
  head.writeBigUInt64BE(pts, 0);
  head.writeUInt32BE(packet.data.length, 8);
  return Buffer.concat([head, packet.data]);
}

export function videoPreamble(name: string, width: number, height: number, dummy = true): Buffer {
  const nameBytes = Buffer.alloc(64);
  nameBytes.write(name, 'utf8');
  const codec = Buffer.alloc(12);
  codec.writeUInt32BE(SCRCPY_CODEC_H264, 0);
  codec.writeUInt32BE(width, 4);
  codec.writeUInt32BE(height, 8);
  return Buffer.concat([dummy ? Buffer.from([0]) : Buffer.alloc(0), nameBytes, codec]);
}

/** A control message as scrcpy 3.3.1's `ControlMessage` holds it (the fields the tests look at). */
export type ControlMessage =
  | { type: 'touch'; action: 'down' | 'up' | 'move'; pointerId: bigint; x: number; y: number; width: number; height: number; pressure: number }
  | { type: 'key'; action: 'down' | 'up'; keycode: number; repeat: number; metaState: number }
  | { type: 'text'; text: string }
  | { type: 'clipboard'; paste: boolean; text: string }
  | { type: 'scroll'; x: number; y: number; width: number; height: number; hScroll: number; vScroll: number; buttons: number }
  | { type: 'back'; action: 'down' | 'up' }
  | { type: 'rotate' }
  | { type: 'reset-video' }
  | { type: 'other'; code: number };

/** `ControlMessage.TYPE_*` of 3.3.1. */
const TYPE = {
  injectKeycode: 0,
  injectText: 1,
  injectTouch: 2,
  injectScroll: 3,
  backOrScreenOn: 4,
  getClipboard: 8,
  setClipboard: 9,
  setDisplayPower: 10,
  rotateDevice: 11,
  uhidCreate: 12,
  uhidInput: 13,
  uhidDestroy: 14,
  startApp: 16,
  resetVideo: 17,
} as const;
/** Types read as `ControlMessage.createEmpty(type)`: expand/collapse panels, rotate, keyboard settings, reset video. */
const EMPTY_TYPES = new Set([5, 6, 7, 11, 15, 17]);

/** The message is not whole yet (DataInputStream would block). */
class Incomplete extends Error {}

/** `DataInputStream` over what arrived so far: every read throws Incomplete past the end. */
class DataInput {
  at: number;
  constructor(
    private readonly buffer: Buffer,
    start: number,
  ) {
    this.at = start;
  }
  private need(bytes: number): number {
    if (this.at + bytes > this.buffer.length) throw new Incomplete();
    const from = this.at;
    this.at += bytes;
    return from;
  }
  readUnsignedByte(): number {
    return this.buffer.readUInt8(this.need(1));
  }
  readShort(): number {
    return this.buffer.readInt16BE(this.need(2));
  }
  readUnsignedShort(): number {
    return this.buffer.readUInt16BE(this.need(2));
  }
  readInt(): number {
    return this.buffer.readInt32BE(this.need(4));
  }
  readLong(): bigint {
    return this.buffer.readBigInt64BE(this.need(8));
  }
  readFully(length: number): Buffer {
    return this.buffer.subarray(this.need(length), this.at);
  }
  /** `parseBufferLength(sizeBytes)` then `readFully`: a big-endian length of 1 to 4 bytes, then the bytes. */
  byteArray(sizeBytes: number): Buffer {
    let length = 0;
    for (let i = 0; i < sizeBytes; i++) length = length * 256 + this.readUnsignedByte();
    return this.readFully(length);
  }
  string(sizeBytes = 4): string {
    return this.byteArray(sizeBytes).toString('utf8');
  }
}

/** `Binary.u16FixedPointToFloat`: 0xffff is 1, anything else value / 2^16. */
const u16FixedPointToFloat = (value: number) => (value === 0xffff ? 1 : value / 0x10000);
/** `Binary.i16FixedPointToFloat`: 0x7fff is 1, anything else value / 2^15. */
const i16FixedPointToFloat = (value: number) => (value === 0x7fff ? 1 : value / 0x8000);

/** `ControlMessageReader.read()` of 3.3.1, one message. */
function readOne(dis: DataInput): ControlMessage {
  const type = dis.readUnsignedByte();
  const position = () => ({ x: dis.readInt(), y: dis.readInt(), width: dis.readUnsignedShort(), height: dis.readUnsignedShort() });
  switch (type) {
    case TYPE.injectKeycode: {
      const action = dis.readUnsignedByte();
      const keycode = dis.readInt();
      const repeat = dis.readInt();
      const metaState = dis.readInt();
      return { type: 'key', action: action === 0 ? 'down' : 'up', keycode, repeat, metaState };
    }
    case TYPE.injectText:
      return { type: 'text', text: dis.string() };
    case TYPE.injectTouch: {
      const action = dis.readUnsignedByte();
      const pointerId = dis.readLong();
      const at = position();
      const pressure = u16FixedPointToFloat(dis.readUnsignedShort());
      dis.readInt(); // actionButton
      dis.readInt(); // buttons
      return { type: 'touch', action: (['down', 'up', 'move'] as const)[action] ?? 'move', pointerId, ...at, pressure };
    }
    case TYPE.injectScroll: {
      const at = position();
      // "Binary.i16FixedPointToFloat() decodes values assuming the full range is [-1, 1], but the actual range is [-16, 16]."
      const hScroll = i16FixedPointToFloat(dis.readShort()) * 16;
      const vScroll = i16FixedPointToFloat(dis.readShort()) * 16;
      const buttons = dis.readInt();
      return { type: 'scroll', ...at, hScroll, vScroll, buttons };
    }
    case TYPE.backOrScreenOn:
      return { type: 'back', action: dis.readUnsignedByte() === 0 ? 'down' : 'up' };
    case TYPE.getClipboard:
      dis.readUnsignedByte(); // copyKey
      return { type: 'other', code: type };
    case TYPE.setClipboard: {
      dis.readLong(); // sequence
      const paste = dis.readUnsignedByte() !== 0;
      return { type: 'clipboard', paste, text: dis.string() };
    }
    case TYPE.setDisplayPower:
      dis.readUnsignedByte();
      return { type: 'other', code: type };
    case TYPE.uhidCreate:
      dis.readUnsignedShort(); // id
      dis.readUnsignedShort(); // vendorId
      dis.readUnsignedShort(); // productId
      dis.string(1); // name
      dis.byteArray(2); // report descriptor
      return { type: 'other', code: type };
    case TYPE.uhidInput:
      dis.readUnsignedShort();
      dis.byteArray(2);
      return { type: 'other', code: type };
    case TYPE.uhidDestroy:
      dis.readUnsignedShort();
      return { type: 'other', code: type };
    case TYPE.startApp:
      dis.string(1);
      return { type: 'other', code: type };
    default:
      if (!EMPTY_TYPES.has(type)) throw new Error(`Unknown event type: ${type}`);
      if (type === TYPE.rotateDevice) return { type: 'rotate' };
      if (type === TYPE.resetVideo) return { type: 'reset-video' };
      return { type: 'other', code: type };
  }
}

/** Reads the whole control messages in `buffer`; an incomplete one at the end is answered as `rest`, to wait for more. */
export function readControlMessages(buffer: Buffer): { messages: ControlMessage[]; rest: Buffer } {
  const messages: ControlMessage[] = [];
  let at = 0;
  while (at < buffer.length) {
    const dis = new DataInput(buffer, at);
    try {
      messages.push(readOne(dis));
    } catch (error) {
      if (error instanceof Incomplete) break;
      throw error;
    }
    at = dis.at;
  }
  return { messages, rest: buffer.subarray(at) };
}

/** One end of an in-memory connection: what it writes, the other end reads; closing one closes both. */
class End extends Duplex {
  peer: End | null = null;
  override _read(): void {}
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (this.peer && !this.peer.destroyed) this.peer.push(chunk);
    done();
  }
  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    const peer = this.peer;
    this.peer = null;
    if (peer && !peer.destroyed) {
      peer.push(null);
      peer.destroy();
    }
    done(error);
  }
}

/** A pair of connected streams: what the host holds, and the fake server's end. */
function pair(): { host: Duplex; phone: Duplex } {
  const host = new End();
  const phone = new End();
  host.peer = phone;
  phone.peer = host;
  return { host, phone };
}

export interface FakeScrcpyOptions {
  clips: ScrcpyPacket[][];
  width: number;
  height: number;
  /** Milliseconds between frames. */
  frameMs?: number;
  /** Connections refused before the server listens (it starts a moment after app_process). */
  refuseFirst?: number;
  /** Bytes written on the video socket instead of packets, after this many frames (a broken server). */
  garbageAfter?: { frames: number; bytes: Buffer } | null;
}

/**
 * One running scrcpy-server: the first connection is the video socket, the second the control socket (audio off);
 * streaming starts once both are there, as the real server's `DesktopConnection.open` waits for both.
 */
export class FakeScrcpyServer {
  control: ControlMessage[] = [];
  /** When each touch arrived (ms, performance clock) and the clip it switched to. */
  switches: { at: number; clip: number }[] = [];
  sentFrames = 0;
  running = true;
  private refused = 0;
  private readonly opened: Duplex[] = [];
  private timer: NodeJS.Timeout | null = null;
  private clip = 0;
  private nextClip: number | null = null;
  private frame = 0;
  /**
   * The configuration last written, and whether one is due. libx264 repeats SPS/PPS before every key frame, but
   * Android's MediaCodec emits its codec-config buffer once per encoder start, and scrcpy's `Streamer` writes it only
   * then (its start, a reset-video, a rotation): the clips' repeats are left out unless the parameters changed.
   */
  private lastConfig: Buffer | null = null;
  private configDue = true;
  private video: Duplex | null = null;
  private endWith: (words: string) => void = () => undefined;
  /** Resolves with the server's last words when it stops. */
  readonly exited: Promise<string>;

  constructor(
    readonly scid: string,
    private readonly options: FakeScrcpyOptions,
  ) {
    this.exited = new Promise((resolve) => {
      this.endWith = resolve;
    });
  }

  /** Whether a connection now would be accepted (false while it is "starting"). */
  listening(): boolean {
    if (!this.running) return false;
    if (this.refused < (this.options.refuseFirst ?? 0)) {
      this.refused += 1;
      return false;
    }
    return true;
  }

  accept(socket: Duplex): void {
    if (!this.running) {
      socket.destroy();
      return;
    }
    this.opened.push(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => this.stop('[server] INFO: Client disconnected'));
    if (this.opened.length === 1) this.video = socket;
    else if (this.opened.length === 2) {
      let rest = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        const read = readControlMessages(Buffer.concat([rest, chunk]));
        rest = Buffer.from(read.rest);
        for (const message of read.messages) this.onControl(message);
      });
      this.startStreaming();
    } else socket.destroy();
  }

  private onControl(message: ControlMessage): void {
    this.control.push(message);
    if (message.type === 'touch' && message.action === 'down') {
      this.nextClip = (this.clip + 1) % this.options.clips.length;
      this.switches.push({ at: performance.now(), clip: this.nextClip });
    }
    // A reset restarts the encoder: configuration and a key frame come next.
    if (message.type === 'reset-video') {
      this.frame = 0;
      this.configDue = true;
    }
  }

  private startStreaming(): void {
    const video = this.video;
    if (!video) return;
    video.write(videoPreamble('fake', this.options.width, this.options.height));
    this.timer = setInterval(() => this.tick(), this.options.frameMs ?? 33);
  }

  private tick(): void {
    const video = this.video;
    if (!video || video.destroyed) {
      this.stop();
      return;
    }
    const garbage = this.options.garbageAfter;
    if (garbage && this.sentFrames >= garbage.frames) {
      video.write(garbage.bytes);
      return;
    }
    // Several packets may be due at once (config then a frame): send until one picture went out.
    for (;;) {
      let packets = this.options.clips[this.clip] as ScrcpyPacket[];
      if (this.frame >= packets.length) this.frame = 0;
      let packet = packets[this.frame] as ScrcpyPacket;
      if (this.nextClip !== null && (packet.keyFrame || packet.config)) {
        this.clip = this.nextClip;
        this.nextClip = null;
        this.frame = 0;
        packets = this.options.clips[this.clip] as ScrcpyPacket[];
        packet = packets[0] as ScrcpyPacket;
      }
      if (packet.config && !this.configDue && this.lastConfig?.equals(packet.data)) {
        this.frame += 1;
        continue;
      }
      if (packet.config) {
        this.lastConfig = packet.data;
        this.configDue = false;
      }
      video.write(encodePacket(packet));
      this.frame += 1;
      if (!packet.config) {
        this.sentFrames += 1;
        return;
      }
    }
  }

  /** Which clip is on screen now. */
  get currentClip(): number {
    return this.clip;
  }

  /** The server stops (killed, its client gone, or crashed with `words`): every socket closes. */
  stop(words = ''): void {
    if (!this.running) return;
    this.running = false;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const socket of this.opened) socket.destroy();
    this.endWith(words);
  }
}

/** A phone whose shell runs the fake server for the `scid` in the command, reached over in-memory sockets. */
export class FakeScrcpyPhone implements ScrcpyPhone {
  pushed: string[] = [];
  commands: string[] = [];
  server: FakeScrcpyServer | null = null;

  constructor(private readonly options: FakeScrcpyOptions) {}

  async push(localPath: string, remotePath: string): Promise<void> {
    this.pushed.push(`${localPath} -> ${remotePath}`);
  }

  async shell(command: string): Promise<Duplex> {
    this.commands.push(command);
    const scid = /scid=([0-9a-f]{8})/.exec(command)?.[1];
    if (!scid || !command.includes('tunnel_forward=true')) throw new Error('not a scrcpy-server command');
    const server = new FakeScrcpyServer(scid, this.options);
    this.server = server;
    const { host, phone } = pair();
    phone.write('[server] INFO: Device: fake\n');
    phone.on('close', () => server.stop());
    void server.exited.then((words) => {
      if (words) phone.write(`${words}\n`);
      phone.destroy();
    });
    return host;
  }

  async openLocal(path: string): Promise<Duplex> {
    const server = this.server;
    if (!server || path !== `localabstract:scrcpy_${server.scid}` || !server.listening()) throw new Error(`closed: no socket ${path}`);
    const { host, phone } = pair();
    server.accept(phone);
    return host;
  }

  get control(): ControlMessage[] {
    return this.server?.control ?? [];
  }

  /** The server dies: every socket and its shell close. */
  die(words = 'java.lang.IllegalStateException: encoder died'): void {
    this.server?.stop(`[server] ERROR: ${words}`);
  }

  stop(): void {
    this.server?.stop();
  }
}
