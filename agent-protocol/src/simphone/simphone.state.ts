/**
 * What the simulated phone records and what a test or a demo sets on it: every tap, swipe, key and text, what happened
 * in the apps in words, what was published, commented, shared and scanned, the toast on screen, and the device's
 * knobs (the keyguard, busy dumps, battery, screen, its name and the caption drawn over screenshots). Every room of
 * the phone reads and moves the same records, so they live in one place rather than being passed from room to room.
 */
import { PhoneError, type KeyName, type LockState, type Point, type ShareIntent } from '../phone/phone.device.ts';
import type { SimulatedFixture } from './simphone.fixtures.list.ts';
import type { TIKTOK, TIKTOK_TRILL } from './simphone.screens.ts';

/**
 * Screen sizes a farm of simulated phones can mix, phone by phone (the widths of the Settings and Play Store
 * fixtures): group control then finds each phone's own element where its screen puts it.
 */
export const SIM_SCREEN_SIZES = [
  { width: 720, height: 1440 },
  { width: 1080, height: 2400 },
  { width: 1440, height: 3200 },
] as const;

/** The size of the farm's simulated phone number `index` (1, 2, …): 1080, 1440, 720, 1080, … px wide. */
export function simScreenSize(index: number): { width: number; height: number } {
  return SIM_SCREEN_SIZES[index % SIM_SCREEN_SIZES.length] as { width: number; height: number };
}

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
  /** The account signed in to the apps: `farm.account` by default. */
  account?: string;
  /** Installed apps' versions by package (Instagram 447.0.0.55.81, TikTok 43.1.4 or trill 46.1.3 by default). */
  versions?: Record<string, string>;
  /** Posts already liked (ids as `events` name them: `sunny.trails#0`, `tt:maya_k#0`). */
  liked?: string[];
  /** TikTok opens with the add-phone-number sheet over its feed; Instagram with a promotion sheet over what it shows. */
  sheet?: 'add-phone' | 'promotion';
  /**
   * Instagram posts opened from a grid have comments turned off: the post shows its like button but no comment button
   * (`real/instagram/post-comments-off.xml`).
   */
  commentsOff?: boolean;
  /** Instagram fails the next upload ("Video can't be posted"). */
  uploadFails?: boolean;
  /** Instagram's pending row goes from the feed without ever saying "Posted!" (scrolled off, or gone unsaid). */
  uploadUnconfirmed?: boolean;
  /**
   * Instagram opens with a failed upload's banner left from before ("Video can't be posted"): its discard button
   * takes it away (`discards`), or it stays whatever is tapped (`stays`).
   */
  leftoverUploadFailed?: 'discards' | 'stays';
  /** The words of TikTok's toast after Post: "Video posted" by default; one saying it couldn't post publishes nothing. */
  postToast?: string;
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

export class SimState {
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
  toast: { text: string; reads: number } | null = null;
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
  private closed = false;

  constructor(readonly options: SimulatedPhoneUiOptions) {
    this.serial = options.serial ?? 'SIM-0001';
    this.batteryLevel = options.battery ?? 87;
  }

  /** The name the phone shows: the console's once told, else its model. */
  get shownName(): string {
    return this.name ?? this.options.model ?? 'Simulated Pixel';
  }

  log(event: string): void {
    this.events.push(event);
  }

  alive(): void {
    if (this.closed) throw new PhoneError('disconnected', 'The simulated phone was closed.');
  }

  close(): void {
    this.closed = true;
  }
}
