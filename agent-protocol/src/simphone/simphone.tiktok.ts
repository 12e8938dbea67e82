/**
 * TikTok's screens, each a real phone's tree (see `simphone.screens.ts`) for either build (musically, trill) with the
 * phone's state laid over it and its taps wired by what the tree carries: the video feed, a post and a profile's
 * video, search and its results, the comments, and the post flow (gallery, editor, caption).
 */
import {
  all,
  authorAt,
  challengeScreen,
  dress,
  findsNothing,
  FIXTURE_AUTHOR,
  idOf,
  removeWhere,
  rename,
  TIKTOK,
  TIKTOK_TRILL,
  tree,
  usersFor,
  type ScreenOf,
  type SimApi,
  type SimScreen,
} from './simphone.screens.ts';
import { walk, type SimNode } from './simphone.render.ts';

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
    case 'limited':
      return ttLimited(api);
    case 'tag':
    case 'search':
    case 'results':
      return ttSearch(api, screen, build);
    case 'profile': {
      // No public dump of a TikTok profile page: a profile link shows the account's video, whose badge follows it.
      return ttVideo(api, build, screen.user, `tt:${screen.user}#0`, false);
    }
    case 'comments':
      return ttComments(api, screen, build);
    case 'gallery':
      return ttGallery(api);
    case 'editor':
      return ttEditor(api);
    case 'caption':
      return ttCaption(api);
    case 'login':
    case 'blocked':
      return challengeScreen(api, build === 'trill' ? TIKTOK_TRILL : TIKTOK, screen.name);
  }
}

/** The "Try again later" dialog a refused like brings up. */
function ttLimited(api: SimApi): SimNode {
  const root = tree('tiktok-musically/feed-action-blocked.xml', api);
  for (const node of all(root)) if (node.text === 'OK') node.onTap = () => api.back();
  return root;
}

/** Search, its results as typed (each build lays them out its own way) and a hashtag's videos. */
function ttSearch(api: SimApi, screen: ScreenOf<'tag' | 'search' | 'results'>, build: TikTokBuild): SimNode {
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

/** A video's comments, the box being typed into and the comments this phone posted. */
function ttComments(api: SimApi, screen: ScreenOf<'comments'>, build: TikTokBuild): SimNode {
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

/** The gallery a new post starts from. */
function ttGallery(api: SimApi): SimNode {
  const root = tree('tiktok-musically/gallery.xml', api);
  for (const node of all(root)) {
    if (node.text === 'Next' && idOf(node) === 'uyb') node.onTap = () => api.swap({ name: 'editor' });
    if (node.desc === 'Close') node.onTap = () => api.back();
  }
  return root;
}

/** The editor between the gallery and the caption. */
function ttEditor(api: SimApi): SimNode {
  const root = tree('tiktok-musically/editor.xml', api);
  for (const node of all(root)) if (idOf(node) === 'ntq') node.onTap = () => api.swap({ name: 'caption' });
  return root;
}

/** A new post's caption screen and its Post button. */
function ttCaption(api: SimApi): SimNode {
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
