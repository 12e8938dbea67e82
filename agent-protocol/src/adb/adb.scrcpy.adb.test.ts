import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeAdbServer } from '../../test/fake-adb.server.ts';
import { FakeAndroid, fixture } from '../../test/fake-android.ts';
import { clipPackets, makeClip } from '../../test/fake-scrcpy.ts';
import { createAdbClient } from './adb.host.ts';
import { AdbPhone } from './adb.phone.ts';
import type { ScrcpyPacket } from './adb.scrcpy.ts';

const SERIAL = 'R5CW12SCRCPY';
let clipA: ScrcpyPacket[];
let clipB: ScrcpyPacket[];
let serverFile: string;
let server: FakeAdbServer;
let phones: AdbPhone[];

beforeAll(() => {
  clipA = clipPackets(makeClip('testsrc', { frames: 20, gop: 5 }));
  clipB = clipPackets(makeClip('color=c=red', { frames: 20, gop: 5 }));
  serverFile = join(mkdtempSync(join(tmpdir(), 'scrcpy-file-')), 'scrcpy-server-v3.1');
  writeFileSync(serverFile, Buffer.from('stands in for the jar: the fake phone runs what was pushed to the CLASSPATH'));
});

beforeEach(async () => {
  server = new FakeAdbServer();
  await server.listen();
  phones = [];
});

afterEach(async () => {
  for (const phone of phones) await phone.close();
  await server.close();
});

/** An Android 14 phone (no minicap build fits it) with a scrcpy-server that streams the two clips. */
function plug(): { fake: FakeAndroid; phone: AdbPhone } {
  const fake = new FakeAndroid({ serial: SERIAL, getprop: fixture('getprop.txt'), scrcpy: { clips: [clipA, clipB], width: 160, height: 320, frameMs: 10 } });
  server.plug(fake);
  const client = createAdbClient({ adbHost: '127.0.0.1', adbPort: server.port, adbBin: '/nonexistent/adb' });
  client.on('error', () => undefined);
  const phone = new AdbPhone(SERIAL, client.getDevice(SERIAL));
  phones.push(phone);
  return { fake, phone };
}

const until = async (check: () => boolean, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/** Decodes an Annex-B H.264 stream with ffmpeg; answers each frame's average colour (scaled to one pixel). */
function decodeToColours(stream: Buffer): number[][] {
  const raw = execFileSync(
    'ffmpeg',
    ['-hide_banner', '-loglevel', 'error', '-f', 'h264', '-i', '-', '-vf', 'scale=1:1', '-pix_fmt', 'rgb24', '-f', 'rawvideo', '-'],
    { input: stream, maxBuffer: 16 * 1024 * 1024 },
  );
  const colours: number[][] = [];
  for (let at = 0; at + 3 <= raw.length; at += 3) colours.push([raw[at] as number, raw[at + 1] as number, raw[at + 2] as number]);
  return colours;
}

describe('scrcpy-server over the fake adb server', () => {
  it('pushes the file, starts the server forward-tunnelled, relays H.264 and takes a tap through the control socket', async () => {
    const { fake, phone } = plug();
    const session = await phone.openScrcpy('control', serverFile);
    expect(session.header).toEqual({ deviceName: 'fake', codec: 'h264', width: 160, height: 320 });
    expect(fake.pushed.map(({ path }) => path)).toEqual(['/data/local/tmp/farm-scrcpy-server.jar']);
    const scid = session.scid.toString(16).padStart(8, '0');
    expect(server.requests).toContain(`localabstract:scrcpy_${scid}`);
    expect(
      server.requests.some((request) =>
        request.startsWith('shell:CLASSPATH=/data/local/tmp/farm-scrcpy-server.jar exec app_process / com.genymobile.scrcpy.Server 3.3.1'),
      ),
    ).toBe(true);
    const packets: ScrcpyPacket[] = [];
    session.watch({
      send: (packet) => {
        packets.push(packet);
        return 0;
      },
    });
    await until(() => packets.some((packet) => packet.keyFrame));
    session.tap({ x: 80, y: 160, width: 160, height: 320 });
    session.type('héllo');
    await until(() => packets.some((packet) => packet.keyFrame && clipB.some((b) => b.data.equals(packet.data))));
    const running = fake.scrcpyServers[0];
    await until(() => (running?.control.length ?? 0) >= 3);
    // No reset-video for the first watcher: the encoder starts with a key frame.
    expect(running?.control.map((message) => message.type)).toEqual(['touch', 'touch', 'clipboard']);
    // No shell `input` per action.
    expect(fake.inputs).toEqual([]);
    // What the watcher got decodes (ffmpeg standing in for the browser's decoder), and the picture changed after the
    // tap: ffmpeg's test pattern first, the red screen of the second clip last.
    const first = packets.findIndex((packet) => packet.config);
    const colours = decodeToColours(Buffer.concat(packets.slice(first).map((packet) => packet.data)));
    const red = (colour: number[] | undefined) => (colour?.[0] ?? 0) > 200 && (colour?.[1] ?? 255) < 60 && (colour?.[2] ?? 255) < 60;
    expect(colours.length).toBeGreaterThan(2);
    expect(red(colours[0])).toBe(false);
    expect(red(colours[colours.length - 1])).toBe(true);
    session.end();
    await until(() => running?.running === false);
  });

  it('ends the session with the server words when it dies, and the phone stays usable', async () => {
    const { fake, phone } = plug();
    const session = await phone.openScrcpy('watch', serverFile);
    const ended = new Promise<string>((resolve) => session.onEnded(resolve));
    fake.scrcpyServers[0]?.stop('[server] ERROR: java.lang.IllegalStateException: encoder died');
    expect(await ended).toMatch(/ended|stopped/);
    const again = await phone.openScrcpy('watch', serverFile);
    expect(again.header?.codec).toBe('h264');
    // A control stream runs beside it; a second watch stream replaces the first.
    const control = await phone.openScrcpy('control', serverFile);
    const replacing = await phone.openScrcpy('watch', serverFile);
    expect(again.endedWith).toBe('A new watch stream replaced this one.');
    expect(control.endedWith).toBeNull();
    await until(() => fake.scrcpyServers.filter((item) => item.running).length === 2);
    await phone.close();
    expect(replacing.endedWith).toBe('The phone was closed.');
    expect(control.endedWith).toBe('The phone was closed.');
  });

  it('restarts the screen source on the recovery ladder: its sessions end with the reason', async () => {
    const { fake, phone } = plug();
    const control = await phone.openScrcpy('control', serverFile);
    const watch = await phone.openScrcpy('watch', serverFile);
    await phone.restartScreen();
    expect(control.endedWith).toBe('The farm host restarted the screen source.');
    expect(watch.endedWith).toBe('The farm host restarted the screen source.');
    await until(() => fake.scrcpyServers.every((server) => !server.running));
    // The phone starts a new one at once.
    const again = await phone.openScrcpy('watch', serverFile);
    expect(again.header?.codec).toBe('h264');
  });
});
