/**
 * Installing, updating and removing apps on a phone over adb (issue #42), as the farm host does it: one APK with
 * `pm install`, a split set with `pm install-create` / `install-write` / `install-commit` (abandoned on any failure,
 * so nothing is left half-installed), and `pm uninstall`. What the phone's package manager answers is read into a
 * result a person can act on: the INSTALL_FAILED_* code and its meaning in words. Each `pm` command runs within
 * its kind's limit (`commandLimits` in adb.shell.ts): an install may take minutes, a session's commit is waited for
 * and never abandoned once sent. Outputs and codes: see `test/fixtures/EVIDENCE.md`, "Package manager".
 */
import { shellQuote } from './adb.parse.ts';
import { limitsWith, type CommandKind, type CommandLimits } from './adb.shell.ts';

/**
 * What the package code needs of a phone: run a command within a limit (its output, stderr folded in; each command
 * in a shell process of its own, so a long install holds up no other command), and copy a file onto it.
 */
export interface PackagePhone {
  exec(command: string, timeoutMs?: number): Promise<string>;
  pushFile(localPath: string, remotePath: string): Promise<void>;
  /** The phone's language as a BCP 47 tag (`fr-FR`), when it can say: picks a split set's language splits. */
  locale?(): Promise<string | null>;
}

export type PackageResult =
  | { ok: true; output: string }
  | {
      ok: false;
      /** The package manager's code (`INSTALL_FAILED_VERSION_DOWNGRADE`), or `pm_failed` when it gave none. */
      code: string;
      /** The code in words, for the console. */
      reason: string;
      /** The package manager's own line, as printed. */
      detail: string;
    };

/** One file of a split set: the base APK or a config split, with its size (`install-write -S` needs it). */
export interface SplitFile {
  localPath: string;
  /** The split's name in the session (`base`, `split_config.arm64_v8a`). */
  name: string;
  size: number;
}

export interface InstallOptions {
  /** Allow a lower version code than the installed one (`-d`): rolling back a pinned version. */
  allowDowngrade?: boolean;
  /** Where files are copied on the phone before installing (adb's push makes the folder); the shell user may write here. */
  remoteDir?: string;
  /** The commands' limits, where they differ from `commandLimits` (a test's scaled ones). */
  limits?: Partial<CommandLimits>;
}

const REMOTE_DIR = '/data/local/tmp/farm-apps';
const EXIT_MARK = '__farm_pm_exit=';

/** INSTALL_FAILED_* and friends (android.content.pm.PackageManager) in words a farm operator acts on. */
export const packageFailureWords: Readonly<Record<string, string>> = {
  INSTALL_FAILED_ALREADY_EXISTS: 'The app is already installed and was not replaced.',
  INSTALL_FAILED_INVALID_APK: 'The phone could not read the APK: it is damaged, or a split set is missing its base.',
  INSTALL_FAILED_INVALID_URI: 'The APK file was not found on the phone (the copy to the phone failed).',
  INSTALL_FAILED_INSUFFICIENT_STORAGE: 'The phone does not have enough free storage for this app.',
  INSTALL_FAILED_DUPLICATE_PACKAGE: 'Another app with the same package name is already installed.',
  INSTALL_FAILED_UPDATE_INCOMPATIBLE: 'The installed app was signed by someone else: uninstall it first (its data is lost).',
  INSTALL_FAILED_SHARED_USER_INCOMPATIBLE: 'The app shares a user id with an app signed differently.',
  INSTALL_FAILED_MISSING_SHARED_LIBRARY: 'The phone lacks a system library this app needs.',
  INSTALL_FAILED_OLDER_SDK: 'The app needs a newer Android version than this phone has.',
  INSTALL_FAILED_NEWER_SDK: 'The app is built for an older Android version than this phone allows.',
  INSTALL_FAILED_TEST_ONLY: 'The APK is a test-only build that phones refuse without a test flag.',
  INSTALL_FAILED_CPU_ABI_INCOMPATIBLE: "The APK's native code does not match this phone's processor.",
  INSTALL_FAILED_NO_MATCHING_ABIS: "None of the APK's processor types (ABIs) match this phone: upload the split for its ABI.",
  INSTALL_FAILED_MISSING_FEATURE: 'The app needs a hardware or software feature this phone lacks.',
  INSTALL_FAILED_VERSION_DOWNGRADE: 'The phone has a newer version installed: allow the downgrade to roll back.',
  INSTALL_FAILED_MISSING_SPLIT: 'A split of the app is missing from the set: upload the full .apks/.xapk/.apkm.',
  INSTALL_FAILED_VERIFICATION_FAILURE: "The phone's package verifier (Play Protect) refused the app.",
  INSTALL_FAILED_VERIFICATION_TIMEOUT: "The phone's package verifier did not answer in time: try again.",
  INSTALL_FAILED_USER_RESTRICTED: 'The phone refuses installs over USB: turn on "Install via USB" in its developer options.',
  INSTALL_FAILED_ABORTED: 'The install was cancelled on the phone.',
  INSTALL_FAILED_INTERNAL_ERROR: 'The package manager failed inside the phone: try again, or restart the phone.',
  INSTALL_FAILED_DUPLICATE_PERMISSION: 'The app declares a permission another installed app already owns.',
  INSTALL_FAILED_CONFLICTING_PROVIDER: 'The app declares a content provider another installed app already owns.',
  INSTALL_FAILED_SESSION_INVALID: 'The install session was lost on the phone: try again.',
  INSTALL_PARSE_FAILED_NOT_APK: 'The file is not an APK.',
  INSTALL_PARSE_FAILED_BAD_MANIFEST: "The APK's manifest cannot be read.",
  INSTALL_PARSE_FAILED_NO_CERTIFICATES: 'The APK is not signed.',
  INSTALL_PARSE_FAILED_INCONSISTENT_CERTIFICATES: 'The files of the set are signed by different keys.',
  INSTALL_PARSE_FAILED_UNEXPECTED_EXCEPTION: 'The phone failed while reading the APK.',
  DELETE_FAILED_INTERNAL_ERROR: 'The phone could not remove the app.',
  DELETE_FAILED_DEVICE_POLICY_MANAGER: 'A device administrator protects this app from removal.',
  DELETE_FAILED_OWNER_BLOCKED: "The phone's owner blocked removing this app.",
  not_installed: 'The app is not installed on this phone.',
};

/**
 * Reads what `pm` printed: "Success" (also "Success: …"), or "Failure [CODE: message]" / "Failure [CODE]" /
 * "Failure [not installed for 0]", or an "Error: …" line. A non-zero exit with neither is a failure too.
 */
export function readPmOutput(output: string, exitCode = 0): PackageResult {
  const text = output.trim();
  const failure = /Failure \[([^\]]*)\]/.exec(text);
  if (failure) {
    const inside = (failure[1] ?? '').trim();
    const named = /^([A-Z][A-Z0-9_]+)(?::\s*(.*))?$/.exec(inside);
    if (named) {
      const code = named[1] as string;
      return { ok: false, code, reason: packageFailureWords[code] ?? `The phone refused the app (${code}).`, detail: failure[0] };
    }
    if (/^not installed for/.test(inside)) return { ok: false, code: 'not_installed', reason: packageFailureWords.not_installed as string, detail: failure[0] };
    return { ok: false, code: 'pm_failed', reason: `The phone refused: ${inside || 'no reason given'}.`, detail: failure[0] };
  }
  const error = /^(Error|Exception|java\.\S+Exception)[:\s].*$/m.exec(text);
  if (error) return { ok: false, code: 'pm_failed', reason: `The package manager failed: ${error[0].slice(0, 200)}`, detail: error[0] };
  if (exitCode !== 0 || !/^Success\b/m.test(text)) {
    return { ok: false, code: 'pm_failed', reason: `The package manager did not confirm (exit ${exitCode}).`, detail: text.slice(0, 300) };
  }
  return { ok: true, output: text };
}

/** The session id of `pm install-create` ("Success: created install session [1234567]"), or null. */
export function readSessionId(output: string): number | null {
  const match = /Success: created install session \[(\d+)\]/.exec(output);
  return match ? Number(match[1]) : null;
}

/** A package name as Android allows it (letters, digits, underscores, dots). */
export function isPackageName(value: string): boolean {
  return /^[A-Za-z][\w]*(\.[A-Za-z][\w]*)+$/.test(value);
}

/** Runs a pm command within its kind's limit and reads its answer with its exit code (the v1 shell prints it after). */
async function pm(phone: PackagePhone, kind: CommandKind, args: string, limits: CommandLimits): Promise<PackageResult> {
  const raw = await phone.exec(`pm ${args} 2>&1; echo ${EXIT_MARK}$?`, limits[kind]);
  const at = raw.lastIndexOf(EXIT_MARK);
  const exitCode = at >= 0 ? Number.parseInt(raw.slice(at + EXIT_MARK.length), 10) : 0;
  return readPmOutput(at >= 0 ? raw.slice(0, at) : raw, Number.isNaN(exitCode) ? 1 : exitCode);
}

function flags(options: InstallOptions): string {
  return `-r${options.allowDowngrade ? ' -d' : ''}`;
}

/** Copies one APK to the phone, installs (or updates) it, and removes the copy whatever happened. */
export async function installApk(phone: PackagePhone, localPath: string, fileName: string, options: InstallOptions = {}): Promise<PackageResult> {
  const remote = `${options.remoteDir ?? REMOTE_DIR}/${safeName(fileName)}`;
  const limits = limitsWith(options.limits);
  await phone.pushFile(localPath, remote);
  try {
    return await pm(phone, 'install', `install ${flags(options)} ${shellQuote(remote)}`, limits);
  } finally {
    await phone.exec(`rm -f ${shellQuote(remote)}`, limits.package).catch(() => undefined);
  }
}

/**
 * Installs a split set in one session: every file is written into it, then it is committed; a failure before the
 * commit abandons the session, so the phone keeps the version it had. Once `install-commit` is sent the package
 * manager owns the session: its answer is waited for within the install limit, and the session is never abandoned
 * (an abandon racing a commit that is finishing could leave the phone between versions).
 */
export async function installSplitSet(phone: PackagePhone, files: readonly SplitFile[], options: InstallOptions = {}): Promise<PackageResult> {
  if (files.length === 0)
    return { ok: false, code: 'INSTALL_FAILED_INVALID_APK', reason: packageFailureWords.INSTALL_FAILED_INVALID_APK as string, detail: 'no files' };
  const dir = options.remoteDir ?? REMOTE_DIR;
  const limits = limitsWith(options.limits);
  const total = files.reduce((sum, file) => sum + file.size, 0);
  const created = await pm(phone, 'package', `install-create ${flags(options)} -S ${total}`, limits);
  if (!created.ok) return created;
  const session = readSessionId(created.output);
  if (session === null) return { ok: false, code: 'pm_failed', reason: 'The phone did not open an install session.', detail: created.output };
  const abandon = () => pm(phone, 'package', `install-abandon ${session}`, limits).catch(() => undefined);
  const remotes: string[] = [];
  let committing = false;
  try {
    for (const [index, file] of files.entries()) {
      const remote = `${dir}/${session}-${index}-${safeName(file.name)}.apk`;
      remotes.push(remote);
      await phone.pushFile(file.localPath, remote);
      const written = await pm(
        phone,
        'installWrite',
        `install-write -S ${file.size} ${session} ${shellQuote(safeName(file.name))} ${shellQuote(remote)}`,
        limits,
      );
      if (!written.ok) {
        await abandon();
        return written;
      }
    }
    committing = true;
    return await pm(phone, 'install', `install-commit ${session}`, limits);
  } catch (error) {
    if (!committing) await abandon();
    throw error;
  } finally {
    for (const remote of remotes) await phone.exec(`rm -f ${shellQuote(remote)}`, limits.package).catch(() => undefined);
  }
}

/** Removes an app (for every user, its data too). */
export async function uninstallPackage(phone: PackagePhone, packageName: string, limits?: Partial<CommandLimits>): Promise<PackageResult> {
  if (!isPackageName(packageName)) return { ok: false, code: 'pm_failed', reason: `"${packageName}" is not a package name.`, detail: packageName };
  return pm(phone, 'package', `uninstall ${packageName}`, limitsWith(limits));
}

/** A file or split name safe on the phone's shell and file system. */
function safeName(name: string): string {
  return name.replace(/[^\w.-]/g, '_').slice(0, 100) || 'app';
}
