/**
 * A farm host's recovery end to end: the farm host → the fake adb server (a phone that hangs, a reboot that takes 40 s
 * to `sys.boot_completed`, on a clock scaled by 1/100) → the fake console, asserting what the console hears on the
 * host's control connection and what the phone was sent. A host restart in the middle keeps the ladder's memory.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeAdbServer } from '../../test/fake-adb.server.ts';
import { FakeAndroid } from '../../test/fake-android.ts';
import { fakeConsole, type FakeConsole } from '../../test/fake-console.ts';
import { AgentState } from '../agent/state.ts';
import { fleetMemoryFile } from '../fleet/fleet.memory.ts';
import { FarmHost } from './host.ts';

/** Real seconds per phone second: a 40 s boot takes 0.4 s. */
const scale = 0.01;

/** A sysfs with one Intel controller (bus 1), a hub at 1-2 and the phone on its port 3, as `fleet.usb.ts` reads it. */
function sysfs(serial: string): string {
  const root = mkdtempSync(join(tmpdir(), 'sysfs-'));
  const controller = join(root, 'devices', 'pci0000:00', '0000:00:14.0');
  mkdirSync(join(controller, 'usb1'), { recursive: true });
  writeFileSync(join(controller, 'vendor'), '0x8086\n');
  writeFileSync(join(controller, 'class'), '0x0c0330\n');
  const devices = join(root, 'bus', 'usb', 'devices');
  mkdirSync(devices, { recursive: true });
  symlinkSync(join(controller, 'usb1'), join(devices, 'usb1'));
  mkdirSync(join(devices, '1-2'));
  writeFileSync(join(devices, '1-2', 'bDeviceClass'), '09\n');
  mkdirSync(join(devices, '1-2.3'));
  writeFileSync(join(devices, '1-2.3', 'bDeviceClass'), '00\n');
  writeFileSync(join(devices, '1-2.3', 'serial'), `${serial}\n`);
  return root;
}

async function until(what: string, check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a farm host’s recovery ladder, host → fake adb → console', () => {
  const closers: (() => unknown)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function setUp(serial: string) {
    const png = await sharp({ create: { width: 108, height: 240, channels: 3, background: '#808080' } })
      .png()
      .toBuffer();
    const server = new FakeAdbServer();
    server.rebootMs = 2_000 * scale;
    server.reconnectMs = 2_000 * scale;
    server.bootCompletedMs = 40_000 * scale;
    await server.listen();
    closers.push(() => server.close());
    const phone = new FakeAndroid({ serial, screencap: () => png });
    server.plug(phone);
    const console_ = await fakeConsole();
    closers.push(() => console_.close());
    const dir = mkdtempSync(join(tmpdir(), 'farm-ladder-'));
    const sysRoot = sysfs(serial);
    closers.push(
      () => rmSync(dir, { recursive: true, force: true }),
      () => rmSync(sysRoot, { recursive: true, force: true }),
    );
    const start = async () => {
      const farm = new FarmHost({
        server: console_.url,
        token: 'host-token',
        state: new AgentState(dir),
        backend: 'adb',
        adbPort: server.port,
        scrcpyServer: false,
        adb: { adbBin: '/nonexistent/adb', probeMs: 0, reconnectMs: 20 },
        fleet: {
          checkMs: 30_000 * scale,
          health: { shellMs: 5_000 * scale * 4, uiReaderMs: 15_000 * scale, frameMs: 10_000 * scale * 2 },
          boot: { waitMs: 5 * 60_000 * scale, pollMs: 5_000 * scale, batch: 4 },
          rungMs: 120_000 * scale,
          sysRoot,
        },
      });
      await farm.start();
      return farm;
    };
    return { server, phone, console_, dir, start };
  }

  const recoveries = (console_: FakeConsole) =>
    console_.hostSaid
      .filter((item) => item.name === 'host.recovery')
      .map((item) => item.message as { rung: string; outcome: string; detail: string | null; place: unknown });
  const healths = (console_: FakeConsole) =>
    console_.hostSaid.filter((item) => item.name === 'host.health').map((item) => (item.message as { ok: boolean }).ok);

  it('reboots a hung phone, waits the 40 s until it booted, and the console sees it answer again', async () => {
    const { server, phone, console_, start } = await setUp('LADDER1');
    const farm = await start();
    closers.push(() => farm.close());
    await until('the phone’s agent to connect', () => farm.agent('LADDER1')?.connected === true);
    phone.frozen = true;
    await until('the phone to answer again', () => healths(console_).includes(true), 30_000);
    // The gentler rungs may work or fail on a hung phone (a transport reopened, a reader that cannot restart).
    expect(recoveries(console_).map((rung) => rung.rung)).toEqual(['reconnect', 'restart_reader', 'adb_reconnect', 'reboot']);
    expect(recoveries(console_)[3]?.outcome).toBe('done');
    expect(recoveries(console_)[3]?.detail).toMatch(/^Booted again in \d+ s\.$/);
    // Failing (each new reason said), then well. While it booted it was not checked: nothing between the reboot's
    // report (sent once it had booted) and the phone answering again.
    const said = console_.hostSaid.filter((item) => item.name === 'host.health' || item.name === 'host.recovery');
    const rebooted = said.findIndex((item) => item.name === 'host.recovery' && (item.message as { rung: string }).rung === 'reboot');
    expect(said.slice(rebooted + 1).map((item) => [item.name, (item.message as { ok?: boolean }).ok])).toEqual([['host.health', true]]);
    expect(
      healths(console_)
        .slice(0, -1)
        .every((ok) => !ok),
    ).toBe(true);
    expect(server.requests.filter((request) => request === 'reboot:')).toHaveLength(1);
    expect(phone.commands.filter((command) => command === 'getprop sys.boot_completed').length).toBeGreaterThanOrEqual(1);
    expect(Date.now() - phone.bootCompletedAt).toBeGreaterThanOrEqual(0);
  }, 40_000);

  it('a phone rebooting in a loop: each return is seen, and the third boot within the hour raises the alert', async () => {
    const { server, console_, start } = await setUp('LOOP1');
    const farm = await start();
    closers.push(() => farm.close());
    await until('the phone’s agent to connect', () => farm.agent('LOOP1')?.connected === true);
    const vitals = () =>
      console_.hostSaid
        .filter((item) => item.name === 'host.vitals')
        .map((item) => item.message as { uptimeSeconds: number; alerts: { kind: string; message: string }[] });
    // Three reboots that, on the phone's scaled clock, came 30, 20 and 10 minutes ago: boots 10 minutes apart.
    for (const minutesAgo of [30, 20, 10]) {
      const seen = vitals().length;
      server.bootTime = () => Date.now() - minutesAgo * 60_000;
      server.reboot('LOOP1');
      await until('the vitals read as it came back', () => vitals().length > seen && Math.abs((vitals().at(-1)?.uptimeSeconds ?? 0) - minutesAgo * 60) < 30);
    }
    // One alert, raised by the reading of the third return (a phone may be read more than once as it comes back).
    expect(vitals().flatMap((reading) => reading.alerts.map((alert) => alert.kind))).toEqual(['reboot_loop']);
    const alerted = vitals().find((reading) => reading.alerts.length > 0);
    expect(Math.abs((alerted?.uptimeSeconds ?? 0) - 600)).toBeLessThan(30);
    expect(alerted?.alerts[0]?.message).toBe('Rebooting in a loop: 3 boots in 60 minutes.');
  }, 30_000);

  it('a phone that never recovers: the rungs once, one replug task naming hub and port, nothing more across a host restart', async () => {
    const { server, phone, console_, dir, start } = await setUp('LADDER2');
    server.stuck.add('LADDER2');
    let farm = await start();
    await until('the phone’s agent to connect', () => farm.agent('LADDER2')?.connected === true);
    phone.frozen = true;
    await until('the replug task', () => recoveries(console_).some((rung) => rung.rung === 'replug_task'), 30_000);
    expect(recoveries(console_).map((rung) => rung.rung)).toEqual(['reconnect', 'restart_reader', 'adb_reconnect', 'reboot', 'replug_task']);
    expect(recoveries(console_)[3]?.outcome).toBe('failed');
    expect(recoveries(console_)[3]?.detail).toBe('It did not finish booting within 3 s.');
    expect(recoveries(console_)[4]?.place).toEqual({ hubLocation: '1-2', port: 3 });
    expect(existsSync(fleetMemoryFile(dir))).toBe(true);

    // The host restarts (an update, a power cut): the same state folder, the phone still hung.
    await farm.close();
    farm = await start();
    closers.push(() => farm.close());
    const before = console_.hostSaid.length;
    await until('ten more rounds', () => console_.hostSaid.length > before, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 10 * 30_000 * scale));
    expect(recoveries(console_).filter((rung) => rung.rung === 'replug_task')).toHaveLength(1);
    expect(recoveries(console_)).toHaveLength(5);
    expect(server.requests.filter((request) => request === 'reboot:')).toHaveLength(1);
  }, 60_000);
});
