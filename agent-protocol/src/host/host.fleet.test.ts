import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeAdbServer } from '../../test/fake-adb.server.ts';
import { FakeAndroid } from '../../test/fake-android.ts';
import { AdbHost } from '../adb/adb.host.ts';
import type { AdbPhone } from '../adb/adb.phone.ts';
import { defaultHostFleetSettings } from '../fleet/fleet.messages.ts';
import { FleetHealth } from './host.fleet.ts';

describe('a host’s fleet health over the fake adb server', () => {
  const closers: (() => unknown)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  it('reports a hung phone unresponsive, takes the first rung, and reports the USB bus', async () => {
    const server = new FakeAdbServer();
    await server.listen();
    closers.push(() => server.close());
    const adb = new AdbHost({
      adbHost: '127.0.0.1',
      adbPort: server.port,
      adbBin: '/nonexistent/adb',
      probeMs: 0,
      reconnectMs: 20,
      phone: { uiServer: false, commandTimeoutMs: 500 },
    });
    closers.push(() => adb.stop());
    const phone = new FakeAndroid({ serial: 'HOSTHANG' });
    const ready = new Promise<void>((resolve) => adb.on((event) => event.type === 'ready' && resolve()));
    server.plug(phone);
    await adb.start();
    await ready;
    const sysRoot = mkdtempSync(join(tmpdir(), 'sys-'));
    closers.push(() => rmSync(sysRoot, { recursive: true, force: true }));
    const sent: [string, unknown][] = [];
    const fleet = new FleetHealth({
      adb,
      adbHost: '127.0.0.1',
      adbPort: server.port,
      send: (name, message) => sent.push([name, message]),
      isIdle: () => true,
      gate: { pause: async () => undefined, resume: async () => undefined },
      restartReader: async () => undefined,
      sysRoot,
      health: { shellMs: 300, uiReaderMs: 300, frameMs: 300 },
    });
    closers.push(() => fleet.stop());
    await fleet.refreshUsb();
    expect(sent[0]).toEqual(['host.usb', { controllers: [], phones: [], warnings: [], uhubctl: { enabled: false, problem: null } }]);
    phone.frozen = true;
    await fleet.round();
    const health = sent.find(([name]) => name === 'host.health')?.[1] as { ok: boolean; failed: { check: string }[] };
    expect(health.ok).toBe(false);
    expect(health.failed[0]?.check).toBe('shell');
    expect(sent.find(([name]) => name === 'host.recovery')?.[1]).toMatchObject({ serial: 'HOSTHANG', rung: 'reconnect' });
    // New settings from the console change the limits, not what the ladder remembers: the next rung is the next one.
    await fleet.apply({ ...defaultHostFleetSettings, ladder: { ...defaultHostFleetSettings.ladder, perRungPerHour: 5 } });
    await fleet.round();
    const rungs = sent.filter(([name]) => name === 'host.recovery').map(([, message]) => (message as { rung: string }).rung);
    expect(rungs).toEqual(['reconnect', 'restart_reader']);
  });

  it('takes no frame of a phone whose screenshot since the last round came back, and one after a screenshot failed', async () => {
    const server = new FakeAdbServer();
    await server.listen();
    closers.push(() => server.close());
    const adb = new AdbHost({
      adbHost: '127.0.0.1',
      adbPort: server.port,
      adbBin: '/nonexistent/adb',
      probeMs: 0,
      reconnectMs: 20,
      phone: { uiServer: false },
    });
    closers.push(() => adb.stop());
    const png = await sharp({ create: { width: 108, height: 240, channels: 3, background: '#ffffff' } })
      .png()
      .toBuffer();
    let screen = png;
    const phone = new FakeAndroid({ serial: 'HOSTSHOT', screencap: () => screen });
    const ready = new Promise<AdbPhone>((resolve) => adb.on((event) => event.type === 'ready' && resolve(event.phone)));
    server.plug(phone);
    await adb.start();
    const adbPhone = await ready;
    const sysRoot = mkdtempSync(join(tmpdir(), 'sys-'));
    closers.push(() => rmSync(sysRoot, { recursive: true, force: true }));
    const sent: [string, unknown][] = [];
    const fleet = new FleetHealth({
      adb,
      adbHost: '127.0.0.1',
      adbPort: server.port,
      send: (name, message) => sent.push([name, message]),
      isIdle: () => true,
      gate: { pause: async () => undefined, resume: async () => undefined },
      restartReader: async () => undefined,
      sysRoot,
    });
    closers.push(() => fleet.stop());
    const captures = () => server.requests.filter((request) => request.includes('screencap')).length;
    await fleet.round();
    expect(captures()).toBe(1);
    // The agent's own screenshot (every 15 s by default) shows the screen is captured: the round takes none.
    await adbPhone.screenshot();
    await fleet.round();
    expect(captures()).toBe(2);
    // One that failed vouches for nothing: the round takes its own, and reports what it met.
    screen = Buffer.alloc(0);
    await expect(adbPhone.screenshot()).rejects.toThrow('empty screenshot');
    await fleet.round();
    expect(captures()).toBe(4);
    expect(sent.find(([name]) => name === 'host.health')?.[1]).toMatchObject({ serial: 'HOSTSHOT', ok: false, failed: [{ check: 'frame' }] });
  });
});
