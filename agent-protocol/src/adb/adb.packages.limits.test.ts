/**
 * Installs and their limits on a real AdbPhone over the fake adb server (issue 50): a `pm install` that answers after
 * 25 s completes within the install limit, the health check's echo answers meanwhile and the phone stays responsive;
 * an install past its limit fails and counts toward "unresponsive"; a split session is never abandoned once its
 * commit was sent. Every limit and the install's 25 s are scaled down 25 times (10 s → 400 ms, 10 min → 24 s).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeAdbServer } from '../../test/fake-adb.server.ts';
import { FakeAndroid } from '../../test/fake-android.ts';
import { AdbHost, type AdbHostEvent } from './adb.host.ts';
import type { AdbPhone } from './adb.phone.ts';
import { installApk, installSplitSet } from './adb.packages.ts';
import { commandLimits, limitsWith } from './adb.shell.ts';

const SCALE = 25;
const scaled = limitsWith(Object.fromEntries(Object.entries(commandLimits).map(([kind, ms]) => [kind, ms / SCALE])));
const INSTALL_TAKES_MS = 25_000 / SCALE;

let dir: string;
let server: FakeAdbServer;
let host: AdbHost;
let android: FakeAndroid;
let phone: AdbPhone;
let events: AdbHostEvent[];

function apk(name: string, body: Record<string, unknown>): { path: string; size: number } {
  const text = JSON.stringify(body);
  const path = join(dir, name);
  writeFileSync(path, text);
  return { path, size: Buffer.byteLength(text) };
}

async function until(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A phone whose quick commands have the scaled 10 s; one command past its limit marks it unresponsive. */
async function start(): Promise<void> {
  server = new FakeAdbServer();
  await server.listen();
  android = new FakeAndroid({ serial: 'SLOW0001' });
  server.plug(android);
  events = [];
  host = new AdbHost({
    adbHost: '127.0.0.1',
    adbPort: server.port,
    adbBin: '/nonexistent/adb',
    probeMs: 0,
    reconnectMs: 20,
    phone: { commandTimeoutMs: scaled.quick, unresponsiveAfter: 1, uiServer: false },
  });
  const ready = new Promise<AdbPhone>((resolve) => {
    host.on((event) => {
      events.push(event);
      if (event.type === 'ready') resolve(event.phone);
    });
  });
  await host.start();
  phone = await ready;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'farm-slow-apps-'));
});

afterEach(async () => {
  await host?.stop();
  await server?.close();
});

describe('installs within their limits', () => {
  it('completes a pm install that answers after 25 s, answers the health echo meanwhile, and stays responsive', async () => {
    await start();
    android.packageManager.installDelayMs = INSTALL_TAKES_MS;
    const app = apk('ig.apk', { package: 'com.instagram.android', versionCode: 371000, versionName: '371.0.0' });
    const installing = installApk(phone, app.path, 'ig.apk', { limits: scaled });
    await until(() => android.packageManager.installing === 1, 'the install to start on the phone');
    // The fleet health check's shell echo (host.fleet.ts runs it through the phone's exec), with its 5 s limit.
    const echo = await phone.exec('echo farm-ok', 5_000 / SCALE);
    expect(echo).toContain('farm-ok');
    expect(android.packageManager.installing).toBe(1);
    expect(await installing).toEqual({ ok: true, output: 'Success' });
    expect(android.packageManager.apps.get('com.instagram.android')?.versionName).toBe('371.0.0');
    expect(phone.health).toBe('responsive');
    expect(events.filter((event) => event.type === 'unresponsive')).toEqual([]);
  });

  it('fails an install past its limit, and such failures count toward unresponsive', async () => {
    await start();
    android.packageManager.installDelayMs = INSTALL_TAKES_MS;
    const app = apk('tt.apk', { package: 'com.zhiliaoapp.musically', versionCode: 43010 });
    const tight = { ...scaled, install: INSTALL_TAKES_MS / 4 };
    await expect(installApk(phone, app.path, 'tt.apk', { limits: tight })).rejects.toMatchObject({ code: 'timeout' });
    await until(() => events.some((event) => event.type === 'unresponsive'), 'the phone counted unresponsive');
  });

  it('waits for a split set’s commit, and never abandons the session once the commit was sent', async () => {
    await start();
    android.packageManager.installDelayMs = INSTALL_TAKES_MS;
    const base = apk('base.apk', { package: 'com.instagram.android', versionCode: 371000, versionName: '371.0.0' });
    const abi = apk('split_config.arm64_v8a.apk', { package: 'com.instagram.android', versionCode: 371000, split: 'config.arm64_v8a' });
    const files = [
      { localPath: base.path, name: 'base', size: base.size },
      { localPath: abi.path, name: 'split_config.arm64_v8a', size: abi.size },
    ];
    expect(await installSplitSet(phone, files, { limits: scaled })).toEqual({ ok: true, output: 'Success' });

    // A commit past its limit: the host gives up waiting, the phone finishes the install, the session is not abandoned.
    const tight = { ...scaled, install: INSTALL_TAKES_MS / 4 };
    await expect(installSplitSet(phone, files, { limits: tight, allowDowngrade: true })).rejects.toMatchObject({ code: 'timeout' });
    await until(() => android.packageManager.installing === 0, 'the phone to finish the commit');
    const verbs = android.packageManager.calls.map((call) => call.split(' ')[0]);
    expect(verbs).not.toContain('install-abandon');
    expect(verbs.filter((verb) => verb === 'install-commit')).toHaveLength(2);
    expect(android.packageManager.openSessions()).toBe(0);
  });
});
