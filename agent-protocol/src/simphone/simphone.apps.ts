/**
 * The simulated apps' state and where the phone is: which app is in front, each app's stack of screens, and what the
 * screens read and call back into (`SimApi`): likes (refused past the rate limit), follows, comments, a published
 * post (its toast, its pending or failed upload), back, and the fields being typed into. Opening, stopping, sharing
 * to and linking into an app move the stacks here, media pushed to the phone joins the gallery the apps show, and the
 * screen in front is built here from its app's screens. Settings and the Play Store keep their own stacks of pages
 * (`simphone.system.ts`), opened from the home screen's icons or by an intent (`startIntent`).
 */
import { basename } from 'node:path';
import { PhoneError, type PushMediaOptions, type ShareIntent } from '../phone/phone.device.ts';
import { instagramScreen } from './simphone.instagram.ts';
import type { SimNode } from './simphone.render.ts';
import { INSTAGRAM, TIKTOK, TIKTOK_TRILL, type SimApi, type SimScreen } from './simphone.screens.ts';
import type { SimState } from './simphone.state.ts';
import { LAUNCHER, launcherScreen, PLAY_STORE, SETTINGS, systemScreen, type SystemNav, type SystemScreen, type SystemSettings } from './simphone.system.ts';
import { tiktokScreen } from './simphone.tiktok.ts';

type AppName = 'launcher' | 'instagram' | 'tiktok' | SystemApp;
type SystemApp = 'settings' | 'playstore';
type Field = NonNullable<SimApi['focused']>;

export class SimApps {
  app: AppName = 'launcher';
  private readonly stacks: Record<'instagram' | 'tiktok', SimScreen[]> = { instagram: [], tiktok: [] };
  private readonly systemStacks: Record<SystemApp, SystemScreen[]> = { settings: [], playstore: [] };
  /** What Settings and the Play Store hold (Airplane mode, the auto-update choice). */
  readonly settings: SystemSettings = { airplane: false, autoUpdate: 'Update over Wi-Fi only' };
  private readonly nav: SystemNav;
  readonly api: SimApi;
  private likes = 0;

  constructor(private readonly state: SimState) {
    const { options } = state;
    this.api = {
      width: options.width ?? 1080,
      height: options.height ?? 2400,
      feedIndex: 0,
      reelIndex: 0,
      liked: new Set(options.liked ?? []),
      followed: new Set(),
      privateAccounts: new Set(options.privateAccounts ?? []),
      account: options.account ?? 'farm.account',
      commentsOff: options.commentsOff ?? false,
      pendingReads: 0,
      postedReads: 0,
      uploadFailed: options.leftoverUploadFailed !== undefined,
      leftoverFailed: options.leftoverUploadFailed ?? 'discards',
      sheet: options.sheet ?? null,
      fixtures: options.fixtures ?? {},
      posted: state.comments,
      media: [...(options.media ?? ['IMG_20240818_191204.jpg', 'IMG_20240817_083311.jpg', 'IMG_20240815_120045.jpg'])],
      draft: { query: '', caption: '', comment: '' },
      focused: null,
      push: (screen) => this.push(screen),
      replace: (screen) => this.replace(screen),
      swap: (screen) => this.swap(screen),
      back: () => this.back(),
      focus: (field) => this.focus(field),
      like: (postId) => this.like(postId),
      follow: (user) => this.follow(user),
      comment: (postId) => this.comment(postId),
      publish: () => this.publish(),
      log: (event) => state.log(event),
    };
    this.nav = {
      push: (screen) => this.systemStack?.push(screen),
      back: () => this.back(),
      log: (event) => state.log(event),
    };
  }

  /** The pages of Settings or the Play Store when one is in front, else null. */
  get systemStack(): SystemScreen[] | null {
    return this.app === 'settings' || this.app === 'playstore' ? this.systemStacks[this.app] : null;
  }

  /** A vertical swipe in Settings: its home's list scrolls (up: to its later rows), other pages hold still. */
  scrollSystem(step: 1 | -1): void {
    const pages = this.systemStack;
    const top = pages?.at(-1);
    if (pages && top?.name === 'home') pages[pages.length - 1] = { name: 'home', scrolled: step > 0 };
  }

  /** The stack of the app in front; null on the home screen. */
  get stack(): SimScreen[] | null {
    return this.app === 'instagram' || this.app === 'tiktok' ? this.stacks[this.app] : null;
  }

  get current(): SimScreen | null {
    const stack = this.stack;
    return stack ? (stack[stack.length - 1] ?? null) : null;
  }

  /** Where the phone is: `instagram/feed`, `tiktok/search`, `launcher`. */
  get where(): string {
    const page = this.systemStack?.at(-1);
    if (page) return `${this.app}/${page.name}`;
    const current = this.current;
    return current ? `${this.app}/${current.name}` : this.app;
  }

  get tiktokPackage(): string {
    return this.state.options.tiktokPackage ?? TIKTOK;
  }

  packageName(): string {
    const packages: Record<AppName, string> = {
      instagram: INSTAGRAM,
      tiktok: this.tiktokPackage,
      settings: SETTINGS,
      playstore: PLAY_STORE,
      launcher: LAUNCHER,
    };
    return packages[this.app];
  }

  private appFor(packageName: string): 'instagram' | 'tiktok' | null {
    return packageName === INSTAGRAM ? 'instagram' : packageName === this.tiktokPackage ? 'tiktok' : null;
  }

  private systemAppFor(packageName: string): SystemApp | null {
    return packageName === SETTINGS ? 'settings' : packageName === PLAY_STORE ? 'playstore' : null;
  }

  /** The screen in front, built from its app's screens with the phone's state laid over it. */
  tree(): SimNode {
    const page = this.systemStack?.at(-1);
    if (page) return systemScreen(this.api, page, this.settings, this.nav);
    const current = this.current;
    if (!current) return launcherScreen(this.api, (pkg) => void this.launch(pkg), this.state.shownName, this.tiktokPackage);
    return this.app === 'instagram'
      ? instagramScreen(this.api, current)
      : tiktokScreen(this.api, current, this.tiktokPackage === TIKTOK_TRILL ? 'trill' : 'musically');
  }

  isVideo(): boolean {
    const current = this.current;
    return (this.app === 'instagram' && current?.name === 'reels') || (this.app === 'tiktok' && (current?.name === 'feed' || current?.name === 'post'));
  }

  private push(screen: SimScreen): void {
    this.stack?.push(screen);
    this.api.focused = null;
  }

  /** Switches tab: the screen becomes the only one. */
  private replace(screen: SimScreen): void {
    const stack = this.stack;
    if (!stack) return;
    stack.length = 0;
    stack.push(screen);
    this.api.focused = null;
  }

  /** The top screen becomes another (a flow's next page). */
  private swap(screen: SimScreen): void {
    const stack = this.stack;
    if (!stack) return;
    stack.splice(-1, 1, screen);
    this.api.focused = null;
  }

  private focus(field: Field): void {
    this.api.focused = field;
    // A search box and a comment box start empty; a caption keeps what was typed.
    if (field === 'comment') this.api.draft.comment = '';
    if (field === 'search') this.api.draft.query = '';
  }

  private follow(user: string): void {
    // A second tap on Following would unfollow; the simulated app keeps the follow.
    if (this.api.followed.has(user)) return;
    this.api.followed.add(user);
    this.state.log(`followed ${user}`);
  }

  private comment(postId: string): void {
    const text = this.api.draft.comment.trim();
    if (!text) return;
    this.state.comments.push({ postId, text });
    this.api.draft.comment = '';
    this.api.focused = null;
    this.state.log(`commented on ${postId}: ${text}`);
  }

  private like(postId: string): void {
    if (this.api.liked.has(postId)) {
      this.api.liked.delete(postId);
      this.state.log(`unliked ${postId}`);
      return;
    }
    // Past its limit the platform refuses the like and says so in a dialog over the screen (Instagram's "Try Again
    // Later", TikTok's "Try again later"): the like does not stick.
    const limit = this.state.options.rateLimitAfterLikes;
    if (limit !== undefined && this.likes >= limit) {
      this.stack?.push({ name: 'limited' });
      this.state.log(`like refused on ${postId}`);
      return;
    }
    this.api.liked.add(postId);
    this.likes += 1;
    this.state.log(`liked ${postId}`);
  }

  private publish(): void {
    const { state } = this;
    const caption = this.api.draft.caption;
    state.published.push({ app: this.app, caption, media: this.api.media[0] ?? null });
    state.log(`published on ${this.app}: ${caption}`);
    this.api.draft.caption = '';
    this.api.focused = null;
    // TikTok says so in a toast ("video posted", YallaPapi/geelark-automation .taskmaster/docs/geelark_tiktok_flow.md),
    // which only a reader that sees toasts reports: here, for the next few reads.
    if (this.app === 'tiktok') {
      const words = state.options.postToast ?? 'Video posted';
      state.toast = { text: words, reads: 3 };
      if (/couldn.t/i.test(words)) {
        state.published.pop();
        state.log('post refused');
      }
    }
    // Instagram shows the upload's pending row over the feed for a while ("Posting to …"), then says "Posted!" in it
    // (or, told so, drops it unsaid), or says the upload failed ("Video can't be posted").
    if (this.app === 'instagram') {
      this.api.pendingReads = 2;
      this.api.postedReads = state.options.uploadFails || state.options.uploadUnconfirmed ? 0 : 3;
    }
    if (this.app === 'instagram' && state.options.uploadFails) {
      this.api.uploadFailed = true;
      state.published.pop();
      state.log('upload failed');
    }
    const stack = this.stack;
    if (stack) {
      stack.length = 0;
      stack.push({ name: 'feed' });
    }
  }

  back(): void {
    if (this.api.focused) {
      // Back first closes the keyboard, as on a phone.
      this.api.focused = null;
      return;
    }
    if (this.app === 'instagram' && this.api.sheet === 'promotion') {
      // Back closes a sheet before it leaves the screen under it.
      this.api.sheet = null;
      this.api.log('closed the promotion sheet');
      return;
    }
    const pages = this.systemStack;
    if (pages) {
      pages.pop();
      if (pages.length === 0) this.app = 'launcher';
      return;
    }
    const stack = this.stack;
    if (!stack) return;
    stack.pop();
    if (stack.length === 0) this.app = 'launcher';
  }

  /** The home button: the apps keep their screens behind it. */
  home(): void {
    this.app = 'launcher';
  }

  async launch(packageName: string): Promise<void> {
    this.open(packageName);
  }

  /** Brings the app to the front at once (its effects land before the caller's next read, as a fake phone's shell needs). */
  open(packageName: string): void {
    this.state.alive();
    const system = this.systemAppFor(packageName);
    if (system) {
      // From its icon at its first page, not where it was left: every phone of a group lands on the same screen.
      this.openSystem(system, [system === 'settings' ? { name: 'home' } : { name: 'preferences' }]);
      return;
    }
    const app = this.appFor(packageName);
    if (!app) throw new PhoneError('not_installed', `The app ${packageName} could not be opened on this phone (is it installed?).`);
    this.app = app;
    const stack = this.stacks[app];
    const { challenge } = this.state.options;
    if (stack.length === 0) stack.push({ name: challenge === 'login' ? 'login' : challenge === 'blocked' ? 'blocked' : 'feed' });
    this.api.focused = null;
    this.api.draft.query = '';
    this.state.log(`opened ${app}`);
  }

  /**
   * Settings or the Play Store in front on these pages: Settings' home or an intent's page; the Play Store's settings,
   * the only screen of it the fixtures have.
   */
  private openSystem(app: SystemApp, pages: SystemScreen[]): void {
    this.app = app;
    this.systemStacks[app].splice(0, this.systemStacks[app].length, ...pages);
    this.api.focused = null;
    this.state.log(`opened ${app}`);
  }

  /**
   * An intent from group control's closed list (checked before it gets here): Settings' home, its Network & internet
   * page for the Wi-Fi and wireless actions. The simulated Play Store has no app pages, and nothing else opens.
   */
  async startIntent(action: string, data?: string): Promise<void> {
    this.state.alive();
    if (data === undefined && action === 'android.settings.SETTINGS') return this.openSystem('settings', [{ name: 'home' }]);
    if (data === undefined && (action === 'android.settings.WIFI_SETTINGS' || action === 'android.settings.WIRELESS_SETTINGS'))
      return this.openSystem('settings', [{ name: 'network' }]);
    if (action === 'android.intent.action.VIEW' && data?.startsWith('market://details?id='))
      throw new PhoneError(
        'command_failed',
        `The simulated Play Store has no page for ${data.slice('market://details?id='.length)}: it shows only its settings.`,
      );
    throw new PhoneError('command_failed', `The simulated phone cannot open ${action}${data !== undefined ? ` with ${data}` : ''}.`);
  }

  async forceStop(packageName: string): Promise<void> {
    this.state.alive();
    const system = this.systemAppFor(packageName);
    if (system) {
      this.systemStacks[system].length = 0;
      if (this.app === system) this.app = 'launcher';
      this.state.log(`stopped ${system}`);
      return;
    }
    const app = this.appFor(packageName);
    if (!app) return;
    this.stacks[app].length = 0;
    this.api.focused = null;
    if (this.app === app) this.app = 'launcher';
    this.state.log(`stopped ${app}`);
  }

  /**
   * Hands the files to the app as the share sheet would: Instagram opens its caption screen for them, TikTok its
   * editor (whose Next leads to the caption screen). An app that is not installed refuses, as Android does.
   */
  async share(intent: ShareIntent): Promise<void> {
    this.state.alive();
    const app = this.appFor(intent.package);
    if (!app) throw new PhoneError('not_installed', `No activity ${intent.package}/${intent.activity} takes ${intent.mime} on this phone.`);
    this.state.shares.push(intent);
    for (const file of [...intent.files].reverse()) if (!this.api.media.includes(basename(file))) this.api.media.unshift(basename(file));
    this.open(intent.package);
    this.api.draft.caption = '';
    this.stack?.push(app === 'instagram' ? { name: 'caption' } : { name: 'editor' });
    this.state.log(`shared ${intent.files.map((file) => basename(file)).join(', ')} to ${app}`);
  }

  async scanMedia(paths: string[]): Promise<void> {
    this.state.alive();
    this.state.scanned.push(...paths);
  }

  async pushMedia(localPath: string, options: PushMediaOptions = {}): Promise<string> {
    this.state.alive();
    const name = options.name ?? basename(localPath);
    this.api.media.unshift(name);
    this.state.log(`media added ${name}`);
    return `${(options.remoteDir ?? '/sdcard/DCIM/Farm').replace(/\/+$/, '')}/${name}`;
  }

  async openUrl(url: string): Promise<void> {
    this.state.alive();
    const match = /instagram\.com\/([\w.]+)/.exec(url) ?? /tiktok\.com\/@([\w.]+)/.exec(url);
    if (!match?.[1]) throw new PhoneError('command_failed', `The phone could not open ${url}.`);
    this.open(url.includes('tiktok') ? this.tiktokPackage : INSTAGRAM);
    this.state.log(`opened link ${url}`);
    this.stack?.push({ name: 'profile', user: match[1] });
  }
}
