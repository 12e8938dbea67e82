import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeAdbServer } from '../../test/fake-adb.server.ts';
import { FakeAndroid, fixture } from '../../test/fake-android.ts';
import { AdbHost, type AdbHostEvent } from '../adb/adb.host.ts';
import { adbHostService, adbRecoveryActions, checkUhubctl, UHUBCTL_NO_PERMISSION } from './fleet.adb.ts';
import { FleetRecovery, type HealthResult, type RecoveryActions, type RungReport, type VitalsReport } from './fleet.recovery.ts';

/** Collects what the recovery reports. */
function reporter() {
  const seen = { health: [] as HealthResult[], vitals: [] as VitalsReport[], rungs: [] as RungReport[] };
  return {
    seen,
    report: { health: (r: HealthResult) => seen.health.push(r), vitals: (r: VitalsReport) => seen.vitals.push(r), rung: (r: RungReport) => seen.rungs.push(r) },
  };
}

/**
 * Actions that record what was done; the shell fails while `broken` holds the serial. adbd answers a boot-completed
 * question even for a phone whose framework is stuck, so getprop says 1 unless `booting` holds the serial.
 */
function recordingActions(broken: Set<string>, booting = new Set<string>()) {
  const done: string[] = [];
  const actions: RecoveryActions = {
    shell: async (serial, command) => {
      if (command === 'getprop sys.boot_completed') return booting.has(serial) ? '\n' : '1\n';
      if (broken.has(serial)) throw new Error('The shell did not answer within 5 s.');
      return 'farm-ok\n';
    },
    uiReader: async () => undefined,
    frame: async () => undefined,
    reconnect: async (serial) => void done.push(`reconnect ${serial}`),
    restartReader: async (serial) => void done.push(`restart_reader ${serial}`),
    adbReconnect: async (serial) => void done.push(`adb_reconnect ${serial}`),
    restartAdbServer: async () => void done.push('restart_adb_server'),
    reboot: async (serial) => void done.push(`reboot ${serial}`),
    powerCycle: async (place) => void done.push(`power_cycle ${place.hubLocation}:${place.port}`),
  };
  return { actions, done };
}

describe('fleet recovery (policy driven for real)', () => {
  it('climbs every rung for a phone that stays broken, asks a person once, then stops', async () => {
    const broken = new Set(['A']);
    const { actions, done } = recordingActions(broken);
    const { seen, report } = reporter();
    const recovery = new FleetRecovery({ actions, report, place: () => ({ hubLocation: '1-2', port: 3 }), powerCycleReady: () => true });
    const result = await recovery.check('A');
    expect(result.ok).toBe(false);
    expect(result.failed.map((f) => f.check)).toEqual(['shell']);
    for (let step = 0; step < 10; step += 1) await recovery.recover('A');
    // One phone failing alone: the adb server is not restarted for it.
    expect(done).toEqual(['reconnect A', 'restart_reader A', 'adb_reconnect A', 'reboot A', 'power_cycle 1-2:3']);
    expect(seen.rungs.map((r) => r.rung)).toEqual(['reconnect', 'restart_reader', 'adb_reconnect', 'reboot', 'power_cycle', 'replug_task']);
    expect(seen.rungs.at(-1)?.place).toEqual({ hubLocation: '1-2', port: 3 });
    expect(await recovery.recover('A')).toBeNull();
    // Reported once as unresponsive, not once per check.
    await recovery.check('A');
    expect(seen.health).toHaveLength(1);
  });

  it('answers again: the phone is reported well and its next failure starts at the bottom rung', async () => {
    const broken = new Set(['A']);
    const { actions, done } = recordingActions(broken);
    const { seen, report } = reporter();
    const recovery = new FleetRecovery({ actions, report });
    await recovery.check('A');
    await recovery.recover('A');
    broken.delete('A');
    expect((await recovery.check('A')).ok).toBe(true);
    expect(seen.health.map((h) => h.ok)).toEqual([false, true]);
    expect(await recovery.recover('A')).toBeNull();
    broken.add('A');
    await recovery.check('A');
    await recovery.recover('A');
    expect(done).toEqual(['reconnect A', 'reconnect A']);
  });

  it('a rung at most 3 times an hour: the fourth episode skips past it', async () => {
    const broken = new Set(['A']);
    const { actions, done } = recordingActions(broken);
    let now = 1_000_000;
    const recovery = new FleetRecovery({ actions, report: reporter().report, now: () => now });
    for (let episode = 0; episode < 4; episode += 1) {
      await recovery.check('A');
      await recovery.recover('A');
      broken.delete('A');
      await recovery.check('A');
      broken.add('A');
      now += 60_000;
    }
    expect(done).toEqual(['reconnect A', 'reconnect A', 'reconnect A', 'restart_reader A']);
  });

  it('restarts the adb server once for several phones, pausing work around it', async () => {
    const broken = new Set(['A', 'B', 'C']);
    const { actions, done } = recordingActions(broken);
    const gate: string[] = [];
    const recovery = new FleetRecovery({
      actions,
      report: reporter().report,
      gate: { pause: async (ms) => void gate.push(`pause ${ms}`), resume: async () => void gate.push('resume') },
    });
    for (const serial of broken) await recovery.check(serial);
    for (let round = 0; round < 4; round += 1) for (const serial of broken) await recovery.recover(serial);
    expect(done.filter((d) => d === 'restart_adb_server')).toHaveLength(1);
    expect(gate).toEqual(['pause 60000', 'resume']);
    // The others climbed on past it, to a reboot each.
    expect(done.filter((d) => d.startsWith('reboot'))).toHaveLength(2);
  });

  it('reboots at most twice a day, then goes to the person', async () => {
    const broken = new Set(['A']);
    const { actions, done } = recordingActions(broken);
    let now = 1_000_000;
    const recovery = new FleetRecovery({ actions, report: reporter().report, now: () => now });
    for (let episode = 0; episode < 3; episode += 1) {
      await recovery.check('A');
      for (let step = 0; step < 8; step += 1) await recovery.recover('A');
      broken.delete('A');
      await recovery.check('A');
      broken.add('A');
      now += 2 * 3600_000;
    }
    expect(done.filter((d) => d === 'reboot A')).toHaveLength(2);
  });

  it('a failing rung is reported as failed and the next call climbs on', async () => {
    const { actions } = recordingActions(new Set(['A']));
    actions.reconnect = async () => {
      throw new Error('A is offline, not ready for a transport.');
    };
    const { seen, report } = reporter();
    const recovery = new FleetRecovery({ actions, report });
    await recovery.check('A');
    await recovery.recover('A');
    await recovery.recover('A');
    expect(seen.rungs.map((r) => [r.rung, r.outcome, r.detail])).toEqual([
      ['reconnect', 'failed', 'A is offline, not ready for a transport.'],
      ['restart_reader', 'done', null],
    ]);
  });

  it('scheduled restart: once a night, within the hour after the set time, idle phones only', async () => {
    const { actions, done } = recordingActions(new Set());
    const recovery = new FleetRecovery({ actions, report: reporter().report });
    const policy = { enabled: true, hour: 4, minute: 0, idleOnly: true };
    const idle = (serial: string) => serial !== 'BUSY';
    expect(await recovery.scheduledRestart(policy, ['A', 'BUSY'], idle, new Date(2026, 10, 26, 3, 59))).toEqual([]);
    expect(await recovery.scheduledRestart(policy, ['A', 'BUSY'], idle, new Date(2026, 10, 26, 4, 1))).toEqual(['A']);
    expect(await recovery.scheduledRestart(policy, ['A', 'BUSY'], idle, new Date(2026, 10, 26, 4, 2))).toEqual([]);
    expect(await recovery.scheduledRestart(policy, ['A'], idle, new Date(2026, 10, 27, 12, 0))).toEqual([]);
    expect(await recovery.scheduledRestart({ ...policy, enabled: false }, ['A'], idle, new Date(2026, 10, 28, 4, 0))).toEqual([]);
    expect(done).toEqual(['reboot A']);
  });
});

describe('fleet recovery against the fake adb server', () => {
  let server: FakeAdbServer;
  let host: AdbHost;
  let dir: string;
  const oldPath = process.env.PATH;

  beforeEach(async () => {
    server = new FakeAdbServer();
    await server.listen();
    host = new AdbHost({
      adbHost: '127.0.0.1',
      adbPort: server.port,
      adbBin: '/nonexistent/adb',
      probeMs: 0,
      reconnectMs: 20,
      phone: { uiServer: false, commandTimeoutMs: 1_000 },
    });
    dir = mkdtempSync(join(tmpdir(), 'fleet-'));
  });

  afterEach(async () => {
    process.env.PATH = oldPath;
    await host.stop();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function until(predicate: (event: AdbHostEvent) => boolean): Promise<AdbHostEvent> {
    return new Promise((resolve) => {
      const off = host.on((event) => {
        if (!predicate(event)) return;
        off();
        resolve(event);
      });
    });
  }

  function actionsFor() {
    return adbRecoveryActions({
      server: { host: '127.0.0.1', port: server.port },
      adbBin: 'true',
      reopen: (serial) => host.reopen(serial),
      restartReader: async () => undefined,
      shell: async (serial, command) => {
        const phone = host.phone(serial);
        if (!phone) throw new Error(`${serial} has no transport.`);
        return phone.exec(command);
      },
      uiReader: async (serial) => void (await host.phone(serial)?.dumpUi()),
      frame: async (serial) => void (await host.phone(serial)?.screenshot()),
    });
  }

  async function plugged(phone: FakeAndroid): Promise<void> {
    const ready = until((event) => event.type === 'ready' && event.serial === phone.serial);
    server.plug(phone);
    await host.start();
    await ready;
  }

  it('a listed phone whose shell hangs is unresponsive, with the shell named', async () => {
    const phone = new FakeAndroid({ serial: 'HANG1' });
    await plugged(phone);
    phone.frozen = true;
    const recovery = new FleetRecovery({ actions: actionsFor(), report: reporter().report, health: { shellMs: 300, uiReaderMs: 300, frameMs: 300 } });
    const result = await recovery.check('HANG1', ['shell']);
    expect(result.ok).toBe(false);
    expect(result.reason).toMatch(/shell did not answer within 0.3 s/);
  });

  it('reads vitals from dumpsys battery, df, /proc/uptime and getprop, and raises an overheat once', async () => {
    const phone = new FakeAndroid({ serial: 'VIT1', battery: fixture('dumpsys-battery-overheat.txt'), packages: ['com.instagram.android'] });
    await plugged(phone);
    const { seen, report } = reporter();
    const recovery = new FleetRecovery({ actions: actionsFor(), report, apps: ['com.instagram.android'] });
    const vitals = await recovery.readVitals('VIT1');
    expect(vitals.batteryHealth).toBe('overheat');
    expect(vitals.disk?.freeBytes).toBeGreaterThan(0);
    expect(vitals.uptimeSeconds).toBeGreaterThan(3 * 3600 - 5);
    expect(vitals.androidVersion).toMatch(/^\d+/);
    expect(Object.keys(vitals.appVersions)).toEqual(['com.instagram.android']);
    expect(vitals.alerts.map((a) => a.kind)).toContain('overheat');
    await recovery.readVitals('VIT1');
    expect(seen.vitals[1]?.alerts).toEqual([]);
  });

  it('reconnect reopens the transport; adb reconnect makes the phone offline then a device again', async () => {
    const phone = new FakeAndroid({ serial: 'RC1' });
    await plugged(phone);
    const actions = actionsFor();
    const before = host.phone('RC1');
    await actions.reconnect('RC1');
    expect(host.phone('RC1')).not.toBe(before);
    const back = until((event) => event.type === 'ready' && event.serial === 'RC1');
    await actions.adbReconnect('RC1');
    expect(server.requests).toContain('host-serial:RC1:reconnect');
    await back;
    await expect(adbHostService({ host: '127.0.0.1', port: server.port }, 'host-serial:NOPE:reconnect')).rejects.toThrow(/device 'NOPE' not found/);
  });

  it('a reboot drops the phone for a while and it comes back freshly booted', async () => {
    const phone = new FakeAndroid({ serial: 'RB1' });
    server.rebootMs = 300;
    await plugged(phone);
    phone.frozen = true;
    const gone = until((event) => event.type === 'detached' && event.serial === 'RB1');
    const back = until((event) => event.type === 'ready' && event.serial === 'RB1');
    await actionsFor().reboot('RB1');
    await gone;
    await back;
    expect(phone.frozen).toBe(false);
    expect(Date.now() - phone.bootedAt).toBeLessThan(5_000);
  });

  it('restarting the adb server kills it and starts it again; the host sees its phones again', async () => {
    const phone = new FakeAndroid({ serial: 'KS1' });
    await plugged(phone);
    const lost = until((event) => event.type === 'server' && !event.connected);
    const back = until((event) => event.type === 'ready' && event.serial === 'KS1');
    await actionsFor().restartAdbServer();
    expect(server.kills).toBe(1);
    await lost;
    await back;
  });

  it('power-cycles the port with uhubctl from PATH, and checks at start that it may write', async () => {
    const log = join(dir, 'uhubctl.log');
    const script = join(dir, 'uhubctl');
    writeFileSync(
      script,
      `#!/bin/sh\necho "$@" >> ${log}\nif [ -e ${dir}/denied ]; then echo "There were permission problems while accessing USB."; echo "Follow https://git.io/JIB2Z for a fix!"; exit 1; fi\necho "Current status for hub 1-2 [2109:2817 VIA Labs, Inc. USB2.0 Hub, USB 2.10, 4 ports, ppps]"\n`,
    );
    chmodSync(script, 0o755);
    process.env.PATH = `${dir}:${oldPath ?? ''}`;
    expect(await checkUhubctl('1-2')).toEqual({ ok: true });
    await actionsFor().powerCycle({ hubLocation: '1-2', port: 3 });
    // A phone on a motherboard port: the root hub of bus 1 is `1` to uhubctl; no hub set: every hub uhubctl can switch.
    await actionsFor().powerCycle({ hubLocation: '1', port: 4 });
    expect(await checkUhubctl(null)).toEqual({ ok: true });
    expect(readFileSync(log, 'utf8').split('\n').slice(0, -1)).toEqual(['-l 1-2', '-l 1-2 -p 3 -a cycle', '-l 1 -p 4 -a cycle', '']);
    writeFileSync(join(dir, 'denied'), '');
    expect(await checkUhubctl('1-2')).toEqual({ ok: false, problem: UHUBCTL_NO_PERMISSION });
    await expect(actionsFor().powerCycle({ hubLocation: '1-2', port: 3 })).rejects.toThrow(/permission problems/);
    process.env.PATH = '/nonexistent';
    expect(await checkUhubctl('1-2')).toEqual({ ok: false, problem: 'uhubctl is not installed (apt install uhubctl).' });
  });
});
