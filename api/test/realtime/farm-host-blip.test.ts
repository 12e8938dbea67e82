/**
 * A farm host's phone that blips, end to end (issue #50): the real farm host tracking the fake adb server, against a
 * real console. While the phone is offline the console shows it reconnecting; once it is back the label goes, its
 * timeline has the blip, and a watcher of its live screen gets the H.264 stream again from its configuration and a
 * key frame. Enumerated again under a new transport id with Instagram installed meanwhile, the console shows the
 * version the phone has now and a blip on a new transport.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentState } from '@farm/agent-protocol/agent';
import { FarmHost } from '@farm/agent-protocol/host';
import type { LiveVideoOut, PhoneHealth, TimelineEntry } from '@farm/contracts';
import { FakeAdbServer } from '../../../agent-protocol/test/fake-adb.server.ts';
import { FakeAndroid, fixture } from '../../../agent-protocol/test/fake-android.ts';
import { clipPackets, makeClip } from '../../../agent-protocol/test/fake-scrcpy.ts';
import { SCRCPY_VERSION } from '@farm/agent-protocol/adb';
import { realtimeApp } from '../helpers/realtime.ts';
import { until } from './phones.ts';
import { connected } from './sockets.ts';

const SERIAL = 'R5CWBLIP0001';
const { url, operator, liveSocket, enrollHost } = await realtimeApp({ automation: { heartbeatMs: 1000 } });

/** The official scrcpy-server the project ships (the host checks its pinned SHA-256); the fake phone runs its own. */
const scrcpyJar = join(
  dirname(createRequire(new URL('../../../agent-protocol/package.json', import.meta.url)).resolve('@u4/minicap-prebuilt')),
  'prebuilt',
  'scrcpy',
  `scrcpy-server-v${SCRCPY_VERSION}.jar`,
);

let stateDir: string;
let adb: FakeAdbServer;
let host: FarmHost | undefined;
beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'farm-host-blip-'));
  adb = new FakeAdbServer();
  await adb.listen();
});
afterAll(async () => {
  await host?.close();
  await adb.close();
  await rm(stateDir, { recursive: true, force: true });
});

type Answer = { ok: true; [key: string]: unknown } | { ok: false; error: string };
const ask = (socket: Socket, event: string, message: unknown) => new Promise<Answer>((resolve) => socket.emit(event, message, resolve));

describe('a farm host’s phone that blips', () => {
  it('reads Reconnecting while it is away, streams again once back, and keeps the blips and what it runs now', async () => {
    const packages: string[] = [];
    const phone = new FakeAndroid({
      serial: SERIAL,
      getprop: fixture('getprop.txt'),
      screen: () => fixture('ui-instagram-feed.xml'),
      packages,
      scrcpy: { clips: [clipPackets(makeClip('testsrc', { frames: 20, gop: 5 }))], width: 160, height: 320, frameMs: 20 },
    });
    adb.plug(phone);
    const { token } = await enrollHost('Rack blip');
    host = new FarmHost({
      server: url,
      token,
      state: new AgentState(stateDir),
      backend: 'adb',
      adbHost: '127.0.0.1',
      adbPort: adb.port,
      scrcpyServer: scrcpyJar,
      adb: { adbBin: '/nonexistent/adb', probeMs: 0, reconnectMs: 50 },
    });
    await host.start();
    const device = await until(async () => {
      const rows = (await operator.get('/api/devices')).body as { id: string; serial: string | null; status: string }[];
      return rows.find((row) => row.serial === SERIAL && row.status !== 'offline');
    }, 'the phone online in the console');
    const health = async () => (await operator.get(`/api/devices/${device.id}/health`)).body as PhoneHealth | null;
    const timeline = async () => (await operator.get(`/api/devices/${device.id}/timeline`)).body as TimelineEntry[];

    const watcher = liveSocket(operator);
    await connected(watcher);
    const packets: LiveVideoOut[] = [];
    watcher.on('live.video', (packet: LiveVideoOut, ack: () => void) => {
      packets.push(packet);
      ack();
    });
    expect(await ask(watcher, 'live.watch', { deviceId: device.id, h264: true })).toMatchObject({ ok: true });
    await until(async () => packets.some((packet) => packet.keyFrame), 'a key frame before the blip');

    // Offline for 2.5 s on the same transport: the console reads it reconnecting, its status untouched.
    const blip = adb.blip(SERIAL, 2500);
    await until(async () => (await health())?.reconnectingSince, 'the console to show the phone reconnecting');
    expect((await operator.get(`/api/devices/${device.id}`)).body.status).not.toBe('offline');
    await blip;
    const back = packets.length;
    await until(async () => (await health())?.reconnectingSince === null, 'the label to go once the phone is back');
    expect((await timeline())[0]).toMatchObject({
      kind: 'blip',
      transport: 'same',
      text: expect.stringMatching(/^Went offline and was back after \d+ s, on the same transport$/),
    });
    // The watcher gets the stream of the phone's new transport from its configuration and a key frame.
    const after = await until(async () => {
      const sent = packets.slice(back);
      return sent.some((packet) => packet.keyFrame) ? sent : undefined;
    }, 'a key frame after the blip');
    const config = after.findIndex((packet) => packet.config);
    expect(config).toBeGreaterThanOrEqual(0);
    expect(after.findIndex((packet) => packet.keyFrame)).toBeGreaterThan(config);

    // Enumerated again under a new transport id, with Instagram installed meanwhile.
    const before = (await operator.get(`/api/devices/${device.id}/software`)).body;
    expect(before.apps).toContainEqual({ package: 'com.instagram.android', version: null });
    const replug = adb.replug(SERIAL, 500);
    packages.push('com.instagram.android');
    await replug;
    const software = await until(async () => {
      const body = (await operator.get(`/api/devices/${device.id}/software`)).body as { apps: { package: string; version: string | null }[] };
      return body.apps.some((app) => app.package === 'com.instagram.android' && app.version === '360.0.0.52.192') ? body : undefined;
    }, 'the console to show the version the phone has now');
    expect(software).toMatchObject({ uiReader: { kind: 'ui-server' } });
    expect((await timeline())[0]).toMatchObject({ kind: 'blip', transport: 'new' });
    expect((await health())?.reconnectingSince).toBeNull();
  });
});
