/**
 * How the host starts and checks the UiAutomator2 server, as Appium's driver does, against the fake adb server: the
 * package manager asked until it lists the instrumentation, both packages force-stopped before `am instrument -w -e
 * disableAnalytics true`, failed installs tried again with a growing wait, and the UI reader's health check asking the
 * running server its `/status`.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeAdbServer } from '../../test/fake-adb.server.ts';
import { FakeAndroid, type FakeAndroidOptions, fixture } from '../../test/fake-android.ts';
import { FleetRecovery, type HealthResult, type RecoveryActions } from '../fleet/fleet.recovery.ts';
import { createAdbClient } from './adb.host.ts';
import { AdbPhone, type AdbPhoneOptions } from './adb.phone.ts';
import { UI_SERVER_RETRY_MAX_MS, UiServerRetry } from './adb.uiserver.retry.ts';

const TARGET = 'io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner';
const MINUTE = 60_000;

let server: FakeAdbServer;
let phones: AdbPhone[];
const dir = mkdtempSync(join(tmpdir(), 'farm-uia2-start-'));
const apks = { serverApk: join(dir, 'server.apk'), testApk: join(dir, 'server-test.apk'), version: '10.6.6' };
writeFileSync(apks.serverApk, Buffer.from('PK\u0003\u0004server'));
writeFileSync(apks.testApk, Buffer.from('PK\u0003\u0004test'));

beforeEach(async () => {
  server = new FakeAdbServer();
  await server.listen();
  phones = [];
});

afterEach(async () => {
  vi.useRealTimers();
  for (const phone of phones) await phone.close();
  await server.close();
});

function open(fake: FakeAndroid, options: AdbPhoneOptions = {}): AdbPhone {
  const client = createAdbClient({ adbPort: server.port, adbBin: '/nonexistent/adb' });
  client.on('error', () => undefined);
  const phone = new AdbPhone(fake.serial, client.getDevice(fake.serial), {
    uiServer: apks,
    dumpRetryPauseMs: 10,
    ...options,
    uiServerTimeouts: { startTimeoutMs: 2000, requestTimeoutMs: 1000, sourceTimeoutMs: 1000, instrumentationPollMs: 50, ...options.uiServerTimeouts },
  });
  phones.push(phone);
  return phone;
}

function setup(fakeOptions: Partial<FakeAndroidOptions> = {}, options: AdbPhoneOptions = {}) {
  const fake = new FakeAndroid({ serial: 'R5CT1234', screen: () => fixture('ui-instagram-caption.xml'), ...fakeOptions });
  server.plug(fake);
  return { fake, phone: open(fake, options) };
}

describe('starting the UI server as Appium’s driver does', () => {
  it('waits until the package manager lists the instrumentation, force-stops both packages, then instruments with analytics off', async () => {
    // The phone's package manager lists the new instrumentation a while after the install answered "Success".
    const { fake, phone } = setup({ instrumentationListedAfterMs: 300 });
    expect(await phone.dumpUi()).toContain('class="hierarchy"');
    expect(fake.dumps).toBe(0);
    const listings = fake.commands.flatMap((command, index) => (command === 'pm list instrumentation' ? [index] : []));
    const instrument = fake.commands.findIndex((command) => command.startsWith('am instrument'));
    // Asked more than once (it was not listed at first), and the instrumentation started only after it was.
    expect(listings.length).toBeGreaterThan(1);
    expect(instrument).toBeGreaterThan(listings[listings.length - 1] as number);
    expect(
      fake.commands.lastIndexOf('pm install -r -g /data/local/tmp/farm-uia2-server-test.apk; rm -f /data/local/tmp/farm-uia2-server-test.apk'),
    ).toBeLessThan(listings[0] as number);
    expect(fake.instruments).toEqual([
      { args: ['-w', '-e', 'disableAnalytics', 'true', TARGET], forceStoppedBefore: ['io.appium.uiautomator2.server', 'io.appium.uiautomator2.server.test'] },
    ]);
  });

  it('stops both packages before every start, a restart after a crash too', async () => {
    const { fake, phone } = setup({ uiServerInstalled: '10.6.6' });
    await phone.dumpUi();
    fake.crash();
    await phone.dumpUi();
    expect(fake.instruments.map((item) => item.forceStoppedBefore)).toEqual([
      ['io.appium.uiautomator2.server', 'io.appium.uiautomator2.server.test'],
      ['io.appium.uiautomator2.server', 'io.appium.uiautomator2.server.test'],
    ]);
    expect(fake.instruments.every((item) => item.args.join(' ') === `-w -e disableAnalytics true ${TARGET}`)).toBe(true);
  });

  it('reads with the dump, saying why, when the package manager never lists the instrumentation, and never instruments', async () => {
    const { fake, phone } = setup({ instrumentationListedAfterMs: 3_600_000 }, { uiServerTimeouts: { instrumentationTimeoutMs: 300 } });
    expect(await phone.dumpUi()).toContain('resource-id="com.instagram.android:id/caption_input_text_view"');
    expect(phone.uiServerProblem).toBe("The phone did not list the UI server's instrumentation within 300 ms (the package manager does not list it).");
    expect(fake.instruments).toEqual([]);
  });
});

describe('a UI server install that keeps failing', () => {
  it('waits 1, 2, 4 … minutes between tries, at most an hour, and a minute again once the server started', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { fake, phone } = setup();
    fake.uiServerInstallFailure = 'INSTALL_FAILED_INSUFFICIENT_STORAGE';
    const tries = () => fake.pushed.filter((file) => file.path === '/data/local/tmp/farm-uia2-server.apk').length;
    // The screen is read with the dump meanwhile; the server is tried when a read or the health check asks.
    await phone.dumpUi();
    expect(tries()).toBe(1);
    expect(phone.uiServerProblem).toBe('The phone refused to install the UI server: Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE].');
    for (const [index, wait] of [1, 2, 4, 8, 16, 32, 60, 60].entries()) {
      vi.setSystemTime(Date.now() + wait * MINUTE - 1000);
      await phone.dumpUi();
      expect(tries()).toBe(index + 1);
      vi.setSystemTime(Date.now() + 1000);
      await phone.dumpUi();
      expect(tries()).toBe(index + 2);
    }

    // The phone has room again: the next try installs and starts it, and the count starts afresh.
    fake.uiServerInstallFailure = null;
    vi.setSystemTime(Date.now() + 60 * MINUTE);
    expect(await phone.uiReader()).toMatchObject({ kind: 'ui-server' });
    expect(tries()).toBe(10);
    // Then it fails again (its packages gone, the server dead): a minute, not an hour, before the next try.
    fake.uiServerInstallFailure = 'INSTALL_FAILED_INSUFFICIENT_STORAGE';
    fake.uiServerVersion = null;
    fake.crash();
    await expect(phone.dumpUi()).rejects.toThrow(`INSTRUMENTATION_FAILED: ${TARGET}`);
    vi.setSystemTime(Date.now() + MINUTE - 1000);
    await phone.dumpUi();
    expect(tries()).toBe(10);
    vi.setSystemTime(Date.now() + 1000);
    await phone.dumpUi();
    expect(tries()).toBe(11);
  });

  it('tries at once on a phone that returns', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { fake, phone } = setup();
    fake.uiServerInstallFailure = 'INSTALL_FAILED_INSUFFICIENT_STORAGE';
    await phone.dumpUi();
    vi.setSystemTime(Date.now() + MINUTE);
    await phone.dumpUi();
    expect(fake.installs).toHaveLength(2);
    // Unplugged and plugged in again: the host opens a new phone for it (adb.host.ts), with a count of its own.
    await server.replug(fake.serial, 10);
    await phone.close();
    const returned = open(fake);
    await returned.dumpUi();
    expect(fake.installs).toHaveLength(3);
  });

  it('counts on a clock: doubling from the first wait, capped, never below the first or a longer wait asked for', () => {
    let now = 0;
    const retry = new UiServerRetry(MINUTE, UI_SERVER_RETRY_MAX_MS, () => now);
    expect(retry.due()).toBe(true);
    const waits = Array.from({ length: 9 }, () => retry.failed() / MINUTE);
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60]);
    now += 59 * MINUTE;
    expect(retry.due()).toBe(false);
    now += MINUTE;
    expect(retry.due()).toBe(true);
    retry.succeeded();
    expect(retry.failed()).toBe(MINUTE);
    // A phone refusing installs from USB waits its own half hour, then the doubled waits once they are longer.
    const refused = new UiServerRetry(MINUTE, UI_SERVER_RETRY_MAX_MS, () => now);
    expect(Array.from({ length: 8 }, () => refused.failed(30 * MINUTE) / MINUTE)).toEqual([30, 30, 30, 30, 30, 32, 60, 60]);
    expect(new UiServerRetry(2 * UI_SERVER_RETRY_MAX_MS, UI_SERVER_RETRY_MAX_MS, () => now).failed()).toBe(2 * UI_SERVER_RETRY_MAX_MS);
    for (let i = 0; i < 2000; i++) retry.failed();
    expect(retry.failed()).toBe(UI_SERVER_RETRY_MAX_MS);
  });
});

describe("the UI reader's health check", () => {
  /** The fleet's checks with the host's UI-reader action (host.fleet.ts): the phone's `uiReader()`, nothing else. */
  function health(phone: AdbPhone) {
    const unused = async (): Promise<never> => {
      throw new Error('not part of this check');
    };
    const actions: RecoveryActions = {
      shell: unused,
      uiReader: async () => {
        await phone.uiReader();
      },
      frame: unused,
      reconnect: unused,
      restartReader: unused,
      adbReconnect: unused,
      restartAdbServer: unused,
      reboot: unused,
      powerCycle: unused,
    };
    const reports: HealthResult[] = [];
    const recovery = new FleetRecovery({
      actions,
      report: { health: (result) => reports.push(result), vitals: () => undefined, rung: () => undefined },
      health: { shellMs: 1000, uiReaderMs: 2000, frameMs: 1000 },
    });
    return { reports, check: () => recovery.check(phone.serial, ['ui_reader']) };
  }

  it('asks the running server its status: up while it answers, down when it stops listening or hangs, up again once restarted', async () => {
    const { fake, phone } = setup({ uiServerInstalled: '10.6.6' }, { uiServerTimeouts: { statusTimeoutMs: 300 } });
    const { check } = health(phone);
    await phone.dumpUi();
    const first = fake.uiServerProcess;
    if (!first) throw new Error('no server');
    expect(await check()).toMatchObject({ ok: true });
    expect(first.requests.at(-1)).toBe('GET /status');

    // Its HTTP server ended while the instrumentation holds on: nothing listens on 6790.
    first.die();
    const dead = await check();
    expect(dead).toMatchObject({ ok: false, failed: [{ check: 'ui_reader' }] });
    expect(dead.reason).toMatch(/^The UI server does not answer on port 6790 \(.*closed.*\)\.$/);
    // Reported down, it was stopped so the next read starts it again; the next check finds it up.
    expect(fake.uiServerProcess).toBeNull();
    expect(fake.forceStopped.at(-1)).toBe('io.appium.uiautomator2.server');
    expect(await check()).toMatchObject({ ok: true });
    expect(fake.uiServerStarts).toBe(2);

    const second = fake.uiServerProcess;
    if (!second) throw new Error('no server');
    second.behaviour = 'hangs';
    expect(await check()).toMatchObject({ ok: false, reason: 'The UI server did not answer GET /status within 300 ms.' });
    expect(await check()).toMatchObject({ ok: true });
    expect(fake.uiServerStarts).toBe(3);
  });

  it('answers the reader and version a live server reports', async () => {
    const { fake, phone } = setup({ uiServerInstalled: '10.6.6' });
    expect(await phone.uiReader()).toEqual({ kind: 'ui-server', version: '10.6.6', seesToasts: true });
    expect(fake.uiServerProcess?.requests).toEqual(['GET /status', 'POST /session', 'POST /session/:id/appium/settings', 'GET /status']);
  });
});
