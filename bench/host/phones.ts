/**
 * The phones of bench/host, in a process of their own (a farm's phones are devices of their own: what they do to
 * answer must not count as the farm host's CPU). A fake adb server speaking the real protocol, with BENCH_PHONES fake
 * phones behind it (not plugged until the parent says so). Each shows the simulated phone's screens, the recorded
 * trees of real Instagram builds (`src/simphone/`), which every `input` the host sends moves, read through a running
 * UiAutomator2 server as a farm's phones are, and answers `screencap -p` with a photo-like 1080 × 2400 PNG whose bytes
 * change when its screen does and each minute.
 *
 * While the parent records, every command a phone is asked is written down with when it came: a one-shot
 * `shell:<command>` (`exec`), a line into a kept-open `shell:sh` (`line`), and the bytes of a request to the UI server
 * over `tcp:6790` (`tcp`). The bare loop (bare.ts) sends the same ones at the same times.
 *
 * Messages from the parent: `{ plug: true }` → `{ plugged }`; `{ record: true }` starts a recording, `{ record: false }`
 * ends it → `{ recorded: { events, ms, other, otherKinds } }`; `{ stop: true }` ends the process.
 */
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { crc32, deflateSync } from 'node:zlib';
import { bundledUiServer } from '../../agent-protocol/src/adb/adb.uiread.ts';
import { SimulatedPhoneUi } from '../../agent-protocol/src/simphone/simphone.device.ts';
import { FakeAdbServer } from '../../agent-protocol/test/fake-adb.server.ts';
import { FakeAndroid, type ShellWriter } from '../../agent-protocol/test/fake-android.ts';
import { pause } from '../lib.ts';
import { type Recorded, type Recording, phoneSerial } from './record.ts';

const count = Number(process.env.BENCH_PHONES ?? 28);
const WIDTH = 1080;
const HEIGHT = 2400;
/** Between two phones plugged in, as a person plugs a rack's cables (every phone's hello starts its UI server). */
const PLUG_MS = 250;

/** Android's key codes as `input keyevent` sends them, to the simulator's keys. */
const KEYS: Record<string, 'back' | 'home' | 'enter' | 'delete' | 'power' | 'wakeup'> = {
  '3': 'home',
  '4': 'back',
  '26': 'power',
  '66': 'enter',
  '67': 'delete',
  '224': 'wakeup',
};

let recording: { from: number; events: Recorded[]; requests: number } | null = null;

/** A fake phone that writes down what it is asked while the parent records. */
class RecordedAndroid extends FakeAndroid {
  override async sh(line: string, write?: ShellWriter): Promise<Buffer> {
    // adb's shell service hands `write` to one-shot commands only; lines of a kept-open `sh` come without it.
    recording?.events.push({ serial: this.serial, at: performance.now() - recording.from, kind: write ? 'exec' : 'line', text: line });
    return super.sh(line, write);
  }

  override tcpListener(port: number): { accept(socket: Socket): void } | null {
    const listener = super.tcpListener(port);
    if (!listener || !recording) return listener;
    const event: Recorded = { serial: this.serial, at: performance.now() - recording.from, kind: 'tcp', port, text: '' };
    recording.events.push(event);
    const chunks: Buffer[] = [];
    return {
      accept: (socket: Socket) =>
        listener.accept(
          new Tapped(socket, (chunk) => {
            chunks.push(chunk);
            event.text = Buffer.concat(chunks).toString('base64');
          }) as unknown as Socket,
        ),
    };
  }
}

/**
 * A stream to a phone's port with what the host writes into it written down on the way: the UI server's HTTP server
 * reads a real socket beneath JavaScript (its parser takes the handle), so the bytes are read here and handed on.
 */
class Tapped extends Duplex {
  constructor(
    private readonly socket: Socket,
    heard: (chunk: Buffer) => void,
  ) {
    super();
    socket.on('data', (chunk: Buffer) => {
      heard(chunk);
      this.push(chunk);
    });
    socket.once('end', () => this.push(null));
    socket.once('close', () => this.destroy());
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.socket.write(chunk, done);
  }

  override _final(done: (error?: Error | null) => void): void {
    this.socket.end();
    done();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.socket.destroy();
    done(error);
  }
}

/** One chunk of a PNG file: its length, type, data and CRC. */
function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const sized = Buffer.alloc(4);
  sized.writeUInt32BE(data.length);
  const sum = Buffer.alloc(4);
  sum.writeUInt32BE(crc32(body));
  return Buffer.concat([sized, body, sum]);
}

/**
 * The phone's screenshot as a real screen gives it: other bytes whenever the screen shows something else, and each
 * minute (the status bar's clock), the same bytes in between. The picture decoded stays the photo (a comment chunk
 * tells them apart), so every one costs the host as much to decode.
 */
function screencapOf(sim: SimulatedPhoneUi, png: Buffer): () => Buffer {
  let shown = '';
  let shot = png;
  let changes = 0;
  return () => {
    const now = `${Math.floor(Date.now() / 60_000)}:${crc32(sim.uiXml())}`;
    if (now !== shown) {
      shown = now;
      changes += 1;
      const end = png.length - 12; // IEND
      shot = Buffer.concat([png.subarray(0, end), pngChunk('tEXt', Buffer.from(`Comment\0screen ${changes}`, 'latin1')), png.subarray(end)]);
    }
    return shot;
  };
}

/**
 * One photo-like screenshot for every phone, as `screencap -p` prints it: a white 1080 × 2400 screen with a feed
 * post's 1080 × 1350 photo, whose colours drift at random from pixel to pixel (PNG's Sub filter, each byte within ±2
 * of the one before), so it is about as large as a real screenshot of a feed (1.4 MB) and decodes as one does.
 */
function screenshotPng(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(WIDTH, 0);
  header.writeUInt32BE(HEIGHT, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB
  // mulberry32: seeded, so every run sends the same picture.
  let seed = 7;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const stride = 1 + WIDTH * 3;
  const rows = Buffer.alloc(stride * HEIGHT, 0xff);
  for (let y = 0; y < HEIGHT; y += 1) {
    const row = y * stride;
    const photo = y >= 420 && y < 420 + 1350;
    rows[row] = photo ? 1 : 0;
    if (!photo) continue;
    rows.fill(0x80, row + 1, row + 4);
    for (let i = 4; i < stride; i += 1) rows[row + i] = (Math.floor(random() * 5) - 2) & 0xff;
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(rows)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A phone whose screen is the simulated phone's: launches, links, force-stops and input move it before the next read. */
function phone(index: number, png: Buffer): RecordedAndroid {
  const serial = phoneSerial(index);
  const sim = new SimulatedPhoneUi({ serial, width: WIDTH, height: HEIGHT });
  const seen = { launched: 0, opened: 0, stopped: 0 };
  const sync = () => {
    for (; seen.stopped < android.forceStopped.length; seen.stopped++) void sim.forceStop(android.forceStopped[seen.stopped] as string);
    for (; seen.launched < android.launched.length; seen.launched++) void sim.launchApp(android.launched[seen.launched] as string);
    for (; seen.opened < android.opened.length; seen.opened++) void sim.openUrl(android.opened[seen.opened] as string);
  };
  const android: RecordedAndroid = new RecordedAndroid({
    serial,
    model: 'Pixel 7',
    packages: ['com.instagram.android', 'com.zhiliaoapp.musically'],
    // The UI server the host ships is installed already (as on a farm's phones after their first day): the host starts it.
    uiServerInstalled: bundledUiServer.version,
    screen: () => {
      sync();
      return sim.uiXml();
    },
    screencap: screencapOf(sim, png),
  });
  android.onInput = (input) => {
    sync();
    const words = input.split(' ');
    if (words[0] === 'tap') void sim.tap(Number(words[1]), Number(words[2]));
    if (words[0] === 'swipe')
      void sim.swipe({ x: Number(words[1]), y: Number(words[2]) }, { x: Number(words[3]), y: Number(words[4]) }, Number(words[5] ?? 300));
    if (words[0] === 'text') void sim.text(input.slice(5).replace(/%s/g, ' '));
    if (words[0] === 'keyevent') for (const code of words.slice(1)) if (KEYS[code]) void sim.key(KEYS[code]);
  };
  return android;
}

const adb = new FakeAdbServer();
await adb.listen();
const png = screenshotPng();
const phones = Array.from({ length: count }, (_, index) => phone(index, png));

process.on('message', (message: { plug?: boolean; record?: boolean; stop?: boolean }) => {
  if (message.plug) {
    void (async () => {
      for (const android of phones) {
        adb.plug(android);
        await pause(PLUG_MS);
      }
      process.send?.({ plugged: phones.length });
    })();
  }
  if (message.record === true) recording = { from: performance.now(), events: [], requests: adb.requests.length };
  if (message.record === false && recording) {
    const done = recording;
    recording = null;
    // What the host asked the adb server besides a phone's shell and UI server (tracking, pushes, live streams): not
    // sent again by the bare loop, so it is counted for the report.
    const other = adb.requests
      .slice(done.requests)
      .filter((request) => !request.startsWith('host:transport') && !request.startsWith('shell:') && !request.startsWith('tcp:'));
    const result: Recording = { events: done.events, ms: performance.now() - done.from, other: other.length, otherKinds: [...new Set(other)].slice(0, 10) };
    process.send?.({ recorded: result });
  }
  if (message.stop) void adb.close().finally(() => process.exit(0));
});
process.send?.({ ready: true, port: adb.port, pngBytes: png.length });
