/**
 * Installing, updating and removing apps through a real AdbPhone on the fake adb server, whose package manager
 * answers as AOSP's does (test/fake-pm.ts): one APK, a split set, a refusal in words, a downgrade, an uninstall.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeAdbServer } from '../../test/fake-adb.server.ts';
import { FakeAndroid } from '../../test/fake-android.ts';
import { AdbHost, type AdbHostEvent } from './adb.host.ts';
import type { AdbPhone } from './adb.phone.ts';
import { installApk, installSplitSet, readPmOutput, readSessionId, uninstallPackage } from './adb.packages.ts';

let dir: string;
let server: FakeAdbServer;
let host: AdbHost;
let android: FakeAndroid;
let phone: AdbPhone;

/** A fake APK for the fake phone (see test/fake-pm.ts), written to the host's disk. */
function apk(name: string, body: Record<string, unknown> | string): { path: string; size: number } {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const path = join(dir, name);
  writeFileSync(path, text);
  return { path, size: Buffer.byteLength(text) };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'farm-apps-'));
});

beforeEach(async () => {
  server = new FakeAdbServer();
  await server.listen();
  android = new FakeAndroid({ serial: 'PKG0001' });
  server.plug(android);
  host = new AdbHost({ adbHost: '127.0.0.1', adbPort: server.port, adbBin: '/nonexistent/adb', probeMs: 0, reconnectMs: 20 });
  const ready = new Promise<AdbPhone>((resolve) => {
    const off = host.on((event: AdbHostEvent) => {
      if (event.type !== 'ready') return;
      off();
      resolve(event.phone);
    });
  });
  await host.start();
  phone = await ready;
});

afterEach(async () => {
  await host?.stop();
  await server.close();
});

describe('pm output', () => {
  it('reads success, failures with and without a message, and the session id', () => {
    expect(readPmOutput('Success\n')).toEqual({ ok: true, output: 'Success' });
    expect(readPmOutput('Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE]\n', 1)).toMatchObject({
      ok: false,
      code: 'INSTALL_FAILED_INSUFFICIENT_STORAGE',
      reason: 'The phone does not have enough free storage for this app.',
    });
    expect(readPmOutput('Failure [INSTALL_FAILED_OLDER_SDK: Requires newer sdk version #34 (current version is #30)]', 1)).toMatchObject({
      code: 'INSTALL_FAILED_OLDER_SDK',
      reason: 'The app needs a newer Android version than this phone has.',
    });
    expect(readPmOutput('Failure [INSTALL_FAILED_SOMETHING_NEW: x]', 1)).toMatchObject({
      code: 'INSTALL_FAILED_SOMETHING_NEW',
      reason: 'The phone refused the app (INSTALL_FAILED_SOMETHING_NEW).',
    });
    expect(readPmOutput('Failure [not installed for 0]', 1)).toMatchObject({ code: 'not_installed' });
    expect(readPmOutput('Error: must specify a APK size', 1)).toMatchObject({ ok: false, code: 'pm_failed' });
    expect(readPmOutput('', 1)).toMatchObject({ ok: false, code: 'pm_failed' });
    expect(readPmOutput('', 0)).toMatchObject({ ok: false, code: 'pm_failed' });
    expect(readSessionId('Success: created install session [1284412201]\n')).toBe(1284412201);
    expect(readSessionId('Failure [x]')).toBeNull();
  });
});

describe('apps on a phone over adb', () => {
  it('installs one APK, updates it, refuses a downgrade unless allowed, and removes it', async () => {
    const v1 = apk('ig-1.apk', { package: 'com.instagram.android', versionCode: 370100, versionName: '370.1.0' });
    expect(await installApk(phone, v1.path, 'ig-1.apk')).toEqual({ ok: true, output: 'Success' });
    expect(android.packageManager.apps.get('com.instagram.android')).toMatchObject({ versionName: '370.1.0' });
    // The copy on the phone is removed once installed.
    expect([...android.files.keys()].filter((path) => path.startsWith('/data/local/tmp/farm-apps/'))).toEqual([]);

    const v2 = apk('ig-2.apk', { package: 'com.instagram.android', versionCode: 371000, versionName: '371.0.0' });
    expect((await installApk(phone, v2.path, 'ig-2.apk')).ok).toBe(true);
    const back = await installApk(phone, v1.path, 'ig-1.apk');
    expect(back).toMatchObject({
      ok: false,
      code: 'INSTALL_FAILED_VERSION_DOWNGRADE',
      reason: 'The phone has a newer version installed: allow the downgrade to roll back.',
    });
    expect(android.packageManager.apps.get('com.instagram.android')?.versionName).toBe('371.0.0');
    expect((await installApk(phone, v1.path, 'ig-1.apk', { allowDowngrade: true })).ok).toBe(true);
    expect(android.packageManager.calls.at(-1)).toMatch(/^install -r -d \/data\/local\/tmp\/farm-apps\/ig-1\.apk$/);

    expect(await uninstallPackage(phone, 'com.instagram.android')).toEqual({ ok: true, output: 'Success' });
    expect(await uninstallPackage(phone, 'com.instagram.android')).toMatchObject({
      ok: false,
      code: 'not_installed',
      reason: 'The app is not installed on this phone.',
    });
    expect(await uninstallPackage(phone, 'com.x; reboot')).toMatchObject({ ok: false, code: 'pm_failed' });
  });

  it('says why in words when the phone refuses, and a file that is not an APK', async () => {
    const app = apk('tt.apk', { package: 'com.zhiliaoapp.musically', versionCode: 43010, versionName: '43.1.4' });
    android.packageManager.failNext = 'INSTALL_FAILED_INSUFFICIENT_STORAGE';
    expect(await installApk(phone, app.path, 'tt.apk')).toMatchObject({
      ok: false,
      code: 'INSTALL_FAILED_INSUFFICIENT_STORAGE',
      detail: 'Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE]',
    });
    const junk = apk('junk.apk', 'PK\u0003\u0004 not really');
    expect(await installApk(phone, junk.path, 'junk.apk')).toMatchObject({
      ok: false,
      code: 'INSTALL_PARSE_FAILED_NOT_APK',
      reason: 'The file is not an APK.',
    });
    expect(android.packageManager.apps.has('com.zhiliaoapp.musically')).toBe(false);
  });

  it('refuses installs on a phone with "Install via USB" off', async () => {
    await host.stop();
    await server.close();
    server = new FakeAdbServer();
    await server.listen();
    android = new FakeAndroid({ serial: 'MIUI0001', installRefused: true });
    server.plug(android);
    host = new AdbHost({ adbHost: '127.0.0.1', adbPort: server.port, adbBin: '/nonexistent/adb', probeMs: 0, reconnectMs: 20 });
    const ready = new Promise<AdbPhone>((resolve) => {
      const off = host.on((event) => {
        if (event.type !== 'ready') return;
        off();
        resolve(event.phone);
      });
    });
    await host.start();
    phone = await ready;
    const app = apk('ig.apk', { package: 'com.instagram.android', versionCode: 1 });
    expect(await installApk(phone, app.path, 'ig.apk')).toMatchObject({ ok: false, code: 'INSTALL_FAILED_USER_RESTRICTED' });
  });

  it('installs a split set in one session, and abandons the session when a part fails', async () => {
    const base = apk('base.apk', { package: 'com.instagram.android', versionCode: 371000, versionName: '371.0.0' });
    const abi = apk('split_config.arm64_v8a.apk', { package: 'com.instagram.android', versionCode: 371000, split: 'config.arm64_v8a' });
    const density = apk('split_config.xxhdpi.apk', { package: 'com.instagram.android', versionCode: 371000, split: 'config.xxhdpi' });
    const result = await installSplitSet(phone, [
      { localPath: base.path, name: 'base', size: base.size },
      { localPath: abi.path, name: 'split_config.arm64_v8a', size: abi.size },
      { localPath: density.path, name: 'split_config.xxhdpi', size: density.size },
    ]);
    expect(result).toEqual({ ok: true, output: 'Success' });
    expect(android.packageManager.apps.get('com.instagram.android')).toEqual({
      versionCode: 371000,
      versionName: '371.0.0',
      splits: ['config.arm64_v8a', 'config.xxhdpi'],
    });
    const verbs = android.packageManager.calls.map((call) => call.split(' ')[0]);
    expect(verbs).toEqual(['install-create', 'install-write', 'install-write', 'install-write', 'install-commit']);
    expect(android.packageManager.calls[0]).toBe(`install-create -r -S ${base.size + abi.size + density.size}`);
    expect([...android.files.keys()].filter((path) => path.startsWith('/data/local/tmp/farm-apps/'))).toEqual([]);

    // Splits without their base: the commit is refused and the phone keeps what it had.
    const missing = await installSplitSet(phone, [{ localPath: abi.path, name: 'split_config.arm64_v8a', size: abi.size }]);
    expect(missing).toMatchObject({ ok: false, code: 'INSTALL_FAILED_INVALID_APK' });
    expect(android.packageManager.apps.get('com.instagram.android')?.splits).toEqual(['config.arm64_v8a', 'config.xxhdpi']);

    // A write that fails (size 0) abandons the session: none stays open on the phone.
    const broken = await installSplitSet(phone, [
      { localPath: base.path, name: 'base', size: base.size },
      { localPath: abi.path, name: 'split_config.arm64_v8a', size: 0 },
    ]);
    expect(broken).toMatchObject({ ok: false, code: 'pm_failed' });
    expect(android.packageManager.calls.at(-1)).toMatch(/^install-abandon \d+$/);
    expect(android.packageManager.openSessions()).toBe(0);
  });
});
