/**
 * The farm host's adb code against Google's own adb server (Debian's `adb` package, 29.0.6 here and in CI), with
 * fake phones speaking the device side of adb's protocol over TCP (`fake-adbd.ts`) attached by `adb connect`. The
 * fake adb server of the unit tests is our reading of the host protocol; this is the real one: its transport
 * switching, its stream flow control, its checksums and payload sizes per phone, its authentication, and what it
 * does when a phone goes away (and when it comes back, to a whole farm host with its console's tap and Inspect).
 *
 * The server runs on a port of its own with a home of its own (its key, `adbkey`, is made there), never on the
 * machine's 5037. It needs /usr/bin/adb: without it the file is skipped, except in CI, where it must run.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdbHost, type AdbHostEvent } from '../src/adb/adb.host.ts';
import { AdbPhone } from '../src/adb/adb.phone.ts';
import { AgentState } from '../src/agent/state.ts';
import { FarmHost } from '../src/host/host.ts';
import { PhoneError } from '../src/phone/phone.device.ts';
import { A_VERSION_MIN, FakeAdbd, MAX_PAYLOAD, MAX_PAYLOAD_V1 } from './fake-adbd.ts';
import { FakeAndroid, fixture } from './fake-android.ts';
import { fakeConsole } from './fake-console.ts';
import { clipPackets, makeClip } from './fake-scrcpy.ts';
import type { ScrcpyPacket } from '../src/adb/adb.scrcpy.ts';

const ADB = '/usr/bin/adb';
// Screens recorded from Instagram (see fixtures/EVIDENCE.md): one phone shows the feed, the other the search page.
const feed = () => fixture('ui-instagram-feed.xml');
const search = () => fixture('ui-instagram-search.xml');
const present = existsSync(ADB);
const inCi = Boolean(process.env.CI);

if (!present && !inCi) {
  console.warn(
    `adb-server.e2e: skipped, ${ADB} is missing. Install Debian's adb package (apt-get install adb) to run the host against Google's adb server; CI installs it and runs this file.`,
  );
}

describe.runIf(inCi && !present)('the adb server end to end, in CI', () => {
  it("has Debian's adb installed (.ci/run installs it)", () => {
    expect(existsSync(ADB), `${ADB} is missing: .ci/run must install Debian's adb package`).toBe(true);
  });
});

/** A loopback port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Waits for something to hold, failing with `what` after `ms` instead of hanging. */
async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe.runIf(present)("the farm host through Google's adb server", () => {
  let home: string;
  let port: number;
  let env: NodeJS.ProcessEnv;
  let host: AdbHost;
  const events: AdbHostEvent[] = [];
  let png: Buffer;
  // A phone of today (protocol 0x01000001: no checksums, 1 MiB payloads, shell v2) and one with the oldest behaviours
  // together (0x01000000: every payload checksummed; at most 4096 bytes a payload), so the server meets both.
  let modern: FakeAdbd;
  let older: FakeAdbd;
  let clips: ScrcpyPacket[][];

  const adb = (...args: string[]) =>
    new Promise<string>((resolve, reject) =>
      execFile(ADB, ['-P', String(port), ...args], { env, timeout: 10_000 }, (error, stdout, stderr) =>
        error ? reject(new Error(`adb ${args.join(' ')}: ${error.message} ${stderr}`)) : resolve(`${stdout}${stderr}`),
      ),
    );

  /** The next host event that matches, or an error after `ms`. */
  const next = (predicate: (event: AdbHostEvent) => boolean, what: string, ms = 5000) =>
    within(
      ms,
      what,
      new Promise<AdbHostEvent>((resolve) => {
        const seen = events.find(predicate);
        if (seen) return resolve(seen);
        const off = host.on((event) => {
          if (!predicate(event)) return;
          off();
          resolve(event);
        });
      }),
    );

  const readyPhone = async (serial: string): Promise<AdbPhone> => {
    const event = await next((item) => item.type === 'ready' && item.serial === serial, `${serial} ready`);
    if (event.type !== 'ready') throw new Error('unreachable');
    return event.phone;
  };

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'farm-adb-home-'));
    port = await freePort();
    const { ADB_VENDOR_KEYS: _keys, ANDROID_SERIAL: _serial, ...rest } = process.env;
    env = { ...rest, HOME: home, ANDROID_SDK_HOME: home, ANDROID_ADB_SERVER_PORT: String(port) };
    await adb('start-server');
    // Noise does not compress: the screenshot is hundreds of payloads on the older phone.
    png = await sharp({ create: { width: 270, height: 600, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
      .png()
      .toBuffer();
    // scrcpy-server's H.264: ffmpeg's test pattern, then (after a touch) a plain blue screen.
    clips = [clipPackets(makeClip('testsrc', { frames: 20, gop: 5 })), clipPackets(makeClip('color=c=blue', { frames: 20, gop: 5 }))];
    const scrcpy = { clips, width: 160, height: 320, frameMs: 10 };
    modern = new FakeAdbd(new FakeAndroid({ serial: 'modern', screen: feed, screencap: () => png, packages: ['com.instagram.android'], scrcpy }));
    older = new FakeAdbd(
      new FakeAndroid({ serial: 'older', model: 'SM-A515F', product: 'a51nsxx', screen: search, screencap: () => png, installRefused: true, scrcpy }),
      { version: A_VERSION_MIN, maxPayload: MAX_PAYLOAD_V1, features: ['cmd'] },
    );
    await Promise.all([modern.listen(), older.listen()]);
    // No adb program for adbkit: if the server died it must not start another on the machine's own home and keys.
    host = new AdbHost({ adbHost: '127.0.0.1', adbPort: port, adbBin: '/nonexistent/adb', probeMs: 0, reconnectMs: 50 });
    host.on((event) => events.push(event));
    await host.start();
  }, 15_000);

  afterAll(async () => {
    await host?.stop();
    if (port) await adb('kill-server').catch(() => undefined);
    await Promise.all([modern?.close(), older?.close()]);
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('sees phones attached with adb connect become ready, and drives them through the server', async () => {
    expect(await host.version()).toBe(41);
    expect(await adb('connect', modern.serial)).toContain(`connected to ${modern.serial}`);
    expect(await adb('connect', older.serial)).toContain(`connected to ${older.serial}`);
    const [phone, old] = await Promise.all([readyPhone(modern.serial), readyPhone(older.serial)]);

    // The server read each phone's banner: `adb devices -l` shows what the CNXN said.
    const listing = await adb('devices', '-l');
    expect(listing).toMatch(new RegExp(`${older.serial.replace(/\./g, '\\.')}\\s+device product:a51nsxx model:SM_A515F device:a51nsxx`));
    expect(listing).toMatch(new RegExp(`${modern.serial.replace(/\./g, '\\.')}\\s+device product:panther model:Pixel_7 device:panther`));
    expect(
      host
        .list()
        .map((device) => [device.serial, device.state])
        .sort(),
    ).toEqual(
      [
        [modern.serial, 'device'],
        [older.serial, 'device'],
      ].sort(),
    );
    expect(phone.knownInfo).toMatchObject({ manufacturer: 'Google', model: 'Pixel 7', androidVersion: '14', sdk: 34, screen: { width: 1080, height: 2400 } });
    expect(old.knownInfo).toMatchObject({ model: 'Pixel 7', screen: { width: 1080, height: 2400 } });

    for (const [item, adbd] of [
      [phone, modern],
      [old, older],
    ] as const) {
      expect(await item.battery()).toMatchObject({ level: 76 });
      const shot = await item.screenshot({ maxSide: 600 });
      expect([shot.mime, shot.width, shot.height]).toEqual(['image/jpeg', 270, 600]);
      await item.tap(540, 1200);
      await item.swipe({ x: 540, y: 1800 }, { x: 540, y: 600 }, 300);
      expect(adbd.phone.inputs).toEqual(['tap 540 1200', 'swipe 540 1800 540 600 300']);
    }

    // The modern phone's UI is read through the UiAutomator2 server: its APKs pushed over sync, the instrumentation
    // started on a shell that stays open, and its HTTP API reached through the transport's tcp:6790 service.
    expect(await phone.uiReader()).toEqual({ kind: 'ui-server', version: '10.6.6', seesToasts: true });
    const source = await phone.dumpUi();
    expect(source).toContain('com.instagram.android:id/title_logo');
    expect(modern.phone.installs).toHaveLength(2);
    expect(modern.opened).toContain(
      'shell:am instrument -w -e disableAnalytics true io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner',
    );
    expect(modern.opened.filter((service) => service === 'tcp:6790').length).toBeGreaterThanOrEqual(4);
    expect(modern.phone.uiServerProcess?.requests).toContain('GET /session/:id/source');
    // The older phone refuses installs over USB: the server's APK is refused and the screen is dumped instead.
    expect(await old.uiReader()).toEqual({ kind: 'dump', version: null, seesToasts: false });
    expect(older.phone.installs).toHaveLength(1);
    expect(await old.dumpUi()).toBe(search().trimEnd());
    expect(older.opened).not.toContain('tcp:6790');

    // A photo bigger than a sync DATA chunk (64 KiB) and than the older phone's 4096-byte payloads; adbkit sends the
    // mode of a regular file (S_IFREG | 0644), as adb push does.
    const dir = mkdtempSync(join(tmpdir(), 'farm-adb-media-'));
    const photo = join(dir, 'beach.png');
    writeFileSync(photo, png);
    try {
      expect(png.length).toBeGreaterThan(64 * 1024);
      expect(await old.pushMedia(photo)).toBe('/sdcard/DCIM/Farm/beach.png');
      expect(await phone.pushMedia(photo, { name: 'b.png' })).toBe('/sdcard/DCIM/Farm/b.png');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const media = (adbd: FakeAdbd) => adbd.phone.pushed.filter((file) => file.path.startsWith('/sdcard/'));
    expect(media(older).map((file) => [file.path, file.mode, file.data.equals(png)])).toEqual([['/sdcard/DCIM/Farm/beach.png', 0o100644, true]]);
    expect(media(modern).map((file) => [file.path, file.data.equals(png)])).toEqual([['/sdcard/DCIM/Farm/b.png', true]]);
    expect(older.phone.scanned).toEqual(['/sdcard/DCIM/Farm/beach.png']);

    // adb's own client against the same phones: `adb shell` speaks shell protocol v2 where the phone advertises it,
    // `adb pull` reads the pushed photo back over sync (STAT, RECV) in the older phone's small payloads.
    expect(await adb('-s', modern.serial, 'shell', 'echo', 'farm-v2')).toBe('farm-v2\n');
    expect(modern.opened.some((service) => /^shell,v2,.*raw:echo farm-v2$/.test(service))).toBe(true);
    const pulled = mkdtempSync(join(tmpdir(), 'farm-adb-pull-'));
    try {
      await adb('-s', older.serial, 'pull', '/sdcard/DCIM/Farm/beach.png', join(pulled, 'beach.png'));
      expect(readFileSync(join(pulled, 'beach.png')).equals(png)).toBe(true);
    } finally {
      rmSync(pulled, { recursive: true, force: true });
    }

    // One input shell per phone, kept open through the server between commands.
    expect(phone.inputShellsOpened).toBe(1);
    expect(modern.opened.filter((service) => service === 'shell:sh')).toHaveLength(1);
    expect(modern.opened).toContain('sync:');

    // The server kept to what each phone said it speaks: every payload to the older phone within 4096 bytes and
    // checksummed (a wrong sum would have ended its connection), larger ones and no sums to the modern one.
    const older_ = older.received.filter((message) => message.length > 0);
    expect(older.received.filter((message) => message.command.startsWith('error'))).toEqual([]);
    expect(Math.max(...older_.map((message) => message.length))).toBeLessThanOrEqual(MAX_PAYLOAD_V1);
    expect(older_.every((message) => message.checksum !== 0)).toBe(true);
    expect(older.accepted).toBe(1);
    const modern_ = modern.received.filter((message) => message.length > 0 && message.command !== 'CNXN');
    expect(Math.max(...modern_.map((message) => message.length))).toBeGreaterThan(MAX_PAYLOAD_V1);
    expect(Math.max(...modern_.map((message) => message.length))).toBeLessThanOrEqual(MAX_PAYLOAD);
    expect(modern.received.filter((message) => message.command.startsWith('error'))).toEqual([]);
    expect(modern.hostBanners[0]).toMatch(/^host::features=/);
  }, 45_000);

  it('streams H.264 from scrcpy-server through the server and takes a tap on its control socket, on both phones', async () => {
    const serverFile = join(home, 'scrcpy-server-v3.3.1');
    writeFileSync(serverFile, randomBytes(70_000));
    for (const [serial, adbd] of [
      [modern.serial, modern],
      [older.serial, older],
    ] as const) {
      const phone = await readyPhone(serial);
      const session = await within(10_000, `${serial} scrcpy start`, phone.openScrcpy('watch', serverFile));
      expect(session.header).toMatchObject({ codec: 'h264', width: 160, height: 320 });
      // The file went over sync whole, in 4096-byte payloads on the older phone.
      expect(adbd.phone.files.get('/data/local/tmp/farm-scrcpy-server.jar')?.equals(readFileSync(serverFile))).toBe(true);
      const packets: ScrcpyPacket[] = [];
      session.watch({
        send: (packet) => {
          packets.push(packet);
          return 0;
        },
      });
      const blue = clips[1] as ScrcpyPacket[];
      const sawBlue = () => packets.some((packet) => packet.keyFrame && blue.some((b) => b.data.equals(packet.data)));
      await within(
        5000,
        `${serial} first key frame`,
        (async () => {
          while (!packets.some((packet) => packet.keyFrame)) await new Promise((resolve) => setTimeout(resolve, 10));
        })(),
      );
      expect(sawBlue()).toBe(false);
      session.tap({ x: 80, y: 160, width: 160, height: 320 });
      await within(
        5000,
        `${serial} the picture after the tap`,
        (async () => {
          while (!sawBlue()) await new Promise((resolve) => setTimeout(resolve, 10));
        })(),
      );
      // Packets arrive whole and in order: each one is a packet of one of the clips.
      const known = new Set(clips.flat().map((packet) => packet.data.toString('base64')));
      expect(packets.every((packet) => known.has(packet.data.toString('base64')))).toBe(true);
      session.end();
    }
  });

  it('reports a phone that goes away as unresponsive, fails its commands at once, and drops it on adb disconnect', async () => {
    const [phone, old] = await Promise.all([readyPhone(modern.serial), readyPhone(older.serial)]);
    events.length = 0;
    // The phone is gone (its Wi-Fi or cable): connections end and nothing listens any more. adb 29 keeps a TCP phone
    // it lost listed as offline while it tries to reconnect (about a minute, then forgets it), and does not announce that
    // on track-devices: the host learns it from its probe, whose commands the server refuses at once.
    await modern.close();
    const listed = await within(
      3000,
      'adb devices',
      (async () => {
        for (;;) {
          const output = await adb('devices');
          if (output.includes(`${modern.serial}\toffline`)) return output;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })(),
    );
    expect(listed).toContain(`${older.serial}\tdevice`);
    const started = Date.now();
    const error = await within(
      3000,
      'a command on the lost phone',
      phone.battery().catch((failure: unknown) => failure),
    );
    expect(error).toBeInstanceOf(PhoneError);
    expect((error as PhoneError).code).toBe('disconnected');
    expect((error as PhoneError).message).toContain('device offline');
    expect(Date.now() - started).toBeLessThan(3000);
    // The host's probe round compares with `adb devices`, so it hears the offline the tracker kept to itself.
    await within(3000, 'a probe round', host.probe());
    const lost = await next((event) => event.type === 'state' && event.serial === modern.serial, 'the lost phone offline', 3000);
    expect(lost).toMatchObject({ type: 'state', serial: modern.serial, state: 'offline', previous: 'device' });
    expect(host.phone(modern.serial)).toBeNull();
    // The other phone does not notice.
    await old.ping();
    expect(await old.battery()).toMatchObject({ level: 76 });
    expect(events.some((event) => 'serial' in event && event.serial === older.serial)).toBe(false);

    expect(await adb('disconnect', modern.serial)).toContain(`disconnected ${modern.serial}`);
    await next((event) => event.type === 'detached' && event.serial === modern.serial, 'the disconnected phone detached');
    expect(host.phone(modern.serial)).toBeNull();
    expect(host.list().map((device) => device.serial)).toEqual([older.serial]);
  }, 10_000);

  it('takes a phone whose connection blips through offline and back to ready, with a fresh phone object', async () => {
    const old = host.phone(older.serial);
    if (!old) throw new Error(`${older.serial} is not ready`);
    await old.tap(100, 200);
    events.length = 0;
    // The connection ends but the phone still listens (Wi-Fi roaming, a hub resetting): adb 29 connects again at once
    // and, unlike for a phone that stays away, announces offline and then device on track-devices.
    older.drop();
    const back = await readyPhone(older.serial);
    expect(older.accepted).toBe(2);
    expect(
      events
        .filter((event) => 'serial' in event && event.serial === older.serial)
        .map((event) => (event.type === 'state' ? `${event.previous}>${event.state}` : event.type)),
    ).toEqual(['device>offline', 'offline>device', 'ready']);
    expect(back).not.toBe(old);
    expect(host.phone(older.serial)).toBe(back);
    // The phone the host let go of refuses at once; the new one drives the phone on its new connection.
    await expect(within(2000, 'the released phone', old.tap(1, 1))).rejects.toMatchObject({ code: 'disconnected' });
    await back.tap(300, 400);
    expect(older.phone.inputs.slice(-2)).toEqual(['tap 100 200', 'tap 300 400']);
    expect(await back.battery()).toMatchObject({ level: 76 });
  }, 10_000);

  it('ends a command on a phone that freezes, or that goes away in the middle of a push, with a reason', async () => {
    const flaky = new FakeAdbd(new FakeAndroid({ serial: 'flaky' }), { version: A_VERSION_MIN, maxPayload: MAX_PAYLOAD_V1 });
    await flaky.listen();
    const dir = mkdtempSync(join(tmpdir(), 'farm-adb-media-'));
    try {
      expect(await adb('connect', flaky.serial)).toContain(`connected to ${flaky.serial}`);
      await readyPhone(flaky.serial);
      // The host's phone code through the real server, with short limits so the test stays short.
      const phone = new AdbPhone(flaky.serial, host.client.getDevice(flaky.serial), { commandTimeoutMs: 800, pushTimeoutMs: 5000, uiServer: false });
      // Frozen: the phone takes the stream and never answers it.
      flaky.phone.frozen = true;
      let started = Date.now();
      await expect(phone.battery()).rejects.toMatchObject({ code: 'timeout' });
      expect(Date.now() - started).toBeLessThan(2000);
      flaky.phone.frozen = false;
      expect(await phone.battery()).toMatchObject({ level: 76 });

      // Unplugged mid-push: 4 MiB in 4096-byte payloads is a thousand round trips; the phone goes after the first ones.
      const video = join(dir, 'clip.mp4');
      writeFileSync(video, randomBytes(4 * 1024 * 1024));
      const writes = () => flaky.received.filter((message) => message.command === 'WRTE').length;
      const before = writes();
      started = Date.now();
      const push = phone.pushMedia(video).catch((failure: unknown) => failure);
      await within(
        5000,
        'the push starting',
        (async () => {
          while (writes() < before + 20) await new Promise((resolve) => setTimeout(resolve, 5));
        })(),
      );
      await flaky.close();
      const error = await within(6000, 'the interrupted push', push);
      expect(error).toBeInstanceOf(PhoneError);
      // adbkit's sync stream ends early ("Premature end of stream"): the phone went away, and the reason names the file.
      expect((error as PhoneError).code).toBe('disconnected');
      expect((error as PhoneError).message).toContain('/sdcard/DCIM/Farm/clip.mp4');
      expect(Date.now() - started).toBeLessThan(6000);
      expect(flaky.phone.pushed.filter((file) => file.path.startsWith('/sdcard/'))).toEqual([]);
      await phone.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await adb('disconnect', flaky.serial).catch(() => undefined);
      await flaky.close();
    }
  }, 15_000);

  it('keeps a phone that asks for authorisation from the farm until the person allows this computer', async () => {
    const guarded = new FakeAdbd(new FakeAndroid({ serial: 'guarded', uiServerInstalled: '10.6.6' }), { requireAuth: true });
    await guarded.listen();
    try {
      events.length = 0;
      // adb 29 says so at once; `adb devices` lists the phone as unauthorized, as a USB phone before "Allow USB
      // debugging". Its tracker announces it only as offline (it never announces unauthorized); the host's probe
      // round reads the listing.
      expect(await adb('connect', guarded.serial)).toContain(`failed to authenticate to ${guarded.serial}`);
      expect(await adb('devices')).toContain(`${guarded.serial}\tunauthorized`);
      await next((event) => event.type === 'attached' && event.serial === guarded.serial, 'the guarded phone listed');
      // The tracker said offline; the probe round's listing says what the phone waits for.
      await within(3000, 'a probe round', host.probe());
      expect(host.list().find((device) => device.serial === guarded.serial)).toMatchObject({ state: 'unauthorized', phone: null });
      // The server signed the phone's token with the key it made in its home, was refused, and offered that key.
      expect(guarded.offeredKeys).toHaveLength(1);
      expect(guarded.offeredKeys[0]).toMatch(/^[A-Za-z0-9+/]+=* \S+/);
      expect(guarded.opened).toEqual([]);

      guarded.allow();
      const ready = await readyPhone(guarded.serial);
      expect(events.find((event) => event.type === 'state' && event.serial === guarded.serial && event.state === 'device')).toMatchObject({
        previous: 'unauthorized',
      });
      await ready.ping();

      // Next time the phone knows the key: the server's signature is checked and accepted, with no prompt.
      expect(await adb('disconnect', guarded.serial)).toContain('disconnected');
      await next((event) => event.type === 'detached' && event.serial === guarded.serial, 'the guarded phone detached');
      events.length = 0;
      expect(await adb('connect', guarded.serial)).toContain(`connected to ${guarded.serial}`);
      await (await readyPhone(guarded.serial)).ping();
      expect(guarded.offeredKeys).toHaveLength(1);
    } finally {
      await adb('disconnect', guarded.serial).catch(() => undefined);
      await guarded.close();
    }
  }, 10_000);
  it('keeps a farm host’s phone whole through a 3 s blip and a reconnection under a new transport id', async () => {
    const blippy = new FakeAdbd(new FakeAndroid({ serial: 'blippy', screen: feed, screencap: () => png }));
    await blippy.listen();
    const serial = blippy.serial;
    const console_ = await fakeConsole();
    const dir = mkdtempSync(join(tmpdir(), 'farm-host-blip-'));
    const farm = new FarmHost({
      server: console_.url,
      token: 'host-token',
      state: new AgentState(dir),
      backend: 'adb',
      adbHost: '127.0.0.1',
      adbPort: port,
      scrcpyServer: false,
      adb: { adbBin: '/nonexistent/adb', probeMs: 0, reconnectMs: 50 },
    });
    const until = (what: string, check: () => unknown, ms = 8000) =>
      within(
        ms,
        what,
        (async () => {
          while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
        })(),
      );
    /** The transport id `adb devices -l` shows for the phone (adb numbers each new transport). */
    const transportId = async () => new RegExp(`^${serial.replace(/\./g, '\\.')}\\s.*transport_id:(\\d+)$`, 'm').exec(await adb('devices', '-l'))?.[1];
    let seq = 0;
    const tap = () => console_.ask(serial, 'live.input', { seq: ++seq, input: { kind: 'tap', x: 0.5, y: 0.25 } });
    /** Inspect from the console: read through the UI server (a page source asked of it), never with uiautomator dump. */
    const inspect = async () => {
      const sources = () => blippy.phone.uiServerProcess?.requests.filter((request) => request === 'GET /session/:id/source').length ?? 0;
      const process = blippy.phone.uiServerProcess;
      const before = sources();
      expect(await console_.ask(serial, 'inspect.capture', {}, 15_000)).toMatchObject({ ok: true });
      expect(blippy.phone.commands.some((line) => line.includes('uiautomator dump'))).toBe(false);
      expect(sources()).toBe(blippy.phone.uiServerProcess === process ? before + 1 : 1);
    };
    try {
      await farm.start();
      expect(await adb('connect', serial)).toContain(`connected to ${serial}`);
      await until('the phone’s agent to connect', () => farm.agent(serial)?.connected, 10_000);
      expect(await tap()).toEqual({ ok: true });
      await inspect();
      const id = await transportId();
      const first = farm.backend(serial)?.phone;

      // Its connection drops and adbd answers again 3 s later: adb lists it offline meanwhile, on the same transport.
      const blipped = Date.now();
      blippy.blip(3000);
      await until('adb to list the phone offline', async () => (await adb('devices')).includes(`${serial}\toffline`), 3000);
      await until('the backend to drive the phone’s new object', () => farm.backend(serial)?.phone !== first, 8000);
      expect(Date.now() - blipped).toBeGreaterThanOrEqual(2900);
      expect(blippy.accepted).toBeGreaterThanOrEqual(2);
      expect(await transportId()).toBe(id);
      expect(console_.connections.get(serial)).toHaveLength(1);
      expect(await tap()).toEqual({ ok: true });
      expect(blippy.phone.inputs).toEqual(['tap 540 600', 'tap 540 600']);
      await inspect();
      await expect(within(2000, 'the released phone', first!.tap(1, 1))).rejects.toMatchObject({ code: 'disconnected' });

      // The console heard it was away ("Reconnecting") and back on the same transport, on the connection that stayed.
      expect(console_.transport.get(serial)?.map((item) => [item.name, item.message.transport ?? item.message.reason])).toEqual([
        ['phone.away', 'offline'],
        ['phone.back', 'same'],
      ]);

      // Gone and connected again: adb makes a new transport with a new id; the host waited, and binds the same agent.
      const agent = farm.agent(serial);
      const second = farm.backend(serial)?.phone;
      expect(await adb('disconnect', serial)).toContain(`disconnected ${serial}`);
      await until('the console to hear the phone left adb’s list', () => console_.transport.get(serial)?.some((item) => item.message.reason === 'gone'));
      expect(await adb('connect', serial)).toContain(`connected to ${serial}`);
      await until('the phone back on a new transport', () => console_.transport.get(serial)?.some((item) => item.message.transport === 'new'), 10_000);
      expect(Number(await transportId())).toBeGreaterThan(Number(id));
      expect(farm.agent(serial)).toBe(agent);
      expect(farm.backend(serial)?.phone).not.toBe(second);
      expect(console_.connections.get(serial)).toHaveLength(1);
      expect(await tap()).toEqual({ ok: true });
      expect(blippy.phone.inputs).toHaveLength(3);
      await inspect();
    } finally {
      await farm.close();
      await console_.close();
      await adb('disconnect', serial).catch(() => undefined);
      await blippy.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 20_000);
});
