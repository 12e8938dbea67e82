/**
 * A real Android phone driven through the adb server with adbkit. Queries (getprop, dumpsys, uiautomator) run
 * as one shell process each; input goes through one persistent shell (`adb.shell.ts`). Every command has a
 * timeout; consecutive failures mark the phone unresponsive (reported through `onHealth`), the first answer
 * after that marks it responsive again. The live screen (`adb.live.ts`) streams over connections of its own.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
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
  type NetworkState,
  type PhoneDevice,
  type PhoneInfo,
  type Point,
  type PushMediaOptions,
  type ScreenState,
  type Screenshot,
  type ScreenshotOptions,
  type LockState,
  type ShareIntent,
  type UiReaderInfo,
} from '../phone/phone.device.ts';
import {
  inputTextArguments,
  isInputTextSafe,
  parseVersionName,
  parseBattery,
  parseForeground,
  parseGetprop,
  parseNetwork,
  parseScreen,
  parseUiDump,
  parseWmSize,
  phoneInfoFrom,
  shellQuote,
} from './adb.parse.ts';
import { PersistentShell } from './adb.shell.ts';
import { AdbLiveScreen, type LiveScreenOptions } from './adb.live.ts';
import { encodeScreenshot } from '../phone/phone.screenshot.ts';

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
  /** How long minicap has to start streaming before the live screen falls back to screenshots. */
  liveStartTimeoutMs?: number;
  onHealth?: (health: PhoneHealth, reason: string) => void;
}

/** The part of adbkit's DeviceClient this backend uses (tests and other transports may stand in). */
export type AdbDevice = Pick<DeviceClient, 'shell' | 'screencap' | 'push' | 'openLocal'>;

const DEFAULTS = {
  commandTimeoutMs: 10_000,
  dumpTimeoutMs: 20_000,
  screenshotTimeoutMs: 15_000,
  pushTimeoutMs: 120_000,
  unresponsiveAfter: 2,
  dumpPath: '/data/local/tmp/farm-ui.xml',
  mediaDir: '/sdcard/DCIM/Farm',
  liveStartTimeoutMs: 3000,
};

function readAll(stream: Duplex): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer | string) => chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

export class AdbPhone implements PhoneDevice {
  private readonly options: typeof DEFAULTS & Pick<AdbPhoneOptions, 'onHealth'>;
  private readonly input: PersistentShell;
  private failures = 0;
  private cachedInfo: PhoneInfo | null = null;
  private live: AdbLiveScreen | null = null;
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

  async dumpUi(): Promise<string> {
    const file = this.options.dumpPath;
    // The old file is removed first: uiautomator can fail without an exit code and leave a stale dump behind.
    const output = await this.exec(`rm -f ${file}; uiautomator dump ${file} 2>&1; cat ${file} 2>/dev/null`, this.options.dumpTimeoutMs);
    return parseUiDump(output);
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
    const lines = value.split('\n');
    for (const [index, line] of lines.entries()) {
      if (index > 0) await this.key('enter');
      if (line.length === 0) continue;
      if (isInputTextSafe(line)) {
        for (const argument of inputTextArguments(line)) await this.inputCommand(`input text ${argument}`);
      } else {
        // `input text` types ASCII only; emoji and accents go through the ADB Keyboard IME when it is the phone's keyboard.
        const keyboard = await this.exec('settings get secure default_input_method');
        if (!keyboard.includes('com.android.adbkeyboard/')) {
          throw new PhoneError(
            'command_failed',
            "This text has characters that need the ADB Keyboard app as the phone's keyboard (input text types ASCII only).",
          );
        }
        await this.inputCommand(`am broadcast -a ADB_INPUT_B64 --es msg ${Buffer.from(line, 'utf8').toString('base64')}`);
      }
    }
  }

  async key(key: KeyName): Promise<void> {
    await this.inputCommand(`input keyevent ${androidKeyCodes[key]}`);
  }

  async uiReader(): Promise<UiReaderInfo> {
    return { kind: 'dump', version: null, seesToasts: false };
  }

  /**
   * Empties the field (cursor to its end, then deletes) and types `value`. `uiautomator dump` cannot say what landed
   * without another read, so this answers null and the runner reads the screen to check.
   */
  async setText(value: string, at?: Point): Promise<string | null> {
    if (!isInputTextSafe(value.replace(/\n/g, ' '))) {
      const keyboard = await this.exec('settings get secure default_input_method');
      if (!keyboard.includes('com.android.adbkeyboard/'))
        throw new PhoneError('unsupported', "This text has characters that need the ADB Keyboard app as the phone's keyboard (input text types ASCII only).");
    }
    if (at) await this.tap(at.x, at.y);
    // KEYCODE_MOVE_END, then DEL enough times for any caption (2,200 characters) in one command.
    await this.inputCommand(`input keyevent 123 ${Array.from({ length: 2200 }, () => '67').join(' ')}`);
    await this.text(value);
    return null;
  }

  async wake(): Promise<void> {
    await this.key('wakeup');
  }

  async lockState(): Promise<LockState> {
    const output = await this.exec('dumpsys window policy; dumpsys window');
    const locked = /mDreamingLockscreen=true|isKeyguardShowing=true|mShowingLockscreen=true|showing=true/.test(output);
    if (!locked) return 'unlocked';
    return /isSecure=true|mSecure=true|secure=true/.test(output) ? 'locked_secure' : 'locked';
  }

  async forceStop(packageName: string): Promise<void> {
    if (!/^[\w.]+$/.test(packageName)) throw new PhoneError('command_failed', `"${packageName}" is not a package name.`);
    await this.exec(`am force-stop ${packageName}`);
  }

  async share(intent: ShareIntent): Promise<void> {
    const uris = intent.files.map((file) => shellQuote(`file://${file}`));
    const action = intent.files.length > 1 ? 'android.intent.action.SEND_MULTIPLE' : 'android.intent.action.SEND';
    const stream = intent.files.length > 1 ? `--eua android.intent.extra.STREAM ${uris.join(',')}` : `--eu android.intent.extra.STREAM ${uris[0] ?? "''"}`;
    const text = intent.text ? ` --es android.intent.extra.TEXT ${shellQuote(intent.text)}` : '';
    const output = await this.exec(
      `am start -a ${action} -t ${shellQuote(intent.mime)} ${stream}${text} --grant-read-uri-permission -n ${shellQuote(`${intent.package}/${intent.activity}`)}`,
    );
    if (/Error:|unable to resolve|does not exist/i.test(output))
      throw new PhoneError('command_failed', `The phone could not share to ${intent.package}: ${output.trim().slice(0, 200)}`);
  }

  async scanMedia(paths: string[]): Promise<void> {
    const sdk = (this.cachedInfo ?? (await this.info())).sdk;
    if (sdk >= 29) {
      await this.exec('content call --method scan_volume --uri content://media --arg external_primary', Math.max(this.options.commandTimeoutMs, 30_000));
      return;
    }
    for (const path of paths) await this.exec(`am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d ${shellQuote(`file://${path}`)}`);
  }

  async pushMedia(localPath: string, options: PushMediaOptions = {}): Promise<string> {
    const dir = (options.remoteDir ?? this.options.mediaDir).replace(/\/+$/, '');
    const remote = `${dir}/${options.name ?? basename(localPath)}`;
    const file = await stat(localPath).catch(() => null);
    if (!file?.isFile()) throw new PhoneError('command_failed', `The media file ${localPath} is not on this farm host.`);
    await this.upload(localPath, remote, 0o644, this.options.pushTimeoutMs);
    const output = await this.exec(`am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d ${shellQuote(`file://${remote}`)}`);
    if (!/Broadcast completed/.test(output)) throw new PhoneError('command_failed', `The media scanner did not take ${remote}: ${output.trim().slice(0, 200)}`);
    return remote;
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
          transfer.on('error', (error: Error) => reject(new PhoneError('command_failed', `The phone refused the file ${remote}: ${error.message}`)));
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
    await this.live?.close();
  }
}
