/**
 * The phones of bench/group, in a process of their own (a farm host is a PC of its own: its UI reads and XML parsing
 * must not stall the bench's clock). `BENCH_KIND=adb`: a fake adb server speaking the real protocol, its phones
 * showing Android's Settings home (test/fixtures/real/settings, at 720, 1080 and 1440 px wide) and streaming H.264
 * from a fake scrcpy-server, and a real FarmHost driving them over it; `BENCH_KIND=sim`: a FarmHost with simulated phones (`--backend sim`). Either connects to
 * `BENCH_SERVER` with the host credential `BENCH_HOST_TOKEN`, then tells its parent the serials it runs.
 */
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { FakeAdbServer } from '../../agent-protocol/test/fake-adb.server.ts';
import { FakeAndroid, fixture } from '../../agent-protocol/test/fake-android.ts';
import { clipPackets, makeClip } from '../../agent-protocol/test/fake-scrcpy.ts';
import { SCRCPY_VERSION } from '../../agent-protocol/src/adb/adb.scrcpy.ts';
import { AgentState } from '../../agent-protocol/src/agent/state.ts';
import { FarmHost } from '../../agent-protocol/src/host/host.ts';
import { pause } from '../lib.ts';
import { adbSerial, SETTINGS_SCREENS, settingsXml } from './screens.ts';

const kind = process.env.BENCH_KIND === 'sim' ? 'sim' : 'adb';
const count = Number(process.env.BENCH_COUNT ?? 31);
const server = process.env.BENCH_SERVER!;
const token = process.env.BENCH_HOST_TOKEN!;
/** BENCH_VERBOSE=1: the host's log on stderr (phones seen, connected, what failed). */
/** How often each fake phone's scrcpy-server sends a picture (100 ms: 10 FPS; a real one sends up to 30). */
const frameMs = Number(process.env.BENCH_FRAME_MS ?? 100);
const log = process.env.BENCH_VERBOSE === '1' ? (line: string) => console.error(`[${kind} host] ${line}`) : undefined;

/** A plain light-grey PNG (what `screencap -p` prints), made here: the bench has no image library of its own. */
function greyPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const sized = Buffer.alloc(4);
    sized.writeUInt32BE(data.length);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc32(body));
    return Buffer.concat([sized, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0xf3)]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', pixels),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const stops: (() => unknown)[] = [];
const plugging: FakeAndroid[] = [];
let adbServer: FakeAdbServer | undefined;
/** Between two phones plugged in. */
const PLUG_MS = 400;
const state = new AgentState(mkdtempSync(join(tmpdir(), `farm-bench-group-${kind}-`)));
let host: FarmHost;
if (kind === 'adb') {
  const adb = new FakeAdbServer();
  await adb.listen();
  adbServer = adb;
  stops.push(() => adb.close());
  const png = greyPng(108, 240);
  // The live screen as the console watches it: H.264 from scrcpy-server (the project's pinned jar is pushed; the fake
  // phone streams a 160 × 320 clip with a key frame each second), so the host relays packets and encodes nothing.
  const clips = [clipPackets(makeClip('testsrc', { frames: 30, gop: 10 }))];
  const jar = join(
    dirname(createRequire(new URL('../../agent-protocol/package.json', import.meta.url)).resolve('@u4/minicap-prebuilt')),
    'prebuilt',
    'scrcpy',
    `scrcpy-server-v${SCRCPY_VERSION}.jar`,
  );
  // Settings in front, as its heartbeat tells the console (the fixture's dump names Instagram's activity).
  const window = fixture('dumpsys-window.txt').replaceAll(
    'com.instagram.android/com.instagram.mainactivity.InstagramMainActivity',
    'com.android.settings/.Settings',
  );
  for (let index = 0; index < count; index += 1) {
    const screen = SETTINGS_SCREENS[index % SETTINGS_SCREENS.length]!;
    const xml = settingsXml(screen.file);
    plugging.push(
      new FakeAndroid({
        serial: adbSerial(index),
        getprop: fixture('getprop.txt'),
        wmSize: `Physical size: ${screen.size}\n`,
        window,
        screen: () => xml,
        screencap: () => png,
        packages: ['com.android.settings'],
        scrcpy: { clips, width: 160, height: 320, frameMs },
      }),
    );
  }
  host = new FarmHost({
    server,
    token,
    state,
    backend: 'adb',
    adbHost: '127.0.0.1',
    adbPort: adb.port,
    scrcpyServer: jar,
    adb: { adbBin: '/nonexistent/adb' },
    ...(log ? { log } : {}),
  });
} else {
  host = new FarmHost({ server, token, state, backend: 'sim', devices: count, ...(log ? { log } : {}) });
}
stops.unshift(() => host.close());
await host.start();
// Phones are plugged in one after another, as the fake adb server answers one command at a time in this process:
// thirty-one phones starting at once (each read, its apps' versions, its UI reader) would time each other out.
for (const fake of plugging) {
  adbServer?.plug(fake);
  await pause(PLUG_MS);
}
// Every phone's agent connected and said hello before the bench looks them up.
for (let waited = 0; waited < 60_000; waited += 100) {
  const agents = host.serials.map((serial) => host.agent(serial));
  if (agents.length >= count && agents.every((agent) => agent?.connected)) break;
  await pause(100);
}
process.send?.({ ready: true, serials: host.serials });
process.on('message', (message: { stop?: boolean }) => {
  if (!message.stop) return;
  void (async () => {
    for (const stop of stops) await stop();
    process.exit(0);
  })();
});
