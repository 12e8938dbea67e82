import { join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { jpegSize, minicapCommand, minicapFiles, minicapProjection, MinicapParser, packageRoot } from './adb.minicap.ts';

let jpegs: Buffer[];

beforeAll(async () => {
  jpegs = await Promise.all(
    [
      [324, 720, '#d9825b'],
      [720, 324, '#2b6cb0'],
      [90, 200, '#ffffff'],
    ].map(([width, height, background]) =>
      sharp({ create: { width: width as number, height: height as number, channels: 3, background: background as string } })
        .jpeg({ quality: 60 })
        .toBuffer(),
    ),
  );
});

/** minicap's banner as it sends it: version 1, 24 bytes, pid, real and virtual size, orientation, quirks. */
function banner(pid: number, real: [number, number], virtual: [number, number], orientation = 0, quirks = 0): Buffer {
  const data = Buffer.alloc(24);
  data.writeUInt8(1, 0);
  data.writeUInt8(24, 1);
  data.writeUInt32LE(pid, 2);
  data.writeUInt32LE(real[0], 6);
  data.writeUInt32LE(real[1], 10);
  data.writeUInt32LE(virtual[0], 14);
  data.writeUInt32LE(virtual[1], 18);
  data.writeUInt8(orientation, 22);
  data.writeUInt8(quirks, 23);
  return data;
}

function frame(jpeg: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32LE(jpeg.length, 0);
  return Buffer.concat([length, jpeg]);
}

/** Cuts a stream into chunks of the given sizes, repeating them, as TCP reads may. */
function chunks(stream: Buffer, sizes: number[]): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0, i = 0; at < stream.length; i++) {
    const size = sizes[i % sizes.length] as number;
    out.push(stream.subarray(at, at + size));
    at += size;
  }
  return out;
}

describe("minicap's stream", () => {
  it('reads the banner and frames whatever the chunks (one byte, odd sizes, everything at once)', () => {
    const stream = Buffer.concat([banner(4321, [1080, 2400], [324, 720], 1, 2), ...jpegs.map(frame)]);
    for (const sizes of [[1], [3, 7, 1, 13], [23], [25, 5], [4, 4096], [stream.length]]) {
      const parser = new MinicapParser();
      const frames = chunks(stream, sizes).flatMap((chunk) => parser.feed(chunk));
      expect(parser.banner).toEqual({
        version: 1,
        pid: 4321,
        realWidth: 1080,
        realHeight: 2400,
        virtualWidth: 324,
        virtualHeight: 720,
        orientation: 1,
        quirks: 2,
      });
      expect(frames.map((data) => data.toString('base64'))).toEqual(jpegs.map((data) => data.toString('base64')));
    }
  });

  it('answers nothing until a frame is complete, then only the frames completed', () => {
    const parser = new MinicapParser();
    const whole = frame(jpegs[0] as Buffer);
    expect(parser.feed(banner(7, [720, 1280], [360, 640]).subarray(0, 10))).toEqual([]);
    expect(parser.banner).toBeNull();
    expect(parser.feed(Buffer.concat([banner(7, [720, 1280], [360, 640]).subarray(10), whole.subarray(0, 2)]))).toEqual([]);
    expect(parser.banner?.pid).toBe(7);
    expect(parser.feed(whole.subarray(2, 100))).toEqual([]);
    const done = parser.feed(Buffer.concat([whole.subarray(100), frame(jpegs[1] as Buffer), frame(jpegs[2] as Buffer).subarray(0, 9)]));
    expect(done.map((data) => data.length)).toEqual([jpegs[0]?.length, jpegs[1]?.length]);
    expect(parser.feed(frame(jpegs[2] as Buffer).subarray(9)).map((data) => data.length)).toEqual([jpegs[2]?.length]);
  });

  it('skips banner bytes of a longer banner and refuses a stream that is not minicap', () => {
    const longer = Buffer.concat([banner(9, [1080, 1920], [540, 960]), Buffer.from([0xaa, 0xbb])]);
    longer.writeUInt8(26, 1);
    const parser = new MinicapParser();
    expect(parser.feed(Buffer.concat([longer, frame(jpegs[2] as Buffer)]))).toHaveLength(1);
    expect(() => new MinicapParser().feed(Buffer.from([1, 8, 0, 0, 0, 0, 0, 0]))).toThrow('minicap sent a banner of 8 bytes (at least 24 expected).');
    expect(() => new MinicapParser().feed(Buffer.concat([banner(9, [1, 1], [1, 1]), frame(Buffer.from('not a picture'))]))).toThrow(
      'minicap sent a frame that is not a JPEG.',
    );
    expect(() => new MinicapParser().feed(Buffer.concat([banner(9, [1, 1], [1, 1]), Buffer.from([0, 0, 0, 0])]))).toThrow(
      'minicap announced a frame of 0 bytes.',
    );
  });

  it('reads a JPEG size from its frame header', () => {
    expect(jpegSize(jpegs[0] as Buffer)).toEqual({ width: 324, height: 720 });
    expect(jpegSize(jpegs[1] as Buffer)).toEqual({ width: 720, height: 324 });
    expect(jpegSize(Buffer.from([0xff, 0xd8, 0xff, 0xd9]))).toBeNull();
    expect(jpegSize(Buffer.from('GIF89a'))).toBeNull();
  });
});

describe('starting minicap', () => {
  it('projects the real screen onto frames whose longer side is maxSide, never enlarged', () => {
    expect(minicapProjection({ width: 1080, height: 2400 }, 720, 0)).toBe('1080x2400@324x720/0');
    expect(minicapProjection({ width: 1080, height: 2400 }, 1280, 1)).toBe('1080x2400@576x1280/90');
    expect(minicapProjection({ width: 720, height: 1280 }, 1920, 3)).toBe('720x1280@720x1280/270');
    expect(minicapProjection({ width: 1440, height: 3120 }, 720, 6)).toBe('1440x3120@332x720/180');
    expect(minicapCommand('1080x2400@324x720/0', 60)).toBe('LD_LIBRARY_PATH=/data/local/tmp exec /data/local/tmp/minicap -P 1080x2400@324x720/0 -S -Q 60');
  });

  it("picks DeviceFarmer's build up to Android 11 and the @u4 one after, by ABI and SDK", () => {
    const devicefarmer = packageRoot('@devicefarmer/minicap-prebuilt') as string;
    const u4 = packageRoot('@u4/minicap-prebuilt') as string;
    expect(devicefarmer).toBeTruthy();
    expect(u4).toBeTruthy();
    expect(minicapFiles('arm64-v8a', 30)).toEqual({
      bin: join(devicefarmer, 'prebuilt/arm64-v8a/bin/minicap'),
      lib: join(devicefarmer, 'prebuilt/arm64-v8a/lib/android-30/minicap.so'),
      from: '@devicefarmer/minicap-prebuilt',
    });
    expect(minicapFiles('x86', 15)?.bin).toBe(join(devicefarmer, 'prebuilt/x86/bin/minicap-nopie'));
    expect(minicapFiles('armeabi-v7a', 32)).toEqual({
      bin: join(u4, 'prebuilt/armeabi-v7a/bin/minicap'),
      lib: join(u4, 'prebuilt/armeabi-v7a/lib/android-32/minicap.so'),
      from: '@u4/minicap-prebuilt',
    });
    // Neither package has builds for Android 12 (31) or 13 and later, nor for these ABIs.
    for (const [abi, sdk] of [
      ['arm64-v8a', 31],
      ['arm64-v8a', 34],
      ['mips', 30],
      ['arm64-v8a', 20],
      ['../x86', 30],
      ['arm64-v8a', 0],
    ] as const) {
      expect(minicapFiles(abi, sdk)).toBeNull();
    }
  });

  it('takes the @u4 build when DeviceFarmer is not installed, and none when no package is', () => {
    const onlyU4 = (name: string) => (name === '@u4/minicap-prebuilt' ? packageRoot(name) : null);
    expect(minicapFiles('arm64-v8a', 29, onlyU4)?.from).toBe('@u4/minicap-prebuilt');
    expect(minicapFiles('arm64-v8a', 29, () => null)).toBeNull();
    expect(packageRoot('@farm/no-such-package')).toBeNull();
  });
});
