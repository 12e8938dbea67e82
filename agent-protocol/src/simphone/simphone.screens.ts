/**
 * The simulated apps' screens. Each screen is a UI tree of a real phone (`test/fixtures/real/`, embedded in
 * `simphone.fixtures.ts`; EVIDENCE.md there says where each comes from), scaled to the simulated screen. The phone's
 * state is laid over it (a liked post's `selected`, what a field holds, whom a profile shows) and taps are wired by
 * the real ids and descriptions those trees carry, so a recipe that works here selects what real phones show.
 */
import { fixtureXml } from './simphone.fixtures.ts';
import type { SimulatedFixture } from './simphone.fixtures.list.ts';
import { fromUiXml, walk, type SimNode } from './simphone.render.ts';

export const INSTAGRAM = 'com.instagram.android';
export const TIKTOK = 'com.zhiliaoapp.musically';
export const TIKTOK_TRILL = 'com.ss.android.ugc.trill';
export const LAUNCHER = 'com.google.android.apps.nexuslauncher';

export type SimScreen =
  | { name: 'feed' }
  | { name: 'reels' }
  | { name: 'search'; query: string }
  | { name: 'results'; query: string }
  | { name: 'tag'; tag: string }
  | { name: 'post'; author: string; n: number }
  | { name: 'profile'; user: string }
  | { name: 'comments'; postId: string }
  | { name: 'gallery' }
  | { name: 'editor' }
  | { name: 'caption' }
  | { name: 'login' }
  | { name: 'blocked' }
  | { name: 'limited' };

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
  media: string[];
  draft: { query: string; caption: string; comment: string };
  focused: 'search' | 'caption' | 'comment' | null;
  /** Feed reads left that still show the last post's pending-upload row. */
  pendingReads: number;
  /** The last upload failed: the feed shows its "can't be posted" row. */
  uploadFailed: boolean;
  /** A sheet TikTok lays over the feed until it is closed (the add-phone-number sheet has only an X). */
  sheet: 'add-phone' | null;
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
const findsNothing = (query: string) => /^zzq|no results|nothing/i.test(query.trim());

const templates = new Map<string, SimNode>();
/** The fixture's tree at the simulated screen's size (parsed once per size, copied for each read). */
function tree(name: SimulatedFixture, api: SimApi): SimNode {
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

const idOf = (node: SimNode) => (node.id ? (node.id.split(':id/')[1] ?? node.id) : '');
const all = (root: SimNode) => {
  const nodes: SimNode[] = [];
  walk(root, (node) => nodes.push(node));
  return nodes;
};
/** Puts `to` wherever the fixture shows `from` (its author), in texts and descriptions. */
function rename(root: SimNode, from: string, to: string): void {
  if (from === to) return;
  walk(root, (node) => {
    if (node.text?.includes(from)) node.text = node.text.split(from).join(to);
    if (node.desc?.includes(from)) node.desc = node.desc.split(from).join(to);
  });
}
function removeWhere(root: SimNode, drop: (node: SimNode) => boolean): void {
  walk(root, (node) => {
    if (node.children) node.children = node.children.filter((child) => !drop(child));
  });
}
/** The author a fixture shows, replaced by the simulated one. */
const FIXTURE_AUTHOR = {
  instagramFeed: 'sunny.trails',
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
function dress(root: SimNode, key: string): SimNode {
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

// ---------------------------------------------------------------- Instagram

function igPost(api: SimApi, root: SimNode, postId: string): void {
  for (const node of all(root)) {
    const id = idOf(node);
    if (id === 'row_feed_button_like') {
      // Liked or not is the button's selected state (GramAddict views.py); the fixture's words stay.
      node.selected = api.liked.has(postId);
      node.onTap = () => api.like(postId);
    } else if (id === 'row_feed_button_comment') node.onTap = () => api.push({ name: 'comments', postId });
    else if (id === 'row_feed_photo_profile_name' && node.text) {
      const user = node.text;
      node.onTap = () => api.push({ name: 'profile', user });
    }
  }
}

function igTabs(api: SimApi, root: SimNode): void {
  for (const node of all(root)) {
    const id = idOf(node);
    if (id === 'feed_tab') node.onTap = () => api.replace({ name: 'feed' });
    if (id === 'clips_tab') node.onTap = () => api.replace({ name: 'reels' });
    if (id === 'search_tab') node.onTap = () => api.replace({ name: 'search', query: '' });
  }
}

function igBack(api: SimApi, root: SimNode): void {
  for (const node of all(root))
    if (node.desc === 'Back' || idOf(node) === 'action_bar_button_back' || idOf(node) === 'gallery_cancel_button') node.onTap = () => api.back();
}

function igGrid(api: SimApi, root: SimNode, author?: string): void {
  for (const node of all(root)) {
    if (idOf(node) !== 'image_button') continue;
    const by = author ?? /^Photo by (\S+)/.exec(node.desc ?? '')?.[1] ?? authorAt(0);
    const n = Number(
      /Row (\d+), Column (\d+)/
        .exec(node.desc ?? '')
        ?.slice(1)
        .join('') ?? 0,
    );
    node.onTap = () => api.push({ name: 'post', author: by, n });
  }
}

export function instagramScreen(api: SimApi, screen: SimScreen): SimNode {
  return dress(instagramTree(api, screen), `ig${api.feedIndex}:${api.reelIndex}`);
}

function instagramTree(api: SimApi, screen: SimScreen): SimNode {
  switch (screen.name) {
    case 'feed':
    case 'post': {
      const n = screen.name === 'feed' ? api.feedIndex : screen.n;
      const author = screen.name === 'feed' ? authorAt(n) : screen.author;
      const pending = screen.name === 'feed' && api.pendingReads > 0;
      if (pending) api.pendingReads -= 1;
      const failed = screen.name === 'feed' && !pending && api.uploadFailed;
      // Every third post of the feed is an ad, as Instagram mixes sponsored posts into it.
      const ad = screen.name === 'feed' && !pending && !failed && n % 3 === 2;
      const root = tree(
        pending ? 'instagram/feed-upload-pending.xml' : failed ? 'instagram/feed-upload-failed.xml' : ad ? 'instagram/feed-ad.xml' : 'instagram/feed.xml',
        api,
      );
      rename(root, FIXTURE_AUTHOR.instagramFeed, author);
      igPost(api, root, ad ? `ad#${n}` : `${author}#${n}`);
      igTabs(api, root);
      igBack(api, root);
      return root;
    }
    case 'reels': {
      const root = tree('instagram/reels.xml', api);
      const author = authorAt(api.reelIndex + 3);
      rename(root, 'urban.bites', author);
      const postId = `reel:${author}#${api.reelIndex}`;
      for (const node of all(root)) {
        const id = idOf(node);
        if (id === 'like_button') {
          node.selected = api.liked.has(postId);
          node.onTap = () => api.like(postId);
        }
        if (id === 'comment_button') node.onTap = () => api.push({ name: 'comments', postId });
        if (id === 'clips_author_username') node.onTap = () => api.push({ name: 'profile', user: author });
        if (node.desc === 'Create a reel') node.onTap = () => api.push({ name: 'gallery' });
      }
      igTabs(api, root);
      return root;
    }
    case 'limited': {
      const root = tree('instagram/reels-action-blocked.xml', api);
      for (const node of all(root)) if (node.text === 'OK') node.onTap = () => api.back();
      return root;
    }
    case 'search':
    case 'results': {
      const query = screen.query || api.draft.query;
      const root = tree(
        screen.name === 'search' ? 'instagram/search.xml' : findsNothing(query) ? 'instagram/search-no-results.xml' : 'instagram/search-results.xml',
        api,
      );
      const users = usersFor(query);
      let row = 0;
      for (const node of all(root)) {
        const id = idOf(node);
        if (id === 'action_bar_search_edit_text') {
          node.text = api.draft.query || (screen.name === 'search' ? 'Search' : query);
          node.focused = api.focused === 'search';
          node.onTap = () => api.focus('search');
        }
        // Instagram's hashtag row reads "#<tag>" (GramAddict views.py finds it by that text): the typed words, joined.
        if (id === 'row_hashtag_textview_tag_name') node.text = `#${query.replace(/^#/, '').replace(/\s+/g, '').toLowerCase()}`;
        if (id === 'row_hashtag_container') {
          const tag = query.replace(/^#/, '').replace(/\s+/g, '').toLowerCase();
          node.onTap = () => api.push({ name: 'tag', tag });
        }
        if (id === 'row_search_user_container') {
          const user = users[row] ?? users[0] ?? query;
          row += 1;
          for (const child of node.children ?? []) {
            if (idOf(child) === 'row_search_user_username') child.text = user;
            if (idOf(child) === 'row_search_user_fullname') child.text = user.replace(/[._]/g, ' ');
          }
          node.onTap = () => api.push({ name: 'profile', user });
        }
      }
      igGrid(api, root);
      igTabs(api, root);
      return root;
    }
    case 'tag': {
      // No public dump of a hashtag page: its grid is the explore grid's (image_button "Photo by … at Row r, Column c").
      const root = tree('instagram/search.xml', api);
      for (const node of all(root)) {
        if (idOf(node) === 'action_bar_search_edit_text') {
          node.text = `#${screen.tag}`;
          node.onTap = () => api.back();
        }
        if (idOf(node) === 'image_button') node.desc = (node.desc ?? '').replace(/^Photo by (\S+)/, (_, user: string) => `Photo by ${screen.tag}.${user}`);
      }
      igGrid(api, root);
      igTabs(api, root);
      return root;
    }
    case 'profile': {
      const isPrivate = api.privateAccounts.has(screen.user);
      const root = tree(isPrivate ? 'instagram/profile-private.xml' : 'instagram/profile.xml', api);
      rename(root, FIXTURE_AUTHOR.instagramProfile, screen.user);
      rename(root, FIXTURE_AUTHOR.instagramProfileName, screen.user);
      const following = api.followed.has(screen.user);
      for (const node of all(root)) {
        if (idOf(node) !== 'profile_header_follow_button') continue;
        // The source shows selected=true on a Follow button not yet followed: the words carry the state.
        node.text = following ? (isPrivate ? 'Requested' : 'Following') : 'Follow';
        node.onTap = () => api.follow(screen.user);
      }
      igGrid(api, root, screen.user);
      igBack(api, root);
      return root;
    }
    case 'comments': {
      const root = tree('instagram/comments.xml', api);
      for (const node of all(root)) {
        const id = idOf(node);
        // One build renamed the box layout_comment_thread_edittext_multiline (GramAddict resources.py lists both).
        if (id.startsWith('layout_comment_thread_edittext')) {
          node.text = api.draft.comment || node.text;
          node.focused = api.focused === 'comment';
          node.onTap = () => api.focus('comment');
        }
        if (id === 'layout_comment_thread_post_button_click_area') node.onTap = () => api.comment(screen.postId);
      }
      // A posted comment shows in the thread as the others do: a row_comment_textview_comment "<user> <text>".
      const rows = all(root).filter((node) => idOf(node) === 'row_comment_textview_comment');
      const last = rows.at(-1);
      const list = last && all(root).find((node) => node.children?.includes(last));
      if (last && list) {
        const height = last.bounds[3] - last.bounds[1];
        api.posted
          .filter((item) => item.postId === screen.postId)
          .forEach((item, i) => {
            const top = last.bounds[3] + (i + 1) * height;
            list.children?.push({
              ...structuredClone({ ...last, onTap: undefined }),
              text: `farm.account ${item.text}`,
              bounds: [last.bounds[0], top - height, last.bounds[2], top],
            });
          });
      }
      igBack(api, root);
      return root;
    }
    case 'gallery':
    case 'editor': {
      const root = tree('instagram/gallery.xml', api);
      let i = 0;
      for (const node of all(root)) {
        if (idOf(node) !== 'gallery_grid_item_thumbnail') continue;
        const file = api.media[i];
        i += 1;
        if (file) node.desc = `Unselected Video thumbnail ${file}`;
        node.onTap = () => api.push({ name: 'caption' });
      }
      igBack(api, root);
      return root;
    }
    case 'caption': {
      const root = tree('instagram/caption.xml', api);
      for (const node of all(root)) {
        const id = idOf(node);
        if (id === 'caption_input_text_view') {
          node.text = api.draft.caption || node.text;
          node.focused = api.focused === 'caption';
          node.onTap = () => api.focus('caption');
        }
        if (id === 'share_button') node.onTap = () => api.publish();
      }
      igBack(api, root);
      return root;
    }
    case 'login':
    case 'blocked':
      return challengeScreen(api, INSTAGRAM, screen.name);
  }
}

// ---------------------------------------------------------------- TikTok

export type TikTokBuild = 'musically' | 'trill';

function ttVideo(api: SimApi, build: TikTokBuild, author: string, postId: string, withTabs: boolean): SimNode {
  const sheet = build === 'musically' && api.sheet === 'add-phone';
  const root = tree(build === 'trill' ? 'tiktok-trill/feed.xml' : sheet ? 'tiktok-musically/feed-add-phone.xml' : 'tiktok-musically/feed.xml', api);
  // The sheet's only way out is its X.
  if (sheet)
    for (const node of all(root))
      if (node.desc === 'Close')
        node.onTap = () => {
          api.sheet = null;
          api.log('closed the add-phone-number sheet');
        };
  rename(root, build === 'trill' ? FIXTURE_AUTHOR.trill : FIXTURE_AUTHOR.musically, author);
  const liked = api.liked.has(postId);
  const following = api.followed.has(author);
  if (following) removeWhere(root, (node) => node.desc === `Follow ${author}`);
  for (const node of all(root)) {
    const desc = node.desc ?? '';
    // Like and Share share an id (f57): the description tells them apart, and says the state only with selected.
    if (/Button$/.test(node.cls) && /^Like( video\.|$)/.test(desc)) {
      node.selected = liked;
      if (liked) node.desc = 'Like';
      node.onTap = () => api.like(postId);
    }
    if (desc.startsWith('Read or add comments.')) node.onTap = () => api.push({ name: 'comments', postId });
    if (desc === `Follow ${author}`) node.onTap = () => api.follow(author);
    if (desc === 'Search' && node.bounds[1] < api.height / 5) node.onTap = () => api.push({ name: 'search', query: '' });
    if (desc === 'Home') node.onTap = () => api.replace({ name: 'feed' });
    if (desc === 'Create') node.onTap = () => api.push({ name: 'gallery' });
  }
  if (!withTabs) removeWhere(root, (node) => ['Home', 'Friends', 'Create', 'Inbox', 'Profile'].includes(node.desc ?? ''));
  return root;
}

export function tiktokScreen(api: SimApi, screen: SimScreen, build: TikTokBuild = 'musically'): SimNode {
  const root = dress(tiktokTree(api, screen, build), `tt${api.feedIndex}:${JSON.stringify(screen)}`);
  // Screens trill's source did not measure (the post flow) are musically's trees, drawn by trill's package.
  if (build === 'trill')
    walk(root, (node) => {
      if (node.pkg === TIKTOK) node.pkg = TIKTOK_TRILL;
      if (node.id?.startsWith(`${TIKTOK}:id/`)) node.id = `${TIKTOK_TRILL}:id/${node.id.slice(TIKTOK.length + 4)}`;
    });
  return root;
}

function tiktokTree(api: SimApi, screen: SimScreen, build: TikTokBuild): SimNode {
  switch (screen.name) {
    case 'feed':
    case 'reels':
      return ttVideo(api, build, authorAt(api.feedIndex + 2), `tt:${authorAt(api.feedIndex + 2)}#${api.feedIndex}`, true);
    case 'post':
      return ttVideo(api, build, screen.author, `tt:${screen.author}#${screen.n}`, false);
    case 'limited': {
      const root = tree('tiktok-musically/feed-action-blocked.xml', api);
      for (const node of all(root)) if (node.text === 'OK') node.onTap = () => api.back();
      return root;
    }
    case 'tag':
    case 'search':
    case 'results': {
      const query = screen.name === 'tag' ? screen.tag : screen.query || api.draft.query;
      const results = screen.name !== 'search' && !findsNothing(query);
      const root = tree(
        build === 'trill' ? 'tiktok-trill/search-results.xml' : results ? 'tiktok-musically/search-results.xml' : 'tiktok-musically/search.xml',
        api,
      );
      const users = usersFor(query);
      let cell = 0;
      for (const node of all(root)) {
        if (node.cls.endsWith('EditText')) {
          node.text = api.draft.query || query || 'Search';
          node.focused = api.focused === 'search';
          node.onTap = () => api.focus('search');
        }
        if (node.text === 'Search' && node.cls.endsWith('Button')) node.onTap = () => api.swap({ name: 'results', query: api.draft.query });
        if (node.desc === 'Back') node.onTap = () => api.back();
        const trillResult = /^Video by ([^,]+),/.exec(node.desc ?? '');
        if (trillResult && build === 'trill') {
          if (!results) node.desc = undefined;
          else {
            const author = users[cell % users.length] ?? trillResult[1] ?? authorAt(cell);
            node.desc = (node.desc ?? '').replace(trillResult[1] ?? '', author);
            const n = cell;
            cell += 1;
            node.onTap = () => api.push({ name: 'post', author, n });
          }
        }
        // On musically a result is a cell of buttons; its play count ("x17.6K") opens the video.
        if (build === 'musically' && /^x[0-9.,]+[KMB]?$/.test(node.text ?? '')) {
          const author = users[cell % users.length] ?? authorAt(cell);
          const n = cell;
          cell += 1;
          node.onTap = () => api.push({ name: 'post', author, n });
        }
      }
      if (build === 'trill' && !results) removeWhere(root, (node) => node.cls.endsWith('FrameLayout') && !node.desc && node.clickable === true);
      return root;
    }
    case 'profile': {
      // No public dump of a TikTok profile page: a profile link shows the account's video, whose badge follows it.
      return ttVideo(api, build, screen.user, `tt:${screen.user}#0`, false);
    }
    case 'comments': {
      const root = tree(build === 'trill' ? 'tiktok-trill/comments.xml' : 'tiktok-musically/comments.xml', api);
      for (const node of all(root)) {
        const id = idOf(node);
        if (node.cls.endsWith('EditText')) {
          node.text = api.draft.comment || node.text;
          node.focused = api.focused === 'comment';
          node.onTap = () => api.focus('comment');
        }
        // The send button next to the box (jfd on 43.1.4; unnamed in the dump).
        if (id === 'jfd') node.onTap = () => api.comment(screen.postId);
        if (node.desc === 'Close') node.onTap = () => api.back();
      }
      // A posted comment shows in the list: the author's name button (id title) and the text (e7j) beside the others.
      const texts = all(root).filter((node) => idOf(node) === 'e7j');
      const last = texts.at(-1);
      const list = last && all(root).find((node) => node.children?.includes(last));
      if (last && list)
        for (const item of api.posted.filter((posted) => posted.postId === screen.postId))
          list.children?.push({ ...structuredClone({ ...last, onTap: undefined }), text: item.text });
      return root;
    }
    case 'gallery': {
      const root = tree('tiktok-musically/gallery.xml', api);
      for (const node of all(root)) {
        if (node.text === 'Next' && idOf(node) === 'uyb') node.onTap = () => api.swap({ name: 'editor' });
        if (node.desc === 'Close') node.onTap = () => api.back();
      }
      return root;
    }
    case 'editor': {
      const root = tree('tiktok-musically/editor.xml', api);
      for (const node of all(root)) if (idOf(node) === 'ntq') node.onTap = () => api.swap({ name: 'caption' });
      return root;
    }
    case 'caption': {
      const root = tree('tiktok-musically/caption.xml', api);
      for (const node of all(root)) {
        const id = idOf(node);
        if (id === 'g19') {
          node.text = api.draft.caption || node.text;
          node.focused = api.focused === 'caption';
          node.onTap = () => api.focus('caption');
        }
        if (id === 'qrb') node.onTap = () => api.publish();
        if (id === 'fex' || id === 'b98') node.onTap = () => api.back();
      }
      return root;
    }
    case 'login':
    case 'blocked':
      return challengeScreen(api, build === 'trill' ? TIKTOK_TRILL : TIKTOK, screen.name);
  }
}

/**
 * The log-in page and a suspended account. No public dump of these was found, so they are drawn in code with the
 * words bots match on real phones (YallaPapi/geelark-automation TIKTOK_SCREEN_REFERENCE.md: "Log in to TikTok",
 * "Your account was permanently banned"; Instagram's suspension notice as its bots read it).
 */
function challengeScreen(api: SimApi, pkg: string, kind: 'login' | 'blocked'): SimNode {
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

/** The home screen: a wallpaper, the phone's name as a widget, and the apps' icons in the dock row. */
export function launcherScreen(api: SimApi, open: (pkg: string) => void, name = 'Simulated Pixel', tiktokPackage = TIKTOK): SimNode {
  return {
    cls: 'android.widget.FrameLayout',
    look: 'wallpaper',
    bounds: [0, 0, api.width, api.height],
    children: [
      { cls: 'android.widget.TextView', text: name, bounds: [60, 520, api.width - 60, 640] },
      {
        cls: 'android.widget.TextView',
        look: 'icon',
        colour: '#d6249f',
        text: 'Instagram',
        desc: 'Instagram',
        clickable: true,
        bounds: [100, 1700, 400, 2000],
        onTap: () => open(INSTAGRAM),
      },
      {
        cls: 'android.widget.TextView',
        look: 'icon',
        colour: '#25f4ee',
        text: 'TikTok',
        desc: 'TikTok',
        clickable: true,
        bounds: [680, 1700, 980, 2000],
        onTap: () => open(tiktokPackage),
      },
    ],
  };
}
