/**
 * A simulated phone with a UI: Instagram's and TikTok's screens as real phones dump them (the fixtures of
 * `test/fixtures/real/`, see `simphone.screens.ts`), with a home screen, Settings and the Play Store's settings for
 * group control (`simphone.system.ts`), reacting to taps on their real ids, keys, swipes and typing,
 * read as `uiautomator dump` XML and drawn for screenshots. It implements `PhoneDevice`, so the shipped recipes
 * run on it unchanged and demo routines show their steps. It records every tap with its coordinates and what it
 * hit, and can play a login challenge, a suspended account, a rate limit, a private account or a busy video screen.
 *
 * This file composes the phone and owns its public face; the work lives in rooms that change for their own reasons:
 * `simphone.apps.ts` (the apps' state and where the phone is), `simphone.input.ts` (taps, swipes, typing, keys),
 * `simphone.display.ts` (the dump and the drawing) and `simphone.facts.ts` (what the phone says about itself), with
 * what it records and what tests set on it in `simphone.state.ts`.
 */
import type {
  BatteryState,
  ForegroundApp,
  KeyName,
  LiveFrameSource,
  LockState,
  NetworkState,
  PhoneDevice,
  PhoneInfo,
  Point,
  PushMediaOptions,
  ScreenState,
  Screenshot,
  ScreenshotOptions,
  ShareIntent,
  UiReaderInfo,
} from '../phone/phone.device.ts';
import { PhoneError } from '../phone/phone.device.ts';
import { SimApps } from './simphone.apps.ts';
import { SimDisplay } from './simphone.display.ts';
import { SimFacts } from './simphone.facts.ts';
import { SimInput } from './simphone.input.ts';
import type { SimNode } from './simphone.render.ts';
import { SimState, type SimTap, type SimulatedPhoneUiOptions } from './simphone.state.ts';

// The phone's vocabulary lives in its rooms; callers keep importing it from here.
export type { SimTap, SimulatedPhoneUiOptions } from './simphone.state.ts';

export class SimulatedPhoneUi implements PhoneDevice {
  private readonly state: SimState;
  private readonly apps: SimApps;
  private readonly input: SimInput;
  private readonly display: SimDisplay;
  private readonly facts: SimFacts;
  readonly serial: string;
  readonly taps: SimTap[];
  readonly swipes: SimState['swipes'];
  readonly keys: KeyName[];
  readonly typed: string[];
  /** What happened in the apps, in words ("liked sunny.trails#0"). */
  readonly events: string[];
  readonly published: SimState['published'];
  readonly comments: SimState['comments'];
  /** What was shared to the apps, and the files registered with the media store. */
  readonly shares: ShareIntent[];
  readonly scanned: string[];

  constructor(options: SimulatedPhoneUiOptions = {}) {
    const state = new SimState(options);
    this.state = state;
    this.apps = new SimApps(state);
    this.input = new SimInput(state, this.apps);
    this.display = new SimDisplay(state, this.apps);
    this.facts = new SimFacts(state, this.apps);
    this.serial = state.serial;
    this.taps = state.taps;
    this.swipes = state.swipes;
    this.keys = state.keys;
    this.typed = state.typed;
    this.events = state.events;
    this.published = state.published;
    this.comments = state.comments;
    this.shares = state.shares;
    this.scanned = state.scanned;
  }

  /** The keyguard: set it to play a locked phone. */
  get locked(): LockState {
    return this.state.locked;
  }
  set locked(value: LockState) {
    this.state.locked = value;
  }

  /** Dumps to fail as busy before the next one reads (on top of busy video screens). */
  get busyDumps(): number {
    return this.state.busyDumps;
  }
  set busyDumps(value: number) {
    this.state.busyDumps = value;
  }

  get dumps(): number {
    return this.state.dumps;
  }
  set dumps(value: number) {
    this.state.dumps = value;
  }

  /** A line drawn over screenshots (the step being run). */
  get caption(): string | undefined {
    return this.state.caption;
  }
  set caption(value: string | undefined) {
    this.state.caption = value;
  }

  /** The device's name in the console, drawn in the status bar and on the home screen once the server tells it. */
  get name(): string | undefined {
    return this.state.name;
  }
  set name(value: string | undefined) {
    this.state.name = value;
  }

  get batteryLevel(): number {
    return this.state.batteryLevel;
  }
  set batteryLevel(value: number) {
    this.state.batteryLevel = value;
  }

  get charging(): boolean {
    return this.state.charging;
  }
  set charging(value: boolean) {
    this.state.charging = value;
  }

  get screenOn(): boolean {
    return this.state.screenOn;
  }
  set screenOn(value: boolean) {
    this.state.screenOn = value;
  }

  /** Where the phone is: `instagram/feed`, `tiktok/search`, `launcher`. */
  get where(): string {
    return this.apps.where;
  }

  get liked(): ReadonlySet<string> {
    return this.apps.api.liked;
  }

  get followed(): ReadonlySet<string> {
    return this.apps.api.followed;
  }

  get media(): readonly string[] {
    return this.apps.api.media;
  }

  info(): Promise<PhoneInfo> {
    return this.facts.info();
  }

  battery(): Promise<BatteryState> {
    return this.facts.battery();
  }

  screen(): Promise<ScreenState> {
    return this.facts.screen();
  }

  lockState(): Promise<LockState> {
    return this.facts.lockState();
  }

  foregroundApp(): Promise<ForegroundApp | null> {
    return this.facts.foregroundApp();
  }

  network(): Promise<NetworkState> {
    return this.facts.network();
  }

  /** The UI language, as a real phone's `persist.sys.locale` says it. */
  locale(): Promise<string | null> {
    return this.facts.locale();
  }

  appVersion(packageName: string): Promise<string | null> {
    return this.facts.appVersion(packageName);
  }

  async uiReader(): Promise<UiReaderInfo> {
    return { kind: 'sim', version: null, seesToasts: true };
  }

  screenshot(options?: ScreenshotOptions): Promise<Screenshot> {
    return this.display.screenshot(options);
  }

  /** A frame of the live screen: drawn straight at the size asked for, which keeps up with several frames a second. */
  frame(options?: ScreenshotOptions): Promise<Screenshot> {
    return this.display.frame(options);
  }

  openLive(options: ScreenshotOptions): Promise<LiveFrameSource> {
    return this.display.openLive((shot) => this.frame(shot), options);
  }

  /** The simulated screen does not turn; a person is told so rather than shown nothing happening. */
  async rotate(): Promise<void> {
    throw new PhoneError('command_failed', 'The simulated phone does not turn its screen');
  }

  dumpUi(): Promise<string> {
    return this.display.dumpUi();
  }

  /** The screen as `uiautomator dump` writes it, read now (no busy screens): what a fake adb phone prints. */
  uiXml(): string {
    return this.display.uiXml();
  }

  /** Every node on screen, for tests that look for an element. */
  nodes(): SimNode[] {
    return this.display.nodes();
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

  text(value: string): Promise<void> {
    return this.input.text(value);
  }

  /** Empties the focused field, types `value`, and answers what the field holds. */
  setText(value: string, at?: Point): Promise<string | null> {
    return this.input.setText(value, at);
  }

  key(key: KeyName): Promise<void> {
    return this.input.key(key);
  }

  wake(): Promise<void> {
    return this.input.wake();
  }

  forceStop(packageName: string): Promise<void> {
    return this.apps.forceStop(packageName);
  }

  /** Hands the files to the app as the share sheet would; an app that is not installed refuses, as Android does. */
  share(intent: ShareIntent): Promise<void> {
    return this.apps.share(intent);
  }

  scanMedia(paths: string[]): Promise<void> {
    return this.apps.scanMedia(paths);
  }

  pushMedia(localPath: string, options?: PushMediaOptions): Promise<string> {
    return this.apps.pushMedia(localPath, options);
  }

  launchApp(packageName: string): Promise<void> {
    return this.apps.launch(packageName);
  }

  openUrl(url: string): Promise<void> {
    return this.apps.openUrl(url);
  }

  /** Group control's intents: Settings' home and its Network & internet page; anything else is refused in a sentence. */
  startIntent(action: string, data?: string): Promise<void> {
    return this.apps.startIntent(action, data);
  }

  /** What Settings and the Play Store hold (Airplane mode, the auto-update choice), for tests to read. */
  get settings(): Readonly<SimApps['settings']> {
    return this.apps.settings;
  }

  named(name: string): void {
    this.state.name = name;
  }

  /** Shows a recipe's progress over the screen: pass it as the run's `onProgress`. */
  readonly showStep = (progress: { status: string; label: string }): void => {
    if (progress.status === 'started') this.state.caption = progress.label;
  };

  async close(): Promise<void> {
    this.state.close();
  }
}
