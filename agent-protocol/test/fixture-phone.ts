/**
 * A phone whose screens are `uiautomator dump` fixtures of real apps. A tap on a node whose resource-id has a
 * transition moves to another fixture, so a recipe can walk feed → search → post creation on recorded screens.
 */
import {
  type PhoneError,
  UiBusyError,
  type KeyName,
  type LockState,
  type ShareIntent,
  type UiReaderInfo,
  type PhoneDevice,
  type PhoneInfo,
  type Point,
  type Screenshot,
} from '../src/phone/phone.device.ts';
import { parseUiXml, type UiNode } from '../src/recipes/recipe.ui.ts';
import { fixture } from './fake-android.ts';

/** The clickable node a tap at (x, y) lands on: the last one in document order, as drawn on top. */
export function nodeAt(xml: string, x: number, y: number): UiNode | null {
  const hits = parseUiXml(xml).nodes.filter(
    (node) => node.clickable && x >= node.bounds.left && x < node.bounds.right && y >= node.bounds.top && y < node.bounds.bottom,
  );
  return hits[hits.length - 1] ?? null;
}

export const screens: Record<string, () => string> = {
  feed: () => fixture('ui-instagram-feed.xml'),
  search: () => fixture('ui-instagram-search.xml'),
  gallery: () => fixture('ui-instagram-gallery.xml'),
  caption: () => fixture('ui-instagram-caption.xml'),
};

/** Which fixture a tap on a resource-id leads to, per screen. */
export const instagramFlow: Record<string, Record<string, string>> = {
  feed: { search_tab: 'search', creation_tab: 'gallery' },
  search: { feed_tab: 'feed', creation_tab: 'gallery' },
  gallery: { next_button_textview: 'caption', action_bar_cancel: 'feed' },
  caption: { share_footer_button: 'feed', button_back: 'gallery' },
};

export function follow(flow: Record<string, Record<string, string>>, screen: string, node: UiNode | null): string {
  const id = node?.resourceId.split(':id/')[1];
  return (id && flow[screen]?.[id]) ?? screen;
}

export class FixturePhone implements PhoneDevice {
  readonly serial = 'FIXTURE-1';
  readonly taps: Point[] = [];
  readonly swipes: { from: Point; to: Point; durationMs: number }[] = [];
  readonly typed: string[] = [];
  readonly pushed: string[] = [];
  readonly keys: KeyName[] = [];
  readonly launched: string[] = [];
  busy = 0;
  alwaysBusy = false;
  dumps = 0;
  screenshots = 0;
  failWith: PhoneError | null = null;
  readonly opened: string[] = [];
  readonly stopped: string[] = [];
  readonly shared: ShareIntent[] = [];
  readonly scanned: string[] = [];
  woken = 0;
  lock: LockState = 'unlocked';
  /** What `setText` answers landed in the field (undefined: the value typed). */
  landed: string | null | undefined = undefined;

  constructor(
    public at: string,
    private readonly options: {
      xml?: Record<string, () => string>;
      flow?: Record<string, Record<string, string>>;
      size?: { width: number; height: number };
    } = {},
  ) {}

  private xml(): string {
    const source = this.options.xml?.[this.at] ?? screens[this.at];
    if (!source) throw new Error(`no fixture screen ${this.at}`);
    return source();
  }

  async info(): Promise<PhoneInfo> {
    return {
      serial: this.serial,
      manufacturer: 'Google',
      model: 'Pixel 7',
      androidVersion: '14',
      sdk: 34,
      abi: 'arm64-v8a',
      screen: this.options.size ?? { width: 1080, height: 2400 },
    };
  }
  async battery() {
    return { level: 80, charging: false, plugged: null, temperatureC: 30 };
  }
  async screen() {
    return { on: true };
  }
  async foregroundApp() {
    return { package: 'com.instagram.android', activity: null };
  }
  async network() {
    return { connected: true, transport: 'wifi' as const };
  }
  async screenshot(): Promise<Screenshot> {
    this.screenshots += 1;
    return { mime: 'image/jpeg', data: Buffer.from([0xff, 0xd8, 0xff, 0xd9]), width: 1, height: 1, capturedAt: new Date(0).toISOString() };
  }
  async dumpUi(): Promise<string> {
    this.dumps += 1;
    if (this.failWith) throw this.failWith;
    if (this.alwaysBusy || this.busy > 0) {
      this.busy = Math.max(0, this.busy - 1);
      throw new UiBusyError();
    }
    return this.xml();
  }
  async tap(x: number, y: number): Promise<void> {
    this.taps.push({ x, y });
    this.at = follow(this.options.flow ?? instagramFlow, this.at, nodeAt(this.xml(), x, y));
  }
  async longPress(x: number, y: number): Promise<void> {
    this.taps.push({ x, y });
  }
  async swipe(from: Point, to: Point, durationMs: number): Promise<void> {
    this.swipes.push({ from, to, durationMs });
  }
  async text(value: string): Promise<void> {
    this.typed.push(value);
  }
  async key(key: KeyName): Promise<void> {
    this.keys.push(key);
  }
  async pushMedia(localPath: string): Promise<string> {
    this.pushed.push(localPath);
    return `/sdcard/DCIM/Farm/${localPath.split('/').pop()}`;
  }
  async appVersion(): Promise<string | null> {
    return '360.0.0.52.192';
  }
  async launchApp(packageName: string): Promise<void> {
    this.launched.push(packageName);
  }
  async openUrl(url: string): Promise<void> {
    this.opened.push(url);
  }
  async uiReader(): Promise<UiReaderInfo> {
    return { kind: 'dump', version: null, seesToasts: false };
  }
  /** Types like `text`, and answers what landed when the test says (`landed`), else the value. */
  async setText(value: string, at?: Point): Promise<string | null> {
    if (at) this.taps.push(at);
    this.typed.push(value);
    return this.landed === undefined ? value : this.landed;
  }
  async wake(): Promise<void> {
    this.woken += 1;
  }
  async lockState() {
    return this.lock;
  }
  async forceStop(packageName: string): Promise<void> {
    this.stopped.push(packageName);
  }
  async share(intent: ShareIntent): Promise<void> {
    this.shared.push(intent);
  }
  async scanMedia(paths: string[]): Promise<void> {
    this.scanned.push(...paths);
  }
  async close(): Promise<void> {}
}
