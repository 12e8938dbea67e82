/**
 * scrcpy-server on a phone: the pinned release file (checked against its SHA-256), the command line that starts it
 * with `tunnel_forward=true`, the video socket's stream (device name, codec header, then H.264 packets behind a
 * 12-byte header) and the control socket's messages (touch, keys, text, scroll, back, clipboard, rotate, reset video).
 *
 * Spoken here byte by byte rather than through `@yume-chan/scrcpy`: that client is built around its own adb stack and
 * web streams, while the farm host already holds adbkit streams and needs only a few dozen bytes of framing; each
 * layout below is the one of scrcpy 3.3.1's `ControlMessageReader`, `Streamer` and `DesktopConnection`
 * (doc/develop.md of the pinned tag; from 3.1 only the scroll's scaling changed).
 *
 * Nothing here decodes video: packets are relayed as they come, and the host keeps only the codec configuration and
 * the packets since the last key frame, so a late watcher starts at once.
 */
import { createHash, randomInt } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { getScrcpyJar } from '@u4/minicap-prebuilt';

/** The one scrcpy-server version the farm host speaks (the server refuses a client of any other version). */
export const SCRCPY_VERSION = '3.3.1';
/**
 * SHA-256 of scrcpy's release asset `scrcpy-server-v3.3.1`, as scrcpy publishes it beside the release. The file comes
 * from the `@u4/minicap-prebuilt` package (pinned exactly), which ships the unmodified official jars 1.20 to 3.3.1;
 * a farm can check it with `sha256sum` on `prebuilt/scrcpy/scrcpy-server-v3.3.1.jar`.
 */
export const SCRCPY_SERVER_SHA256 = 'a0f70b20aa4998fbf658c94118cd6c8dab6abbb0647a3bdab344d70bc1ebcbb8';
/** Where the server file goes on the phone (app_process runs it from there). */
export const SCRCPY_REMOTE_PATH = '/data/local/tmp/farm-scrcpy-server.jar';

/** The scrcpy-server file installed with the farm host: nothing is downloaded at first use (farm PCs are often offline). */
export function bundledScrcpyServer(): string {
  return getScrcpyJar(SCRCPY_VERSION);
}

/** A scrcpy stream that is not the pinned protocol, or broken mid-way; the stream ends with this reason. */
export class ScrcpyStreamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScrcpyStreamError';
  }
}

/** The SHA-256 of a file, as lowercase hex. */
export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Checks a scrcpy-server file against the pinned hash: a matching file is answered as is, any other is refused with a
 * reason naming both hashes (and left where it is: it is the operator's or the installed package's).
 */
export async function verifyScrcpyServer(path: string, expected = SCRCPY_SERVER_SHA256): Promise<string> {
  let actual: string;
  try {
    actual = await fileSha256(path);
  } catch (error) {
    throw new ScrcpyStreamError(`The scrcpy-server file ${path} cannot be read (${error instanceof Error ? error.message : String(error)}).`);
  }
  if (actual !== expected)
    throw new ScrcpyStreamError(`The scrcpy-server file ${path} is not scrcpy-server v${SCRCPY_VERSION}: its SHA-256 is ${actual}, expected ${expected}.`);
  return path;
}

export interface ScrcpyServerSource {
  /** `SCRCPY_SERVER` (or `--scrcpy-server`): a file the farm host's operator placed, used instead of the installed one. */
  path?: string | undefined;
  /** The installed file (`@u4/minicap-prebuilt`'s jar by default). */
  bundled?: string;
  sha256?: string;
}

/**
 * The scrcpy-server file this host runs: `SCRCPY_SERVER` when set, else the one installed with the farm host. Either
 * is checked against the pinned SHA-256 and refused with the reason when it differs.
 */
export async function ensureScrcpyServer(source: ScrcpyServerSource = {}): Promise<string> {
  const sha256 = source.sha256 ?? SCRCPY_SERVER_SHA256;
  return verifyScrcpyServer(source.path || (source.bundled ?? bundledScrcpyServer()), sha256);
}

/**
 * The scrcpy-server file for every phone of a host, found and checked once: a success is kept, a failure is answered
 * again for `retryAfterMs` (a watcher opening a phone does not hash the file each time), then tried anew (an operator
 * may have fixed `SCRCPY_SERVER`'s file meanwhile).
 */
export function scrcpyServerOnce(source: ScrcpyServerSource = {}, retryAfterMs = 5 * 60_000): () => Promise<string> {
  let found: Promise<string> | null = null;
  let failedAt = 0;
  return () => {
    if (found && (failedAt === 0 || Date.now() - failedAt < retryAfterMs)) return found;
    failedAt = 0;
    const attempt = ensureScrcpyServer(source);
    found = attempt;
    attempt.catch(() => {
      if (found === attempt) failedAt = Date.now();
    });
    return attempt;
  };
}

/** The two streams a phone may serve at once: one for whoever controls it, one for those who only look. */
export type ScrcpyStreamKind = 'control' | 'watch';

export interface ScrcpyStreamProfile {
  /** Longer side of the picture, in pixels (never enlarged). */
  maxSize: number;
  maxFps: number;
  bitRate: number;
  /** Seconds between key frames the encoder is asked for. */
  keyFrameIntervalS: number;
}

export const SCRCPY_PROFILES: Record<ScrcpyStreamKind, ScrcpyStreamProfile> = {
  control: { maxSize: 1080, maxFps: 60, bitRate: 6_000_000, keyFrameIntervalS: 2 },
  watch: { maxSize: 480, maxFps: 15, bitRate: 800_000, keyFrameIntervalS: 2 },
};

/** A session id: 31 bits, so the socket name `scrcpy_%08x` is the one the server listens on. */
export function newScid(): number {
  return randomInt(1, 0x7fffffff);
}

export function scrcpySocketName(scid: number): string {
  return `localabstract:scrcpy_${scid.toString(16).padStart(8, '0')}`;
}

/**
 * The shell command that starts scrcpy-server for one session. Audio is off (two sockets: video then control), the
 * server waits for the host to connect (`tunnel_forward=true`, no `adb reverse`, no host port), sends one dummy byte
 * on the first socket, the device name, the codec header and a 12-byte header before every packet.
 */
export function scrcpyCommand(scid: number, profile: ScrcpyStreamProfile, control: boolean): string {
  const options = [
    `scid=${scid.toString(16).padStart(8, '0')}`,
    'log_level=info',
    'tunnel_forward=true',
    'audio=false',
    `control=${control}`,
    'cleanup=false',
    'video_codec=h264',
    `max_size=${Math.round(profile.maxSize)}`,
    `max_fps=${Math.round(profile.maxFps)}`,
    `video_bit_rate=${Math.round(profile.bitRate)}`,
    // MediaFormat.KEY_I_FRAME_INTERVAL, an int by default in scrcpy's `key[:type]=value` list.
    `video_codec_options=i-frame-interval=${Math.round(profile.keyFrameIntervalS)}`,
    'stay_awake=false',
    'power_off_on_close=false',
    'clipboard_autosync=false',
  ];
  return `CLASSPATH=${SCRCPY_REMOTE_PATH} exec app_process / com.genymobile.scrcpy.Server ${SCRCPY_VERSION} ${options.join(' ')}`;
}

/** `h264` as scrcpy writes codec ids: the ASCII name as a big-endian u32. */
export const SCRCPY_CODEC_H264 = 0x68_32_36_34;
const DEVICE_NAME_BYTES = 64;
const CODEC_HEADER_BYTES = 12;
const PACKET_HEADER_BYTES = 12;
const PTS_CONFIG = 1n << 63n;
const PTS_KEY_FRAME = 1n << 62n;
const PTS_MASK = PTS_KEY_FRAME - 1n;
/** A packet larger than this is a broken stream, not a picture (a 1080p key frame at 8 Mbps is well under 1 MiB). */
export const SCRCPY_MAX_PACKET_BYTES = 8 * 1024 * 1024;

export interface ScrcpyVideoHeader {
  deviceName: string;
  codec: 'h264';
  width: number;
  height: number;
}

export interface ScrcpyPacket {
  /** Codec configuration (SPS/PPS): kept and sent before any picture to every new watcher. */
  config: boolean;
  keyFrame: boolean;
  /** Presentation time in microseconds; null for configuration packets. */
  ptsUs: number | null;
  data: Buffer;
}

export interface ScrcpyParserOptions {
  /** Whether the first byte is the dummy byte (`tunnel_forward` sends it on the first socket). */
  dummyByte?: boolean;
  maxPacketBytes?: number;
}

/**
 * Reads the video socket in chunks of any size: [dummy byte], 64-byte device name, codec id + width + height, then
 * packets of an 8-byte PTS (bit 63 config, bit 62 key frame) and a 4-byte length. Throws ScrcpyStreamError on anything
 * else; after a throw the parser stays broken (the stream must end).
 */
export class ScrcpyVideoParser {
  private buffered: Buffer[] = [];
  private size = 0;
  private state: 'dummy' | 'name' | 'codec' | 'packets' | 'broken';
  private deviceName = '';
  private readonly maxPacketBytes: number;
  header: ScrcpyVideoHeader | null = null;

  constructor(options: ScrcpyParserOptions = {}) {
    this.state = (options.dummyByte ?? true) ? 'dummy' : 'name';
    this.maxPacketBytes = options.maxPacketBytes ?? SCRCPY_MAX_PACKET_BYTES;
  }

  /** Feeds bytes; answers the header when it completes (once) and every whole packet in them. */
  push(chunk: Buffer): { header: ScrcpyVideoHeader | null; packets: ScrcpyPacket[] } {
    if (this.state === 'broken') throw new ScrcpyStreamError('The scrcpy video stream was already broken.');
    this.buffered.push(chunk);
    this.size += chunk.length;
    let header: ScrcpyVideoHeader | null = null;
    const packets: ScrcpyPacket[] = [];
    try {
      for (;;) {
        if (this.state === 'dummy') {
          const byte = this.take(1);
          if (!byte) break;
          if (byte[0] !== 0) throw new ScrcpyStreamError(`The scrcpy video stream began with byte ${byte[0]}, not its dummy byte 0.`);
          this.state = 'name';
        } else if (this.state === 'name') {
          const name = this.take(DEVICE_NAME_BYTES);
          if (!name) break;
          const end = name.indexOf(0);
          this.deviceName = name.subarray(0, end < 0 ? DEVICE_NAME_BYTES : end).toString('utf8');
          this.state = 'codec';
        } else if (this.state === 'codec') {
          const codec = this.take(CODEC_HEADER_BYTES);
          if (!codec) break;
          const id = codec.readUInt32BE(0);
          if (id !== SCRCPY_CODEC_H264)
            throw new ScrcpyStreamError(
              `The scrcpy video stream announced codec 0x${id.toString(16)}, not H.264 (the server refused to encode, or is not scrcpy ${SCRCPY_VERSION}).`,
            );
          const width = codec.readUInt32BE(4);
          const height = codec.readUInt32BE(8);
          if (width === 0 || height === 0 || width > 8192 || height > 8192)
            throw new ScrcpyStreamError(`The scrcpy video stream announced a ${width}x${height} picture, which is not a screen.`);
          header = { deviceName: this.deviceName, codec: 'h264', width, height };
          this.header = header;
          this.state = 'packets';
        } else {
          if (this.size < PACKET_HEADER_BYTES) break;
          const head = this.peek(PACKET_HEADER_BYTES);
          const length = head.readUInt32BE(8);
          if (length === 0 || length > this.maxPacketBytes)
            throw new ScrcpyStreamError(`The scrcpy video stream sent a packet of ${length} bytes (allowed: 1 to ${this.maxPacketBytes}).`);
          if (this.size < PACKET_HEADER_BYTES + length) break;
          this.take(PACKET_HEADER_BYTES);
          const data = this.take(length) as Buffer;
          const pts = head.readBigUInt64BE(0);
          const config = (pts & PTS_CONFIG) !== 0n;
          packets.push({ config, keyFrame: !config && (pts & PTS_KEY_FRAME) !== 0n, ptsUs: config ? null : Number(pts & PTS_MASK), data });
        }
      }
    } catch (error) {
      this.state = 'broken';
      this.buffered = [];
      this.size = 0;
      throw error;
    }
    return { header, packets };
  }

  private peek(bytes: number): Buffer {
    if (this.buffered[0] && this.buffered[0].length >= bytes) return this.buffered[0].subarray(0, bytes);
    const joined = Buffer.concat(this.buffered);
    this.buffered = [joined];
    return joined.subarray(0, bytes);
  }

  private take(bytes: number): Buffer | null {
    if (this.size < bytes) return null;
    const joined = this.buffered.length === 1 ? (this.buffered[0] as Buffer) : Buffer.concat(this.buffered);
    const taken = Buffer.from(joined.subarray(0, bytes));
    const rest = joined.subarray(bytes);
    this.buffered = rest.length > 0 ? [rest] : [];
    this.size -= bytes;
    return taken;
  }
}

/** The configuration and the current group of pictures of a stream (shared with the API's relay). */
export { KeyFrameCache } from '../live.h264.ts';

// Control messages (scrcpy 3.x `ControlMessage` types).
export const CONTROL_TYPE = {
  injectKeycode: 0,
  injectText: 1,
  injectTouch: 2,
  injectScroll: 3,
  backOrScreenOn: 4,
  setClipboard: 9,
  rotateDevice: 11,
  resetVideo: 17,
} as const;

/** Android `MotionEvent` actions. */
export const MOTION_ACTION = { down: 0, up: 1, move: 2 } as const;
/** Android `KeyEvent` actions. */
export const KEY_ACTION = { down: 0, up: 1 } as const;
/** scrcpy's `POINTER_ID_GENERIC_FINGER` (-2): a finger, not the mouse. */
const POINTER_FINGER = 0xffff_ffff_ffff_fffen;
/** `ControlMessageReader.INJECT_TEXT_MAX_LENGTH`: longer text goes through the clipboard. */
export const SCRCPY_TEXT_MAX_BYTES = 300;
/** `ControlMessageReader.CLIPBOARD_TEXT_MAX_LENGTH` (256 KiB minus the message header). */
export const SCRCPY_CLIPBOARD_MAX_BYTES = (1 << 18) - 14;

export interface ScreenPoint {
  x: number;
  y: number;
  /** The picture size the point is in (the stream's), so the server scales it to the screen. */
  width: number;
  height: number;
}

const u16 = (value: number) => Math.max(0, Math.min(0xffff, Math.round(value)));
const i32 = (value: number) => Math.max(-0x8000_0000, Math.min(0x7fff_ffff, Math.round(value)));

/** A touch: 32 bytes (type, action, pointer id u64, x/y i32, width/height u16, pressure u16 fixed, buttons). */
export function touchMessage(action: keyof typeof MOTION_ACTION, point: ScreenPoint): Buffer {
  const message = Buffer.alloc(32);
  message.writeUInt8(CONTROL_TYPE.injectTouch, 0);
  message.writeUInt8(MOTION_ACTION[action], 1);
  message.writeBigUInt64BE(POINTER_FINGER, 2);
  message.writeInt32BE(i32(point.x), 10);
  message.writeInt32BE(i32(point.y), 14);
  message.writeUInt16BE(u16(point.width), 18);
  message.writeUInt16BE(u16(point.height), 20);
  message.writeUInt16BE(action === 'up' ? 0 : 0xffff, 22);
  message.writeUInt32BE(0, 24); // action button
  message.writeUInt32BE(0, 28); // buttons
  return message;
}

/** A key: 14 bytes (type, action, keycode i32, repeat i32, meta state i32). */
export function keyMessage(action: keyof typeof KEY_ACTION, keycode: number, repeat = 0, metaState = 0): Buffer {
  const message = Buffer.alloc(14);
  message.writeUInt8(CONTROL_TYPE.injectKeycode, 0);
  message.writeUInt8(KEY_ACTION[action], 1);
  message.writeInt32BE(i32(keycode), 2);
  message.writeInt32BE(i32(repeat), 6);
  message.writeInt32BE(i32(metaState), 10);
  return message;
}

/** The largest scroll scrcpy 3.3.1 takes, in Android's `AXIS_VSCROLL` units (one wheel notch is 1). */
export const SCRCPY_SCROLL_MAX = 16;

/**
 * One scroll amount as 3.3.1's client writes it (app/src/control_msg.c): divided by 16 to fit `sc_float_to_i16fp`'s
 * [-1, 1], clamped, times 2^15 truncated, 1.0 written as 0x7fff. The server multiplies by 16 again
 * (`Binary.i16FixedPointToFloat(dis.readShort()) * 16` in `ControlMessageReader.parseInjectScrollEvent`).
 */
function scrollFixed(value: number): number {
  const normalized = Math.max(-1, Math.min(1, (Number.isFinite(value) ? value : 0) / SCRCPY_SCROLL_MAX));
  return Math.min(0x7fff, Math.trunc(normalized * 0x8000));
}

/**
 * A scroll: 21 bytes (type, x/y i32, width/height u16, horizontal/vertical i16 fixed point, buttons). `horizontal`
 * and `vertical` are wheel notches (`AXIS_HSCROLL`/`AXIS_VSCROLL`), -16 to 16.
 */
export function scrollMessage(point: ScreenPoint, horizontal: number, vertical: number): Buffer {
  const message = Buffer.alloc(21);
  message.writeUInt8(CONTROL_TYPE.injectScroll, 0);
  message.writeInt32BE(i32(point.x), 1);
  message.writeInt32BE(i32(point.y), 5);
  message.writeUInt16BE(u16(point.width), 9);
  message.writeUInt16BE(u16(point.height), 11);
  message.writeInt16BE(scrollFixed(horizontal), 13);
  message.writeInt16BE(scrollFixed(vertical), 15);
  message.writeUInt32BE(0, 17);
  return message;
}

/** Text typed as key events by the server: only where it is short enough and ASCII (scrcpy injects no other text). */
export function textMessage(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length > SCRCPY_TEXT_MAX_BYTES) throw new RangeError(`Text over ${SCRCPY_TEXT_MAX_BYTES} bytes goes through the clipboard.`);
  const message = Buffer.alloc(5 + bytes.length);
  message.writeUInt8(CONTROL_TYPE.injectText, 0);
  message.writeUInt32BE(bytes.length, 1);
  bytes.copy(message, 5);
  return message;
}

/** Sets the phone's clipboard and, with `paste`, pastes it into the focused field (any Unicode). */
export function clipboardMessage(text: string, paste: boolean, sequence = 0n): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length > SCRCPY_CLIPBOARD_MAX_BYTES) throw new RangeError(`Clipboard text is limited to ${SCRCPY_CLIPBOARD_MAX_BYTES} bytes.`);
  const message = Buffer.alloc(14 + bytes.length);
  message.writeUInt8(CONTROL_TYPE.setClipboard, 0);
  message.writeBigUInt64BE(sequence, 1);
  message.writeUInt8(paste ? 1 : 0, 9);
  message.writeUInt32BE(bytes.length, 10);
  bytes.copy(message, 14);
  return message;
}

/** The messages that type `text`: injected as text when scrcpy can (printable ASCII), pasted otherwise. */
export function typeMessages(text: string): Buffer[] {
  if (text.length === 0) return [];
  if (/^[\x20-\x7e]*$/.test(text) && Buffer.byteLength(text) <= SCRCPY_TEXT_MAX_BYTES) return [textMessage(text)];
  return [clipboardMessage(text, true)];
}

export function backOrScreenOnMessage(action: keyof typeof KEY_ACTION): Buffer {
  return Buffer.from([CONTROL_TYPE.backOrScreenOn, KEY_ACTION[action]]);
}

export function rotateMessage(): Buffer {
  return Buffer.from([CONTROL_TYPE.rotateDevice]);
}

/** Asks the encoder for a new key frame (and configuration) at once: sent when a watcher joins. */
export function resetVideoMessage(): Buffer {
  return Buffer.from([CONTROL_TYPE.resetVideo]);
}
