/**
 * The simulated apps' screens. Each screen is a UI tree of a real phone (`test/fixtures/real/`, embedded in
 * `simphone.fixtures.ts`; EVIDENCE.md there says where each comes from), scaled to the simulated screen. The phone's
 * state is laid over it (a liked post's `selected`, what a field holds, whom a profile shows) and taps are wired by
 * the real ids and descriptions those trees carry, so a recipe that works here selects what real phones show.
 *
 * This file owns what every app's screens share: the screens' names, what they read from the phone (`SimApi`), the
 * fixtures' trees and the helpers that lay state over them, how a screenshot dresses a tree, and the screens drawn in
 * code (log-in, suspension). Each app's screens are its own file: `simphone.instagram.ts`, `simphone.tiktok.ts`;
 * the home screen, Settings and the Play Store are `simphone.system.ts`.
 */
import { fixtureXml } from './simphone.fixtures.ts';
import type { SimulatedFixture } from './simphone.fixtures.list.ts';
import { fromUiXml, walk, type SimNode } from './simphone.render.ts';

export const INSTAGRAM = 'com.instagram.android';
export const TIKTOK = 'com.zhiliaoapp.musically';
export const TIKTOK_TRILL = 'com.ss.android.ugc.trill';

export type SimScreen =
  | { name: 'feed' }
  | { name: 'reels' }
  | { name: 'search'; query: string }
  | { name: 'results'; query: string }
  | { name: 'tag'; tag: string }
  | { name: 'post'; author: string; n: number }
  | { name: 'profile'; user: string; own?: boolean }
  | { name: 'comments'; postId: string }
  | { name: 'gallery' }
  | { name: 'editor' }
  | { name: 'caption' }
  | { name: 'login' }
  | { name: 'blocked' }
  | { name: 'limited' };

/** One kind of screen, with what it carries. */
export type ScreenOf<K extends SimScreen['name']> = Extract<SimScreen, { name: K }>;

/** What the screens read from the phone and call back into it. */
export interface SimApi {
  width: number;
  height: number;
  feedIndex: number;
  reelIndex: number;
  liked: Set<string>;
  followed: Set<string>;
  /** Accounts whose profiles are private. */
  privateAccounts: Set<string>;
  /** The account signed in to the apps (its own profile shows it). */
  account: string;
  /** Posts opened from a grid have comments turned off (no comment button). */
  commentsOff: boolean;
  media: string[];
  draft: { query: string; caption: string; comment: string };
  focused: 'search' | 'caption' | 'comment' | null;
  /** Feed reads left that still show the last post's pending-upload row. */
  pendingReads: number;
  /** Reads left showing the upload's "Posted!" row (after its pending reads). */
  postedReads: number;
  /** The last upload failed: the feed shows its "can't be posted" row. */
  uploadFailed: boolean;
  /** What the discard button of a failed upload's row does: takes the row away, or nothing (`stays`). */
  leftoverFailed: 'discards' | 'stays';
  /**
   * A sheet laid over the app until it is closed: TikTok's add-phone-number sheet (only an X), Instagram's promotion
   * sheet (its dimmer or Back).
   */
  sheet: 'add-phone' | 'promotion' | null;
  /** Comments this phone posted, shown under their posts as the apps show a new comment. */
  posted: readonly { postId: string; text: string }[];
  /** Trees that replace the embedded ones (a test's variant of a screen: another build's ids, another caption). */
  fixtures: Partial<Record<SimulatedFixture, string>>;
  push(screen: SimScreen): void;
  /** Switches tab: the screen becomes the only one. */
  replace(screen: SimScreen): void;
  /** The top screen becomes another (a flow's next page). */
  swap(screen: SimScreen): void;
  back(): void;
  focus(field: 'search' | 'caption' | 'comment'): void;
  like(postId: string): void;
  follow(user: string): void;
  comment(postId: string): void;
  publish(): void;
  log(event: string): void;
}

const AUTHORS = ['sunny.trails', 'maya_k', 'alex.rivera', 'urban.bites', 'north.shore.surf', 'lena.paints', 'the.daily.crumb', 'kai_outdoors'];
export const authorAt = (n: number) => AUTHORS[((n % AUTHORS.length) + AUTHORS.length) % AUTHORS.length] as string;
const slug = (text: string) =>
  text
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '.')
    .replace(/^\.|\.$/g, '') || 'search';
/** Accounts a search finds: the one typed when it reads like a username, then look-alikes. */
export const usersFor = (query: string) => {
  const typed = query.trim().replace(/^@/, '');
  const base = /^[\w.]+$/.test(typed) ? typed : slug(query);
  return [base, `${slug(query)}.daily`, `the.${slug(query)}`];
};
/** A search that finds nothing: what people type when they test it. */
export const findsNothing = (query: string) => /^zzq|no results|nothing/i.test(query.trim());

const templates = new Map<string, SimNode>();
/** The fixture's tree at the simulated screen's size (parsed once per size, copied for each read). */
export function tree(name: SimulatedFixture, api: SimApi): SimNode {
  const size = { width: api.width, height: api.height };
  // A replaced tree is the phone's own: parsed for it, not shared with other simulated phones.
  const replaced = api.fixtures[name];
  if (replaced) return fromUiXml(replaced, size);
  const key = `${name}@${api.width}x${api.height}`;
  let template = templates.get(key);
  if (!template) {
    template = fromUiXml(fixtureXml[name] as string, size);
    templates.set(key, template);
  }
  return structuredClone(template);
}

/** A node's resource id without its package (`row_feed_button_like`). */
export const idOf = (node: SimNode) => (node.id ? (node.id.split(':id/')[1] ?? node.id) : '');
/** Every node of the tree, in the dump's order. */
export const all = (root: SimNode) => {
  const nodes: SimNode[] = [];
  walk(root, (node) => nodes.push(node));
  return nodes;
};
/** Puts `to` wherever the fixture shows `from` (its author), in texts and descriptions. */
export function rename(root: SimNode, from: string, to: string): void {
  if (from === to) return;
  walk(root, (node) => {
    if (node.text?.includes(from)) node.text = node.text.split(from).join(to);
    if (node.desc?.includes(from)) node.desc = node.desc.split(from).join(to);
  });
}
/** Drops every node `drop` picks, with what it holds. */
export function removeWhere(root: SimNode, drop: (node: SimNode) => boolean): void {
  walk(root, (node) => {
    if (node.children) node.children = node.children.filter((child) => !drop(child));
  });
}
/** The author a fixture shows, replaced by the simulated one. */
export const FIXTURE_AUTHOR = {
  instagramFeed: 'sunny.trails',
  instagramCommentsOff: 'river.stone',
  instagramProfile: 'kai_outdoors',
  instagramProfileName: 'Kai',
  musically: 'lena.paints',
  trill: 'sunny.trails',
};

/** Colours a media block by what it shows, so consecutive posts differ on screen. */
const COLOURS = ['#d9825b', '#5b8fd9', '#6fbf73', '#b76fd0', '#d0b36f', '#4fb3bf', '#bf4f6a', '#7d8a99'];
const colourOf = (key: string) => COLOURS[[...key].reduce((sum, c) => sum + c.charCodeAt(0), 0) % COLOURS.length] as string;
const MEDIA_IDS = new Set(['row_feed_photo_imageview', 'clips_video_container', 'image_button', 'gallery_grid_item_thumbnail', 'long_press_layout']);

/** How the drawing shows a real tree's nodes (screenshots only; the dump is the tree as it is). */
export function dress(root: SimNode, key: string): SimNode {
  walk(root, (node) => {
    if (MEDIA_IDS.has(idOf(node)) || /^(Video by |Reel by |Photo by )/.test(node.desc ?? '')) {
      node.look = 'media';
      node.colour = colourOf(`${key}${node.desc ?? ''}${node.bounds.join()}`);
    } else if (/(EditText|AutoCompleteTextView)$/.test(node.cls)) node.look = 'field';
    else if (idOf(node) === 'tab_bar') node.look = 'bar';
  });
  // A feed post's photo or video has no node of its own in the dump: drawn between its header and its buttons.
  const headers = all(root).filter((node) => idOf(node) === 'row_feed_profile_header');
  const buttons = all(root).filter((node) => idOf(node) === 'row_feed_button_like');
  const floor = all(root).find((node) => idOf(node) === 'tab_bar')?.bounds[1] ?? root.bounds[3];
  headers.forEach((header, i) => {
    const below = buttons.find((button) => button.bounds[1] > header.bounds[3]);
    const bottom = below && (i + 1 >= headers.length || below.bounds[1] < (headers[i + 1]?.bounds[1] ?? 0)) ? below.bounds[1] : root.bounds[3];
    root.children?.unshift({
      cls: 'android.view.View',
      drawOnly: true,
      look: 'media',
      colour: colourOf(`${key}${header.desc ?? ''}`),
      bounds: [root.bounds[0], header.bounds[3], root.bounds[2], Math.min(bottom, floor)],
    });
  });
  return root;
}

/**
 * The log-in page and a suspended account. No public dump of these was found, so they are drawn in code with the
 * words bots match on real phones (YallaPapi/geelark-automation TIKTOK_SCREEN_REFERENCE.md: "Log in to TikTok",
 * "Your account was permanently banned"; Instagram's suspension notice as its bots read it).
 */
export function challengeScreen(api: SimApi, pkg: string, kind: 'login' | 'blocked'): SimNode {
  const instagram = pkg === INSTAGRAM;
  const words =
    kind === 'login'
      ? instagram
        ? ['Username, email or mobile number', 'Log in']
        : ['Log in to TikTok', 'Use phone / email / username']
      : instagram
        ? ['We suspended your account', 'Disagree with decision']
        : ['Your account was permanently banned', 'Log out'];
  const w = api.width;
  return {
    cls: 'android.widget.FrameLayout',
    bounds: [0, 0, w, api.height],
    children: [
      {
        cls: 'android.widget.FrameLayout',
        id: 'android:id/content',
        bounds: [0, 0, w, api.height],
        children: [
          {
            cls: kind === 'login' && instagram ? 'android.widget.EditText' : 'android.widget.TextView',
            text: words[0],
            bounds: [60, 900, w - 60, 1020],
            look: kind === 'login' && instagram ? 'field' : undefined,
          },
          { cls: 'android.widget.Button', text: words[1], look: 'button', clickable: true, bounds: [60, 1300, w - 60, 1420] },
        ],
      },
    ],
  };
}
