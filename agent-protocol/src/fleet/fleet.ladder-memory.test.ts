/**
 * The ladder as a farm sees it over a day, on a fake clock: a phone that never comes back (leaving adb's list at each
 * adb reconnect and reboot, and coming back still stuck), one that answers for a moment after each rung, a host
 * restarted mid-way, settings changed mid-way, a reboot that never finishes, and the scheduled restart's stagger.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileMemoryStore, fleetMemoryFile, memoryStore } from './fleet.memory.ts';
import { FleetRecovery, type RecoveryActions, type RungReport, type VitalsReport } from './fleet.recovery.ts';
import { defaultLadderLimits, type RecoveryRung } from './fleet.ladder.ts';

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;

/** One phone `A` on a fake clock: adb lists it unless away; its shell fails while `broken`; a reboot takes 40 s. */
function farm(options: { memory?: ReturnType<typeof memoryStore>; bootMs?: number; remote?: string } = {}) {
  const clock = { now: 1_000 * hour };
  const phone = { broken: true, away: false, bootDoneAt: 0, uptimeFrom: clock.now - 3 * hour, answersOnce: false };
  const done: string[] = [];
  const rungs: RungReport[] = [];
  const vitals: VitalsReport[] = [];
  let recovery: FleetRecovery;
  const leaveAndReturn = () => {
    // adb drops the phone; the host hears it left (`host.fleet.ts` phoneLeft), and it is listed again by the next round.
    phone.away = true;
    recovery.left('A');
  };
  const actions: RecoveryActions = {
    shell: async (_serial, command) => {
      if (phone.away) throw new Error('adb lists the phone but it has no open transport.');
      if (command === 'getprop sys.boot_completed') return clock.now >= phone.bootDoneAt ? '1\n' : '\n';
      if (command === 'cat /proc/uptime') return `${(clock.now - phone.uptimeFrom) / 1000} 100.00\n`;
      if (command === 'echo farm-ok') {
        if (phone.answersOnce) {
          phone.answersOnce = false;
          return 'farm-ok\n';
        }
        if (phone.broken) throw new Error('The shell did not answer within 5 s.');
      }
      return command === 'echo farm-ok' ? 'farm-ok\n' : '';
    },
    uiReader: async () => undefined,
    frame: async () => undefined,
    reconnect: async () => void done.push('reconnect'),
    restartReader: async () => void done.push('restart_reader'),
    adbReconnect: async () => {
      done.push('adb_reconnect');
      leaveAndReturn();
    },
    restartAdbServer: async () => void done.push('restart_adb_server'),
    reboot: async () => {
      done.push('reboot');
      leaveAndReturn();
      phone.bootDoneAt = clock.now + (options.bootMs ?? 40 * second);
      phone.uptimeFrom = clock.now;
    },
    powerCycle: async () => {
      done.push('power_cycle');
      leaveAndReturn();
    },
  };
  const start = () =>
    new FleetRecovery({
      actions,
      report: { health: () => undefined, vitals: (report) => vitals.push(report), rung: (report) => rungs.push(report) },
      place: () => ({ hubLocation: '1-2', port: 3 }),
      powerCycleReady: () => true,
      health: { shellMs: 50, uiReaderMs: 50, frameMs: 50 },
      ...(options.memory ? { memory: options.memory } : {}),
      ...(options.remote ? { adbServerRemote: options.remote } : {}),
      now: () => clock.now,
    });
  recovery = start();
  /** Rounds every 30 s, as `host.fleet.ts` runs them: check what is listed and not being worked on, then take rungs. */
  const rounds = async (count: number) => {
    for (let round = 0; round < count; round += 1) {
      if (!phone.away && !recovery.busy('A')) await recovery.check('A');
      for (const serial of recovery.waiting()) await recovery.recover(serial);
      phone.away = false;
      clock.now += 30 * second;
    }
  };
  return {
    clock,
    phone,
    done,
    rungs,
    vitals,
    rounds,
    get recovery() {
      return recovery;
    },
    /** The host restarts: a new process with the same state folder. */
    restart: () => {
      recovery = start();
    },
  };
}

/** How many times each rung was reported in the hour ending at each report, at most. */
function mostInAnHour(rungs: RungReport[]): Partial<Record<RecoveryRung, number>> {
  const most: Partial<Record<RecoveryRung, number>> = {};
  for (const report of rungs) {
    const inHour = rungs.filter((other) => other.rung === report.rung && other.at > report.at - hour && other.at <= report.at).length;
    most[report.rung] = Math.max(most[report.rung] ?? 0, inHour);
  }
  return most;
}

describe('the ladder remembers a phone across leaving, coming back and host restarts', () => {
  it('a phone that never recovers: every rung once, the reboot waited for, one replug task, then nothing all day', async () => {
    const host = farm();
    await host.rounds(24 * 120);
    expect(host.done).toEqual(['reconnect', 'restart_reader', 'adb_reconnect', 'reboot', 'power_cycle']);
    expect(host.rungs.map((report) => [report.rung, report.outcome])).toEqual([
      ['reconnect', 'done'],
      ['restart_reader', 'done'],
      ['adb_reconnect', 'done'],
      ['reboot', 'done'],
      ['power_cycle', 'done'],
      ['replug_task', 'done'],
    ]);
    // The reboot is reported once the phone said it finished booting (40 s later: the round after next).
    expect(host.rungs[3]?.detail).toBe('Booted again in 60 s.');
    expect(host.rungs.at(-1)?.place).toEqual({ hubLocation: '1-2', port: 3 });
  });

  it('a phone that answers for a moment after each rung: each rung at most 3 times an hour, 2 reboots a day', async () => {
    const host = farm();
    const { phone } = host;
    // After each rung the phone answers one check, then fails again.
    const rung = host.recovery.recover.bind(host.recovery);
    host.recovery.recover = async (serial) => {
      const report = await rung(serial);
      if (report) phone.answersOnce = true;
      return report;
    };
    await host.rounds(24 * 120);
    const most = mostInAnHour(host.rungs);
    for (const count of Object.values(most)) expect(count).toBeLessThanOrEqual(defaultLadderLimits.perRungPerHour);
    expect(most.reconnect).toBe(3);
    expect(host.done.filter((done) => done === 'reboot')).toHaveLength(2);
    expect(host.rungs.filter((report) => report.rung === 'replug_task').length).toBeGreaterThan(0);
  });

  it('keeps its counts and the asked person across a host restart, and a settings change', async () => {
    const memory = memoryStore();
    const host = farm({ memory });
    await host.rounds(10);
    expect(host.rungs.at(-1)?.rung).toBe('replug_task');
    host.restart();
    host.recovery.setLadderLimits({ ...defaultLadderLimits, perRungPerHour: 5 });
    await host.rounds(120);
    // Still the one episode: the person was asked, nothing else is tried, no second replug task.
    expect(host.rungs.filter((report) => report.rung === 'replug_task')).toHaveLength(1);
    expect(host.done.filter((done) => done === 'reboot')).toHaveLength(1);
    expect(host.recovery.ladder.count('A', 'reboot', 24 * hour)).toBe(1);
  });

  it('sees a reboot loop across the phone leaving and coming back, and across a host restart', async () => {
    const memory = memoryStore();
    const host = farm({ memory });
    host.phone.broken = false;
    const boot = async () => {
      host.recovery.left('A');
      host.phone.uptimeFrom = host.clock.now - 20 * second;
      host.clock.now += 10 * minute;
      host.phone.uptimeFrom = host.clock.now - 20 * second;
      await host.recovery.readVitals('A');
    };
    await boot();
    await boot();
    host.restart();
    await boot();
    expect(host.vitals.map((report) => report.alerts.map((alert) => alert.kind))).toEqual([[], [], ['reboot_loop']]);
  });

  it('waits for a reboot to finish booting, and past the limit counts it failed and climbs on', async () => {
    const host = farm({ bootMs: 24 * hour });
    await host.rounds(4);
    expect(host.done).toEqual(['reconnect', 'restart_reader', 'adb_reconnect', 'reboot']);
    await host.rounds(9);
    // Ten rounds (5 min) of waiting: no check, no other rung.
    expect(host.done).toHaveLength(4);
    expect(host.recovery.busy('A')).toBe(true);
    await host.rounds(2);
    expect(host.rungs.find((report) => report.rung === 'reboot')).toMatchObject({ outcome: 'failed', detail: 'It did not finish booting within 5 min.' });
    expect(host.done.at(-1)).toBe('power_cycle');
  });
});

describe('the adb server restart', () => {
  function together(remote?: string) {
    const broken = new Set(['A', 'B', 'C']);
    const done: string[] = [];
    const rungs: RungReport[] = [];
    const actions: RecoveryActions = {
      shell: async (serial, command) => {
        if (command === 'getprop sys.boot_completed') return '1\n';
        if (broken.has(serial)) throw new Error('The shell did not answer within 5 s.');
        return 'farm-ok\n';
      },
      uiReader: async () => undefined,
      frame: async () => undefined,
      reconnect: async () => undefined,
      restartReader: async () => undefined,
      adbReconnect: async () => undefined,
      restartAdbServer: async () => void done.push('restart_adb_server'),
      reboot: async () => undefined,
      powerCycle: async () => undefined,
    };
    const recovery = new FleetRecovery({
      actions,
      report: { health: () => undefined, vitals: () => undefined, rung: (report) => rungs.push(report) },
      ...(remote ? { adbServerRemote: remote } : {}),
    });
    return { broken, done, rungs, recovery };
  }

  it('does not count phones already waiting for a replug as failing together', async () => {
    const { done, recovery } = together();
    for (const serial of ['A', 'B']) {
      await recovery.check(serial);
      for (let step = 0; step < 10; step += 1) await recovery.recover(serial);
      expect(recovery.ladder.askedPerson(serial)).toBe(true);
    }
    await recovery.check('C');
    for (let step = 0; step < 10; step += 1) await recovery.recover('C');
    // A and B were past it when C failed: three failing, one of them still climbing, is no reason to cut all off.
    expect(done).toEqual([]);
  });

  it('a remote adb server is not restarted: the rung says why', async () => {
    const remote = 'The adb server runs at 10.0.0.5:5037, on another machine.';
    const { done, rungs, recovery } = together(remote);
    for (const serial of ['A', 'B', 'C']) await recovery.check(serial);
    for (let step = 0; step < 4; step += 1) await recovery.recover('A');
    expect(done).toEqual([]);
    expect(rungs.find((report) => report.rung === 'restart_adb_server')).toMatchObject({ outcome: 'skipped', detail: remote });
  });
});

describe('the scheduled restart', () => {
  it('reboots idle phones at most 4 at a time, each batch waited for until booted', async () => {
    const down = new Map<string, number>();
    let most = 0;
    const order: string[] = [];
    const actions: RecoveryActions = {
      shell: async (serial, command) => {
        if (command !== 'getprop sys.boot_completed') return '';
        const until = down.get(serial);
        if (until === undefined || Date.now() >= until) {
          down.delete(serial);
          return '1\n';
        }
        return '\n';
      },
      uiReader: async () => undefined,
      frame: async () => undefined,
      reconnect: async () => undefined,
      restartReader: async () => undefined,
      adbReconnect: async () => undefined,
      restartAdbServer: async () => undefined,
      reboot: async (serial) => {
        order.push(serial);
        down.set(serial, Date.now() + 30);
        most = Math.max(most, down.size);
      },
      powerCycle: async () => undefined,
    };
    const rungs: RungReport[] = [];
    const recovery = new FleetRecovery({
      actions,
      report: { health: () => undefined, vitals: () => undefined, rung: (report) => rungs.push(report) },
      boot: { waitMs: 5_000, pollMs: 5, batch: 4 },
    });
    const serials = Array.from({ length: 10 }, (_, index) => `P${index}`);
    const policy = { enabled: true, hour: 4, minute: 0, idleOnly: true };
    const rebooted = await recovery.scheduledRestart(policy, [...serials, 'BUSY'], (serial) => serial !== 'BUSY', new Date(2026, 10, 26, 4, 1));
    expect(rebooted.sort()).toEqual([...serials].sort());
    expect(order).toHaveLength(10);
    expect(most).toBe(4);
    expect(rungs.every((report) => report.rung === 'reboot' && report.outcome === 'done' && report.detail === 'Scheduled restart.')).toBe(true);
  });
});

describe('the memory file', () => {
  it('is written whole into the state folder, read back, and a damaged one is ignored with a log line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-memory-'));
    try {
      const log: string[] = [];
      const store = fileMemoryStore(fleetMemoryFile(dir), (line) => log.push(line));
      expect(store.load()).toBeNull();
      const memory = {
        version: 1 as const,
        ladder: { used: { A: { reboot: [1, 2] } }, episodes: { A: { tried: ['reconnect' as const], askedPerson: false } }, adbServerRestarts: [] },
        boots: { A: [5] },
      };
      store.save(memory);
      expect(store.load()).toEqual(memory);
      // Nothing half-written is left beside it.
      expect(readdirSync(dir)).toEqual(['fleet-ladder.json']);
      writeFileSync(fleetMemoryFile(dir), '{"version":1,"ladder":');
      expect(store.load()).toBeNull();
      expect(log[0]).toMatch(/^ignored the recovery memory in .*fleet-ladder\.json: /);
      expect(existsSync(fleetMemoryFile(dir))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
