/**
 * A real Android phone driven through the adb server with adbkit. Queries (getprop, dumpsys, uiautomator) run
 * as one shell process each; input goes through one persistent shell (`adb.shell.ts`). Every command has a
 * timeout; consecutive failures mark the phone unresponsive (reported through `onHealth`), the first answer
 * after that marks it responsive again. The live screen (`adb.live.ts`) streams over connections of its own.
 */
import { createReadStream } from 'node:fs';
import { SERVER_APK_PATH, TEST_APK_PATH, version as uiServerVersion } from 'appium-uiautomator2-server';
import { realpath, stat } from 'node:fs/promises';
import { liesInside } from '../recipes/recipe.media.ts';
import { basename } from 'node:path';
import type { Duplex } from 'node:stream';
import type { DeviceClient } from '@devicefarmer/adbkit';
import {
  androidKeyCodes,
  PhoneError,
  withTimeout,
  type BatteryState,
  type ForegroundApp,
  type KeyName,
  type LockState,
  type NetworkState,
  type PhoneDevice,
  type PhoneInfo,
  type Point,
  type PushMediaOptions,
  type ScreenState,
  type Screenshot,
  type ScreenshotOptions,
  type ShareIntent,
  type UiReaderInfo,
  type LiveVideoSession,
} from '../phone/phone.device.ts';
import {
  dumpFailure,
  focusedText,
  inputTextArguments,
  isInputTextSafe,
  parseVersionName,
  parseBattery,
  parseForeground,
  parseContentRows,
  parseGetprop,
  parseLockState,
  mediaStorePath,
  mediaUri,
  parseNetwork,
  parseScreen,
  parseUiDump,
  parseWmSize,
  phoneInfoFrom,
  shellQuote,
} from './adb.parse.ts';
import { PersistentShell } from './adb.shell.ts';
import { AdbLiveScreen, type LiveScreenOptions } from './adb.live.ts';
import type { ScrcpyStreamKind } from './adb.scrcpy.ts';
import { asLiveVideoSession, ScrcpySession, type ScrcpySessionOptions } from './adb.scrcpy.session.ts';
import { encodeScreenshot } from '../phone/phone.screenshot.ts';
import { UI_SERVER_PACKAGE, UiServer, UiServerError, type UiServerApks, type UiServerOptions } from './adb.uiserver.ts';

/** The UiAutomator2 server this host installs: the APKs the `appium-uiautomator2-server` package ships. */
export const bundledUiServer: UiServerApks = { serverApk: SERVER_APK_PATH, testApk: TEST_APK_PATH, version: uiServerVersion };

export type PhoneHealth = 'responsive' | 'unresponsive';

export interface AdbPhoneOptions {
  /** Limit for one query or input command. */
  commandTimeoutMs?: number;
  /** Limit for `uiautomator dump`, which takes seconds on a busy screen. */
  dumpTimeoutMs?: number;
  screenshotTimeoutMs?: number;
  /** Limit for pushing one media file. */
  pushTimeoutMs?: number;
  /** Failed commands in a row after which the phone counts as unresponsive. */
  unresponsiveAfter?: number;
  /** Where `uiautomator dump` writes on the phone (the shell user may write under /data/local/tmp). */
  dumpPath?: string;
  /** Default folder for pushed media. */
  mediaDir?: string;
  /**
   * The farm host's media folder (the agent's fetched files): set, `pushMedia` copies nothing that lies outside it once
   * its links are followed, whatever a recipe run let through.
   */
  mediaRoot?: string;
  /** How long minicap has to start streaming before the live screen falls back to screenshots. */
  liveStartTimeoutMs?: number;
  /** The verified scrcpy-server file (`ensureScrcpyServer`); absent: the live screen stays on JPEG. */
  scrcpyServer?: () => Promise<string>;
  /** How long scrcpy-server has to listen and send its header. */
  videoStartTimeoutMs?: number;
  /** The UI server to install and read through; false reads with `uiautomator dump` only. */
  uiServer?: UiServerApks | false;
  /** Limits of the UI server's requests and start. */
  uiServerTimeouts?: UiServerOptions;
  /** After the UI server could not be started, how long the dump is used before the server is tried again. */
  uiServerRetryMs?: number;
  /** After the phone refused to install it (e.g. "Install via USB" off), how long before installing is tried again. */
  uiServerInstallRetryMs?: number;
  /** Dumps tried in one read when the phone says "null root node" or "could not get idle state". */
  dumpAttempts?: number;
  /** Pause between those tries. */
  dumpRetryPauseMs?: number;
  /** How long files have to appear in the media store after a scan. */
  mediaIndexTimeoutMs?: number;
  onHealth?: (health: PhoneHealth, reason: string) => void;
}

/** The part of adbkit's DeviceClient this backend uses (tests and other transports may stand in). */
export type AdbDevice = Pick<DeviceClient, 'shell' | 'screencap' | 'push' | 'openLocal' | 'openTcp'>;

const DEFAULTS = {
  commandTimeoutMs: 10_000,
  dumpTimeoutMs: 20_000,
  screenshotTimeoutMs: 15_000,
  pushTimeoutMs: 120_000,
  unresponsiveAfter: 2,
  dumpPath: '/data/local/tmp/farm-ui.xml',
  mediaDir: '/sdcard/DCIM/Farm',
  liveStartTimeoutMs: 3000,
  uiServerRetryMs: 60_000,
  uiServerInstallRetryMs: 30 * 60_000,
  dumpAttempts: 3,
  dumpRetryPauseMs: 500,
  mediaIndexTimeoutMs: 10_000,
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `input keyevent` codes the dump's typing uses to empty a field. */
const KEYCODE_MOVE_END = 123;
const KEYCODE_DEL = 67;

function readAll(stream: Duplex): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer | string) => chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

export class AdbPhone implements PhoneDevice {
  private readonly options: typeof DEFAULTS &
    Pick<AdbPhoneOptions, 'onHealth' | 'uiServer' | 'uiServerTimeouts' | 'scrcpyServer' | 'videoStartTimeoutMs' | 'mediaRoot'>;
  /** The phone's UiAutomator2 server, or null when this host reads with the dump only. */
  readonly uiServer: UiServer | null;
  /** Not before this time is the UI server tried again after it could not be started. */
  private uiServerRetryAt = 0;
  /** Why the dump reads this phone (the server could not be installed or started), for the console. */
  uiServerProblem: string | null = null;
  private starting: Promise<boolean> | null = null;
  private readonly input: PersistentShell;
  private failures = 0;
  private cachedInfo: PhoneInfo | null = null;
  private live: AdbLiveScreen | null = null;
  /** scrcpy-server sessions running on this phone (at most a control and a watch stream). */
  private readonly scrcpySessions = new Set<ScrcpySession>();
  private readonly copiedMinicap = new Set<string>();
  private closed = false;
  health: PhoneHealth = 'responsive';

  constructor(
    readonly serial: string,
    private readonly device: AdbDevice,
    options: AdbPhoneOptions = {},
  ) {
    this.options = { ...DEFAULTS, ...Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) };
    this.input = new PersistentShell(async () => this.device.shell('sh'), this.options.commandTimeoutMs);
    const apks = options.uiServer === undefined ? bundledUiServer : options.uiServer;
    this.uiServer = apks
      ? new UiServer(
          {
            openTcp: async (port) => this.device.openTcp(port),
            exec: (command, timeoutMs) => this.exec(command, timeoutMs),
            spawn: async (command) => this.device.shell(command),
            upload: (localPath, remote, mode) => this.upload(localPath, remote, mode, this.options.pushTimeoutMs),
          },
          apks,
          options.uiServerTimeouts,
        )
      : null;
  }

  /** How many input shells were opened so far (one while the phone keeps answering). */
  get inputShellsOpened(): number {
    return this.input.opened;
  }

  private succeeded(): void {
    this.failures = 0;
    if (this.health === 'unresponsive') {
      this.health = 'responsive';
      this.options.onHealth?.('responsive', 'The phone answers again.');
    }
  }

  private failed(error: unknown): void {
    if (!(error instanceof PhoneError) || (error.code !== 'timeout' && error.code !== 'disconnected')) return;
    this.failures += 1;
    if (this.failures >= this.options.unresponsiveAfter && this.health === 'responsive') {
      this.health = 'unresponsive';
      this.options.onHealth?.('unresponsive', error.message);
    }
  }

  private async tracked<T>(work: () => Promise<T>): Promise<T> {
    try {
      const value = await work();
      this.succeeded();
      return value;
    } catch (error) {
      this.failed(error);
      throw error;
    }
  }

  /**
   * One request to the UI server. An answer counts as the phone answering; a failure does not count against the
   * phone's health: a hung or dead server is the server's trouble, and the read that met it says so.
   */
  private async serverCall<T>(work: () => Promise<T>): Promise<T> {
    const value = await work();
    this.succeeded();
    return value;
  }

  /** Runs one command in its own shell process and answers what it printed. */
  exec(command: string, timeoutMs = this.options.commandTimeoutMs): Promise<string> {
    return this.tracked(async () => {
      const held: { stream?: Duplex; late?: boolean } = {};
      const work = (async () => {
        const stream = await this.device.shell(command);
        held.stream = stream;
        if (held.late) stream.destroy();
        return (await readAll(stream)).toString('utf8');
      })();
      return withTimeout(work, timeoutMs, `"${command.slice(0, 80)}"`, () => {
        held.late = true;
        held.stream?.destroy();
      }).catch((error: unknown) => {
        if (error instanceof PhoneError) throw error;
        throw new PhoneError('disconnected', `The phone did not run "${command.slice(0, 80)}": ${error instanceof Error ? error.message : String(error)}`);
      });
    });
  }

  /** Runs one input command through the persistent shell. */
  private async inputCommand(command: string): Promise<string> {
    const result = await this.tracked(() => this.input.run(command));
    if (result.exitCode !== 0)
      throw new PhoneError('command_failed', `The phone refused "${command.slice(0, 80)}": ${result.output.trim().slice(0, 200) || `exit ${result.exitCode}`}`);
    return result.output;
  }

  /** A cheap round trip: answers when the phone does, fails when it does not. */
  async ping(): Promise<void> {
    const output = await this.exec('echo farm-ok');
    if (!output.includes('farm-ok')) throw new PhoneError('command_failed', 'The phone answered the ping with something else.');
  }

  async info(): Promise<PhoneInfo> {
    const [properties, size] = await Promise.all([this.exec('getprop'), this.exec('wm size')]);
    this.cachedInfo = phoneInfoFrom(parseGetprop(properties), parseWmSize(size), this.serial);
    return this.cachedInfo;
  }

  async battery(): Promise<BatteryState> {
    return parseBattery(await this.exec('dumpsys battery'));
  }

  async screen(): Promise<ScreenState> {
    return parseScreen(await this.exec(`dumpsys power | grep -E 'mWakefulness=|Display Power: state='`));
  }

  async foregroundApp(): Promise<ForegroundApp | null> {
    return parseForeground(await this.exec(`dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'`));
  }

  async network(): Promise<NetworkState> {
    return parseNetwork(await this.exec(`dumpsys connectivity | grep -E 'Active default network|NetworkAgentInfo'`));
  }

  async screenshot(options: ScreenshotOptions = {}): Promise<Screenshot> {
    const png = await this.tracked(() => {
      const held: { stream?: Duplex; late?: boolean } = {};
      const work = (async () => {
        const stream = await this.device.screencap();
        held.stream = stream;
        if (held.late) stream.destroy();
        return readAll(stream);
      })();
      return withTimeout(work, this.options.screenshotTimeoutMs, 'The screenshot', () => {
        held.late = true;
        held.stream?.destroy();
      });
    });
    if (png.length === 0) throw new PhoneError('command_failed', 'The phone sent an empty screenshot (is the screen secure or off?).');
    return encodeScreenshot(png, options);
  }

  /**
   * Starts the UI server when it is not running (installing it when missing or of another version); answers whether
   * it reads the screen now. A phone that refuses it is read with the dump, and the server is tried again later.
   */
  private async serverReady(): Promise<boolean> {
    const server = this.uiServer;
    if (!server || this.closed) return false;
    if (server.ready) return true;
    if (Date.now() < this.uiServerRetryAt) return false;
    if (!this.starting) {
      this.starting = (async () => {
        try {
          await server.ensure();
          this.uiServerProblem = null;
          return true;
        } catch (error) {
          const refused = error instanceof PhoneError && error.code === 'unsupported';
          this.uiServerProblem = error instanceof Error ? error.message : String(error);
          this.uiServerRetryAt = Date.now() + (refused ? this.options.uiServerInstallRetryMs : this.options.uiServerRetryMs);
          // A half-started instrumentation would hold the phone's UI automation and make every dump fail.
          await server.stop().catch(() => undefined);
          if (error instanceof PhoneError && error.code === 'disconnected') throw error;
          return false;
        } finally {
          this.starting = null;
        }
      })();
    }
    return this.starting;
  }

  async uiReader(): Promise<UiReaderInfo> {
    // The server adds the toasts it hears (its NotificationListener) to the source as android.widget.Toast nodes.
    if (await this.serverReady()) return { kind: 'ui-server', version: this.uiServer?.version ?? null, seesToasts: true };
    // `uiautomator dump` walks the windows' accessibility trees; a toast is no window of the app and is not in it.
    return { kind: 'dump', version: null, seesToasts: false };
  }

  async dumpUi(): Promise<string> {
    const server = this.uiServer;
    if (server && (await this.serverReady())) {
      try {
        return await this.serverCall(() => server.source());
      } catch (error) {
        if (!(error instanceof UiServerError) || error.failure !== 'down') {
          // Hung or garbled: this read ends with its reason; the next one starts the server afresh.
          await server.stop().catch(() => undefined);
          throw error;
        }
      }
      // The server died (UI servers on phones do): started again once, then read.
      await server.stop().catch(() => undefined);
      try {
        await server.start();
        return await this.serverCall(() => server.source());
      } catch (error) {
        await server.stop().catch(() => undefined);
        this.uiServerRetryAt = Date.now() + this.options.uiServerRetryMs;
        this.uiServerProblem = error instanceof Error ? error.message : String(error);
        throw error instanceof PhoneError ? error : new PhoneError('command_failed', this.uiServerProblem);
      }
    }
    return this.dumpWithRetries();
  }

  /** `uiautomator dump --compressed`, asked again on "null root node" and "could not get idle state". */
  private async dumpWithRetries(): Promise<string> {
    const file = this.options.dumpPath;
    // Only one UI automation client runs on a phone: the server's instrumentation is stopped before dumping.
    const stopServer = this.uiServer ? `am force-stop ${UI_SERVER_PACKAGE}; ` : '';
    // The old file is removed first: uiautomator can fail without an exit code and leave a stale dump behind.
    const command = `${stopServer}rm -f ${file}; uiautomator dump --compressed ${file} 2>&1; cat ${file} 2>/dev/null`;
    const attempts = Math.max(1, this.options.dumpAttempts);
    for (let attempt = 1; ; attempt++) {
      const output = await this.exec(command, this.options.dumpTimeoutMs);
      const failure = dumpFailure(output);
      if ((failure === 'idle' || failure === 'null_root') && attempt < attempts) {
        await sleep(this.options.dumpRetryPauseMs);
        continue;
      }
      return parseUiDump(output);
    }
  }

  async tap(x: number, y: number): Promise<void> {
    await this.inputCommand(`input tap ${Math.round(x)} ${Math.round(y)}`);
  }

  async longPress(x: number, y: number, durationMs: number): Promise<void> {
    const [px, py] = [Math.round(x), Math.round(y)];
    await this.inputCommand(`input swipe ${px} ${py} ${px} ${py} ${Math.round(durationMs)}`);
  }

  async swipe(from: Point, to: Point, durationMs: number): Promise<void> {
    await this.inputCommand(`input swipe ${Math.round(from.x)} ${Math.round(from.y)} ${Math.round(to.x)} ${Math.round(to.y)} ${Math.round(durationMs)}`);
  }

  async text(value: string): Promise<void> {
    const server = this.uiServer;
    if (server && (await this.serverReady())) {
      // Appended through the server, so any Unicode lands; with no focused field it goes to `input` as before.
      const field = await this.serverCall(() => server.find('xpath', "//*[@focused='true']"));
      if (field) {
        await this.serverCall(() => server.setValue(field, value, false));
        return;
      }
    }
    await this.typeWithInput(value);
  }

  /** Types with `input text` (printable ASCII, spaces as %s) or, for anything else, ADB Keyboard. */
  private async typeWithInput(value: string): Promise<void> {
    const lines = value.split('\n');
    for (const [index, line] of lines.entries()) {
      if (index > 0) await this.key('enter');
      if (line.length === 0) continue;
      if (isInputTextSafe(line)) {
        for (const argument of inputTextArguments(line)) await this.inputCommand(`input text ${argument}`);
      } else {
        // `input text` types ASCII only; emoji and accents go through the ADB Keyboard IME when it is the phone's keyboard.
        await this.requireAdbKeyboard();
        await this.inputCommand(`am broadcast -a ADB_INPUT_B64 --es msg ${Buffer.from(line, 'utf8').toString('base64')}`);
      }
    }
  }

  /** Throws PhoneError('unsupported') unless ADB Keyboard is the phone's input method. */
  private async requireAdbKeyboard(): Promise<void> {
    const keyboard = await this.exec('settings get secure default_input_method');
    if (!keyboard.includes('com.android.adbkeyboard/')) {
      throw new PhoneError('unsupported', "This text has characters that need the ADB Keyboard app as the phone's keyboard (input text types ASCII only).");
    }
  }

  async setText(value: string, at?: Point): Promise<string | null> {
    const server = this.uiServer;
    if (server && (await this.serverReady())) {
      if (at) await this.tap(at.x, at.y);
      const field = await this.serverCall(() => server.find('xpath', "//*[@focused='true']"));
      if (!field) throw new PhoneError('command_failed', 'No field has the focus to type into.');
      await this.serverCall(() => server.setValue(field, value));
      return this.serverCall(() => server.text(field)).catch(() => null);
    }
    // The dump's fallback: input text types printable ASCII; anything else needs ADB Keyboard, checked before the
    // field is touched so a refusal leaves it as it was.
    if (value.split('\n').some((line) => !isInputTextSafe(line))) await this.requireAdbKeyboard();
    if (at) await this.tap(at.x, at.y);
    const before = focusedText(await this.dumpWithRetries().catch(() => ''));
    // Emptied from its end: as many deletions as the field holds characters (a hint's length when it is empty).
    const length = before === null ? 0 : [...before].length;
    if (length > 0) {
      await this.inputCommand(`input keyevent ${KEYCODE_MOVE_END}`);
      for (let left = length; left > 0; left -= 50) {
        await this.inputCommand(`input keyevent ${Array(Math.min(50, left)).fill(KEYCODE_DEL).join(' ')}`);
      }
    }
    await this.typeWithInput(value);
    return focusedText(await this.dumpWithRetries().catch(() => ''));
  }

  async wake(): Promise<void> {
    await this.key('wakeup');
  }

  async lockState(): Promise<LockState> {
    return parseLockState(await this.exec('dumpsys window policy'));
  }

  async forceStop(packageName: string): Promise<void> {
    if (!/^[\w.]+$/.test(packageName)) throw new PhoneError('command_failed', `"${packageName}" is not a package name.`);
    const output = await this.exec(`am force-stop ${packageName}`);
    if (/Error|Exception/.test(output)) throw new PhoneError('command_failed', `The phone did not stop ${packageName}: ${output.trim().slice(0, 200)}`);
  }

  /**
   * Sends the app what the share sheet would: ACTION_SEND with the file's media store URI. The file must be indexed
   * (`scanMedia`): apps open `content://media/…` URIs with their own media permission, and a `file://` URI is
   * refused by apps targeting Android 7+. `am` builds one URI extra (`--eu`) and has no list of URIs, so
   * ACTION_SEND_MULTIPLE (a carousel) cannot be sent from the shell: it is refused as unsupported with that reason.
   */
  async share(intent: ShareIntent): Promise<void> {
    // No `$`: the name reaches the phone's shell unquoted, where `$…` expands (the recipe schema refuses it too).
    if (!/^[\w.]+$/.test(intent.package) || !/^[\w.]+$/.test(intent.activity))
      throw new PhoneError('command_failed', `"${intent.package}/${intent.activity}" is not an activity.`);
    if (!/^[\w.+-]+\/[\w.+*-]+$/.test(intent.mime)) throw new PhoneError('command_failed', `"${intent.mime}" is not a MIME type.`);
    if (intent.files.length === 0) throw new PhoneError('command_failed', 'A share needs at least one file.');
    if (intent.files.length > 1) {
      throw new PhoneError(
        'unsupported',
        "Sharing several files at once (ACTION_SEND_MULTIPLE) cannot be sent through adb: am's intent arguments carry one URI extra (--eu) and no list of URIs.",
      );
    }
    const [file] = intent.files as [string];
    const uri = (await this.mediaUris([file]))[0];
    if (!uri) throw new PhoneError('command_failed', `${file} is not in the phone's media store (push and scan it first).`);
    const text = intent.text === undefined ? '' : ` --es android.intent.extra.TEXT ${shellQuote(intent.text)}`;
    const output = await this.exec(
      `am start -a android.intent.action.SEND -t ${shellQuote(intent.mime)} --eu android.intent.extra.STREAM ${uri}${text} -n ${intent.package}/${intent.activity}`,
    );
    if (/Error|Exception/.test(output)) throw new PhoneError('command_failed', `The phone did not open the share: ${output.trim().slice(0, 200)}`);
  }

  /** The media store URIs of these files, in order (undefined for one not indexed). */
  private async mediaUris(paths: string[]): Promise<(string | undefined)[]> {
    for (const path of paths) {
      if (!/^\/[\w./ @+-]+$/.test(path)) throw new PhoneError('command_failed', `"${path}" is not a path this host shares.`);
    }
    const where = paths.map((path) => `'${mediaStorePath(path)}'`).join(',');
    const rows = parseContentRows(
      await this.exec(`content query --uri content://media/external/file --projection _id:_data:mime_type --where "_data IN (${where})"`),
    );
    return paths.map((path) => {
      const row = rows.find((item) => item._data === mediaStorePath(path));
      return row?._id ? mediaUri(row._id, row.mime_type ?? '') : undefined;
    });
  }

  async scanMedia(paths: string[]): Promise<void> {
    if (paths.length === 0) return;
    const sdk = (this.cachedInfo ?? (await this.info())).sdk;
    if (sdk >= 29) {
      // MediaProvider's scan_volume (Android 10+) scans the whole volume before it answers.
      const output = await this.exec('content call --method scan_volume --uri content://media --arg external_primary', this.options.mediaIndexTimeoutMs);
      if (/Exception|Error/.test(output)) throw new PhoneError('command_failed', `The phone did not scan its media: ${output.trim().slice(0, 200)}`);
    } else {
      for (const path of paths) {
        const output = await this.exec(`am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d ${shellQuote(`file://${path}`)}`);
        if (!/Broadcast completed/.test(output))
          throw new PhoneError('command_failed', `The media scanner did not take ${path}: ${output.trim().slice(0, 200)}`);
      }
    }
    // The broadcast returns before the scanner has run: the files are looked up until they are there.
    const deadline = Date.now() + this.options.mediaIndexTimeoutMs;
    for (;;) {
      const uris = await this.mediaUris(paths);
      const missing = paths.filter((_, index) => uris[index] === undefined);
      if (missing.length === 0) return;
      if (Date.now() >= deadline) throw new PhoneError('timeout', `The phone's media store did not index ${missing.join(', ')} in time.`);
      await sleep(250);
    }
  }

  async key(key: KeyName): Promise<void> {
    await this.inputCommand(`input keyevent ${androidKeyCodes[key]}`);
  }

  async pushMedia(localPath: string, options: PushMediaOptions = {}): Promise<string> {
    const dir = (options.remoteDir ?? this.options.mediaDir).replace(/\/+$/, '');
    const remote = `${dir}/${options.name ?? basename(localPath)}`;
    let source = localPath;
    if (this.options.mediaRoot !== undefined) {
      // A second wall behind the run's own check: nothing of the host outside its media folder reaches a phone.
      const [root, real] = await Promise.all([realpath(this.options.mediaRoot).catch(() => null), realpath(localPath).catch(() => null)]);
      if (!root || !real || !liesInside(root, real))
        throw new PhoneError('unsupported', `Only files of the farm host's media folder are copied to a phone; ${basename(localPath)} is not one.`);
      source = real;
    }
    const file = await stat(source).catch(() => null);
    if (!file?.isFile()) throw new PhoneError('command_failed', `The media file ${localPath} is not on this farm host.`);
    await this.upload(source, remote, 0o644, this.options.pushTimeoutMs);
    await this.scanMedia([remote]);
    return remote;
  }

  /** Copies a local file onto the phone (an app to install: adb.packages.ts), readable by the shell user. */
  pushFile(localPath: string, remote: string): Promise<void> {
    return this.upload(localPath, remote, 0o644, this.options.pushTimeoutMs);
  }

  /** Copies a local file to `remote` with adb's sync service, with the given file mode. */
  private upload(localPath: string, remote: string, mode: number, timeoutMs: number): Promise<void> {
    return this.tracked(async () => {
      const transfer = await withTimeout(
        Promise.resolve(this.device.push(createReadStream(localPath), remote, mode)),
        this.options.commandTimeoutMs,
        'Starting the upload',
      );
      await withTimeout(
        new Promise<void>((resolve, reject) => {
          transfer.on('end', () => resolve());
          transfer.on('error', (error: Error) =>
            reject(
              // adbkit's PrematureEOFError: the stream ended under the transfer because the phone went away, not a refusal.
              error.name === 'PrematureEOFError'
                ? new PhoneError('disconnected', `The phone went away while receiving ${remote}: ${error.message}`)
                : new PhoneError('command_failed', `The phone refused the file ${remote}: ${error.message}`),
            ),
          );
        }),
        timeoutMs,
        `Uploading ${basename(localPath)}`,
        () => transfer.cancel(),
      );
    });
  }

  async appVersion(packageName: string): Promise<string | null> {
    if (!/^[\w.]+$/.test(packageName)) throw new PhoneError('command_failed', `"${packageName}" is not a package name.`);
    return parseVersionName(await this.exec(`dumpsys package ${packageName} | grep versionName`));
  }

  async launchApp(packageName: string, activity?: string): Promise<void> {
    const command = activity
      ? `am start -n ${shellQuote(`${packageName}/${activity}`)}`
      : `monkey -p ${shellQuote(packageName)} -c android.intent.category.LAUNCHER 1`;
    const output = await this.exec(command);
    if (/No activities found|monkey aborted|does not exist|Error:/i.test(output)) {
      throw new PhoneError('not_installed', `The app ${packageName} could not be opened on this phone (is it installed?).`);
    }
  }

  async openUrl(url: string, packageName?: string): Promise<void> {
    const output = await this.exec(`am start -a android.intent.action.VIEW -d ${shellQuote(url)}${packageName ? ` ${shellQuote(packageName)}` : ''}`);
    if (/Error:|unable to resolve/i.test(output)) throw new PhoneError('command_failed', `The phone could not open ${url}: ${output.trim().slice(0, 200)}`);
  }

  /** The last info read, if any (its screen size scales recipe coordinates). */
  get knownInfo(): PhoneInfo | null {
    return this.cachedInfo;
  }

  /**
   * Streams the screen while someone watches: minicap where a build fits the phone, screenshots otherwise.
   * A phone has one live screen; opening another ends the one before.
   */
  async openLive(options: LiveScreenOptions = {}): Promise<AdbLiveScreen> {
    if (this.closed) throw new PhoneError('disconnected', 'The phone was closed.');
    // The one before is ended first: its minicap holds the socket the new one listens on.
    await this.live?.close();
    const info = this.cachedInfo ?? (await this.info());
    const rotation = await this.displayRotation().catch(() => 0);
    if (this.closed) throw new PhoneError('disconnected', 'The phone was closed.');
    const screen = new AdbLiveScreen(
      {
        info,
        rotation,
        push: (localPath, remote, mode) => this.upload(localPath, remote, mode, this.options.commandTimeoutMs),
        copied: this.copiedMinicap,
        shell: async (command) => this.device.shell(command),
        openLocal: async (path) => this.device.openLocal(path),
        exec: (command, timeoutMs) => this.exec(command, timeoutMs),
        screenshot: (shot) => this.screenshot(shot),
      },
      options,
      { startTimeoutMs: this.options.liveStartTimeoutMs, commandTimeoutMs: this.options.commandTimeoutMs },
    );
    const before = this.live;
    this.live = screen;
    await before?.close();
    await screen.start();
    if (this.closed) throw new PhoneError('disconnected', 'The phone was closed.');
    return screen;
  }

  /**
   * Starts a scrcpy-server session of its own on this phone (H.264 from the phone's encoder, input through its control
   * socket); `serverFile` is the verified file (`ensureScrcpyServer`). The caller ends it; closing the phone ends it too,
   * and so does opening another of the same kind.
   */
  async openScrcpy(kind: ScrcpyStreamKind, serverFile: string, options: Omit<ScrcpySessionOptions, 'kind' | 'serverFile'> = {}): Promise<ScrcpySession> {
    if (this.closed) throw new PhoneError('disconnected', 'The phone was closed.');
    // At most one session of each kind (a control and a watch stream): a new one replaces the one before.
    for (const running of this.scrcpySessions) if (running.kind === kind) running.end(`A new ${kind} stream replaced this one.`);
    const session = new ScrcpySession(
      {
        push: (localPath, remote, mode) => this.upload(localPath, remote, mode, this.options.pushTimeoutMs),
        shell: async (command) => this.device.shell(command),
        openLocal: async (path) => this.device.openLocal(path),
      },
      { startTimeoutMs: this.options.liveStartTimeoutMs, ...options, kind, serverFile },
    );
    this.scrcpySessions.add(session);
    session.onEnded(() => this.scrcpySessions.delete(session));
    await session.start();
    return session;
  }

  /**
   * Restarts the screen sources (a rung of the recovery ladder): every scrcpy session and the minicap stream end, and
   * the agent starts them again while someone watches.
   */
  async restartScreen(reason = 'The farm host restarted the screen source.'): Promise<void> {
    for (const session of [...this.scrcpySessions]) session.end(reason);
    const live = this.live;
    this.live = null;
    await live?.close();
  }

  /**
   * The screen as H.264 from scrcpy-server, with input through its control socket: the live screen's fast path.
   * Rejects (and the agent falls back to JPEG) when this host has no scrcpy-server file or the phone cannot start it.
   */
  async openVideo(kind: ScrcpyStreamKind): Promise<LiveVideoSession> {
    if (!this.options.scrcpyServer) throw new PhoneError('command_failed', 'This farm host has no scrcpy-server: the live screen stays on JPEG.');
    const file = await this.options.scrcpyServer();
    const session = await this.openScrcpy(kind, file, { startTimeoutMs: this.options.videoStartTimeoutMs ?? 10_000 });
    return asLiveVideoSession(session);
  }

  /**
   * Turns the screen a quarter turn from where it is and keeps it there (auto-rotate off). With auto-rotate on, the
   * phone is taken to stand upright: the stored `user_rotation` is stale then.
   */
  async rotate(): Promise<void> {
    const next = ((await this.displayRotation()) + 1) % 4;
    const output = await this.exec(`settings put system accelerometer_rotation 0 && settings put system user_rotation ${next} && echo farm-rotated`);
    if (!output.includes('farm-rotated'))
      throw new PhoneError('command_failed', `The phone did not turn its screen: ${output.trim().slice(0, 200) || 'no answer'}`);
    await this.live?.reorient(next);
  }

  /** The display's rotation in quarter turns, as the rotation settings say (0 while auto-rotate is on). */
  private async displayRotation(): Promise<number> {
    const [auto, user] = (await this.exec('settings get system accelerometer_rotation; settings get system user_rotation'))
      .split('\n')
      .map((line) => line.trim());
    if (auto === '1') return 0;
    const rotation = Number.parseInt(user ?? '', 10);
    return rotation >= 0 && rotation <= 3 ? rotation : 0;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.input.close();
    // Not awaited: on an unplugged phone the force-stop would wait out its limit before the phone is let go.
    void this.uiServer?.stop().catch(() => undefined);
    await this.live?.close();
    for (const session of this.scrcpySessions) session.end('The phone was closed.');
  }
}
