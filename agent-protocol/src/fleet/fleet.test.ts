import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultLadderLimits, RecoveryLadder, type LadderContext } from './fleet.ladder.ts';
import { defaultHostFleetSettings, hostFleetSettings } from './fleet.messages.ts';
import { capacityWarnings, readUsbTree, uhubctlLocation } from './fleet.usb.ts';
import { BootWatch, judgeVitals, parseBatteryHealth, parseDf, parseUptime, type PhoneVitals } from './fleet.vitals.ts';

const fixture = (name: string) => readFileSync(new URL(`../../test/fixtures/${name}`, import.meta.url), 'utf8');

describe('phone vitals', () => {
  it('reads the battery health code dumpsys prints', () => {
    expect(parseBatteryHealth(fixture('dumpsys-battery.txt'))).toBe('good');
    expect(parseBatteryHealth(fixture('dumpsys-battery-overheat.txt'))).toBe('overheat');
    expect(parseBatteryHealth('Current Battery Service state:\n  level: 50\n')).toBe('unknown');
    expect(parseBatteryHealth('  health: 9\n')).toBe('unknown');
  });

  it('reads /data from toolbox, toybox and df -h', () => {
    expect(parseDf(fixture('df-toolbox-android6.txt'))).toEqual({ totalBytes: Math.round(21.9 * 1024 ** 3), freeBytes: Math.round(9.8 * 1024 ** 3) });
    expect(parseDf(fixture('df-toybox-android7.txt'), '/system')).toEqual({ totalBytes: 2999516 * 1024, freeBytes: 552580 * 1024 });
    expect(parseDf(fixture('df-toybox-android7.txt'))).toBeNull();
    expect(parseDf(fixture('df-h-android14.txt'))).toEqual({ totalBytes: 24 * 1024 ** 3, freeBytes: 1024 ** 3 });
    expect(parseDf('/system/bin/sh: df: inaccessible or not found')).toBeNull();
  });

  it('reads uptime', () => {
    expect(parseUptime('350735.47 234388.90\n')).toBe(350735.47);
    expect(parseUptime('garbage')).toBeNull();
  });

  const well: PhoneVitals = {
    batteryLevel: 80,
    temperatureC: 31,
    batteryHealth: 'good',
    disk: { totalBytes: 64 * 1024 ** 3, freeBytes: 20 * 1024 ** 3 },
    uptimeSeconds: 3600,
  };

  it('says nothing of a phone that is well', () => {
    expect(judgeVitals(well)).toEqual([]);
  });

  it('calls overheating at health 3 or at 45 °C, whichever comes first', () => {
    expect(judgeVitals({ ...well, batteryHealth: 'overheat' }).map((alert) => alert.kind)).toEqual(['overheat']);
    expect(judgeVitals({ ...well, temperatureC: 45 })[0]?.message).toBe('Overheating: the battery is at 45.0 °C. Give it air or take it off the charger.');
    expect(judgeVitals({ ...well, temperatureC: 44.9 })).toEqual([]);
  });

  it('calls a dead or over-voltage battery failed, and a disk under 1 GB full', () => {
    expect(judgeVitals({ ...well, batteryHealth: 'dead' }).map((alert) => alert.kind)).toEqual(['battery_failed']);
    expect(judgeVitals({ ...well, batteryHealth: 'over_voltage' }).map((alert) => alert.kind)).toEqual(['battery_failed']);
    expect(judgeVitals({ ...well, batteryHealth: 'cold' })).toEqual([]);
    const full = judgeVitals({ ...well, disk: { totalBytes: 24 * 1024 ** 3, freeBytes: 0.5 * 1024 ** 3 } });
    expect(full).toEqual([{ kind: 'disk_full', message: 'Storage almost full: 0.5 GB free of 24.0 GB.' }]);
  });

  it('sees a reboot loop on the third boot within the hour, once', () => {
    const watch = new BootWatch();
    const start = 10 * 60 * 60_000;
    expect(watch.see('A', 5000, start)).toBeNull(); // booted long ago: outside the window
    expect(watch.see('A', 5060, start + 60_000)).toBeNull(); // same boot, read again
    expect(watch.see('A', 30, start + 120_000)).toBeNull(); // boot 1 in the window
    expect(watch.see('A', 40, start + 600_000)).toBeNull(); // boot 2
    expect(watch.see('A', 41, start + 601_000)).toBeNull(); // the same boot
    expect(watch.see('A', 20, start + 1_200_000)).toEqual({ kind: 'reboot_loop', message: 'Rebooting in a loop: 3 boots in 60 minutes.' });
    expect(watch.see('A', 25, start + 1_800_000)).toBeNull(); // a fourth does not repeat the alert
    expect(watch.see('B', 20, start + 1_800_000)).toBeNull(); // phones are counted apart
  });

  it('does not call boots spread over more than an hour a loop', () => {
    const watch = new BootWatch();
    const hour = 60 * 60_000;
    expect(watch.see('A', 10, hour)).toBeNull();
    expect(watch.see('A', 10, 2 * hour)).toBeNull();
    expect(watch.see('A', 10, 3 * hour)).toBeNull();
  });
});

describe('the recovery ladder', () => {
  const alone: LadderContext = { failingTogether: 1, canPowerCycle: false };

  function climb(ladder: RecoveryLadder, serial: string, context: LadderContext): (string | null)[] {
    const rungs: (string | null)[] = [];
    for (let step = 0; step < 9; step += 1) rungs.push(ladder.next(serial, context));
    return rungs;
  }

  it('climbs one rung at a time, skips what does not apply, asks a person once and then waits', () => {
    const ladder = new RecoveryLadder(undefined, () => 0);
    expect(climb(ladder, 'A', alone)).toEqual(['reconnect', 'restart_reader', 'adb_reconnect', 'reboot', 'replug_task', null, null, null, null]);
    expect(ladder.askedPerson('A')).toBe(true);
  });

  it('restarts the adb server only when several phones fail together, and once for all of them', () => {
    const ladder = new RecoveryLadder(undefined, () => 0);
    const together: LadderContext = { failingTogether: 3, canPowerCycle: true };
    expect(climb(ladder, 'A', together).slice(0, 7)).toEqual([
      'reconnect',
      'restart_reader',
      'adb_reconnect',
      'restart_adb_server',
      'reboot',
      'power_cycle',
      'replug_task',
    ]);
    // B fails in the same moment: the restart A caused already served it.
    expect(climb(ladder, 'B', together).slice(0, 6)).toEqual(['reconnect', 'restart_reader', 'adb_reconnect', 'reboot', 'power_cycle', 'replug_task']);
  });

  it('starts again at the bottom after the phone answers, within each rung’s hourly limit', () => {
    let now = 0;
    const ladder = new RecoveryLadder(undefined, () => now);
    for (let episode = 0; episode < 3; episode += 1) {
      expect(ladder.next('A', alone)).toBe('reconnect');
      ladder.recovered('A');
      now += 60_000;
    }
    // Three reconnects this hour: the fourth episode starts one rung up.
    expect(ladder.next('A', alone)).toBe('restart_reader');
    expect(ladder.count('A', 'reconnect')).toBe(3);
    ladder.recovered('A');
    now += 60 * 60_000;
    expect(ladder.next('A', alone)).toBe('reconnect');
  });

  it('restarts the adb server at most as often an hour as the settings say', () => {
    let now = 0;
    const ladder = new RecoveryLadder({ ...defaultLadderLimits, adbServerRestartsPerHour: 1 }, () => now);
    const together: LadderContext = { failingTogether: 3, canPowerCycle: false };
    expect(climb(ladder, 'A', together)).toContain('restart_adb_server');
    now += 10 * 60_000;
    expect(climb(ladder, 'B', together)).not.toContain('restart_adb_server');
    ladder.setLimits({ ...defaultLadderLimits, adbServerRestartsPerHour: 2 });
    expect(climb(ladder, 'C', together)).toContain('restart_adb_server');
  });

  it('takes a root hub by its bus number in the settings, and reads an old usb1 as 1', () => {
    const settings = (hubLocation: string) => hostFleetSettings.safeParse({ ...defaultHostFleetSettings, uhubctl: { enabled: true, hubLocation } });
    for (const location of ['', '1', '3', '1-2', '1-2.4', 'usb1']) expect(settings(location).success).toBe(true);
    for (const location of ['hub', '1-', '-2', 'usb']) expect(settings(location).success).toBe(false);
    expect(uhubctlLocation('usb1')).toBe('1');
    expect(uhubctlLocation(' 1-2.4 ')).toBe('1-2.4');
    // Settings saved before the cap was a setting still parse, with the cap it had.
    const { adbServerRestartsPerHour: _cap, ...older } = defaultHostFleetSettings.ladder;
    expect(hostFleetSettings.parse({ ...defaultHostFleetSettings, ladder: older }).ladder.adbServerRestartsPerHour).toBe(3);
  });

  it('reboots at most twice a day', () => {
    let now = 0;
    const ladder = new RecoveryLadder(undefined, () => now);
    const rebootsIn = () => {
      const rungs = climb(ladder, 'A', alone);
      ladder.recovered('A');
      now += 2 * 60 * 60_000;
      return rungs.includes('reboot');
    };
    expect([rebootsIn(), rebootsIn(), rebootsIn()]).toEqual([true, true, false]);
    now += 24 * 60 * 60_000;
    expect(rebootsIn()).toBe(true);
  });
});

describe('the USB tree', () => {
  let root = '';
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A sysfs laid out as the kernel lays it out: devices under their controller, links in /sys/bus/usb/devices. */
  function sysfs(): string {
    root = mkdtempSync(join(tmpdir(), 'sysfs-'));
    const links = join(root, 'bus/usb/devices');
    mkdirSync(links, { recursive: true });
    mkdirSync(join(root, 'bus/pci/drivers/xhci_hcd'), { recursive: true });
    const write = (dir: string, files: Record<string, string>) => {
      mkdirSync(dir, { recursive: true });
      for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), `${text}\n`);
    };
    const controller = (address: string, vendor: string, device: string) => {
      const dir = join(root, 'devices/pci0000:00', address);
      write(dir, { class: '0x0c0330', vendor, device });
      symlinkSync(relative(dir, join(root, 'bus/pci/drivers/xhci_hcd')), join(dir, 'driver'));
      return dir;
    };
    const link = (name: string, dir: string) => symlinkSync(relative(links, dir), join(links, name));
    // Intel PCH xHCI with a USB 2 and a USB 3 root hub; a 4-port hub on port 2 with two phones, one phone on port 1.
    const intel = controller('0000:00:14.0', '0x8086', '0xa36d');
    for (const bus of ['1', '2']) {
      write(join(intel, `usb${bus}`), { product: 'xHCI Host Controller', maxchild: '12', bDeviceClass: '09' });
      link(`usb${bus}`, join(intel, `usb${bus}`));
    }
    const hub = join(intel, 'usb1/1-2');
    write(hub, { product: 'USB2.0 Hub', idVendor: '05e3', idProduct: '0608', bDeviceClass: '09', maxchild: '4' });
    link('1-2', hub);
    for (const [port, serial] of [
      ['1', 'R58M12ABCDE'],
      ['3', '0A011FDD4002K1'],
    ] as const) {
      const phone = join(hub, `1-2.${port}`);
      write(phone, { serial, product: 'SAMSUNG_Android', idVendor: '04e8', idProduct: '6860', bDeviceClass: '00' });
      link(`1-2.${port}`, phone);
      write(join(phone, `1-2.${port}:1.0`), { bInterfaceClass: 'ff' });
      link(`1-2.${port}:1.0`, join(phone, `1-2.${port}:1.0`));
    }
    const direct = join(intel, 'usb1/1-1');
    write(direct, { serial: '8ABX0Y1Z', product: 'Pixel 6', idVendor: '18d1', idProduct: '4ee7', bDeviceClass: '00' });
    link('1-1', direct);
    // An ASMedia add-in card on PCI bus 03: other xHCI, not the chipset's.
    const card = join(root, 'devices/pci0000:00/0000:00:1c.0/0000:03:00.0');
    write(card, { class: '0x0c0330', vendor: '0x1b21', device: '0x2142' });
    symlinkSync(relative(card, join(root, 'bus/pci/drivers/xhci_hcd')), join(card, 'driver'));
    write(join(card, 'usb3'), { product: 'xHCI Host Controller', maxchild: '2', bDeviceClass: '09' });
    link('usb3', join(card, 'usb3'));
    return root;
  }

  it('places each phone on its controller, hub and port', async () => {
    const tree = await readUsbTree(sysfs());
    expect(tree.controllers).toEqual([
      { id: '0000:00:14.0', kind: 'intel_chipset', vendorId: '0x8086', deviceId: '0xa36d', driver: 'xhci_hcd', buses: [1, 2] },
      { id: '0000:03:00.0', kind: 'xhci', vendorId: '0x1b21', deviceId: '0x2142', driver: 'xhci_hcd', buses: [3] },
    ]);
    expect(tree.devices).toEqual([
      { serial: '8ABX0Y1Z', path: '1-1', bus: 1, controllerId: '0000:00:14.0', hubLocation: '1', port: 1, hubs: ['1'] },
      { serial: 'R58M12ABCDE', path: '1-2.1', bus: 1, controllerId: '0000:00:14.0', hubLocation: '1-2', port: 1, hubs: ['1', '1-2'] },
      { serial: '0A011FDD4002K1', path: '1-2.3', bus: 1, controllerId: '0000:00:14.0', hubLocation: '1-2', port: 3, hubs: ['1', '1-2'] },
    ]);
    // uhubctl names a root hub by its bus number: `uhubctl -l 1 -p 1 -a cycle` for the phone on a motherboard port.
    expect(tree.hubs.map((hub) => hub.location)).toEqual(['1', '2', '3', '1-2']);
    expect(tree.hubs.find((hub) => hub.location === '1-2')).toMatchObject({ product: 'USB2.0 Hub', vendorId: '05e3', productId: '0608', ports: 4 });
  });

  it('is empty where the machine has no USB', async () => {
    root = mkdtempSync(join(tmpdir(), 'sysfs-'));
    expect(await readUsbTree(root)).toEqual({ controllers: [], hubs: [], devices: [] });
  });

  it('warns past the limit of each controller kind and of the host, with the reason', async () => {
    const tree = await readUsbTree(sysfs());
    const serials = tree.devices.map((device) => device.serial);
    expect(capacityWarnings(tree, serials)).toEqual([]);
    const warnings = capacityWarnings(tree, [...serials, 'not-on-usb'], { intelChipset: 2, xhci: 25, host: 3 });
    expect(warnings).toEqual([
      {
        scope: 'controller',
        id: '0000:00:14.0',
        phones: 3,
        limit: 2,
        message:
          '3 phones on one Intel chipset USB controller (0000:00:14.0); past 2 such a controller drops phones. Move some to another controller or a powered hub on an add-in card.',
      },
      {
        scope: 'host',
        id: 'host',
        phones: 4,
        limit: 3,
        message: "4 phones on this host; past 3 a farm PC's USB stops being reliable. Move some to another host.",
      },
    ]);
  });
});
