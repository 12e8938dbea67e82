/**
 * A phone's vitals beyond "adb lists it": its battery's health and temperature, the free space on `/data`, and how
 * long since it booted; and the judgement of them a person needs (overheating, a failed battery, a full disk, a phone
 * that keeps rebooting). Readings come from the phone's own tools; what each prints is in
 * `test/fixtures/EVIDENCE.md` ("Phone health").
 */

/** Android's `BatteryManager.BATTERY_HEALTH_*` constants, as `dumpsys battery` prints them in its `health:` line. */
export type BatteryHealth = 'unknown' | 'good' | 'overheat' | 'dead' | 'over_voltage' | 'failure' | 'cold';

const batteryHealthCodes: Record<string, BatteryHealth> = {
  '1': 'unknown',
  '2': 'good',
  '3': 'overheat',
  '4': 'dead',
  '5': 'over_voltage',
  '6': 'failure',
  '7': 'cold',
};

/** The `health:` line of `dumpsys battery`; a phone that prints none (or a code Android does not define) is unknown. */
export function parseBatteryHealth(output: string): BatteryHealth {
  const code = /^\s*health:\s*(\d+)\s*$/m.exec(output)?.[1];
  return (code && batteryHealthCodes[code]) || 'unknown';
}

export interface DiskSpace {
  totalBytes: number;
  freeBytes: number;
}

const unitPowers: Record<string, number> = { '': 0, B: 0, K: 1, M: 2, G: 3, T: 4 };

/** "21.9G", "684K", "1.0G" (toolbox's and `df -h`'s sizes, powers of 1024) in bytes; null when unreadable. */
function humanBytes(text: string): number | null {
  const match = /^(\d+(?:\.\d+)?)([BKMGT]?)$/i.exec(text.trim());
  if (!match) return null;
  const power = unitPowers[(match[2] ?? '').toUpperCase()] ?? 0;
  return Math.round(Number(match[1]) * 1024 ** power);
}

/**
 * `df` as Android prints it, for the file system mounted at `mount`. Three shapes are in use: toybox (Android 7+,
 * "Filesystem 1K-blocks Used Available Use% Mounted on", sizes in KiB; `df -h` prints the same columns with units),
 * and toolbox (Android 6 and older, "Filesystem Size Used Free Blksize", the mount point first, sizes with units; it
 * takes no options and prints "-k: No such file or directory" for one). Null when the mount is not in the output.
 */
export function parseDf(output: string, mount = '/data'): DiskSpace | null {
  const lines = output.split(/\r?\n/).filter((line) => line.trim() !== '');
  const header = lines.find((line) => line.startsWith('Filesystem'));
  if (!header) return null;
  const toolbox = /\bBlksize\b/.test(header);
  const kibibytes = /1K-blocks/.test(header);
  for (const line of lines) {
    if (line === header || line.includes(': ')) continue;
    const columns = line.trim().split(/\s+/);
    if (toolbox) {
      // Filesystem (the mount point) Size Used Free Blksize
      if (columns[0] !== mount || columns.length < 5) continue;
      const total = humanBytes(columns[1] ?? '');
      const free = humanBytes(columns[3] ?? '');
      return total === null || free === null ? null : { totalBytes: total, freeBytes: free };
    }
    // Filesystem Size/1K-blocks Used Available Use% Mounted-on
    if (columns.length < 6 || columns[5] !== mount) continue;
    const size = (text: string | undefined) => (kibibytes ? Number(text) * 1024 : humanBytes(text ?? ''));
    const total = size(columns[1]);
    const free = size(columns[3]);
    if (total === null || free === null || !Number.isFinite(total) || !Number.isFinite(free)) return null;
    return { totalBytes: total, freeBytes: free };
  }
  return null;
}

/** `/proc/uptime`: seconds since boot, then idle seconds of all cores. */
export function parseUptime(output: string): number | null {
  const seconds = Number(output.trim().split(/\s+/)[0]);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
}

export interface PhoneVitals {
  /** 0..100, null when the phone did not say. */
  batteryLevel: number | null;
  temperatureC: number | null;
  batteryHealth: BatteryHealth;
  disk: DiskSpace | null;
  uptimeSeconds: number | null;
}

export interface VitalsLimits {
  /** A battery this warm or warmer is overheating, whatever its health says. */
  overheatC: number;
  /** Less free space than this on `/data` is a full disk (apps fail to update, posts fail to save). */
  diskFreeMinBytes: number;
  /** This many boots inside `rebootLoopWindowMs` is a phone rebooting in a loop. */
  rebootLoopBoots: number;
  rebootLoopWindowMs: number;
}

/** 45 °C and health 3 are the overheat line; 1 GiB free is where Android itself starts warning of low storage on most builds. */
export const defaultVitalsLimits: VitalsLimits = {
  overheatC: 45,
  diskFreeMinBytes: 1024 ** 3,
  rebootLoopBoots: 3,
  rebootLoopWindowMs: 60 * 60_000,
};

export type VitalsAlertKind = 'overheat' | 'battery_failed' | 'disk_full' | 'reboot_loop';

export interface VitalsAlert {
  kind: VitalsAlertKind;
  /** One sentence for the activity feed and the webhook. */
  message: string;
}

function gib(bytes: number): string {
  return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
}

/** What in these vitals a person must hear about; empty when the phone is well. Reboot loops come from `BootWatch`. */
export function judgeVitals(vitals: PhoneVitals, limits: VitalsLimits = defaultVitalsLimits): VitalsAlert[] {
  const alerts: VitalsAlert[] = [];
  const hot = vitals.temperatureC !== null && vitals.temperatureC >= limits.overheatC;
  if (vitals.batteryHealth === 'overheat' || hot) {
    const reading = vitals.temperatureC === null ? 'the battery reports overheating' : `the battery is at ${vitals.temperatureC.toFixed(1)} °C`;
    alerts.push({ kind: 'overheat', message: `Overheating: ${reading}. Give it air or take it off the charger.` });
  }
  if (vitals.batteryHealth === 'dead' || vitals.batteryHealth === 'over_voltage') {
    const what = vitals.batteryHealth === 'dead' ? 'reports a dead battery' : 'reports over-voltage';
    alerts.push({ kind: 'battery_failed', message: `Battery failed: the phone ${what}. Unplug it and check the battery and the charger.` });
  }
  if (vitals.disk && vitals.disk.freeBytes < limits.diskFreeMinBytes) {
    alerts.push({ kind: 'disk_full', message: `Storage almost full: ${gib(vitals.disk.freeBytes)} free of ${gib(vitals.disk.totalBytes)}.` });
  }
  return alerts;
}

/**
 * Boots seen per phone, from its uptime: a phone whose boot time moves forward has rebooted. A phone read again and
 * again within one boot counts once (uptime readings drift by a second or two, so boots closer than 30 s are one).
 */
export class BootWatch {
  private readonly boots = new Map<string, number[]>();

  constructor(private readonly limits: Pick<VitalsLimits, 'rebootLoopBoots' | 'rebootLoopWindowMs'> = defaultVitalsLimits) {}

  /** Records a reading; answers the reboot-loop alert when this reading completes a loop, once per loop. */
  see(serial: string, uptimeSeconds: number, now: number): VitalsAlert | null {
    const bootedAt = now - uptimeSeconds * 1000;
    const seen = this.boots.get(serial) ?? [];
    const last = seen.at(-1);
    if (last !== undefined && Math.abs(bootedAt - last) < 30_000) return null;
    const recent = [...seen, bootedAt].filter((at) => at >= now - this.limits.rebootLoopWindowMs);
    this.boots.set(serial, recent);
    if (recent.length !== this.limits.rebootLoopBoots) return null;
    const minutes = Math.round(this.limits.rebootLoopWindowMs / 60_000);
    return { kind: 'reboot_loop', message: `Rebooting in a loop: ${recent.length} boots in ${minutes} minutes.` };
  }

  forget(serial: string): void {
    this.boots.delete(serial);
  }

  /**
   * The boots seen per phone, to write down: a phone that reboots leaves adb's list, and the loop is only seen if its
   * earlier boots are still known when it comes back (or when the host itself restarted meanwhile).
   */
  snapshot(now: number): Record<string, number[]> {
    const since = now - this.limits.rebootLoopWindowMs;
    const kept: Record<string, number[]> = {};
    for (const [serial, boots] of this.boots) {
      const recent = boots.filter((at) => at >= since);
      if (recent.length > 0) kept[serial] = recent;
    }
    return kept;
  }

  restore(boots: Record<string, number[]>): void {
    this.boots.clear();
    for (const [serial, times] of Object.entries(boots)) this.boots.set(serial, [...times]);
  }
}
