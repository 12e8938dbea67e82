/**
 * The phone behind the fake adb server: a small `sh` (`;`, `&&`, `|`, quotes, `2>&1`, `$?`, `VAR=value` and
 * `exec` before a command) in front of the tools the backend calls (getprop, wm, dumpsys, uiautomator, input,
 * monkey, am, settings get/put, screencap, echo, rm, cat, grep -E, kill, pkill -x), answering with fixtures of real
 * outputs. Pushed executables run: a pushed `minicap` (with its `minicap.so` beside it) starts a `FakeMinicap`
 * that the server connects `localabstract:minicap` to. It records every input command, pushed file and killed
 * pid, and can be made busy (uiautomator cannot get an idle state) or frozen (nothing comes back).
 */
import { FakePackageManager } from './fake-pm.ts';
import type { Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FakeMinicap, type FakeMinicapBehaviour } from './fake-minicap.ts';
import { FAKE_SCRCPY_VERSION as SCRCPY_VERSION, FakeScrcpyServer, type FakeScrcpyOptions } from './fake-scrcpy.ts';
import { FakeUiServer, type FakeUiServerBehaviour } from './fake-uiautomator2.ts';

export const fixturesDir = fileURLToPath(new URL('./fixtures/', import.meta.url));
export const fixture = (name: string) => readFileSync(`${fixturesDir}${name}`, 'utf8');

export interface FakeAndroidOptions {
  serial: string;
  model?: string;
  product?: string;
  getprop?: string;
  wmSize?: string;
  battery?: string;
  power?: string;
  window?: string;
  connectivity?: string;
  /** The screen's `uiautomator dump` XML, asked each time it is dumped. */
  screen?: () => string;
  /** PNG bytes `screencap -p` prints. */
  screencap?: () => Buffer;
  /** Packages installed (monkey and am start answer for these). */
  packages?: string[];
  keyboard?: string;
  /** How a pushed minicap behaves once started (`streams` by default). */
  minicap?: FakeMinicapBehaviour;
  /** How often a streaming minicap sends a frame. */
  minicapFrameMs?: number;
  /** How the UiAutomator2 server behaves once installed and started (`works` by default). */
  uiServer?: FakeUiServerBehaviour;
  /** The UiAutomator2 server version already installed, if any. */
  uiServerInstalled?: string;
  /** The version `pm install` of the server APK leaves installed (the APK's own version on a real phone). */
  uiServerApkVersion?: string;
  /** The phone refuses installs from USB ("Install via USB" off, MIUI). */
  installRefused?: boolean;
  /**
   * How long after its install the package manager lists the UI server's instrumentation (`pm list instrumentation`);
   * until then `am instrument` of it fails. Scaled down in tests; 0 by default.
   */
  instrumentationListedAfterMs?: number;
  /** `dumpsys window policy` output (the keyguard's state). */
  windowPolicy?: string;
  /** What a scrcpy-server started with app_process streams (clips made with ffmpeg); none: the class is not found. */
  scrcpy?: FakeScrcpyOptions;
  /** Android 13 per-app languages `cmd locale get-app-locales` answers (package → comma-separated tags); none picked: `[]`. */
  appLocales?: Record<string, string>;
}

/** A file the fake media store indexed: `content query` answers these rows. */
interface MediaRow {
  id: number;
  path: string;
  mime: string;
}

/** An activity started with `am start`, with the extras it carried. */
export interface StartedIntent {
  action: string | null;
  type: string | null;
  component: string | null;
  extras: Record<string, string>;
}

/**
 * The keyguard part of `dumpsys window policy`, rebuilt from AOSP's `KeyguardServiceDelegate.dump()` (one
 * `name=value` line each) with the values of a public dump of an Android 9 device; `showing` and `secure` are set.
 */
export function keyguardPolicy(state: { showing: boolean; secure: boolean }): string {
  return [
    'WINDOW MANAGER POLICY STATE (dumpsys window policy)',
    '    mDreamingLockscreen=false mDreamingSleepToken=null',
    '    KeyguardServiceDelegate',
    `      showing=${state.showing}`,
    `      showingAndNotOccluded=${state.showing}`,
    `      inputRestricted=${state.showing}`,
    '      occluded=false',
    `      secure=${state.secure}`,
    '      dreaming=false',
    '      systemIsReady=true',
    '      deviceHasKeyguard=true',
    '      enabled=true',
    '      offReason=0',
    '      currentUser=-10000',
    '      bootCompleted=true',
    '      screenState=SCREEN_STATE_ON',
    '      interactiveState=INTERACTIVE_STATE_AWAKE',
    '      KeyguardStateMonitor',
    `        mIsShowing=${state.showing}`,
    '        mSimSecure=false',
    '        mInputRestricted=false',
    '        mTrusted=false',
    '        mCurrentUserId=0',
    '',
  ].join('\n');
}

const mimeOf = (path: string) =>
  /\.(jpe?g)$/i.test(path) ? 'image/jpeg' : /\.png$/i.test(path) ? 'image/png' : /\.mp4$/i.test(path) ? 'video/mp4' : 'application/octet-stream';

interface Result {
  out: Buffer;
  code: number;
  /** A process that keeps running: its shell stays open until this resolves with its last words. */
  running?: Promise<Result>;
}

/** Output of the processes a command line starts, as they print it (the adb shell's stream). */
export type ShellWriter = (chunk: Buffer) => void;

/**
 * A value quoted as Android's serializer writes it (libcore KXmlSerializer.attribute / writeEscaped): in single quotes
 * when it holds `"` (then `'` is `&apos;`), else in double quotes; `&`, `<`, `>`, newline, return and tab escaped.
 * Characters beyond the BMP stay as typed, as the UI server's tests read them.
 */
function androidQuoted(value: string): string {
  const quote = value.includes('"') ? "'" : '"';
  const escaped = value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(quote === '"' ? /"/g : /'/g, quote === '"' ? '&quot;' : '&apos;')
    .replace(/[\n\r\t]/g, (char) => `&#${char.charCodeAt(0)};`);
  return `${quote}${escaped}${quote}`;
}

/** Splits a command line into words and operators, keeping quoting as sh does. */
function tokenize(line: string): string[] {
  const tokens: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word += line.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '"') {
      let j = i + 1;
      while (line[j] !== '"') {
        if (line[j] === '\\') j++;
        word += line[j];
        j++;
      }
      i = j;
      inWord = true;
    } else if (c === ' ') {
      if (inWord) tokens.push(word);
      word = '';
      inWord = false;
    } else if (c === ';' || c === '|') {
      if (inWord) tokens.push(word);
      tokens.push(c);
      word = '';
      inWord = false;
    } else if (c === '&' && line[i + 1] === '&') {
      if (inWord) tokens.push(word);
      tokens.push('&&');
      word = '';
      inWord = false;
      i++;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) tokens.push(word);
  return tokens;
}

export class FakeAndroid {
  readonly serial: string;
  readonly model: string;
  readonly product: string;
  readonly files = new Map<string, Buffer>();
  /** Input commands in order, as the phone received them (`tap 540 1200`, `keyevent 4`, `text 'hi'`). */
  readonly inputs: string[] = [];
  /** Every command line run, in order. */
  readonly commands: string[] = [];
  readonly pushed: { path: string; mode: number; data: Buffer; mtime: number }[] = [];
  readonly scanned: string[] = [];
  readonly launched: string[] = [];
  readonly opened: string[] = [];
  /** Every minicap started, in order (the running one last). */
  readonly minicaps: FakeMinicap[] = [];
  /** Every scrcpy-server started, in order. */
  readonly scrcpyServers: FakeScrcpyServer[] = [];
  /** Pids sent a signal with `kill` or `pkill`, in order. */
  readonly killed: number[] = [];
  /** `settings` values by `namespace key`; unset ones read as "null", as on a phone. */
  readonly settings = new Map<string, string>([
    ['system accelerometer_rotation', '0'],
    ['system user_rotation', '0'],
  ]);
  private readonly modes = new Map<string, number>();
  private nextPid = 4321;
  /** Dumps to fail with "could not get idle state" before the next one succeeds. */
  busyDumps = 0;
  /** How long a dump of a screen that never goes idle takes to fail (10 s on a phone). */
  dumpIdleTimeoutMs = 0;
  /** Dumps to print "null root node" (exit 0) before the next one succeeds. */
  nullRootDumps = 0;
  /** The screen animates (a video feed): dumps cannot get an idle state; the UI server waits out its idle timeout. */
  animated = false;
  /** The UiAutomator2 server's installed version (both its packages), or null. */
  uiServerVersion: string | null;
  /** The running UiAutomator2 server (its instrumentation), or null. */
  uiServerProcess: FakeUiServer | null = null;
  private endInstrumentation: ((words: string) => void) | null = null;
  uiServerStarts = 0;
  /** From when the package manager lists the UI server's instrumentation (null: it is not installed). */
  instrumentationListedAt: number | null;
  /** Each `am instrument`, with the packages force-stopped since the one before. */
  readonly instruments: { args: string[]; forceStoppedBefore: string[] }[] = [];
  private forceStoppedSinceInstrument: string[] = [];
  /** `pm install` of the UI server's APKs fails with this reason (`INSTALL_FAILED_INSUFFICIENT_STORAGE`) while set. */
  uiServerInstallFailure: string | null = null;
  /** What `pm install` was asked, in order. */
  readonly installs: string[] = [];
  /** App installs, updates and removals through pm (fake-pm.ts). */
  readonly packageManager = new FakePackageManager(this.files, () => this.options.installRefused === true);
  /** Packages force-stopped, in order. */
  readonly forceStopped: string[] = [];
  /** Activities started with extras (shares), in order. */
  readonly intents: StartedIntent[] = [];
  /** The media store: files indexed by a scan. */
  readonly media: MediaRow[] = [];
  private nextMediaId = 1000;
  /** The focused field's resource-id and what it holds (null: as the screen fixture says). */
  focusedId: string | null = null;
  fieldText: string | null = null;
  /** A toast shown at a time (only the UI server reports toasts). */
  toast: { text: string; at: number } | null = null;
  /** Elements the UI server clicked. */
  readonly clicked: string[] = [];
  windowPolicy: string;
  dumps = 0;
  shellsOpened = 0;
  frozen = false;
  /** When the phone last booted (`/proc/uptime` counts from here); a reboot moves it. */
  bootedAt = Date.now() - 3 * 3600_000;
  /** Until then `getprop sys.boot_completed` prints an empty line, as while Android is still booting. */
  bootCompletedAt = 0;
  /** What `df` prints (toybox's `df -h` of an Android 14 phone, /data among its rows, by default). */
  df = fixture('df-h-android14.txt');
  battery: string;
  power: string;
  onInput: (input: string) => void = () => undefined;
  /** Texts the UI server set into fields, in order (`replace`: what the field held went first). */
  readonly values: { text: string; replace: boolean }[] = [];
  /** Called with each text the UI server sets, so a test phone can show it. */
  onValue: (text: string, replace: boolean) => void = () => undefined;
  /** Called with each activity started with extras (a share), so a test phone can show the screen it opens. */
  onIntent: (intent: StartedIntent) => void = () => undefined;

  constructor(private readonly options: FakeAndroidOptions) {
    this.serial = options.serial;
    this.model = options.model ?? 'Pixel 7';
    this.product = options.product ?? 'panther';
    this.battery = options.battery ?? fixture('dumpsys-battery.txt');
    this.power = options.power ?? fixture('dumpsys-power.txt');
    this.settings.set('secure default_input_method', options.keyboard ?? 'com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME');
    this.uiServerVersion = options.uiServerInstalled ?? null;
    this.instrumentationListedAt = options.uiServerInstalled ? 0 : null;
    this.windowPolicy = options.windowPolicy ?? keyguardPolicy({ showing: false, secure: false });
  }

  /** The UI server's setText on the focused field. */
  setValue(text: string, replace: boolean): void {
    this.fieldText = replace ? text : `${this.fieldText ?? ''}${text}`;
    this.values.push({ text, replace });
    this.onValue(text, replace);
  }

  /** The screen's dump XML with the focused field applied (focused, holding what was typed). */
  uiXml(): string {
    const xml = this.options.screen?.() ?? "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\"></hierarchy>";
    const id = this.focusedId;
    if (!id) return xml;
    return xml.replace(new RegExp(`<node\\b[^>]*resource-id="${id.replace(/[.]/g, '\\.')}"[^>]*>`), (tag) => {
      let out = tag.replace('focused="false"', 'focused="true"');
      // An empty field shows its hint, as real EditTexts do in a dump.
      if (this.fieldText) out = out.replace(/\btext=("[^"]*"|'[^']*')/, `text=${androidQuoted(this.fieldText)}`);
      return out;
    });
  }

  /** A process listening on a TCP port of the phone (`tcp:<port>`), or null when none does. */
  tcpListener(port: number): { accept(socket: Socket): void } | null {
    if (port !== 6790) return null;
    return this.uiServerProcess?.running ? this.uiServerProcess : null;
  }

  /** Ends the UI server's instrumentation with its last words, as `am instrument -w` prints them. */
  private stopUiServer(words: string): void {
    const process = this.uiServerProcess;
    if (!process) return;
    this.uiServerProcess = null;
    process.stop();
    this.endInstrumentation?.(words);
    this.endInstrumentation = null;
  }

  /** The process listening on an abstract unix socket (`localabstract:<name>`), or null when none does. */
  listener(name: string): { accept(socket: Socket): void } | null {
    if (name.startsWith('scrcpy_')) {
      const server = this.scrcpyServers.find((item) => item.running && `scrcpy_${item.scid}` === name);
      return server?.listening() ? server : null;
    }
    if (name !== 'minicap') return null;
    return this.minicaps.find((item) => item.running && item.listening) ?? null;
  }

  /** Ends every process still running (the phone is put away). */
  shutdown(): void {
    for (const minicap of this.minicaps) minicap.kill();
    for (const server of this.scrcpyServers) server.stop();
    this.stopUiServer('');
  }

  receive(path: string, mode: number, data: Buffer, mtime: number): void {
    this.pushed.push({ path, mode, data, mtime });
    this.files.set(path, data);
    this.modes.set(path, mode);
  }

  /**
   * Runs one command line as the phone's shell would. A process that keeps running (minicap) holds the answer back
   * until it ends; what it prints meanwhile goes to `write` when given.
   */
  async sh(line: string, write?: ShellWriter): Promise<Buffer> {
    this.commands.push(line);
    const tokens = tokenize(line);
    const output: Buffer[] = [];
    let last = 0;
    let skip = false;
    let pipeInput: Buffer | null = null;
    let words: string[] = [];
    const runWords = () => {
      // Redirections of stderr change nothing here: the fake's tools write no stderr.
      const argv = words.filter((word) => word !== '2>&1' && word !== '2>/dev/null');
      words = [];
      const expanded = argv.map((word) => word.replace(/\$\?/g, String(last)));
      const env: Record<string, string> = {};
      while (expanded.length > 1 && /^[A-Za-z_]\w*=/.test(expanded[0] as string)) {
        const assignment = expanded.shift() as string;
        env[assignment.slice(0, assignment.indexOf('='))] = assignment.slice(assignment.indexOf('=') + 1);
      }
      if (expanded[0] === 'exec') expanded.shift();
      const result = this.tool(expanded, pipeInput, env);
      pipeInput = null;
      return result;
    };
    for (const token of [...tokens, ';']) {
      if (token === '|') {
        const result = skip ? { out: Buffer.alloc(0), code: last } : runWords();
        pipeInput = result.out;
        continue;
      }
      if (token === ';' || token === '&&') {
        if (words.length > 0) {
          if (!skip) {
            let result = runWords();
            if (result.running) {
              // What it printed so far reaches the client now; the rest when it ends.
              const early = Buffer.concat([...output.splice(0), result.out]);
              if (write) write(early);
              else output.push(early);
              result = await result.running;
            }
            last = result.code;
            output.push(result.out);
          } else words = [];
        }
        skip = token === '&&' && last !== 0;
        if (token === ';') skip = false;
        continue;
      }
      words.push(token);
    }
    await new Promise((resolve) => setImmediate(resolve));
    return Buffer.concat(output);
  }

  private text(value: string, code = 0): Result {
    return { out: Buffer.from(value), code };
  }

  private tool(argv: string[], stdin: Buffer | null, env: Record<string, string> = {}): Result {
    const [name, ...args] = argv;
    const o = this.options;
    if (name?.startsWith('/')) return this.run(name, args, env);
    switch (name) {
      case 'echo':
        return this.text(`${args.join(' ')}\n`);
      case 'getprop': {
        const all = o.getprop ?? fixture('getprop.txt');
        if (!args[0]) return this.text(all);
        if (args[0] === 'sys.boot_completed' && Date.now() < this.bootCompletedAt) return this.text('\n');
        // `getprop NAME` prints the value alone (an empty line for a property the phone does not have).
        const value = all.split('\n').find((line) => line.startsWith(`[${args[0]}]: [`));
        return this.text(`${value ? value.slice(args[0].length + 5, -1) : ''}\n`);
      }
      case 'wm':
        return this.text(o.wmSize ?? fixture('wm-size.txt'));
      case 'cmd': {
        // Only `cmd locale get-app-locales <package>`, worded as AOSP's LocaleManagerShellCommand.runGetAppLocales
        // prints it (aosp-mirror/platform_frameworks_base@47c5ed1, EVIDENCE.md); user 0 is the phone's only user here.
        const [service, verb, app] = args;
        if (service !== 'locale' || verb !== 'get-app-locales' || !app) return this.text('', 255);
        const known = (o.packages ?? []).includes(app) || o.appLocales?.[app] !== undefined;
        if (!known) return this.text(`Unknown package ${app} for userId 0\n`);
        return this.text(`Locales for ${app} for user 0 are [${o.appLocales?.[app] ?? ''}]\n`);
      }
      case 'settings': {
        const [verb, namespace, key, value] = args;
        if (verb === 'get') return this.text(`${this.settings.get(`${namespace} ${key}`) ?? 'null'}\n`);
        if (verb === 'put' && value !== undefined) {
          this.settings.set(`${namespace} ${key}`, value);
          return this.text('');
        }
        return this.text('usage:  settings [--user <USER_ID> | current] get namespace key\n', 255);
      }
      case 'kill': {
        const pid = Number(args[args.length - 1]);
        this.killed.push(pid);
        const minicap = this.minicaps.find((item) => item.pid === pid && item.running);
        if (!minicap) return this.text(`/system/bin/sh: kill: ${args[args.length - 1]}: No such process\n`, 1);
        minicap.kill();
        return this.text('');
      }
      case 'pkill': {
        const running = args[args.length - 1] === 'minicap' ? this.minicaps.filter((item) => item.running) : [];
        for (const minicap of running) {
          this.killed.push(minicap.pid);
          minicap.kill();
        }
        return this.text('', running.length > 0 ? 0 : 1);
      }
      case 'grep': {
        const pattern = new RegExp(args[args.length - 1] ?? '');
        const lines = (stdin ?? Buffer.alloc(0))
          .toString('utf8')
          .split('\n')
          .filter((row) => pattern.test(row));
        return this.text(lines.length ? `${lines.join('\n')}\n` : '', lines.length ? 0 : 1);
      }
      case 'dumpsys': {
        const service = args[0];
        if (service === 'battery') return this.text(this.battery);
        if (service === 'power') return this.text(this.power);
        if (service === 'window' && args[1] === 'policy') return this.text(this.windowPolicy);
        if (service === 'window') return this.text(o.window ?? fixture('dumpsys-window.txt'));
        if (service === 'connectivity') return this.text(o.connectivity ?? fixture('dumpsys-connectivity.txt'));
        if (service === 'package') {
          const pkg = args[1] ?? '';
          if (pkg === 'io.appium.uiautomator2.server' && this.uiServerVersion)
            return this.text(
              fixture('dumpsys-package.txt')
                .replaceAll('com.instagram.android', pkg)
                .replace(/versionName=\S+/, `versionName=${this.uiServerVersion}`),
            );
          if (!(o.packages ?? []).includes(pkg)) return this.text('');
          return this.text(fixture('dumpsys-package.txt').replaceAll('com.instagram.android', pkg));
        }
        return this.text(`Can't find service: ${service}\n`);
      }
      case 'rm':
        this.files.delete(args[args.length - 1] ?? '');
        return this.text('');
      case 'df':
        return this.text(this.df);
      case 'cat': {
        // Seconds since boot, then idle seconds of all cores (proc(5)).
        if (args[0] === '/proc/uptime') return this.text(`${((Date.now() - this.bootedAt) / 1000).toFixed(2)} 1234.56\n`);
        const file = this.files.get(args[0] ?? '');
        return file ? { out: file, code: 0 } : this.text(`cat: ${args[0]}: No such file or directory\n`, 1);
      }
      case 'uiautomator': {
        this.dumps += 1;
        // While the UiAutomator2 server's instrumentation runs it holds the phone's UiAutomation; uiautomator cannot
        // connect (the exception as logged in appium/appium-uiautomator2-server#436 and xiaocong/uiautomator#218).
        if (this.uiServerProcess) {
          return this.text(
            'java.lang.IllegalStateException: UiAutomationService android.accessibilityservice.IAccessibilityServiceClient$Stub$Proxy@2b6f0b5already registered!\n',
            0,
          );
        }
        if (this.busyDumps > 0 || this.animated) {
          if (this.busyDumps > 0) this.busyDumps -= 1;
          // AOSP DumpCommand.java waits for idle (waitForIdle(1000, 1000 * 10)) and prints this when the wait times
          // out: on a phone the failure comes after 10 s (`dumpIdleTimeoutMs` here, 0 unless a test sets it).
          const busy = this.text('ERROR: could not get idle state.\n', 0);
          if (this.dumpIdleTimeoutMs <= 0) return busy;
          return { out: Buffer.alloc(0), code: 0, running: new Promise((resolve) => setTimeout(() => resolve(busy), this.dumpIdleTimeoutMs)) };
        }
        if (this.nullRootDumps > 0) {
          // AOSP DumpCommand.java prints this when the root node is null (mid-transition, screen off) and exits 0.
          this.nullRootDumps -= 1;
          return this.text('ERROR: null root node returned by UiTestAutomationBridge.\n', 0);
        }
        const file = args.filter((arg) => !arg.startsWith('-'))[1] ?? '/sdcard/window_dump.xml';
        // `--compressed` leaves out views not important for accessibility (AOSP DumpCommand.java clears
        // FLAG_INCLUDE_NOT_IMPORTANT_VIEWS); a tree marks them as the UI server's page source does (a11y-important).
        this.files.set(file, Buffer.from(args.includes('--compressed') ? compressedTree(this.uiXml()) : this.uiXml()));
        return this.text(`UI hierchary dumped to: ${file}\n`);
      }
      case 'pm': {
        const app = this.packageManager.handle(args);
        if (app) return app;
        if (args[0] === 'list' && args[1] === 'instrumentation') return this.text(this.instrumentationList(args[2]));
        if (args[0] === 'list' && args[1] === 'packages') {
          const filter = args[2] ?? '';
          const installed = [...(o.packages ?? []), ...(this.uiServerVersion ? ['io.appium.uiautomator2.server', 'io.appium.uiautomator2.server.test'] : [])];
          const lines = installed.filter((pkg) => pkg.includes(filter)).map((pkg) => `package:${pkg}\n`);
          return this.text(lines.join(''));
        }
        if (args[0] === 'install') {
          const path = args[args.length - 1] ?? '';
          this.installs.push(args.join(' '));
          // The phone's words when "Install via USB" is off (RikkaApps/Shizuku#252: "Exit code: 1 Out: Failure [...]").
          if (o.installRefused) return this.text('Failure [INSTALL_FAILED_USER_RESTRICTED: Install canceled by user]\n', 1);
          if (!this.files.has(path)) return this.text(`Failure [INSTALL_FAILED_INVALID_URI]\n`, 1);
          if (this.uiServerInstallFailure) return this.text(`Failure [${this.uiServerInstallFailure}]\n`, 1);
          // Both APKs install; the pair counts once the instrumentation APK is in (AOSP PackageManagerShellCommand prints "Success").
          if (path.includes('test')) {
            this.uiServerVersion = o.uiServerApkVersion ?? '10.6.6';
            this.instrumentationListedAt = Date.now() + (o.instrumentationListedAfterMs ?? 0);
          }
          return this.text('Success\n');
        }
        return this.text('', 1);
      }
      case 'content': {
        const uri = args[args.indexOf('--uri') + 1];
        if (args[0] === 'call' && args.includes('scan_volume')) {
          this.indexMedia(() => true);
          // AOSP cmds/content prints "Result: " and the returned Bundle, null for scan_volume.
          return this.text('Result: null\n');
        }
        if (args[0] === 'query' && uri === 'content://media/external/file') {
          // As `content query` prints rows ("Row: N key=value, key=value") or "No result found." (the output of
          // `adb shell content query` on media rows, as recorded in an AndroidWorld evaluation test).
          const where = args[args.indexOf('--where') + 1] ?? '';
          const wanted = [...where.matchAll(/'([^']*)'/g)].map((item) => item[1]);
          const rows = this.media.filter((row) => wanted.includes(row.path));
          if (rows.length === 0) return this.text('No result found.\n');
          return this.text(rows.map((row, index) => `Row: ${index} _id=${row.id}, _data=${row.path}, mime_type=${row.mime}\n`).join(''));
        }
        return this.text('usage: adb shell content [subcommand] [options]\n', 1);
      }
      case 'screencap':
        return { out: Buffer.concat([o.screencap?.() ?? Buffer.alloc(0)]), code: 0 };
      case 'input': {
        const input = args.join(' ');
        this.inputs.push(input);
        if (args[0] === 'tap') this.focusAt(Number(args[1]), Number(args[2]));
        if (args[0] === 'text' && this.focusedId) {
          // `input text` reads "%s" as a space (AOSP Input.java: sendText replaces "%s").
          this.fieldText = `${this.fieldText ?? ''}${(args[1] ?? '').replace(/%s/g, ' ')}`;
        }
        if (args[0] === 'keyevent' && this.focusedId) {
          for (const code of args.slice(1)) if (code === '67') this.fieldText = [...(this.fieldText ?? '')].slice(0, -1).join('');
        }
        this.onInput(input);
        return this.text('');
      }
      case 'monkey': {
        const pkg = args[args.indexOf('-p') + 1] ?? '';
        if (!(o.packages ?? []).includes(pkg)) return this.text('  bash arg: -p\n** No activities found to run, monkey aborted.\n', 252);
        this.launched.push(pkg);
        return this.text(
          `  bash arg: -p\n  bash arg: ${pkg}\n  bash arg: -c\n  bash arg: android.intent.category.LAUNCHER\n  bash arg: 1\nargs: [-p, ${pkg}, -c, android.intent.category.LAUNCHER, 1]\nEvents injected: 1\n## Network stats: elapsed time=18ms (0ms mobile, 0ms wifi, 18ms not connected)\n`,
        );
      }
      case 'am': {
        const data = args[args.indexOf('-d') + 1] ?? '';
        if (args[0] === 'force-stop') {
          const pkg = args[1] ?? '';
          this.forceStopped.push(pkg);
          this.forceStoppedSinceInstrument.push(pkg);
          // Force-stopping the server's package kills the instrumentation running in it.
          if (pkg === 'io.appium.uiautomator2.server') this.stopUiServer('INSTRUMENTATION_RESULT: shortMsg=Process crashed.\nINSTRUMENTATION_CODE: 0\n');
          return this.text('');
        }
        if (args[0] === 'instrument') {
          const component = args[args.length - 1] ?? '';
          this.instruments.push({ args: args.slice(1), forceStoppedBefore: this.forceStoppedSinceInstrument });
          this.forceStoppedSinceInstrument = [];
          // AOSP Instrument.java: "INSTRUMENTATION_FAILED: <component>" when the package manager knows no such
          // instrumentation (not installed, or not listed yet).
          const version = this.uiServerVersion;
          if (!version || !this.instrumentationListed() || component !== 'io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner')
            return this.text(`INSTRUMENTATION_FAILED: ${component}\n`, 1);
          this.stopUiServer('');
          this.uiServerStarts += 1;
          const server = new FakeUiServer(this, version, o.uiServer ?? 'works');
          this.uiServerProcess = server;
          const ended = new Promise<Result>((resolve) => {
            this.endInstrumentation = (words) => resolve({ out: Buffer.from(words), code: 0 });
          });
          return { out: Buffer.alloc(0), code: 0, running: ended };
        }
        if (args[0] === 'broadcast' && args.includes('ADB_INPUT_B64')) {
          // ADB Keyboard types what the broadcast carries, when it is the phone's input method.
          const message = args[args.indexOf('msg') + 1] ?? '';
          if (this.settings.get('secure default_input_method')?.startsWith('com.android.adbkeyboard/') && this.focusedId)
            this.fieldText = `${this.fieldText ?? ''}${Buffer.from(message, 'base64').toString('utf8')}`;
          this.inputs.push(`adbkeyboard ${Buffer.from(message, 'base64').toString('utf8')}`);
          return this.text(`Broadcasting: Intent { act=ADB_INPUT_B64 flg=0x400000 (has extras) }\nBroadcast completed: result=0\n`);
        }
        if (args[0] === 'broadcast') {
          if (args.includes('android.intent.action.MEDIA_SCANNER_SCAN_FILE')) {
            const path = data.replace('file://', '');
            this.indexMedia((item) => item === path);
          }
          return this.text(`Broadcasting: Intent { act=${args[args.indexOf('-a') + 1]} dat=${data} flg=0x400000 }\nBroadcast completed: result=0\n`);
        }
        if (args[0] === 'start' && (args.includes('--eu') || args.includes('--es'))) {
          const extras: Record<string, string> = {};
          for (let i = 1; i < args.length; i++) if (args[i] === '--eu' || args[i] === '--es') extras[args[i + 1] ?? ''] = args[i + 2] ?? '';
          const component = args.includes('-n') ? (args[args.indexOf('-n') + 1] ?? null) : null;
          const pkg = component?.split('/')[0] ?? '';
          if (component && !(o.packages ?? []).includes(pkg))
            return this.text(`Starting: Intent { cmp=${component} }\nError type 3\nError: Activity class {${component}} does not exist.\n`, 1);
          const action = args.includes('-a') ? (args[args.indexOf('-a') + 1] ?? null) : null;
          const type = args.includes('-t') ? (args[args.indexOf('-t') + 1] ?? null) : null;
          const intent = { action, type, component, extras };
          this.intents.push(intent);
          this.onIntent(intent);
          return this.text(`Starting: Intent { act=${action} typ=${type} cmp=${component} (has extras) }\n`);
        }
        if (args[0] === 'start') {
          const component = args[args.indexOf('-n') + 1];
          if (args.includes('-n') && component) {
            const pkg = component.split('/')[0] ?? '';
            if (!(o.packages ?? []).includes(pkg))
              return this.text(`Starting: Intent { cmp=${component} }\nError type 3\nError: Activity class {${component}} does not exist.\n`, 1);
            this.launched.push(pkg);
            return this.text(`Starting: Intent { cmp=${component} }\n`);
          }
          this.opened.push(data);
          return this.text(`Starting: Intent { act=android.intent.action.VIEW dat=${data} }\n`);
        }
        return this.text('');
      }
      case 'app_process':
        return this.appProcess(args, env);
      default:
        return this.text(`/system/bin/sh: ${name}: not found\n`, 127);
    }
  }

  /** Indexes the pushed files under shared storage that `match` picks (a scan), as MediaProvider stores them. */
  private indexMedia(match: (path: string) => boolean): void {
    for (const path of this.files.keys()) {
      if (!path.startsWith('/sdcard/') || !match(path)) continue;
      const stored = path.replace(/^\/sdcard\//, '/storage/emulated/0/');
      if (this.media.some((row) => row.path === stored)) continue;
      this.media.push({ id: this.nextMediaId++, path: stored, mime: mimeOf(path) });
      this.scanned.push(path);
    }
  }

  /** A tap on a text field focuses it (an empty field: what it holds is typed afresh). */
  private focusAt(x: number, y: number): void {
    let hit: string | null = null;
    for (const match of this.uiXml().matchAll(/<node\b[^>]*>/g)) {
      const tag = match[0];
      if (!/class="[^"]*(EditText|AutoCompleteTextView)"/.test(tag)) continue;
      const bounds = /bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"/.exec(tag);
      if (!bounds) continue;
      const [left, top, right, bottom] = bounds.slice(1).map(Number) as [number, number, number, number];
      if (x >= left && x < right && y >= top && y < bottom) hit = /resource-id="([^"]*)"/.exec(tag)?.[1] ?? null;
    }
    if (hit && hit !== this.focusedId) {
      this.focusedId = hit;
      this.fieldText = '';
    }
  }

  private instrumentationListed(): boolean {
    return this.uiServerVersion !== null && this.instrumentationListedAt !== null && Date.now() >= this.instrumentationListedAt;
  }

  /**
   * `pm list instrumentation [TARGET]` as AOSP's PackageManagerShellCommand (`runListInstrumentation`) prints it: one
   * `instrumentation:<package>/<class> (target=<target package>)` line per instrumentation whose target matches.
   */
  private instrumentationList(target: string | undefined): string {
    if (!this.instrumentationListed() || (target && target !== 'io.appium.uiautomator2.server')) return '';
    return 'instrumentation:io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner (target=io.appium.uiautomator2.server)\n';
  }

  /** The UI server's process died (a crash): its instrumentation ends. */
  crash(): void {
    this.stopUiServer('INSTRUMENTATION_RESULT: shortMsg=Process crashed.\nINSTRUMENTATION_CODE: 0\n');
  }

  onClick(element: string): void {
    this.clicked.push(element);
  }

  /**
   * `CLASSPATH=<jar> app_process / com.genymobile.scrcpy.Server <version> key=value…`: a pushed scrcpy-server of the
   * pinned version starts and listens on `scrcpy_<scid>`; another version ends as the real server does.
   */
  private appProcess(args: string[], env: Record<string, string>): Result {
    const jar = env.CLASSPATH ?? '';
    const [, main, version, ...options] = args;
    if (!this.files.has(jar) || main !== 'com.genymobile.scrcpy.Server' || !this.options.scrcpy)
      return this.text(`Error: Could not find or load main class ${main ?? ''}\n`, 1);
    if (version !== SCRCPY_VERSION)
      return this.text(`[server] ERROR: The server version (${SCRCPY_VERSION}) does not match the client (${version ?? ''})\n`, 1);
    const scid = options.find((option) => option.startsWith('scid='))?.slice('scid='.length) ?? '';
    if (!options.includes('tunnel_forward=true') || !/^[0-9a-f]{8}$/.test(scid)) return this.text('[server] ERROR: no forward tunnel\n', 1);
    const server = new FakeScrcpyServer(scid, this.options.scrcpy);
    this.scrcpyServers.push(server);
    return {
      out: Buffer.from(`[server] INFO: Device: [${this.model}] (Android)\n`),
      code: 0,
      running: server.exited.then((words) => ({ out: Buffer.from(words ? `${words}\n` : ''), code: words.includes('ERROR') ? 1 : 0 })),
    };
  }

  /** Runs a pushed program: only minicap is known. */
  private run(path: string, args: string[], env: Record<string, string>): Result {
    const mode = this.modes.get(path);
    if (!this.files.has(path) || mode === undefined) return this.text(`/system/bin/sh: ${path}: not found\n`, 127);
    if ((mode & 0o111) === 0) return this.text(`/system/bin/sh: ${path}: can't execute: Permission denied\n`, 126);
    if (!path.endsWith('/minicap')) return this.text('', 0);
    const libraries = (env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean);
    if (!libraries.some((dir) => this.files.has(`${dir}/minicap.so`)))
      return this.text(`CANNOT LINK EXECUTABLE "${path}": library "minicap.so" not found\n`, 1);
    const early: Buffer[] = [];
    const minicap = new FakeMinicap(this.nextPid++, args, this.options.minicap ?? 'streams', this.options.minicapFrameMs ?? 50, (text) =>
      early.push(Buffer.from(text)),
    );
    this.minicaps.push(minicap);
    return { out: Buffer.concat(early), code: 0, running: minicap.exited.then((last) => ({ out: last, code: minicap.exitCode })) };
  }
}

/**
 * The tree `uiautomator dump --compressed` gives: nodes marked `a11y-important="false"` left out, their children
 * kept under the nearest node that stays (the accessibility tree without FLAG_INCLUDE_NOT_IMPORTANT_VIEWS).
 */
export function compressedTree(xml: string): string {
  const dropped: boolean[] = [];
  return xml.replace(
    /<(\/?)([\w.]+)((?:\s+[\w:-]+=(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/g,
    (tag, closing: string, name: string, attrs: string, selfClosing: string) => {
      if (name === 'hierarchy' || name === '?xml') return tag;
      if (closing) return dropped.pop() ? '' : tag;
      const drop = /\sa11y-important=["']false["']/.test(attrs);
      if (!selfClosing) dropped.push(drop);
      return drop ? '' : tag;
    },
  );
}
