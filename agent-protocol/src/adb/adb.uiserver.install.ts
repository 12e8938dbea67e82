/**
 * Putting Appium's UiAutomator2 server on a phone the way Appium's own driver does (appium/appium-uiautomator2-driver
 * 8.1.2, lib/uiautomator2-server/core.ts at d293dd9): both APKs installed, replacing another version
 * (`installServerApk`, lines 132–181), and then the package manager asked with `pm list instrumentation`, once a
 * second for up to 30 s, until it lists the instrumentation target (`verifyServicesAvailability`, lines 357–403,
 * called at the end of every `installServerApk`): `am instrument` of a target the package manager does not list ends at
 * once with "INSTRUMENTATION_FAILED", and right after a boot the package manager may not answer at all ("Could not
 * access the Package Manager"). Where the driver logs a target that never shows and carries on, this host stops there
 * with the reason, and the server is tried again later.
 */
import { PhoneError } from '../phone/phone.device.ts';
import { parseVersionName } from './adb.parse.ts';

export const UI_SERVER_PACKAGE = 'io.appium.uiautomator2.server';
export const UI_SERVER_TEST_PACKAGE = 'io.appium.uiautomator2.server.test';
/** `INSTRUMENTATION_TARGET` in the driver's core.ts (line 27). */
export const UI_SERVER_INSTRUMENTATION = `${UI_SERVER_TEST_PACKAGE}/androidx.test.runner.AndroidJUnitRunner`;

/** What installing needs from the phone's transport. */
export interface UiServerInstallTransport {
  exec(command: string, timeoutMs?: number): Promise<string>;
  upload(localPath: string, remote: string, mode: number): Promise<void>;
}

export interface UiServerInstallLimits {
  /** Limit for installing one APK. */
  installTimeoutMs: number;
  /** How long the package manager has to list the instrumentation (the driver's `SERVICES_LAUNCH_TIMEOUT_MS`). */
  instrumentationTimeoutMs: number;
  /** Pause between two `pm list instrumentation` (the driver's `intervalMs`). */
  instrumentationPollMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The server version installed on the phone when both its packages are there, else null. */
export async function installedUiServerVersion(transport: UiServerInstallTransport): Promise<string | null> {
  const listed = await transport.exec(`pm list packages ${UI_SERVER_PACKAGE}`);
  const packages = new Set(
    listed
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.startsWith('package:'))
      .map((line) => line.slice('package:'.length)),
  );
  if (!packages.has(UI_SERVER_PACKAGE) || !packages.has(UI_SERVER_TEST_PACKAGE)) return null;
  return parseVersionName(await transport.exec(`dumpsys package ${UI_SERVER_PACKAGE} | grep versionName`));
}

/**
 * Installs both APKs (replacing another version). A phone that refuses installs from USB ("Install via USB" off,
 * MIUI's `INSTALL_FAILED_USER_RESTRICTED`) throws PhoneError('unsupported') with the phone's words.
 */
export async function installUiServer(
  transport: UiServerInstallTransport,
  apks: { serverApk: string; testApk: string },
  limits: Pick<UiServerInstallLimits, 'installTimeoutMs'>,
): Promise<void> {
  for (const [apk, remote] of [
    [apks.serverApk, '/data/local/tmp/farm-uia2-server.apk'],
    [apks.testApk, '/data/local/tmp/farm-uia2-server-test.apk'],
  ] as const) {
    await transport.upload(apk, remote, 0o644);
    // -r replaces another version in place; -g grants its runtime permissions so no dialog waits on the phone.
    const output = await transport.exec(`pm install -r -g ${remote}; rm -f ${remote}`, limits.installTimeoutMs);
    if (!/^Success/m.test(output)) {
      const reason = /Failure \[[^\]]*\]/.exec(output)?.[0] ?? (output.trim().split('\n')[0] ?? '').slice(0, 200);
      throw new PhoneError(
        /INSTALL_FAILED_USER_RESTRICTED/.test(output) ? 'unsupported' : 'command_failed',
        `The phone refused to install the UI server: ${reason || 'no answer'}.`,
      );
    }
  }
}

/**
 * Whether `pm list instrumentation` lists the server's instrumentation. AOSP's PackageManagerShellCommand
 * (`runListInstrumentation`) prints one line per instrumentation, `instrumentation:<package>/<class> (target=<package>)`;
 * the driver looks for the target's name in the output (core.ts line 376).
 */
export function listsUiServerInstrumentation(output: string): boolean {
  return output.split('\n').some((line) => line.trim().startsWith(`instrumentation:${UI_SERVER_INSTRUMENTATION} `));
}

/** Asks the package manager until it lists the instrumentation; throws with the reason when it never does in time. */
export async function waitForUiServerInstrumentation(
  transport: UiServerInstallTransport,
  limits: Pick<UiServerInstallLimits, 'instrumentationTimeoutMs' | 'instrumentationPollMs'>,
): Promise<void> {
  const deadline = Date.now() + limits.instrumentationTimeoutMs;
  let last = '';
  for (;;) {
    try {
      const output = await transport.exec('pm list instrumentation');
      if (listsUiServerInstrumentation(output)) return;
      last = output.includes('Could not access the Package Manager') ? 'the package manager does not answer' : 'the package manager does not list it';
    } catch (error) {
      if (error instanceof PhoneError && error.code === 'disconnected') throw error;
      last = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() >= deadline)
      throw new PhoneError('command_failed', `The phone did not list the UI server's instrumentation within ${limits.instrumentationTimeoutMs} ms (${last}).`);
    await sleep(Math.max(1, Math.min(limits.instrumentationPollMs, deadline - Date.now())));
  }
}
