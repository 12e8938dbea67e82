import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeAdbServer } from '../../test/fake-adb.server.ts';
import { FakeAndroid, fixture, type FakeAndroidOptions } from '../../test/fake-android.ts';
import { fakeFrameNumber } from '../../test/fake-minicap.ts';
import type { LiveScreenFrame } from '../phone/phone.device.ts';
import { createAdbClient } from './adb.host.ts';
import { minicapFiles } from './adb.minicap.ts';
import { AdbPhone, type AdbPhoneOptions } from './adb.phone.ts';

const SERIAL = 'R9JT30ABCDE';
const MINICAP_COMMAND = 'LD_LIBRARY_PATH=/data/local/tmp exec /data/local/tmp/minicap -P 1080x2400@324x720/0 -S -Q 60';

let png: Buffer;
let server: FakeAdbServer;
let phones: AdbPhone[];

beforeAll(async () => {
  png = await sharp({ create: { width: 1080, height: 2400, channels: 3, background: '#ffffff' } })
    .png()
    .toBuffer();
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

/** The recorded getprop of a Pixel, as Android `release` (SDK `sdk`) on `abi`. */
function getprop(release: string, sdk: number, abi = 'arm64-v8a'): string {
  return fixture('getprop.txt')
    .replace('[ro.build.version.release]: [14]', `[ro.build.version.release]: [${release}]`)
    .replace('[ro.build.version.sdk]: [34]', `[ro.build.version.sdk]: [${sdk}]`)
    .replace('[ro.product.cpu.abi]: [arm64-v8a]', `[ro.product.cpu.abi]: [${abi}]`);
}

/** A phone on the fake adb server (Android 11 on arm64 unless told) and the AdbPhone that drives it. */
function plug(options: Partial<FakeAndroidOptions> = {}, phoneOptions: AdbPhoneOptions = {}): { fake: FakeAndroid; phone: AdbPhone } {
  const fake = new FakeAndroid({ serial: SERIAL, getprop: getprop('11', 30), screencap: () => png, ...options });
  server.plug(fake);
  // No adb program: a lost fake server must not make adbkit start a real one on its port.
  const client = createAdbClient({ adbHost: '127.0.0.1', adbPort: server.port, adbBin: '/nonexistent/adb' });
  client.on('error', () => undefined);
  const phone = new AdbPhone(SERIAL, client.getDevice(SERIAL), phoneOptions);
  phones.push(phone);
  return { fake, phone };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Frames until one comes from `source` (a switch of method shows within a few). */
async function frameFrom(live: { next(): Promise<LiveScreenFrame> }, source: LiveScreenFrame['source']): Promise<LiveScreenFrame> {
  for (let i = 0; i < 50; i++) {
    const frame = await live.next();
    if (frame.source === source) return frame;
  }
  throw new Error(`no ${source} frame`);
}

describe('the live screen of a phone over adb', () => {
  it('streams with minicap where a build fits: pushed to /data/local/tmp, projected from the screen, frames parsed', async () => {
    const { fake, phone } = plug();
    const live = await phone.openLive({ maxSide: 720, quality: 60 });
    expect(live.source).toBe('minicap');
    const files = minicapFiles('arm64-v8a', 30);
    expect(fake.pushed.map(({ path, mode }) => [path, mode])).toEqual([
      ['/data/local/tmp/minicap', 0o100755],
      ['/data/local/tmp/minicap.so', 0o100644],
    ]);
    expect(fake.pushed[0]?.data.equals(readFileSync(files?.bin as string))).toBe(true);
    expect(fake.pushed[1]?.data.equals(readFileSync(files?.lib as string))).toBe(true);
    expect(server.requests).toContain(`shell:${MINICAP_COMMAND}`);
    expect(server.requests).toContain('localabstract:minicap');
    expect(fake.minicaps.map((minicap) => minicap.projection)).toEqual([
      { realWidth: 1080, realHeight: 2400, virtualWidth: 324, virtualHeight: 720, rotation: 0 },
    ]);
    expect(live.minicapPid).toBe(fake.minicaps[0]?.pid);

    const first = await live.next();
    expect(first).toMatchObject({ mime: 'image/jpeg', width: 324, height: 720, source: 'minicap' });
    expect(Date.now() - Date.parse(first.capturedAt)).toBeLessThan(5000);
    const meta = await sharp(first.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 324, 720]);
    const second = await live.next();
    expect(fakeFrameNumber(second.data)).toBeGreaterThan(fakeFrameNumber(first.data) as number);

    // Input keeps its one persistent shell while the stream has its own.
    await phone.tap(540, 1200);
    await phone.key('back');
    expect(fake.inputs).toEqual(['tap 540 1200', 'keyevent 4']);
    expect(fake.shellsOpened).toBe(1);
    expect(server.requests.filter((request) => request === 'shell:sh')).toHaveLength(1);
    expect(fakeFrameNumber((await live.next()).data)).toBeGreaterThan(fakeFrameNumber(second.data) as number);
  });

  it('keeps only the newest frame for a slow reader: frames in between are dropped, not queued', async () => {
    const { fake, phone } = plug();
    const live = await phone.openLive({ maxSide: 720, quality: 60 });
    const first = fakeFrameNumber((await live.next()).data) as number;
    await sleep(400);
    const sent = fake.minicaps[0]?.sent as number;
    const late = fakeFrameNumber((await live.next()).data) as number;
    // Several frames came while nobody read; the reader gets the newest one, not the one after its last.
    expect(sent - first).toBeGreaterThan(3);
    expect(late - first).toBeGreaterThanOrEqual(3);
    // The last one written may still be on its way.
    expect(late).toBeGreaterThanOrEqual(sent - 2);
    // Nothing was kept behind it: the next read waits for a frame sent after it.
    const after = fakeFrameNumber((await live.next()).data) as number;
    expect(after).toBeGreaterThan(late);
  });

  it('ends minicap on close (kill by its pid) and refuses to read after', async () => {
    const { fake, phone } = plug();
    const live = await phone.openLive({ maxSide: 720, quality: 60 });
    await live.next();
    const pid = fake.minicaps[0]?.pid as number;
    await live.close();
    expect(fake.commands).toContain(`kill ${pid}`);
    expect(fake.killed).toEqual([pid]);
    expect(fake.minicaps[0]?.running).toBe(false);
    await expect(live.next()).rejects.toThrow('The live screen is closed.');
    await live.close();
    expect(fake.killed).toEqual([pid]);
  });

  it('stops waiting for a frame when the signal aborts', async () => {
    const { phone } = plug({ minicapFrameMs: 10_000 });
    const live = await phone.openLive({ maxSide: 720, quality: 60 });
    const controller = new AbortController();
    const waiting = live.next(controller.signal);
    controller.abort(new Error('The viewer left.'));
    await expect(waiting).rejects.toThrow('The viewer left.');
    await expect(live.next(controller.signal)).rejects.toThrow('The viewer left.');
  });

  it('has one live screen per phone: opening another ends the first, closing the phone ends it', async () => {
    const { fake, phone } = plug();
    const first = await phone.openLive({ maxSide: 720, quality: 60 });
    const second = await phone.openLive({ maxSide: 480, quality: 50 });
    await expect(first.next()).rejects.toThrow('The live screen is closed.');
    expect((await second.next()).width).toBe(216);
    expect(fake.minicaps.map((minicap) => minicap.running)).toEqual([false, true]);
    // The files stay on the phone: a stream opened again does not copy them again.
    expect(fake.pushed).toHaveLength(2);
    await phone.close();
    expect(fake.minicaps.map((minicap) => minicap.running)).toEqual([false, false]);
    await expect(second.next()).rejects.toThrow('The live screen is closed.');
    await expect(phone.openLive({})).rejects.toThrow('The phone was closed.');
  });

  it('ends a live screen still starting when the phone is closed', async () => {
    const { fake, phone } = plug({ minicap: 'mute' }, { liveStartTimeoutMs: 2000 });
    const opening = phone.openLive({ maxSide: 720, quality: 60 });
    // Its refusal is awaited from before the close: it may come while the close is still running.
    const refused = expect(opening).rejects.toThrow('The phone was closed.');
    while (fake.minicaps.length === 0) await sleep(10);
    await phone.close();
    await refused;
    expect(fake.minicaps.map((minicap) => minicap.running)).toEqual([false]);
  });

  it('takes screenshots one after another on an ABI minicap has no build for', async () => {
    const log: string[] = [];
    const { fake, phone } = plug({ getprop: getprop('11', 30, 'mips') });
    const live = await phone.openLive({ maxSide: 720, quality: 60, log: (message) => log.push(message) });
    expect(live.source).toBe('screencap');
    const frame = await live.next();
    expect(frame).toMatchObject({ mime: 'image/jpeg', width: 324, height: 720, source: 'screencap' });
    const next = await live.next();
    expect(Date.parse(next.capturedAt)).toBeGreaterThanOrEqual(Date.parse(frame.capturedAt));
    expect(fake.pushed).toEqual([]);
    expect(fake.minicaps).toEqual([]);
    expect(log).toEqual(['No minicap build for mips on Android SDK 30: the live screen uses screenshots.']);
    await live.close();
    await expect(live.next()).rejects.toThrow('The live screen is closed.');
  });

  it('takes screenshots on Android 14, which neither minicap package has a build for', async () => {
    const { fake, phone } = plug({ getprop: getprop('14', 34) });
    const live = await phone.openLive({ maxSide: 720, quality: 60 });
    expect(live.source).toBe('screencap');
    expect((await live.next()).source).toBe('screencap');
    expect(fake.pushed).toEqual([]);
  });

  it.each([
    ['never listens on its socket', 'never-listens', 'minicap sent nothing within 300 ms ("INFO: Using projection 1080x2400@324x720/0")'],
    ['listens but sends no banner', 'mute', 'minicap sent nothing within 300 ms ("INFO: Using projection 1080x2400@324x720/0")'],
    ['exits as it starts', 'crashes', 'minicap exited before streaming ("ERROR: Unable to create virtual display")'],
  ] as const)('falls back to screenshots when minicap %s', async (_, behaviour, reason) => {
    const log: string[] = [];
    const { fake, phone } = plug({ minicap: behaviour }, { liveStartTimeoutMs: 300 });
    const live = await phone.openLive({ maxSide: 720, quality: 60, log: (message) => log.push(message) });
    expect(live.source).toBe('screencap');
    expect(await live.next()).toMatchObject({ width: 324, height: 720, source: 'screencap' });
    expect(log).toEqual([`minicap stopped (${reason}): the live screen uses screenshots.`]);
    // A minicap left running is ended by the pid it printed.
    expect(fake.minicaps.map((minicap) => minicap.running)).toEqual([false]);
    if (behaviour !== 'crashes') expect(fake.killed).toEqual([4321]);
  });

  it('switches to screenshots when minicap dies while streaming', async () => {
    const log: string[] = [];
    const { fake, phone } = plug();
    const live = await phone.openLive({ maxSide: 720, quality: 60, log: (message) => log.push(message) });
    expect((await live.next()).source).toBe('minicap');
    fake.minicaps[0]?.kill();
    expect(await frameFrom(live, 'screencap')).toMatchObject({ width: 324, height: 720 });
    expect(live.source).toBe('screencap');
    expect(log).toHaveLength(1);
    expect(log[0]).toMatch(/^minicap stopped \((minicap exited|the minicap connection closed)\): the live screen uses screenshots\.$/);
  });
});

describe('turning a phone screen', () => {
  it('turns a quarter turn with auto-rotate off, from where the screen is', async () => {
    const { fake, phone } = plug();
    fake.settings.set('system accelerometer_rotation', '1');
    fake.settings.set('system user_rotation', '3');
    await phone.rotate();
    expect(fake.commands.slice(-2)).toEqual([
      'settings get system accelerometer_rotation; settings get system user_rotation',
      'settings put system accelerometer_rotation 0 && settings put system user_rotation 1 && echo farm-rotated',
    ]);
    expect([fake.settings.get('system accelerometer_rotation'), fake.settings.get('system user_rotation')]).toEqual(['0', '1']);
    await phone.rotate();
    await phone.rotate();
    await phone.rotate();
    expect(fake.settings.get('system user_rotation')).toBe('0');
  });

  it('starts minicap again with the new rotation while the screen is live', async () => {
    const { fake, phone } = plug();
    const live = await phone.openLive({ maxSide: 720, quality: 60 });
    await live.next();
    await phone.rotate();
    expect(fake.killed).toEqual([4321]);
    expect(fake.minicaps.map((minicap) => [minicap.running, minicap.projection?.rotation])).toEqual([
      [false, 0],
      [true, 90],
    ]);
    expect(fake.commands).toContain('LD_LIBRARY_PATH=/data/local/tmp exec /data/local/tmp/minicap -P 1080x2400@324x720/90 -S -Q 60');
    const turned = await live.next();
    expect(turned).toMatchObject({ source: 'minicap', width: 720, height: 324 });
    // A live screen opened on a turned phone starts turned.
    const again = await phone.openLive({ maxSide: 720, quality: 60 });
    expect(fake.minicaps.at(-1)?.projection?.rotation).toBe(90);
    expect((await again.next()).width).toBe(720);
  });
});
