/**
 * A real Android phone driven through the adb server with adbkit. Queries (getprop, dumpsys, uiautomator) run
 * as one shell process each; input goes through one persistent shell (`adb.shell.ts`). Every command has a
 * timeout; consecutive failures mark the phone unresponsive (reported through `onHealth`), the first answer
 * after that marks it responsive again. The live screen (`adb.live.ts`) streams over connections of its own.
 *
 * This file composes the phone and owns its public face; the work lives in rooms that change for their own reasons:
 * `adb.facts.ts` (what the phone says about itself), `adb.uiread.ts` (the UI server or the dump), `adb.input.ts`
 * (touches, keys, typing), `adb.apps.ts` (opening and stopping apps), `adb.media.ts` (files, the media store, shares)
 * and `adb.capture.ts` (screenshots, live screen, scrcpy, rotation), over the line they share in `adb.link.ts`.
 */
import type {
  BatteryState,
  ForegroundApp,
  KeyName,
  LiveVideoSession,
  LockState,
  NetworkState,
  PhoneDevice,
  PhoneInfo,
  PhoneReadings,
  Point,
  PushMediaOptions,
  ScreenState,
  Screenshot,
  ScreenshotOptions,
  ShareIntent,
  UiReaderInfo,
} from '../phone/phone.device.ts';
import { PhoneApps } from './adb.apps.ts';
import { PhoneCapture } from './adb.capture.ts';
import { PhoneFacts } from './adb.facts.ts';
import { PhoneInput } from './adb.input.ts';
import { PhoneLink, type AdbDevice, type AdbPhoneOptions, type PhoneHealth } from './adb.link.ts';
import type { AdbLiveScreen, LiveScreenOptions } from './adb.live.ts';
import { PhoneMedia } from './adb.media.ts';
import type { ScrcpyStreamKind } from './adb.scrcpy.ts';
import type { ScrcpySession, ScrcpySessionOptions } from './adb.scrcpy.session.ts';
import { UiReads } from './adb.uiread.ts';
import type { UiServer } from './adb.uiserver.ts';

// The phone's vocabulary lives in its rooms; callers keep importing it from here.
export type { AdbDevice, AdbPhoneOptions, PhoneHealth } from './adb.link.ts';
export { bundledUiServer } from './adb.uiread.ts';

export class AdbPhone implements PhoneDevice {
  private readonly link: PhoneLink;
  private readonly facts: PhoneFacts;
  private readonly ui: UiReads;
  private readonly input: PhoneInput;
  private readonly apps: PhoneApps;
  private readonly media: PhoneMedia;
  private readonly capture: PhoneCapture;

  constructor(
    readonly serial: string,
    device: AdbDevice,
    options: AdbPhoneOptions = {},
  ) {
    this.link = new PhoneLink(serial, device, options);
    this.facts = new PhoneFacts(this.link);
    this.ui = new UiReads(this.link);
    this.input = new PhoneInput(this.link, this.ui);
    this.apps = new PhoneApps(this.link);
    this.media = new PhoneMedia(this.link, this.facts);
    this.capture = new PhoneCapture(this.link, this.facts);
  }

  get health(): PhoneHealth {
    return this.link.health;
  }

  /** The phone's UiAutomator2 server, or null when this host reads with the dump only. */
  get uiServer(): UiServer | null {
    return this.ui.server;
  }

  /** Why the dump reads this phone (the server could not be installed or started), for the console. */
  get uiServerProblem(): string | null {
    return this.ui.problem;
  }

  /** How many input shells were opened so far (one while the phone keeps answering). */
  get inputShellsOpened(): number {
    return this.input.shellsOpened;
  }

  /** When the phone last gave a screenshot and how long it took, or null before the first and after one that failed. */
  get lastScreenshot(): { at: number; tookMs: number } | null {
    return this.capture.lastShot;
  }

  /** The last info read, if any (its screen size scales recipe coordinates). */
  get knownInfo(): PhoneInfo | null {
    return this.facts.known;
  }

  /** Runs one command in its own shell process and answers what it printed. */
  exec(command: string, timeoutMs?: number): Promise<string> {
    return this.link.exec(command, timeoutMs);
  }

  /** A cheap round trip: answers when the phone does, fails when it does not. */
  ping(): Promise<void> {
    return this.facts.ping();
  }

  /** Whether the phone answered anything (a command, its UI server) within the last `ms`. */
  answeredWithin(ms: number): boolean {
    const at = this.link.answeredAt;
    return at !== null && performance.now() - at < ms;
  }

  info(): Promise<PhoneInfo> {
    return this.facts.info();
  }

  /** The phone's language (`fr-FR`), or null: the language splits an install needs, and what recipes read on screen. */
  locale(): Promise<string | null> {
    return this.facts.locale();
  }

  /** The language picked for one app on Android 13+ (Settings › Apps › Language), or null: the phone's own then shows. */
  appLocale(packageName: string): Promise<string | null> {
    return this.facts.appLocale(packageName);
  }

  battery(): Promise<BatteryState> {
    return this.facts.battery();
  }

  screen(): Promise<ScreenState> {
    return this.facts.screen();
  }

  foregroundApp(): Promise<ForegroundApp | null> {
    return this.facts.foregroundApp();
  }

  network(): Promise<NetworkState> {
    return this.facts.network();
  }

  /** Battery, screen, app in front and network in one shell (a heartbeat's reading). */
  readings(): Promise<PhoneReadings> {
    return this.facts.readings();
  }

  lockState(): Promise<LockState> {
    return this.facts.lockState();
  }

  /**
   * Which reader reads the phone's UI. A running UI server is asked its `/status` (the fleet's health check calls
   * this): one that does not answer is reported down (rejects with the reason) and stopped, so the next read starts it.
   */
  uiReader(): Promise<UiReaderInfo> {
    return this.ui.reader();
  }

  dumpUi(): Promise<string> {
    return this.ui.dump();
  }

  tap(x: number, y: number): Promise<void> {
    return this.input.tap(x, y);
  }

  longPress(x: number, y: number, durationMs: number): Promise<void> {
    return this.input.longPress(x, y, durationMs);
  }

  swipe(from: Point, to: Point, durationMs: number): Promise<void> {
    return this.input.swipe(from, to, durationMs);
  }

  key(key: KeyName): Promise<void> {
    return this.input.key(key);
  }

  text(value: string): Promise<void> {
    return this.input.text(value);
  }

  setText(value: string, at?: Point): Promise<string | null> {
    return this.input.setText(value, at);
  }

  wake(): Promise<void> {
    return this.input.wake();
  }

  appVersion(packageName: string): Promise<string | null> {
    return this.apps.version(packageName);
  }

  launchApp(packageName: string, activity?: string): Promise<void> {
    return this.apps.launch(packageName, activity);
  }

  openUrl(url: string, packageName?: string): Promise<void> {
    return this.apps.openUrl(url, packageName);
  }

  startIntent(action: string, data?: string): Promise<void> {
    return this.apps.startIntent(action, data);
  }

  forceStop(packageName: string): Promise<void> {
    return this.apps.forceStop(packageName);
  }

  share(intent: ShareIntent): Promise<void> {
    return this.media.share(intent);
  }

  scanMedia(paths: string[]): Promise<void> {
    return this.media.scan(paths);
  }

  pushMedia(localPath: string, options?: PushMediaOptions): Promise<string> {
    return this.media.push(localPath, options);
  }

  /** Copies a local file onto the phone (an app to install: adb.packages.ts), readable by the shell user. */
  pushFile(localPath: string, remote: string): Promise<void> {
    return this.media.pushFile(localPath, remote);
  }

  screenshot(options?: ScreenshotOptions): Promise<Screenshot> {
    return this.capture.screenshot(options);
  }

  /** Streams the screen while someone watches; a phone has one live screen, opening another ends the one before. */
  openLive(options?: LiveScreenOptions): Promise<AdbLiveScreen> {
    return this.capture.openLive(options);
  }

  /** Starts a scrcpy-server session of its own on this phone; the caller ends it, and so does closing the phone. */
  openScrcpy(kind: ScrcpyStreamKind, serverFile: string, options?: Omit<ScrcpySessionOptions, 'kind' | 'serverFile'>): Promise<ScrcpySession> {
    return this.capture.openScrcpy(kind, serverFile, options);
  }

  /** Restarts the screen sources (a rung of the recovery ladder): the agent starts them again while someone watches. */
  restartScreen(reason = 'The farm host restarted the screen source.'): Promise<void> {
    return this.capture.restart(reason);
  }

  /** Whether this host has a scrcpy-server to start at all (none with `--no-h264`). */
  get videoAvailable(): boolean {
    return this.link.options.scrcpyServer !== undefined;
  }

  /** The screen as H.264 from scrcpy-server; rejects (and the agent falls back to JPEG) when it cannot start. */
  openVideo(kind: ScrcpyStreamKind): Promise<LiveVideoSession> {
    return this.capture.openVideo(kind);
  }

  /** Turns the screen a quarter turn from where it is and keeps it there (auto-rotate off). */
  rotate(): Promise<void> {
    return this.capture.rotate();
  }

  async close(): Promise<void> {
    this.link.closed = true;
    this.input.close();
    this.ui.stop();
    await this.capture.close();
  }
}
