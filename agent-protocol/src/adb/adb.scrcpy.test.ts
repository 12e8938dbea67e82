import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { clipPackets, encodePacket, FakeScrcpyPhone, makeClip, readControlMessages, videoPreamble } from '../../test/fake-scrcpy.ts';
import {
  backOrScreenOnMessage,
  clipboardMessage,
  KeyFrameCache,
  keyMessage,
  bundledScrcpyServer,
  resetVideoMessage,
  rotateMessage,
  SCRCPY_PROFILES,
  SCRCPY_SERVER_SHA256,
  scrcpyCommand,
  scrcpySocketName,
  ScrcpyStreamError,
  ScrcpyVideoParser,
  scrollMessage,
  touchMessage,
  typeMessages,
  verifyScrcpyServer,
  ensureScrcpyServer,
  type ScrcpyPacket,
} from './adb.scrcpy.ts';
import { ScrcpySession, type ScrcpyWatcher } from './adb.scrcpy.session.ts';

let clipA: ScrcpyPacket[];
let clipB: ScrcpyPacket[];

beforeAll(() => {
  // Two clips told apart by their pictures: ffmpeg's test pattern, then a plain blue screen.
  clipA = clipPackets(makeClip('testsrc', { frames: 30, gop: 10 }));
  clipB = clipPackets(makeClip('color=c=blue', { frames: 30, gop: 10 }));
});

const point = { x: 80, y: 160, width: 160, height: 320 };
const until = async (check: () => boolean, ms = 3000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

class Collecting implements ScrcpyWatcher {
  packets: ScrcpyPacket[] = [];
  constructor(private readonly backlog = 0) {}
  send(packet: ScrcpyPacket): number {
    this.packets.push(packet);
    return this.backlog;
  }
}

describe('the clips ffmpeg makes for the fake server', () => {
  it('cut into a config packet, key frames every 10 frames, and deltas', () => {
    expect(clipA[0]?.config).toBe(true);
    expect(clipA[1]?.keyFrame).toBe(true);
    expect(clipA.filter((packet) => packet.config)).toHaveLength(3);
    const frames = clipA.filter((packet) => !packet.config);
    expect(frames).toHaveLength(30);
    expect(frames.filter((packet) => packet.keyFrame)).toHaveLength(3);
  });
});

describe('ScrcpyVideoParser', () => {
  it('reads the dummy byte, device name, codec header and packets from chunks of any size', () => {
    const stream = Buffer.concat([videoPreamble('Pixel 8', 160, 320), ...clipA.map(encodePacket)]);
    const parser = new ScrcpyVideoParser();
    const packets: ScrcpyPacket[] = [];
    let header = null;
    for (let at = 0; at < stream.length; at += 7) {
      const out = parser.push(stream.subarray(at, at + 7));
      header ??= out.header;
      packets.push(...out.packets);
    }
    expect(header).toEqual({ deviceName: 'Pixel 8', codec: 'h264', width: 160, height: 320 });
    expect(packets.map((packet) => [packet.config, packet.keyFrame, packet.ptsUs])).toEqual(
      clipA.map((packet) => [packet.config, packet.keyFrame, packet.ptsUs]),
    );
    expect(packets.every((packet, i) => packet.data.equals(clipA[i]?.data as Buffer))).toBe(true);
  });

  it('ends the stream on an oversized packet, naming its size', () => {
    const head = Buffer.alloc(12);
    head.writeUInt32BE(9 * 1024 * 1024, 8);
    const parser = new ScrcpyVideoParser();
    expect(() => parser.push(Buffer.concat([videoPreamble('x', 10, 10), head]))).toThrow(/packet of 9437184 bytes/);
    expect(() => parser.push(Buffer.from([1]))).toThrow(ScrcpyStreamError);
  });

  it('refuses a stream that is not H.264, a zero-sized picture and a missing dummy byte', () => {
    const other = videoPreamble('x', 10, 10);
    other.writeUInt32BE(0x68323635, 65); // h265
    expect(() => new ScrcpyVideoParser().push(other)).toThrow(/not H.264/);
    expect(() => new ScrcpyVideoParser().push(videoPreamble('x', 0, 10))).toThrow(/0x10 picture/);
    expect(() => new ScrcpyVideoParser().push(Buffer.from([7]))).toThrow(/dummy byte/);
  });
});

describe('KeyFrameCache', () => {
  it('keeps the config and the packets since the last key frame only', () => {
    const cache = new KeyFrameCache<ScrcpyPacket>();
    for (const packet of clipA.slice(0, 15)) cache.add(packet);
    const snapshot = cache.snapshot();
    expect(snapshot[0]?.config).toBe(true);
    expect(snapshot[1]?.keyFrame).toBe(true);
    // x264 repeats SPS/PPS before each key frame: config, key frame, 9 deltas, config, key frame, 2 deltas
    expect(snapshot).toHaveLength(1 + 1 + 2);
    expect(snapshot[2]?.data.equals(clipA[13]?.data as Buffer)).toBe(true);
  });

  it('drops the group past its byte limit, keeping the config', () => {
    const cache = new KeyFrameCache(10);
    for (const packet of clipA.slice(0, 5)) cache.add(packet);
    expect(cache.snapshot()).toHaveLength(1);
    expect(cache.hasKeyFrame).toBe(false);
  });
});

describe('control messages (scrcpy 3.1 layouts)', () => {
  it('encodes a touch in 32 bytes with the finger pointer and full pressure', () => {
    const message = touchMessage('down', point);
    expect(message).toHaveLength(32);
    expect(message.toString('hex')).toBe(`0200${'ff'.repeat(7)}fe${'00000050'}${'000000a0'}00a00140ffff${'00'.repeat(8)}`);
    expect(touchMessage('up', point).readUInt16BE(22)).toBe(0);
  });

  it('encodes keys, scroll, back, rotate and reset video, and reads them back', () => {
    expect(keyMessage('down', 4)).toHaveLength(14);
    expect(scrollMessage(point, 0, -1)).toHaveLength(21);
    const bytes = Buffer.concat([
      touchMessage('down', point),
      keyMessage('up', 4),
      scrollMessage(point, 0, 1),
      backOrScreenOnMessage('down'),
      rotateMessage(),
      resetVideoMessage(),
    ]);
    const { messages, rest } = readControlMessages(bytes);
    expect(rest).toHaveLength(0);
    expect(messages.map((message) => message.type)).toEqual(['touch', 'key', 'scroll', 'back', 'rotate', 'reset-video']);
  });

  it('encodes scroll as 3.3.1 reads it: wheel notches from -16 to 16, clamped beyond', () => {
    const read = (horizontal: number, vertical: number) => readControlMessages(scrollMessage(point, horizontal, vertical)).messages[0];
    expect(read(0, 1)).toEqual({ type: 'scroll', x: 80, y: 160, width: 160, height: 320, hScroll: 0, vScroll: 1, buttons: 0 });
    expect(read(-2.5, 16)).toMatchObject({ hScroll: -2.5, vScroll: 16 });
    expect(read(0, -16)).toMatchObject({ vScroll: -16 });
    expect(read(40, -40)).toMatchObject({ hScroll: 16, vScroll: -16 });
    // 3.1's encoding (the value itself as the fixed point) would read as 16 notches for one.
    expect(scrollMessage(point, 0, 1).readInt16BE(15)).toBe(0x0800);
    // scrcpy's own test: 0x8000 is -16.
    expect(scrollMessage(point, 0, -16).readUInt16BE(15)).toBe(0x8000);
  });

  it('types ASCII as text and anything else through a clipboard paste', () => {
    expect(readControlMessages(Buffer.concat(typeMessages('hello world'))).messages).toEqual([{ type: 'text', text: 'hello world' }]);
    expect(readControlMessages(Buffer.concat(typeMessages('Olá 🌍 مرحبا'))).messages).toEqual([{ type: 'clipboard', paste: true, text: 'Olá 🌍 مرحبا' }]);
    expect(readControlMessages(Buffer.concat(typeMessages('x'.repeat(301)))).messages[0]?.type).toBe('clipboard');
    expect(() => clipboardMessage('x'.repeat(300_000), true)).toThrow(RangeError);
  });
});

describe('the server file and command line', () => {
  it('pins the official 3.3.1 release and starts it forward-tunnelled with a 2 s key-frame interval', () => {
    const command = scrcpyCommand(0x1234abcd, SCRCPY_PROFILES.watch, true);
    // The server refuses any other client version ("The server version (3.3.1) does not match the client").
    expect(command).toContain('app_process / com.genymobile.scrcpy.Server 3.3.1 scid=1234abcd');
    expect(command).toContain('tunnel_forward=true');
    expect(command).toContain('max_size=480');
    expect(command).toContain('max_fps=15');
    expect(command).toContain('video_codec_options=i-frame-interval=2');
    expect(scrcpySocketName(0x1234abcd)).toBe('localabstract:scrcpy_1234abcd');
  });

  it('refuses a file whose SHA-256 does not match, and leaves it where it is; answers one that does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scrcpy-'));
    const file = join(dir, 'scrcpy-server');
    writeFileSync(file, 'not the server');
    await expect(verifyScrcpyServer(file)).rejects.toThrow(/is not scrcpy-server v3.3.1: its SHA-256 is .*, expected a0f70b20/);
    expect(existsSync(file)).toBe(true);
    writeFileSync(file, 'pinned bytes');
    const hash = createHash('sha256').update('pinned bytes').digest('hex');
    await expect(verifyScrcpyServer(file, hash)).resolves.toBe(file);
  });
});

describe('ensureScrcpyServer', () => {
  it('uses the installed 3.3.1 jar, which has the SHA-256 scrcpy publishes, with nothing downloaded', async () => {
    const bundled = bundledScrcpyServer();
    expect(bundled).toMatch(/@u4[/\\]minicap-prebuilt[/\\]prebuilt[/\\]scrcpy[/\\]scrcpy-server-v3\.3\.1\.jar$/);
    expect(SCRCPY_SERVER_SHA256).toBe('a0f70b20aa4998fbf658c94118cd6c8dab6abbb0647a3bdab344d70bc1ebcbb8');
    expect(createHash('sha256').update(readFileSync(bundled)).digest('hex')).toBe(SCRCPY_SERVER_SHA256);
    await expect(ensureScrcpyServer()).resolves.toBe(bundled);
  });

  it('prefers SCRCPY_SERVER’s file, checked against the pinned hash and refused (not deleted) when it differs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scrcpy-own-'));
    const own = join(dir, 'mine.jar');
    writeFileSync(own, 'pinned bytes');
    const sha256 = createHash('sha256').update('pinned bytes').digest('hex');
    await expect(ensureScrcpyServer({ path: own, sha256 })).resolves.toBe(own);
    writeFileSync(own, 'tampered');
    await expect(ensureScrcpyServer({ path: own, sha256 })).rejects.toThrow(/mine.jar is not scrcpy-server v3.3.1/);
    expect(existsSync(own)).toBe(true);
    await expect(ensureScrcpyServer({ bundled: join(dir, 'missing.jar') })).rejects.toThrow(/missing.jar cannot be read/);
  });
});

describe('ScrcpySession against the fake scrcpy-server', () => {
  it('starts, relays packets untouched, and switches pictures after a tap at the next key frame', async () => {
    const phone = new FakeScrcpyPhone({ clips: [clipA, clipB], width: 160, height: 320, frameMs: 5, refuseFirst: 2 });
    const session = new ScrcpySession(phone, { kind: 'control', serverFile: '/tmp/scrcpy-server' });
    const header = await session.start();
    expect(header).toEqual({ deviceName: 'fake', codec: 'h264', width: 160, height: 320 });
    expect(phone.pushed).toEqual(['/tmp/scrcpy-server -> /data/local/tmp/farm-scrcpy-server.jar']);
    const watcher = new Collecting();
    session.watch(watcher);
    expect(phone.control.length === 0 || phone.control[0]?.type === 'reset-video').toBe(true);
    await until(() => watcher.packets.filter((packet) => packet.keyFrame).length >= 1);
    const firstPicture = watcher.packets.find((packet) => !packet.config);
    expect(firstPicture?.keyFrame).toBe(true);
    session.tap(point);
    await until(() => watcher.packets.some((packet) => clipB.some((b) => b.data.equals(packet.data) && b.keyFrame)));
    const touches = phone.control.filter((message) => message.type === 'touch');
    expect(touches.map((message) => message.type === 'touch' && message.action)).toEqual(['down', 'up']);
    session.end();
    phone.stop();
  });

  it('gives a late watcher the config and current group at once', async () => {
    const phone = new FakeScrcpyPhone({ clips: [clipA], width: 160, height: 320, frameMs: 5 });
    const session = new ScrcpySession(phone, { kind: 'watch', serverFile: '/tmp/scrcpy-server' });
    await session.start();
    const early = new Collecting();
    session.watch(early);
    await until(() => early.packets.length > 15);
    const late = new Collecting();
    session.watch(late);
    expect(late.packets[0]?.config).toBe(true);
    expect(late.packets[1]?.keyFrame).toBe(true);
    session.end();
    phone.stop();
  });

  it('asks for a reset only when the cached key frame cannot serve a joiner: none yet, or too old', async () => {
    let now = 1_000_000;
    const phone = new FakeScrcpyPhone({ clips: [clipA], width: 160, height: 320, frameMs: 5 });
    const session = new ScrcpySession(phone, { kind: 'watch', serverFile: '/tmp/scrcpy-server', clock: () => now });
    await session.start();
    const resets = () => phone.control.filter((message) => message.type === 'reset-video').length;
    // The first watcher: the encoder's first packets are the configuration and a key frame.
    const first = new Collecting();
    session.watch(first);
    await until(() => first.packets.some((packet) => packet.keyFrame));
    expect(resets()).toBe(0);
    // A joiner a moment later starts from the cache: no encoder restart for everyone.
    now += 1000;
    await until(() => first.packets.filter((packet) => !packet.config).length > 3);
    const second = new Collecting();
    session.watch(second);
    expect(second.packets[0]?.config).toBe(true);
    expect(second.packets[1]?.keyFrame).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(resets()).toBe(0);
    // The cached key frame is older than the limit: the joiner gets what there is, and a fresh one is asked for.
    now += 10_000;
    session.watch(new Collecting());
    await until(() => resets() === 1);
    session.end();
    phone.stop();
  });

  it('skips a watcher that never reads to the next key frame; the others get every packet', async () => {
    const phone = new FakeScrcpyPhone({ clips: [clipA], width: 160, height: 320, frameMs: 2 });
    const session = new ScrcpySession(phone, { kind: 'watch', serverFile: '/tmp/scrcpy-server', watcherBacklogBytes: 1000 });
    await session.start();
    const stuck = new Collecting(1_000_000);
    const reader = new Collecting();
    session.watch(stuck);
    session.watch(reader);
    await until(() => reader.packets.filter((packet) => !packet.config).length >= 40);
    session.end();
    phone.stop();
    const stuckPictures = stuck.packets.filter((packet) => !packet.config);
    expect(stuckPictures.every((packet) => packet.keyFrame)).toBe(true);
    expect(reader.packets.filter((packet) => !packet.config && !packet.keyFrame).length).toBeGreaterThan(0);
  });

  it('ends with a reason when the server dies mid-stream or sends garbage, and no other phone is touched', async () => {
    const dying = new FakeScrcpyPhone({ clips: [clipA], width: 160, height: 320, frameMs: 5 });
    const broken = new FakeScrcpyPhone({ clips: [clipA], width: 160, height: 320, frameMs: 5, garbageAfter: { frames: 3, bytes: Buffer.alloc(12, 0xff) } });
    const healthy = new FakeScrcpyPhone({ clips: [clipA], width: 160, height: 320, frameMs: 5 });
    const sessions = [dying, broken, healthy].map((phone) => new ScrcpySession(phone, { kind: 'watch', serverFile: '/tmp/scrcpy-server' }));
    await Promise.all(sessions.map((session) => session.start()));
    const reasons: string[] = [];
    sessions[0]?.onEnded((reason) => reasons.push(reason));
    sessions[1]?.onEnded((reason) => reasons.push(reason));
    const watcher = new Collecting();
    sessions[2]?.watch(watcher);
    dying.die();
    await until(() => reasons.length === 2);
    expect(reasons.join('\n')).toMatch(/packet of 4294967295 bytes/);
    expect(reasons.join('\n')).toMatch(/scrcpy-server stopped|video stream ended/);
    const before = watcher.packets.length;
    await until(() => watcher.packets.length > before + 5);
    expect(sessions[2]?.endedWith).toBeNull();
    expect(() => sessions[0]?.tap(point)).toThrow(ScrcpyStreamError);
    for (const session of sessions) session.end();
    healthy.stop();
  });

  it('fails to start with a reason when the server never listens', async () => {
    const phone = new FakeScrcpyPhone({ clips: [clipA], width: 160, height: 320, refuseFirst: 1000 });
    const session = new ScrcpySession(phone, { kind: 'watch', serverFile: '/tmp/scrcpy-server', startTimeoutMs: 300 });
    await expect(session.start()).rejects.toThrow(/did not listen within 300 ms/);
    expect(session.endedWith).toMatch(/did not listen/);
  });
});
