/**
 * The fake phone's package manager for app installs (issue #42): `pm install` of a file under
 * /data/local/tmp/farm-apps/, `pm install-create` / `install-write` / `install-commit` / `install-abandon`, and
 * `pm uninstall`, answering with the words AOSP's PackageManagerShellCommand prints (see fixtures/EVIDENCE.md,
 * "Package manager"). The UI server's own `pm install` stays in fake-android.ts.
 *
 * A fake APK is a small JSON text, `{"package":"com.instagram.android","versionCode":1,"versionName":"1.0",
 * "split":"config.arm64_v8a"?}`: the fake reads its package and version from it as a phone reads the manifest.
 * A real APK (a ZIP with a compiled manifest, such as the console's app library accepts) is read as the phone reads
 * it: its manifest's package, version and split (fake-apk.ts). Anything else is "not an APK".
 */
import { looksLikeZip, readApkManifest } from './fake-apk.ts';

export interface FakeApp {
  versionCode: number;
  versionName: string;
  splits: string[];
}

interface FakeApk {
  package: string;
  versionCode: number;
  versionName: string;
  split?: string;
}

interface Session {
  size: number;
  allowDowngrade: boolean;
  written: Map<string, FakeApk>;
}

export interface PmAnswer {
  out: Buffer;
  code: number;
  /** A command still running (an install being verified and compiled): its answer once it ends. */
  running?: Promise<PmAnswer>;
}

const APPS_DIR = '/data/local/tmp/farm-apps/';
const answer = (text: string, code = 0): PmAnswer => ({ out: Buffer.from(text), code });

export class FakePackageManager {
  /** Apps installed through the package manager, by package. */
  readonly apps = new Map<string, FakeApp>();
  /** The next install or commit fails with this line (`INSTALL_FAILED_INSUFFICIENT_STORAGE`, or `CODE: message`). */
  failNext: string | null = null;
  /** Every pm command this handled, in order. */
  readonly calls: string[] = [];
  /**
   * How long `pm install` and `pm install-commit` take before they answer: a 100–200 MB app is verified (Play
   * Protect), dex-compiled and scanned before PackageManagerShellCommand prints its "Success", which takes tens of
   * seconds on a mid-range phone (25 s in the reproduction of issue 50). The shell stays open meanwhile, printing
   * nothing, as `adb shell pm install` does. Tests scale it with the host's limits.
   */
  installDelayMs = 0;
  /** Installs and commits answering now (started, not yet answered). */
  installing = 0;
  private readonly sessions = new Map<number, Session>();
  private nextSession = 1_284_412_201;

  constructor(
    private readonly files: ReadonlyMap<string, Buffer>,
    private readonly refusesUsbInstalls: () => boolean,
  ) {}

  /** Answers the pm commands it knows; undefined for the others (the fake phone's own pm handling goes on). */
  handle(args: readonly string[]): PmAnswer | undefined {
    const [verb, ...rest] = args;
    const path = rest[rest.length - 1] ?? '';
    if (verb === 'install' && path.startsWith(APPS_DIR)) {
      // PackageManagerShellCommand.runInstall copies the file into a session first (doWriteSplit), then commits and
      // waits: the long part comes after the file was read, so a copy removed meanwhile is installed all the same.
      const data = this.files.get(path);
      return this.slow(args, () => this.install(rest, data));
    }
    if (verb === 'install-create') return this.record(args, () => this.create(rest));
    if (verb === 'install-write') return this.record(args, () => this.write(rest));
    if (verb === 'install-commit') return this.slow(args, () => this.commit(rest));
    if (verb === 'install-abandon') return this.record(args, () => this.abandon(rest));
    if (verb === 'uninstall') return this.record(args, () => this.uninstall(rest));
    return undefined;
  }

  /** An install: answered after `installDelayMs`, the app placed only then (as the package manager commits last). */
  private slow(args: readonly string[], work: () => PmAnswer): PmAnswer {
    if (this.installDelayMs <= 0) return this.record(args, work);
    this.installing += 1;
    const ended = new Promise<PmAnswer>((resolve) =>
      setTimeout(() => {
        this.installing -= 1;
        resolve(this.record(args, work));
      }, this.installDelayMs),
    );
    return { out: Buffer.alloc(0), code: 0, running: ended };
  }

  private record(args: readonly string[], work: () => PmAnswer): PmAnswer {
    this.calls.push(args.join(' '));
    return work();
  }

  private read(path: string, data = this.files.get(path)): FakeApk | null {
    if (!data) return null;
    if (looksLikeZip(data)) return readApkManifest(data);
    try {
      const parsed = JSON.parse(data.toString('utf8')) as Partial<FakeApk>;
      if (typeof parsed.package !== 'string' || typeof parsed.versionCode !== 'number') return null;
      return {
        package: parsed.package,
        versionCode: parsed.versionCode,
        versionName: String(parsed.versionName ?? parsed.versionCode),
        ...(parsed.split ? { split: parsed.split } : {}),
      };
    } catch {
      return null;
    }
  }

  /** The refusal every install checks first: USB installs off, then the failure a test asked for. */
  private refusal(): PmAnswer | undefined {
    // "Install via USB" off (RikkaApps/Shizuku#252).
    if (this.refusesUsbInstalls()) return answer('Failure [INSTALL_FAILED_USER_RESTRICTED: Install canceled by user]\n', 1);
    if (this.failNext) {
      const line = this.failNext;
      this.failNext = null;
      return answer(`Failure [${line}]\n`, 1);
    }
    return undefined;
  }

  private place(apks: readonly FakeApk[], allowDowngrade: boolean): PmAnswer {
    const base = apks.find((apk) => !apk.split);
    if (!base) return answer('Failure [INSTALL_FAILED_INVALID_APK: Full install must include a base package]\n', 1);
    const installed = this.apps.get(base.package);
    if (installed && installed.versionCode > base.versionCode && !allowDowngrade)
      return answer(
        `Failure [INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update version code ${base.versionCode} is older than current ${installed.versionCode}]\n`,
        1,
      );
    this.apps.set(base.package, {
      versionCode: base.versionCode,
      versionName: base.versionName,
      splits: apks.flatMap((apk) => (apk.split ? [apk.split] : [])),
    });
    return answer('Success\n');
  }

  private install(rest: readonly string[], data: Buffer | undefined): PmAnswer {
    const path = rest[rest.length - 1] as string;
    if (!data) return answer('Failure [INSTALL_FAILED_INVALID_URI]\n', 1);
    const refused = this.refusal();
    if (refused) return refused;
    const apk = this.read(path, data);
    if (!apk) return answer(`Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse ${path}: Failed to load asset path ${path}]\n`, 1);
    return this.place([apk], rest.includes('-d'));
  }

  private create(rest: readonly string[]): PmAnswer {
    const at = rest.indexOf('-S');
    const size = at >= 0 ? Number(rest[at + 1]) : -1;
    const id = this.nextSession;
    this.nextSession += 7;
    this.sessions.set(id, { size, allowDowngrade: rest.includes('-d'), written: new Map() });
    return answer(`Success: created install session [${id}]\n`);
  }

  private write(rest: readonly string[]): PmAnswer {
    // install-write -S SIZE SESSION NAME PATH
    const size = Number(rest[1]);
    const session = this.sessions.get(Number(rest[2]));
    const name = rest[3] ?? '';
    const path = rest[4] ?? '';
    if (!session) return answer(`Error: java.lang.SecurityException: Caller has no access to session ${rest[2]}\n`, 1);
    if (!(size > 0)) return answer('Error: must specify a APK size\n', 1);
    const apk = this.read(path);
    if (!this.files.has(path)) return answer(`Error: Unable to open file: ${path}\n`, 1);
    if (apk) session.written.set(name, apk);
    else session.written.set(name, { package: '', versionCode: -1, versionName: '' });
    return answer(`Success: streamed ${size} bytes\n`);
  }

  private commit(rest: readonly string[]): PmAnswer {
    const id = Number(rest[0]);
    const session = this.sessions.get(id);
    if (!session) return answer(`Error: java.lang.SecurityException: Caller has no access to session ${rest[0]}\n`, 1);
    this.sessions.delete(id);
    const refused = this.refusal();
    if (refused) return refused;
    const apks = [...session.written.values()];
    if (apks.some((apk) => apk.versionCode < 0)) return answer('Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse base.apk]\n', 1);
    const packages = new Set(apks.map((apk) => apk.package));
    if (packages.size > 1) return answer('Failure [INSTALL_FAILED_INVALID_APK: Inconsistent package names in split set]\n', 1);
    return this.place(apks, session.allowDowngrade);
  }

  private abandon(rest: readonly string[]): PmAnswer {
    this.sessions.delete(Number(rest[0]));
    return answer('Success\n');
  }

  private uninstall(rest: readonly string[]): PmAnswer {
    const name = rest.filter((arg) => !arg.startsWith('-'))[0] ?? '';
    if (!this.apps.delete(name)) return answer('Failure [not installed for 0]\n', 1);
    return answer('Success\n');
  }

  /** Sessions still open (neither committed nor abandoned). */
  openSessions(): number {
    return this.sessions.size;
  }
}
