/**
 * A simulated phone with a UI: Instagram's and TikTok's screens as real phones dump them (the fixtures of
 * `test/fixtures/real/`, see `simphone.screens.ts`), reacting to taps on their real ids, keys, swipes and typing,
 * read as `uiautomator dump` XML and drawn for screenshots. It implements `PhoneDevice`, so the shipped recipes
 * run on it unchanged and demo routines show their steps. It records every tap with its coordinates and what it
 * hit, and can play a login challenge, a suspended account, a rate limit, a private account or a busy video screen.
 */
import { basename } from 'node:path';
import sharp from 'sharp';
import {
  PhoneError,
  UiBusyError,
  type BatteryState,
  type ForegroundApp,
  type KeyName,
  type LiveFrameSource,
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
import { encodeScreenshot } from '../phone/phone.screenshot.ts';
import type { SimulatedFixture } from './simphone.fixtures.list.ts';
import { nodesAt, toSvg, toUiXml, walk, type SimNode } from './simphone.render.ts';
import { INSTAGRAM, instagramScreen, LAUNCHER, launcherScreen, TIKTOK, TIKTOK_TRILL, tiktokScreen, type SimApi, type SimScreen } from './simphone.screens.ts';

export interface SimulatedPhoneUiOptions {
  serial?: string;
  model?: string;
  width?: number;
  height?: number;
  battery?: number;
  /** What the apps show at launch instead of their home screen. */
  challenge?: 'login' | 'blocked' | null;
  /** The platform refuses likes after this many (a "Try Again Later" dialog over the screen). */
  rateLimitAfterLikes?: number;
  /** Dumps fail with "could not get idle state" while a video plays (Reels, TikTok's feed). */
  busyOnVideo?: boolean;
  /** Media already in the gallery. */
  media?: string[];
  /** Clock for screenshots' status bar. */
  now?: () => Date;
  /** Which TikTok is installed: `com.zhiliaoapp.musically` (most countries, the default) or `com.ss.android.ugc.trill`. */
  tiktokPackage?: typeof TIKTOK | typeof TIKTOK_TRILL;
  /** Accounts whose profiles are private. */
  privateAccounts?: string[];
  /** Installed apps' versions by package (Instagram 447.0.0.55.81, TikTok 43.1.4 or trill 46.1.3 by default). */
  versions?: Record<string, string>;
  /** Posts already liked (ids as `events` name them: `sunny.trails#0`, `tt:maya_k#0`). */
  liked?: string[];
  /** TikTok opens with the add-phone-number sheet over its feed. */
  sheet?: 'add-phone';
  /** Instagram fails the next upload ("Video can't be posted"). */
  uploadFails?: boolean;
  /** Trees of real phones that replace the embedded ones, by fixture name (another build, another caption). */
  fixtures?: Partial<Record<SimulatedFixture, string>>;
  /** The phone's UI language (its screens are the English fixtures'): `en-US` by default; null, a phone that cannot say. */
  locale?: string | null;
}

export interface SimTap {
  x: number;
  y: number;
  /** resource-id, text or content-desc of the node hit; null when the tap hit nothing. */
  hit: string | null;
  app: string;
  screen: string;
}

type AppName = 'launcher' | 'instagram' | 'tiktok';

export class SimulatedPhoneUi implements PhoneDevice {
  readonly serial: string;
  readonly taps: SimTap[] = [];
  readonly swipes: { from: Point; to: Point; durationMs: number }[] = [];
  readonly keys: KeyName[] = [];
  readonly typed: string[] = [];
  /** What happened in the apps, in words ("liked sunny.trails#0"). */
  readonly events: string[] = [];
  readonly published: { app: string; caption: string; media: string | null }[] = [];
  readonly comments: { postId: string; text: string }[] = [];
  /** What was shared to the apps, and the files registered with the media store. */
  readonly shares: ShareIntent[] = [];
  readonly scanned: string[] = [];
  /** A toast on screen, as the UI server adds it to the page source (a last android.widget.Toast node). */
  private toast: { text: string; reads: number } | null = null;
  /** The keyguard: set it to play a locked phone. */
  locked: LockState = 'unlocked';
  /** Dumps to fail as busy before the next one reads (on top of busy video screens). */
  busyDumps = 0;
  dumps = 0;
  /** A line drawn over screenshots (the step being run). */
  caption: string | undefined;
  /** The device's name in the console, drawn in the status bar and on the home screen once the server tells it. */
  name: string | undefined;
  batteryLevel: number;
  charging = false;
  screenOn = true;
  private app: AppName = 'launcher';
  private readonly stacks: Record<'instagram' | 'tiktok', SimScreen[]> = { instagram: [], tiktok: [] };
  private readonly api: SimApi;
  private likes = 0;
  private closed = false;

  constructor(private readonly options: SimulatedPhoneUiOptions = {}) {
    this.serial = options.serial ?? 'SIM-0001';
    this.batteryLevel = options.battery ?? 87;
    this.api = {
      width: options.width ?? 1080,
      height: options.height ?? 2400,
      feedIndex: 0,
      reelIndex: 0,
      liked: new Set(options.liked ?? []),
      followed: new Set(),
      privateAccounts: new Set(options.privateAccounts ?? []),
      pendingReads: 0,
      uploadFailed: false,
      sheet: options.sheet ?? null,
      fixtures: options.fixtures ?? {},
      posted: this.comments,
      media: [...(options.media ?? ['IMG_20240818_191204.jpg', 'IMG_20240817_083311.jpg', 'IMG_20240815_120045.jpg'])],
      draft: { query: '', caption: '', comment: '' },
      focused: null,
      push: (screen) => {
        this.stack?.push(screen);
        this.api.focused = null;
      },
      replace: (screen) => {
        const stack = this.stack;
        if (!stack) return;
        stack.length = 0;
        stack.push(screen);
        this.api.focused = null;
      },
      swap: (screen) => {
        const stack = this.stack;
        if (!stack) return;
        stack.splice(-1, 1, screen);
        this.api.focused = null;
      },
      back: () => this.back(),
      focus: (field) => {
        this.api.focused = field;
        // A search box and a comment box start empty; a caption keeps what was typed.
        if (field === 'comment') this.api.draft.comment = '';
        if (field === 'search') this.api.draft.query = '';
      },
      like: (postId) => this.like(postId),
      follow: (user) => {
        // A second tap on Following would unfollow; the simulated app keeps the follow.
        if (this.api.followed.has(user)) return;
        this.api.followed.add(user);
        this.log(`followed ${user}`);
      },
      comment: (postId) => {
        const text = this.api.draft.comment.trim();
        if (!text) return;
        this.comments.push({ postId, text });
        this.api.draft.comment = '';
        this.api.focused = null;
        this.log(`commented on ${postId}: ${text}`);
      },
      publish: () => this.publish(),
      log: (event) => this.log(event),
    };
  }

  private get stack(): SimScreen[] | null {
    return this.app === 'launcher' ? null : this.stacks[this.app];
  }

  private get current(): SimScreen | null {
    const stack = this.stack;
    return stack ? (stack[stack.length - 1] ?? null) : null;
  }

  /** Where the phone is: `instagram/feed`, `tiktok/search`, `launcher`. */
  get where(): string {
    const current = this.current;
    return current ? `${this.app}/${current.name}` : this.app;
  }

  get liked(): ReadonlySet<string> {
    return this.api.liked;
  }

  get followed(): ReadonlySet<string> {
    return this.api.followed;
  }

  get media(): readonly string[] {
    return this.api.media;
  }

  private log(event: string): void {
    this.events.push(event);
  }

  private get tiktokPackage(): string {
    return this.options.tiktokPackage ?? TIKTOK;
  }

  private packageName(): string {
    return this.app === 'instagram' ? INSTAGRAM : this.app === 'tiktok' ? this.tiktokPackage : LAUNCHER;
  }

  private appFor(packageName: string): 'instagram' | 'tiktok' | null {
    return packageName === INSTAGRAM ? 'instagram' : packageName === this.tiktokPackage ? 'tiktok' : null;
  }

  private tree(): SimNode {
    const current = this.current;
    if (!current) return launcherScreen(this.api, (pkg) => void this.launchApp(pkg), this.name ?? this.options.model ?? 'Simulated Pixel', this.tiktokPackage);
    return this.app === 'instagram'
      ? instagramScreen(this.api, current)
      : tiktokScreen(this.api, current, this.tiktokPackage === TIKTOK_TRILL ? 'trill' : 'musically');
  }

  private isVideo(): boolean {
    const current = this.current;
    return (this.app === 'instagram' && current?.name === 'reels') || (this.app === 'tiktok' && (current?.name === 'feed' || current?.name === 'post'));
  }

  private like(postId: string): void {
    if (this.api.liked.has(postId)) {
      this.api.liked.delete(postId);
      this.log(`unliked ${postId}`);
      return;
    }
    // Past its limit the platform refuses the like and says so in a dialog over the screen (Instagram's "Try Again
    // Later", TikTok's "Try again later"): the like does not stick.
    const limit = this.options.rateLimitAfterLikes;
    if (limit !== undefined && this.likes >= limit) {
      this.stack?.push({ name: 'limited' });
      this.log(`like refused on ${postId}`);
      return;
    }
    this.api.liked.add(postId);
    this.likes += 1;
    this.log(`liked ${postId}`);
  }

  private publish(): void {
    const caption = this.api.draft.caption;
    this.published.push({ app: this.app, caption, media: this.api.media[0] ?? null });
    this.log(`published on ${this.app}: ${caption}`);
    this.api.draft.caption = '';
    this.api.focused = null;
    // TikTok says so in a toast ("video posted", YallaPapi/geelark-automation .taskmaster/docs/geelark_tiktok_flow.md),
    // which only a reader that sees toasts reports: here, for the next few reads.
    if (this.app === 'tiktok') this.toast = { text: 'Video posted', reads: 3 };
    // Instagram shows the upload's pending row over the feed for a while ("Posting to …"), then drops it, or says the
    // upload failed ("Video can't be posted").
    if (this.app === 'instagram') this.api.pendingReads = 2;
    if (this.app === 'instagram' && this.options.uploadFails) {
      this.api.uploadFailed = true;
      this.published.pop();
      this.log('upload failed');
    }
    const stack = this.stack;
    if (stack) {
      stack.length = 0;
      stack.push({ name: 'feed' });
    }
  }

  private back(): void {
    if (this.api.focused) {
      // Back first closes the keyboard, as on a phone.
      this.api.focused = null;
      return;
    }
    const stack = this.stack;
    if (!stack) return;
    stack.pop();
    if (stack.length === 0) this.app = 'launcher';
  }

  private alive(): void {
    if (this.closed) throw new PhoneError('disconnected', 'The simulated phone was closed.');
  }

  async info(): Promise<PhoneInfo> {
    this.alive();
    return {
      serial: this.serial,
      manufacturer: 'Simulated',
      model: this.options.model ?? 'Simulated Pixel',
      androidVersion: '14',
      sdk: 34,
      abi: 'arm64-v8a',
      screen: { width: this.api.width, height: this.api.height },
    };
  }

  async battery(): Promise<BatteryState> {
    this.alive();
    return { level: this.batteryLevel, charging: this.charging, plugged: this.charging ? 'usb' : null, temperatureC: 29.5 };
  }

  async screen(): Promise<ScreenState> {
    this.alive();
    return { on: this.screenOn };
  }

  async foregroundApp(): Promise<ForegroundApp | null> {
    this.alive();
    const pkg = this.packageName();
    return {
      package: pkg,
      activity:
        this.app === 'instagram'
          ? 'com.instagram.mainactivity.InstagramMainActivity'
          : this.app === 'tiktok'
            ? 'com.ss.android.ugc.aweme.splash.SplashActivity'
            : `${LAUNCHER}.NexusLauncherActivity`,
    };
  }

  async network(): Promise<NetworkState> {
    this.alive();
    return { connected: true, transport: 'wifi' };
  }

  /** The UI language, as a real phone's `persist.sys.locale` says it. */
  async locale(): Promise<string | null> {
    this.alive();
    return this.options.locale === undefined ? 'en-US' : this.options.locale;
  }

  /** The screen drawn as an SVG, status bar and the step being run included. */
  private drawing(): string {
    const now = this.options.now?.() ?? new Date();
    return toSvg(this.tree(), {
      width: this.api.width,
      height: this.api.height,
      time: `${String(now.getHours()).padStart(2, '0')}:${String(now.getMinutes()).padStart(2, '0')}`,
      battery: this.batteryLevel,
      charging: this.charging,
      title: `${this.app === 'launcher' ? 'Home' : this.app === 'instagram' ? 'Instagram' : 'TikTok'} · ${this.name ?? this.options.model ?? 'Simulated Pixel'}`,
      dark: this.isVideo() || this.app === 'launcher',
      ...(this.caption ? { caption: this.caption } : {}),
    });
  }

  async screenshot(options: ScreenshotOptions = {}): Promise<Screenshot> {
    this.alive();
    return encodeScreenshot(await sharp(Buffer.from(this.drawing())).png().toBuffer(), options);
  }

  /** A frame of the live screen: drawn straight at the size asked for, which keeps up with several frames a second. */
  async frame(options: ScreenshotOptions = {}): Promise<Screenshot> {
    this.alive();
    const scale = Math.min(1, (options.maxSide ?? 720) / Math.max(this.api.width, this.api.height));
    const { data, info } = await sharp(Buffer.from(this.drawing()), { density: 72 * scale })
      .flatten({ background: '#000000' })
      .jpeg({ quality: options.quality ?? 60 })
      .toBuffer({ resolveWithObject: true });
    return { mime: 'image/jpeg', data, width: info.width, height: info.height, capturedAt: new Date().toISOString() };
  }

  async openLive(options: ScreenshotOptions): Promise<LiveFrameSource> {
    this.alive();
    let closed = false;
    return {
      next: async (signal) => {
        if (closed || signal?.aborted) throw new PhoneError('disconnected', 'The live screen was closed.');
        return { ...(await this.frame(options)), source: 'sim' as const };
      },
      close: async () => {
        closed = true;
      },
    };
  }

  /** The simulated screen does not turn; a person is told so rather than shown nothing happening. */
  async rotate(): Promise<void> {
    throw new PhoneError('command_failed', 'The simulated phone does not turn its screen');
  }

  async dumpUi(): Promise<string> {
    this.alive();
    this.dumps += 1;
    if (this.busyDumps > 0) {
      this.busyDumps -= 1;
      throw new UiBusyError();
    }
    if (this.options.busyOnVideo && this.isVideo()) throw new UiBusyError();
    return this.uiXml();
  }

  /** The screen as `uiautomator dump` writes it, read now (no busy screens): what a fake adb phone prints. */
  uiXml(): string {
    this.alive();
    const tree = this.tree();
    if (this.toast && this.toast.reads > 0) {
      this.toast.reads -= 1;
      // As appium-uiautomator2-server writes a toast it heard: class android.widget.Toast, package com.android.settings.
      tree.children = [
        ...(tree.children ?? []),
        { cls: 'android.widget.Toast', pkg: 'com.android.settings', text: this.toast.text, bounds: [180, 2000, this.api.width - 180, 2100] },
      ];
    }
    return toUiXml(tree, this.packageName());
  }

  async tap(x: number, y: number): Promise<void> {
    this.alive();
    const where = this.where;
    // What the finger lands on, then what holds it: the first that reacts takes the tap (a label inside a button).
    const path = nodesAt(this.tree(), x, y);
    const node = path.find((item) => item.onTap) ?? path.find((item) => item.clickable) ?? null;
    const name = (item: SimNode) => (item.id ? (item.id.split(':id/')[1] ?? item.id) : (item.text ?? item.desc ?? null));
    this.taps.push({ x, y, hit: node ? name(node) : null, app: this.app, screen: where });
    node?.onTap?.();
  }

  async longPress(x: number, y: number, _durationMs: number): Promise<void> {
    await this.tap(x, y);
  }

  async swipe(from: Point, to: Point, durationMs: number): Promise<void> {
    this.alive();
    this.swipes.push({ from, to, durationMs });
    const vertical = Math.abs(to.y - from.y) >= Math.abs(to.x - from.x);
    if (!vertical) return;
    const step = to.y < from.y ? 1 : -1;
    const current = this.current;
    if (!current) return;
    if (current.name === 'reels' && this.app === 'instagram') this.api.reelIndex = Math.max(0, this.api.reelIndex + step);
    else if (current.name === 'feed') this.api.feedIndex = Math.max(0, this.api.feedIndex + step);
    else if (current.name === 'post') {
      const stack = this.stack;
      if (stack) stack[stack.length - 1] = { ...current, n: Math.max(0, current.n + step) };
    }
  }

  async text(value: string): Promise<void> {
    this.alive();
    this.typed.push(value);
    const field = this.api.focused;
    if (field === 'search') {
      this.api.draft.query += value;
      const current = this.current;
      // Instagram lists accounts as you type; TikTok waits for its Search button.
      if (this.app === 'instagram' && (current?.name === 'search' || current?.name === 'results'))
        this.stack?.splice(-1, 1, { name: 'results', query: this.api.draft.query });
    } else if (field === 'caption') this.api.draft.caption += value;
    else if (field === 'comment') this.api.draft.comment += value;
  }

  async uiReader(): Promise<UiReaderInfo> {
    return { kind: 'sim', version: null, seesToasts: true };
  }

  /** Empties the focused field, types `value`, and answers what the field holds. */
  async setText(value: string, at?: Point): Promise<string | null> {
    this.alive();
    if (at) await this.tap(at.x, at.y);
    const field = this.api.focused;
    if (field === 'search') this.api.draft.query = '';
    else if (field === 'caption') this.api.draft.caption = '';
    else if (field === 'comment') this.api.draft.comment = '';
    await this.text(value);
    if (field === 'search') return this.api.draft.query;
    if (field === 'caption') return this.api.draft.caption;
    if (field === 'comment') return this.api.draft.comment;
    return null;
  }

  async wake(): Promise<void> {
    this.alive();
    this.screenOn = true;
  }

  async lockState(): Promise<LockState> {
    this.alive();
    return this.locked;
  }

  async forceStop(packageName: string): Promise<void> {
    this.alive();
    const app = this.appFor(packageName);
    if (!app) return;
    this.stacks[app].length = 0;
    this.api.focused = null;
    if (this.app === app) this.app = 'launcher';
    this.log(`stopped ${app}`);
  }

  /**
   * Hands the files to the app as the share sheet would: Instagram opens its caption screen for them, TikTok its
   * editor (whose Next leads to the caption screen). An app that is not installed refuses, as Android does.
   */
  async share(intent: ShareIntent): Promise<void> {
    this.alive();
    const app = this.appFor(intent.package);
    if (!app) throw new PhoneError('not_installed', `No activity ${intent.package}/${intent.activity} takes ${intent.mime} on this phone.`);
    this.shares.push(intent);
    for (const file of [...intent.files].reverse()) if (!this.api.media.includes(basename(file))) this.api.media.unshift(basename(file));
    this.open(intent.package);
    this.api.draft.caption = '';
    this.stack?.push(app === 'instagram' ? { name: 'caption' } : { name: 'editor' });
    this.log(`shared ${intent.files.map((file) => basename(file)).join(', ')} to ${app}`);
  }

  async scanMedia(paths: string[]): Promise<void> {
    this.alive();
    this.scanned.push(...paths);
  }

  async key(key: KeyName): Promise<void> {
    this.alive();
    this.keys.push(key);
    if (key === 'back') this.back();
    if (key === 'delete') {
      const field = this.api.focused;
      if (field === 'search') this.api.draft.query = this.api.draft.query.slice(0, -1);
      if (field === 'caption') this.api.draft.caption = this.api.draft.caption.slice(0, -1);
      if (field === 'comment') this.api.draft.comment = this.api.draft.comment.slice(0, -1);
    }
    if (key === 'home') this.app = 'launcher';
    if (key === 'enter' && this.api.focused === 'search') {
      this.api.focused = null;
      this.stack?.splice(-1, 1, { name: 'results', query: this.api.draft.query });
    }
    if (key === 'power') this.screenOn = !this.screenOn;
  }

  async pushMedia(localPath: string, options: PushMediaOptions = {}): Promise<string> {
    this.alive();
    const name = options.name ?? basename(localPath);
    this.api.media.unshift(name);
    this.log(`media added ${name}`);
    return `${(options.remoteDir ?? '/sdcard/DCIM/Farm').replace(/\/+$/, '')}/${name}`;
  }

  async appVersion(packageName: string): Promise<string | null> {
    this.alive();
    if (packageName !== INSTAGRAM && packageName !== this.tiktokPackage) return null;
    // TikTok's versions are the fixtures' (43.1.4 musically, 46.1.3 trill). Instagram's dumps record none: the
    // simulated app says the newest version the evidence names (joeahkim/InstaAddict, 447.0.0.55.81).
    const defaults: Record<string, string> = { [INSTAGRAM]: '447.0.0.55.81', [TIKTOK]: '43.1.4', [TIKTOK_TRILL]: '46.1.3' };
    return this.options.versions?.[packageName] ?? defaults[packageName] ?? null;
  }

  async launchApp(packageName: string): Promise<void> {
    this.open(packageName);
  }

  /** Brings the app to the front at once (its effects land before the caller's next read, as a fake phone's shell needs). */
  private open(packageName: string): void {
    this.alive();
    const app = this.appFor(packageName);
    if (!app) throw new PhoneError('not_installed', `The app ${packageName} could not be opened on this phone (is it installed?).`);
    this.app = app;
    const stack = this.stacks[app];
    if (stack.length === 0) stack.push({ name: this.options.challenge === 'login' ? 'login' : this.options.challenge === 'blocked' ? 'blocked' : 'feed' });
    this.api.focused = null;
    this.api.draft.query = '';
    this.log(`opened ${app}`);
  }

  async openUrl(url: string): Promise<void> {
    this.alive();
    const match = /instagram\.com\/([\w.]+)/.exec(url) ?? /tiktok\.com\/@([\w.]+)/.exec(url);
    if (!match?.[1]) throw new PhoneError('command_failed', `The phone could not open ${url}.`);
    this.open(url.includes('tiktok') ? this.tiktokPackage : INSTAGRAM);
    this.log(`opened link ${url}`);
    this.stack?.push({ name: 'profile', user: match[1] });
  }

  named(name: string): void {
    this.name = name;
  }

  /** Shows a recipe's progress over the screen: pass it as the run's `onProgress`. */
  readonly showStep = (progress: { status: string; label: string }): void => {
    if (progress.status === 'started') this.caption = progress.label;
  };

  /** Every node on screen, for tests that look for an element. */
  nodes(): SimNode[] {
    const all: SimNode[] = [];
    walk(this.tree(), (node) => all.push(node));
    return all;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
