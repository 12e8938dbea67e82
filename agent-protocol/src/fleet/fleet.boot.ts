/**
 * Waiting for a rebooted phone. adbd starts early in boot, so adb lists a rebooting phone as a `device` long before
 * Android can run anything: the phone says it is done when the `sys.boot_completed` property is 1 (set by the
 * ActivityManager once boot finished; what `adb wait-for-device shell 'while [[ -z $(getprop sys.boot_completed) ]];
 * do sleep 1; done'` and Android's own test harnesses wait for). Until then it gets no other rung and no health check.
 *
 * The scheduled restart reboots idle phones a few at a time, each batch waited for, so a rack never has all its
 * phones down at once (and the USB bus does not enumerate them all in the same seconds).
 */

/** The part of the recovery's actions a boot wait uses (`RecoveryActions` in `fleet.recovery.ts` has this shape). */
export interface BootActions {
  shell(serial: string, command: string, timeoutMs: number): Promise<string>;
  reboot(serial: string): Promise<void>;
}

export interface BootLimits {
  /** How long a rebooted phone may take to finish booting before it counts as not recovered. */
  waitMs: number;
  /** How often the scheduled restart asks a rebooting phone whether it finished (the ladder asks once a round). */
  pollMs: number;
  /** How many phones the scheduled restart reboots at once. */
  batch: number;
}

/** Most phones boot in 30–90 s; 5 minutes leaves room for a first boot after an update's optimisation. */
export const defaultBootLimits: BootLimits = { waitMs: 5 * 60_000, pollMs: 5_000, batch: 4 };

/** Whether the phone answers that it finished booting; false while it is away, booting, or does not answer. */
export async function bootCompleted(actions: Pick<BootActions, 'shell'>, serial: string, timeoutMs: number): Promise<boolean> {
  try {
    return (await actions.shell(serial, 'getprop sys.boot_completed', timeoutMs)).trim() === '1';
  } catch {
    return false;
  }
}

/** Waits until the phone finished booting, asking every `pollMs`; false when `waitMs` passed first. */
export async function waitForBoot(actions: Pick<BootActions, 'shell'>, serial: string, limits: BootLimits, shellMs: number): Promise<boolean> {
  const until = Date.now() + limits.waitMs;
  for (;;) {
    if (await bootCompleted(actions, serial, Math.min(shellMs, limits.waitMs))) return true;
    const left = until - Date.now();
    if (left <= 0) return false;
    await new Promise((resolve) => setTimeout(resolve, Math.min(limits.pollMs, left)));
  }
}

/**
 * Reboots `serials` at most `limits.batch` at a time: each batch is rebooted, then waited for until every phone in
 * it finished booting (or its limit passed), before the next batch starts. Each phone's reboot is reported once it
 * ended; answers the serials that booted again.
 */
export async function staggeredReboots(
  serials: readonly string[],
  actions: BootActions,
  limits: BootLimits,
  shellMs: number,
  report: (serial: string, outcome: 'done' | 'failed', detail: string) => void,
): Promise<string[]> {
  const booted: string[] = [];
  const size = Math.max(1, limits.batch);
  for (let start = 0; start < serials.length; start += size) {
    await Promise.all(
      serials.slice(start, start + size).map(async (serial) => {
        try {
          await actions.reboot(serial);
        } catch (error) {
          report(serial, 'failed', `Scheduled restart: ${error instanceof Error ? error.message : String(error)}`);
          return;
        }
        if (await waitForBoot(actions, serial, limits, shellMs)) {
          booted.push(serial);
          report(serial, 'done', 'Scheduled restart.');
        } else {
          report(serial, 'failed', `Scheduled restart: it did not finish booting within ${Math.round(limits.waitMs / 1000)} s.`);
        }
      }),
    );
  }
  return booted;
}
