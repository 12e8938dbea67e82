/**
 * A farm host's phone that goes away for a moment, end to end: the farm host against a stand-in console, tracking the
 * fake adb server, whose phone blips (offline and back on the same transport) or is enumerated again under a new
 * transport id. Afterwards the console's tap reaches the phone and Inspect reads it through the UI server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeAdbServer } from '../../test/fake-adb.server.ts';
import { FakeAndroid, fixture } from '../../test/fake-android.ts';
import { clipPackets, makeClip } from '../../test/fake-scrcpy.ts';
import { SCRCPY_VERSION } from '../adb/adb.scrcpy.ts';
import { fakeConsole } from '../../test/fake-console.ts';
import { AgentState } from '../agent/state.ts';
import { FarmHost } from './host.ts';

const SERIAL = 'BLIP0001';

/** The official scrcpy-server the project ships (checked against its pinned SHA-256 as the host does); the fake phone runs its own. */
const scrcpyJar = () =>
  join(dirname(createRequire(import.meta.url).resolve('@u4/minicap-prebuilt')), 'prebuilt', 'scrcpy', `scrcpy-server-v${SCRCPY_VERSION}.jar`);

async function until<T>(check: () => T | undefined | null | false | Promise<T | undefined | null | false>, what: string, timeoutMs = 8000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a farm host whose phone goes away for a moment and comes back', () => {
  const closers: (() => unknown)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function farm(options: { returnWaitMs?: number; packages?: string[]; scrcpy?: boolean } = {}) {
    const console_ = await fakeConsole();
    closers.push(() => console_.close());
    const server = new FakeAdbServer();
    await server.listen();
    closers.push(() => server.close());
    const png = await sharp({ create: { width: 108, height: 240, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    const phone = new FakeAndroid({
      serial: SERIAL,
      screen: () => fixture('ui-instagram-feed.xml'),
      screencap: () => png,
      ...(options.packages ? { packages: options.packages } : {}),
      // An Android 14 phone with a scrcpy-server streaming a clip (a key frame every 5 frames).
      ...(options.scrcpy
        ? {
            getprop: fixture('getprop.txt'),
            scrcpy: { clips: [clipPackets(makeClip('testsrc', { frames: 20, gop: 5 }))], width: 160, height: 320, frameMs: 20 },
          }
        : {}),
    });
    server.plug(phone);
    const dir = mkdtempSync(join(tmpdir(), 'farm-host-blip-'));
    closers.push(() => rmSync(dir, { recursive: true, force: true }));
    const logs: string[] = [];
    const host = new FarmHost({
      server: console_.url,
      token: 'host-token',
      state: new AgentState(dir),
      backend: 'adb',
      adbHost: '127.0.0.1',
      adbPort: server.port,
      scrcpyServer: options.scrcpy ? scrcpyJar() : false,
      adb: { adbBin: '/nonexistent/adb', probeMs: 0, reconnectMs: 50 },
      ...(options.returnWaitMs !== undefined ? { returnWaitMs: options.returnWaitMs } : {}),
      log: (line) => logs.push(line),
    });
    closers.push(() => host.close());
    await host.start();
    await until(() => host.agent(SERIAL)?.connected, 'the phone’s agent to connect');
    return { console: console_, server, phone, host, logs };
  }

  /** A tap in the middle of the screen from the console, as the Live tab sends it. */
  const tap = (console_: Awaited<ReturnType<typeof fakeConsole>>, seq: number) =>
    console_.ask(SERIAL, 'live.input', { seq, input: { kind: 'tap', x: 0.5, y: 0.25 } });

  /** Inspect from the console; answers the phone's UI server requests for a page source it made meanwhile. */
  const inspect = async (console_: Awaited<ReturnType<typeof fakeConsole>>, phone: FakeAndroid) => {
    const process = phone.uiServerProcess;
    const before = process?.requests.length ?? 0;
    const dumps = phone.commands.filter((line) => line.includes('uiautomator dump')).length;
    const answer = await console_.ask(SERIAL, 'inspect.capture', {}, 15_000);
    expect(answer).toMatchObject({ ok: true });
    expect(phone.commands.filter((line) => line.includes('uiautomator dump')).length).toBe(dumps);
    // The server may have been started again meanwhile: then every request of the new one is new.
    const now = phone.uiServerProcess;
    const made = now === process ? (now?.requests ?? []).slice(before) : (now?.requests ?? []);
    return made.filter((request) => request === 'GET /session/:id/source');
  };

  it('binds the agent to the phone that blipped offline for 3 s: the tap reaches it, Inspect reads the UI server, frames flow', async () => {
    const { console: console_, server, phone, host, logs } = await farm();
    expect(await tap(console_, 1)).toEqual({ ok: true });
    expect(phone.inputs).toEqual(['tap 540 600']);
    expect(await inspect(console_, phone)).toHaveLength(1);
    const before = host.backend(SERIAL)?.phone;
    const socket = console_.phone(SERIAL);
    console_.phone(SERIAL)?.emit('live.start', { fps: 5, maxSide: 320, quality: 50 });
    await until(() => (console_.frames.get(SERIAL)?.length ?? 0) >= 2, 'live frames before the blip');

    const transport = server.transportId(SERIAL);
    const back = server.blip(SERIAL, 3000);
    // While it is away, input fails with the phone's reason; nothing reaches the phone.
    await until(() => host.backend(SERIAL)?.phone !== before || logs.some((line) => line.includes('offline')), 'the host to hear the phone went offline');
    expect(await tap(console_, 2)).toMatchObject({ ok: false });
    // The console hears it is away (it shows "Reconnecting"), on the connection that stays.
    await until(() => console_.transport.get(SERIAL)?.length, 'the console to hear the phone is away');
    expect(console_.transport.get(SERIAL)).toEqual([{ name: 'phone.away', message: { reason: 'offline' } }]);
    await back;
    await until(() => host.backend(SERIAL)?.phone !== before, 'the backend to drive the phone’s new object', 5000);
    const framesAtReturn = console_.frames.get(SERIAL)?.length ?? 0;

    // Same transport, same connection to the console: the agent stayed and drives the new phone object.
    expect(server.transportId(SERIAL)).toBe(transport);
    expect(console_.connections.get(SERIAL)).toHaveLength(1);
    expect(console_.phone(SERIAL)).toBe(socket);
    expect(await tap(console_, 3)).toEqual({ ok: true });
    expect(phone.inputs).toEqual(['tap 540 600', 'tap 540 600']);
    // The UI is read through the UI server again (started anew on the new object), not with uiautomator dump.
    expect(await inspect(console_, phone)).toHaveLength(1);
    // The old object was let go: it refuses at once instead of holding a closed shell.
    await expect(before?.tap(1, 1)).rejects.toMatchObject({ code: 'disconnected' });
    // The live screen streams again from the phone's new object.
    await until(() => (console_.frames.get(SERIAL)?.length ?? 0) >= framesAtReturn + 2, 'live frames after the blip', 5000);
    expect(logs).toContain(`${SERIAL}: back on a new connection; its agent drives the new one`);
    // …and hears it is back: away about 3 s, on the same transport, not rebooted, with what it runs now.
    const said = await until(() => console_.transport.get(SERIAL)?.find((item) => item.name === 'phone.back'), 'the console to hear the phone is back');
    expect(said.message).toMatchObject({ transport: 'same', rebooted: false, uiReader: { kind: 'ui-server' } });
    expect(said.message.awayMs).toBeGreaterThanOrEqual(2900);
  }, 20_000);

  it('binds the same agent to a phone enumerated again under a new transport id, and says what it runs now', async () => {
    const packages: string[] = [];
    const { console: console_, server, phone, host } = await farm({ packages });
    expect(await tap(console_, 1)).toEqual({ ok: true });
    const before = host.backend(SERIAL)?.phone;
    const agent = host.agent(SERIAL);
    const transport = server.transportId(SERIAL);
    const back = server.replug(SERIAL, 500);
    await until(() => console_.transport.get(SERIAL)?.length, 'the console to hear the phone is away');
    // Instagram is installed while the phone is away: the console learns its version as the phone comes back.
    packages.push('com.instagram.android');
    await back;
    const said = await until(() => console_.transport.get(SERIAL)?.find((item) => item.name === 'phone.back'), 'the console to hear the phone is back');

    expect(console_.transport.get(SERIAL)?.[0]).toEqual({ name: 'phone.away', message: { reason: 'gone' } });
    expect(said.message).toMatchObject({ transport: 'new', rebooted: false });
    expect(said.message.apps).toContainEqual({ package: 'com.instagram.android', version: '360.0.0.52.192' });
    expect(server.transportId(SERIAL)).not.toBe(transport);
    expect(host.agent(SERIAL)).toBe(agent);
    expect(console_.connections.get(SERIAL)).toHaveLength(1);
    expect(host.backend(SERIAL)?.phone).not.toBe(before);
    await expect(before?.tap(1, 1)).rejects.toMatchObject({ code: 'disconnected' });
    expect(await tap(console_, 2)).toEqual({ ok: true });
    expect(phone.inputs).toEqual(['tap 540 600', 'tap 540 600']);
    expect(await inspect(console_, phone)).toHaveLength(1);
  }, 20_000);

  it('lets a phone go that is not back within the wait, and its new agent says it rebooted after its hello', async () => {
    const { console: console_, server, host } = await farm({ returnWaitMs: 300 });
    const agent = host.agent(SERIAL);
    server.rebootMs = 1000;
    server.reboot(SERIAL);
    await until(() => host.agent(SERIAL) === undefined, 'the phone let go after the wait');
    expect(console_.connections.get(SERIAL)?.[0]?.connected).toBe(false);
    await until(() => host.agent(SERIAL)?.connected, 'the phone’s new agent to connect');
    const said = await until(() => console_.transport.get(SERIAL)?.find((item) => item.name === 'phone.back'), 'the console to hear the phone is back');

    expect(host.agent(SERIAL)).not.toBe(agent);
    expect(console_.connections.get(SERIAL)).toHaveLength(2);
    expect(said.message).toMatchObject({ transport: 'new', rebooted: true });
    expect(said.message.awayMs).toBeGreaterThanOrEqual(900);
  }, 20_000);

  it('starts the H.264 stream again on the phone’s new transport after a blip: the watcher gets the configuration and a key frame', async () => {
    const { console: console_, server, phone, host } = await farm({ scrcpy: true });
    const packets = () => console_.videos.get(SERIAL) ?? [];
    console_.phone(SERIAL)?.emit('live.start', { fps: 15, maxSide: 480, quality: 60, codec: 'h264', stream: 'watch' });
    await until(() => packets().some((packet) => packet.keyFrame), 'a key frame before the blip');
    expect(packets()[0]).toMatchObject({ stream: 'watch', config: true });
    const before = host.backend(SERIAL)?.phone;
    const started = phone.scrcpyServers.length;

    // Away longer than the stream's own restart waits (a second): that one fails, the return starts it again.
    await server.blip(SERIAL, 2500);
    await until(() => host.backend(SERIAL)?.phone !== before, 'the backend to drive the phone’s new object');
    const back = packets().length;
    // A scrcpy-server is started again on the phone, over the new phone object, and its stream reaches the watcher.
    await until(() => phone.scrcpyServers.length > started, 'a new scrcpy-server on the phone', 5000);
    const after = await until(
      () => {
        const sent = packets().slice(back);
        return sent.some((packet) => packet.keyFrame) ? sent : undefined;
      },
      'a key frame after the blip',
      5000,
    );
    const config = after.findIndex((packet) => packet.config);
    expect(config).toBeGreaterThanOrEqual(0);
    expect(after.findIndex((packet) => packet.keyFrame)).toBeGreaterThan(config);
    expect(after.every((packet) => packet.stream === 'watch')).toBe(true);
    expect(phone.scrcpyServers.filter((item) => item.running)).toHaveLength(1);
  }, 20_000);
});
