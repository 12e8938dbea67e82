/** How the app library names versions for people. */
import type { AppVersion } from '@farm/contracts';

/** `312.0.0.32.119 (372019234)`, or the version code alone when the APK names no version. */
export function versionLabel(version: Pick<AppVersion, 'versionName' | 'versionCode'>): string {
  return version.versionName ? `${version.versionName} (${version.versionCode})` : `version code ${version.versionCode}`;
}
