/**
 * What the agent core asks of a phone, whoever drives it: a real Android phone over ADB (`src/adb/`) or the
 * simulated phone UI (`src/simphone/`). Recipes run against this interface only, so the same steps work on both.
 */

/** A point in the phone's screen pixels. */
export interface Point {
  x: number;
  y: number;
}

export interface ScreenSize {
  width: number;
  height: number;
}

export interface PhoneInfo {
  serial: string;
  manufacturer: string;
  model: string;
  /** As the phone says it (`ro.build.version.release`), e.g. "14". */
  androidVersion: string;
  sdk: number;
  /** Primary ABI, e.g. "arm64-v8a". */
  abi: string;
  /** Physical screen size in pixels (portrait), the space taps and swipes are given in. */
  screen: ScreenSize;
}

export interface BatteryState {
  /** 0..100 */
  level: number;
  charging: boolean;
  /** What it is plugged into, or null on battery. */
  plugged: 'ac' | 'usb' | 'wireless' | 'dock' | null;
  temperatureC: number | null;
}

export interface ScreenState {
  on: boolean;
}

export interface ForegroundApp {
  package: string;
  /** Fully qualified activity class, when the phone says it. */
  activity: string | null;
}

export interface NetworkState {
  connected: boolean;
  transport: 'wifi' | 'cellular' | 'ethernet' | 'vpn' | 'other' | null;
}

export interface ScreenshotOptions {
  /** Longest side of the image in pixels; the phone's aspect is kept. */
  maxSide?: number;
  /** JPEG quality 1..100. */
  quality?: number;
}

export interface Screenshot {
  mime: 'image/jpeg';
  data: Buffer;
  width: number;
  height: number;
  capturedAt: string;
}

/** Keys a recipe or a person may press. */
export const keyNames = [
  'back',
  'home',
  'enter',
  'recents',
  'power',
  'volume_up',
  'volume_down',
  'delete',
  'tab',
  'search',
  'menu',
  'wakeup',
  'sleep',
  'escape',
] as const;
export type KeyName = (typeof keyNames)[number];

/** Android's KEYCODE_* values for each key. */
export const androidKeyCodes: Record<KeyName, number> = {
  home: 3,
  back: 4,
  volume_up: 24,
  volume_down: 25,
  power: 26,
  tab: 61,
  enter: 66,
  delete: 67,
  menu: 82,
  search: 84,
  escape: 111,
  recents: 187,
  sleep: 223,
  wakeup: 224,
};

export interface PushMediaOptions {
  /** Folder on the phone; the gallery shows what is under DCIM or Pictures. */
  remoteDir?: string;
  /** File name on the phone; the local file's name when absent. */
  name?: string;
}

/** A frame of the live screen: a screenshot, and how it was captured. */
export interface LiveScreenFrame extends Screenshot {
  source: 'minicap' | 'screencap' | 'sim';
}

/** The phone's screen as a stream of frames, while someone watches. */
export interface LiveFrameSource {
  /** The next frame newer than the last one this answered (waits for it); rejects once closed or when `signal` aborts. */
  next(signal?: AbortSignal): Promise<LiveScreenFrame>;
  /** Stops capturing (a minicap process is ended on the phone). */
  close(): Promise<void>;
}

/** One H.264 packet as the phone's encoder made it (Annex B), with the picture size it was configured for. */
export interface LiveVideoPacket {
  config: boolean;
  keyFrame: boolean;
  ptsUs: number | null;
  data: Uint8Array;
  width: number;
  height: number;
}

/**
 * The phone's screen as H.264 (scrcpy-server), and input through the same session's control socket: "the phone's
 * screen as the browser sees it" and "an input sent to the phone", without a shell command per action. One session
 * per stream kind; it ends by itself when the server dies (`onEnded` says why).
 */
export interface LiveVideoSession {
  readonly kind: 'control' | 'watch';
  /** Sends every packet from now on (first the configuration and the current group of pictures); answers the unsubscribe. */
  watch(send: (packet: LiveVideoPacket) => number): () => void;
  /** Asks the encoder for a key frame at once. */
  keyFrame(): void;
  /** A touch, in the picture's pixels as last configured. */
  touch(action: 'down' | 'move' | 'up', x: number, y: number): void;
  scroll(x: number, y: number, vertical: number): void;
  /** An Android key code, pressed and released. */
  key(keycode: number): void;
  back(): void;
  /** Any Unicode: as text where scrcpy injects it, else through the clipboard. */
  type(text: string): void;
  /** Empties the clipboard when the last `type` went in by a paste; answers whether it did (absent: it never pastes). */
  clearPasted?(): boolean;
  rotate(): void;
  /** The picture's size as last configured (it changes when the phone turns). */
  readonly size: { width: number; height: number };
  onEnded(listener: (reason: string) => void): () => void;
  end(reason?: string): void;
}

/** Which reader reads a phone's UI, for the console and for guards that need toasts. */
export interface UiReaderInfo {
  kind: 'ui-server' | 'dump' | 'sim';
  /** The UI server's version (e.g. "10.6.6"), or null for the dump. */
  version: string | null;
  /** Whether toasts appear in what this reader returns. */
  seesToasts: boolean;
}

/** Whether the keyguard shows; `locked_secure` needs a PIN, pattern or password, which nothing here enters. */
export type LockState = 'unlocked' | 'locked' | 'locked_secure';

/** What the system share sheet would send an app: the deterministic way into its post flow. */
export interface ShareIntent {
  package: string;
  activity: string;
  mime: string;
  /** Paths on the phone, already pushed and indexed (`scanMedia`). */
  files: string[];
  text?: string;
}

/** A heartbeat's readings taken together; each is null when it could not be read. */
export interface PhoneReadings {
  battery: BatteryState | null;
  screen: ScreenState | null;
  foreground: ForegroundApp | null;
  network: NetworkState | null;
}

export interface PhoneDevice {
  readonly serial: string;
  info(): Promise<PhoneInfo>;
  battery(): Promise<BatteryState>;
  screen(): Promise<ScreenState>;
  foregroundApp(): Promise<ForegroundApp | null>;
  network(): Promise<NetworkState>;
  /**
   * Battery, screen, app in front and network in one query, for a phone where one costs less than four (over adb:
   * one shell instead of four, every few seconds); rejects when the phone did not answer it.
   */
  readings?(): Promise<PhoneReadings>;
  screenshot(options?: ScreenshotOptions): Promise<Screenshot>;
  /**
   * The screen's UI tree as XML: `uiautomator dump` (`<node …>`) or the UiAutomator2 server's `/source` (tags named
   * by class); `parseUiXml` reads both. Throws `UiBusyError` when the screen never settles.
   */
  dumpUi(): Promise<string>;
  tap(x: number, y: number): Promise<void>;
  longPress(x: number, y: number, durationMs: number): Promise<void>;
  swipe(from: Point, to: Point, durationMs: number): Promise<void>;
  /** Types into the focused field. */
  text(value: string): Promise<void>;
  /** Which reader reads this phone's UI. */
  uiReader(): Promise<UiReaderInfo>;
  /**
   * Replaces what the focused (or given) field holds with `value`; answers what the field holds afterwards, or null
   * when it cannot be read. Throws PhoneError('unsupported', …) with a reason when the reader cannot type these characters.
   */
  setText(value: string, at?: Point): Promise<string | null>;
  /** Turns the screen on (KEYCODE_WAKEUP); does not unlock. */
  wake(): Promise<void>;
  lockState(): Promise<LockState>;
  forceStop(packageName: string): Promise<void>;
  /** Sends ACTION_SEND (one file) or ACTION_SEND_MULTIPLE to the given activity. */
  share(intent: ShareIntent): Promise<void>;
  /** Registers pushed files with the media store (scan_volume on Android 10+, the scanner broadcast before). */
  scanMedia(paths: string[]): Promise<void>;
  key(key: KeyName): Promise<void>;
  /** Copies a file to the phone and registers it with the media scanner so apps' galleries show it; answers its path on the phone. */
  pushMedia(localPath: string, options?: PushMediaOptions): Promise<string>;
  /** The installed app's version name (`360.0.0.52.192`), or null when it is not installed; recipes are chosen by it. */
  appVersion(packageName: string): Promise<string | null>;
  /** Brings the app to the front (its launcher activity unless one is named). */
  launchApp(packageName: string, activity?: string): Promise<void>;
  /** Opens a web address or deep link, in the given app when named. */
  openUrl(url: string, packageName?: string): Promise<void>;
  /**
   * Starts an activity by action and data only (no component, no extras): group control's Settings pages and Play
   * Store pages, checked against its closed list before. Absent: the phone cannot.
   */
  startIntent?(action: string, data?: string): Promise<void>;
  close(): Promise<void>;
  /**
   * Streams the screen faster than one screenshot after another, where the phone can (minicap on a real phone, the
   * simulator's own renderer). Absent: the agent takes screenshots in a loop.
   */
  openLive?(options: ScreenshotOptions): Promise<LiveFrameSource>;
  /** Streams the screen as H.264 where the phone can (scrcpy-server on a real phone); rejects with the reason otherwise. */
  openVideo?(kind: 'control' | 'watch'): Promise<LiveVideoSession>;
  /** False when `openVideo` can never start here (a farm host run with `--no-h264`): the agent does not offer H.264. */
  readonly videoAvailable?: boolean;
  /** Turns the screen a quarter turn (auto-rotate off). */
  rotate?(): Promise<void>;
  /** The phone's UI language as a BCP 47 tag ("en-US"), for recipes written for one language; absent: not checked. */
  locale?(): Promise<string | null>;
  /** The language picked for one app where the phone has per-app languages (Android 13+), or null: `locale()` shows. */
  appLocale?(packageName: string): Promise<string | null>;
  /** The device's name in the console, for phones that can show it (the simulator draws it on its screen). */
  named?(name: string): void;
}

/** `unsupported`: the phone cannot do this as set up (typing emoji with no UI server and no ADB Keyboard). */
export type PhoneErrorCode = 'timeout' | 'ui_busy' | 'command_failed' | 'disconnected' | 'not_installed' | 'unsupported';

/** A phone did not do what it was asked; `code` says how. */
export class PhoneError extends Error {
  constructor(
    readonly code: PhoneErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'PhoneError';
  }
}

/** `uiautomator dump` could not read the screen because it never went idle (video feeds, animations). */
export class UiBusyError extends PhoneError {
  constructor(message = 'The screen never went idle long enough to be read ("could not get idle state").') {
    super('ui_busy', message);
    this.name = 'UiBusyError';
  }
}

/** Settles as `work` does, or rejects with `expired()` once `ms` have passed without an answer. */
export function timeLimit<T>(work: Promise<T>, ms: number, expired: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(expired()), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** Runs `work` but gives up after `ms`: a phone that stops answering is never waited on forever. */
export function withTimeout<T>(work: Promise<T>, ms: number, what: string, onTimeout?: () => void): Promise<T> {
  const settled = work.catch((error: unknown) => {
    throw error instanceof Error ? error : new Error(String(error));
  });
  return timeLimit(settled, ms, () => {
    onTimeout?.();
    return new PhoneError('timeout', `${what} got no answer within ${ms} ms.`);
  });
}
