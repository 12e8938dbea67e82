/**
 * minicap, the screen streamer that runs on the phone: which prebuilt build fits a phone, the projection it is
 * started with, and the stream it sends over its socket (a banner, then length-prefixed JPEG frames). Pure apart
 * from finding the prebuilt files, so the protocol is checked byte by byte in the tests.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ScreenSize } from '../phone/phone.device.ts';

/** Where minicap and its library go on the phone: the shell user may write and execute there. */
export const MINICAP_DIR = '/data/local/tmp';
/** The abstract unix socket minicap listens on; adb connects to it directly, no port is forwarded. */
export const MINICAP_SOCKET = 'localabstract:minicap';

/**
 * The npm packages that ship minicap builds, and the Android versions each is used for. DeviceFarmer's stops at
 * Android 11 (SDK 30); the @u4 fork adds SDK 32 builds and repeats the older ones.
 */
const PREBUILT_PACKAGES = [
  { name: '@devicefarmer/minicap-prebuilt', sdks: [1, 30] },
  { name: '@u4/minicap-prebuilt', sdks: [1, Number.POSITIVE_INFINITY] },
] as const;

/** The two files that make minicap run on one phone, on this farm host. */
export interface MinicapFiles {
  /** The executable (`minicap`, or `minicap-nopie` before Android 4.1). */
  bin: string;
  /** `minicap.so`, built against one Android version's private screen API. */
  lib: string;
  /** The npm package they come from. */
  from: string;
}

const requireHere = createRequire(import.meta.url);

/** The folder of an installed package, or null when it is not installed. */
export function packageRoot(name: string): string | null {
  try {
    return dirname(requireHere.resolve(`${name}/package.json`));
  } catch {
    // Packages whose `exports` hide package.json (@u4's does): walk up from their entry point.
  }
  try {
    let dir = dirname(requireHere.resolve(name));
    for (let depth = 0; depth < 4; depth++) {
      const manifest = join(dir, 'package.json');
      if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === name) return dir;
      dir = dirname(dir);
    }
  } catch {
    // Not installed.
  }
  return null;
}

/**
 * The minicap build for a phone's primary ABI and SDK, or null when no installed package has one (the live screen
 * then uses screencap). `rootOf` finds a package's folder; tests stand in for missing packages with it.
 */
export function minicapFiles(abi: string, sdk: number, rootOf: (name: string) => string | null = packageRoot): MinicapFiles | null {
  if (!/^[\w-]+$/.test(abi) || !Number.isInteger(sdk) || sdk <= 0) return null;
  for (const { name, sdks } of PREBUILT_PACKAGES) {
    if (sdk < sdks[0] || sdk > sdks[1]) continue;
    const root = rootOf(name);
    if (!root) continue;
    const bin = join(root, 'prebuilt', abi, 'bin', sdk >= 16 ? 'minicap' : 'minicap-nopie');
    const lib = join(root, 'prebuilt', abi, 'lib', `android-${sdk}`, 'minicap.so');
    if (existsSync(bin) && existsSync(lib)) return { bin, lib, from: name };
  }
  return null;
}

/**
 * minicap's `-P` value: the real screen, the size of the frames (the longer side `maxSide`, never enlarged) and the
 * display's rotation in degrees. Both sizes are in the screen's natural (portrait) orientation.
 */
export function minicapProjection(screen: ScreenSize, maxSide: number, quarterTurns: number): string {
  const scale = Math.min(1, maxSide / Math.max(screen.width, screen.height));
  const width = Math.max(1, Math.round(screen.width * scale));
  const height = Math.max(1, Math.round(screen.height * scale));
  return `${screen.width}x${screen.height}@${width}x${height}/${(((quarterTurns % 4) + 4) % 4) * 90}`;
}

/** The shell command line that starts minicap (it runs until killed). */
export function minicapCommand(projection: string, quality: number): string {
  return `LD_LIBRARY_PATH=${MINICAP_DIR} exec ${MINICAP_DIR}/minicap -P ${projection} -S -Q ${Math.round(quality)}`;
}

/** What minicap says first on every connection. */
export interface MinicapBanner {
  version: number;
  pid: number;
  realWidth: number;
  realHeight: number;
  virtualWidth: number;
  virtualHeight: number;
  /** Quarter turns of the display (0..3). */
  orientation: number;
  /** Bit flags: 1 frames only when asked, 2 always upright, 4 may tear. */
  quirks: number;
}

const BANNER_FIELDS = 24;
/** A frame larger than this is a broken stream, not a picture (a 4K screen at quality 100 is well below). */
const MAX_FRAME_BYTES = 32 * 1024 * 1024;

/** A stream that is not minicap's, or broken mid-way. */
export class MinicapStreamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MinicapStreamError';
  }
}

/**
 * Reads minicap's socket as it arrives, in chunks of any size: the banner (its second byte says how long it is),
 * then frames of a u32le length followed by a JPEG.
 */
export class MinicapParser {
  banner: MinicapBanner | null = null;
  private chunks: Buffer[] = [];
  private buffered = 0;
  private frameLength: number | null = null;

  /** Takes the next chunk; answers the frames it completed, oldest first. Throws `MinicapStreamError` on a broken stream. */
  feed(chunk: Buffer): Buffer[] {
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    const frames: Buffer[] = [];
    for (;;) {
      if (!this.banner) {
        if (this.buffered < 2) return frames;
        const length = this.peek(2)[1] as number;
        if (length < BANNER_FIELDS) throw new MinicapStreamError(`minicap sent a banner of ${length} bytes (at least ${BANNER_FIELDS} expected).`);
        if (this.buffered < length) return frames;
        const banner = this.take(length);
        this.banner = {
          version: banner.readUInt8(0),
          pid: banner.readUInt32LE(2),
          realWidth: banner.readUInt32LE(6),
          realHeight: banner.readUInt32LE(10),
          virtualWidth: banner.readUInt32LE(14),
          virtualHeight: banner.readUInt32LE(18),
          orientation: banner.readUInt8(22),
          quirks: banner.readUInt8(23),
        };
        continue;
      }
      if (this.frameLength === null) {
        if (this.buffered < 4) return frames;
        const length = this.take(4).readUInt32LE(0);
        if (length === 0 || length > MAX_FRAME_BYTES) throw new MinicapStreamError(`minicap announced a frame of ${length} bytes.`);
        this.frameLength = length;
      }
      if (this.buffered < this.frameLength) return frames;
      const frame = this.take(this.frameLength);
      this.frameLength = null;
      if (frame[0] !== 0xff || frame[1] !== 0xd8) throw new MinicapStreamError('minicap sent a frame that is not a JPEG.');
      frames.push(frame);
    }
  }

  private peek(size: number): Buffer {
    const first = this.chunks[0] as Buffer;
    return first.length >= size ? first.subarray(0, size) : Buffer.concat(this.chunks).subarray(0, size);
  }

  /** Removes exactly `size` buffered bytes, copying only when they span chunks. */
  private take(size: number): Buffer {
    this.buffered -= size;
    const first = this.chunks[0] as Buffer;
    if (first.length >= size) {
      if (first.length === size) this.chunks.shift();
      else this.chunks[0] = first.subarray(size);
      return first.subarray(0, size);
    }
    const out = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const chunk = this.chunks[0] as Buffer;
      const used = Math.min(chunk.length, size - filled);
      chunk.copy(out, filled, 0, used);
      filled += used;
      if (used === chunk.length) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(used);
    }
    return out;
  }
}

/** A JPEG's pixel size from its frame header (SOFn), or null when it has none. */
export function jpegSize(data: Buffer): { width: number; height: number } | null {
  if (data[0] !== 0xff || data[1] !== 0xd8) return null;
  let at = 2;
  while (at + 4 <= data.length) {
    if (data[at] !== 0xff) return null;
    const marker = data[at + 1] as number;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    // Markers without a length: restart markers, TEM.
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      at += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null;
    const length = data.readUInt16BE(at + 2);
    const isFrameHeader = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrameHeader) {
      if (at + 9 > data.length) return null;
      return { height: data.readUInt16BE(at + 5), width: data.readUInt16BE(at + 7) };
    }
    at += 2 + length;
  }
  return null;
}
