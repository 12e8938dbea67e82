/**
 * Instagram's screens, each a real phone's tree (see `simphone.screens.ts`) with the phone's state laid over it and
 * its taps wired by the ids and descriptions the tree carries: the feed and a post, Reels, search and its results, a
 * hashtag's grid, a profile, the comments, the gallery and the caption screen of a new post.
 */
import {
  all,
  authorAt,
  challengeScreen,
  dress,
  findsNothing,
  FIXTURE_AUTHOR,
  idOf,
  INSTAGRAM,
  rename,
  tree,
  usersFor,
  type ScreenOf,
  type SimApi,
  type SimScreen,
} from './simphone.screens.ts';
import type { SimNode } from './simphone.render.ts';

function igPost(api: SimApi, root: SimNode, postId: string): void {
  for (const node of all(root)) {
    const id = idOf(node);
    if (id === 'row_feed_button_like') {
      // Liked: the button is selected (GramAddict views.py) and its words read "Liked" (public notes); a fixture that
      // already shows it selected keeps what it shows.
      node.selected = node.selected || api.liked.has(postId);
      if (api.liked.has(postId) && node.desc === 'Like') node.desc = 'Liked';
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
    if (id === 'profile_tab') node.onTap = () => api.push({ name: 'profile', user: api.account, own: true });
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
  if (api.sheet === 'promotion') return dress(igPromotion(api), 'ig-promotion');
  return dress(instagramTree(api, screen), `ig${api.feedIndex}:${api.reelIndex}`);
}

/**
 * The promotion sheet over a playing reel, as a real phone saved it: a tap on the dimmer closes it; a tap inside the
 * sheet lands on the sheet (it takes the touches over it), which stays.
 */
function igPromotion(api: SimApi): SimNode {
  const root = tree('instagram/reels-promo-sheet.xml', api);
  for (const node of all(root)) {
    const id = idOf(node);
    if (id === 'background_dimmer')
      node.onTap = () => {
        api.sheet = null;
        api.log('closed the promotion sheet');
      };
    if (id === 'layout_container_bottom_sheet') node.onTap = () => api.log('tapped inside the promotion sheet');
  }
  return root;
}

function instagramTree(api: SimApi, screen: SimScreen): SimNode {
  switch (screen.name) {
    case 'feed':
    case 'post':
      return igFeed(api, screen);
    case 'reels':
      return igReels(api);
    case 'limited':
      return igLimited(api);
    case 'search':
    case 'results':
      return igSearch(api, screen);
    case 'tag':
      return igTag(api, screen);
    case 'profile':
      return igProfile(api, screen);
    case 'comments':
      return igComments(api, screen);
    case 'gallery':
    case 'editor':
      return igGallery(api);
    case 'caption':
      return igCaption(api);
    case 'login':
    case 'blocked':
      return challengeScreen(api, INSTAGRAM, screen.name);
  }
}

/** The feed (an ad every third post, the upload's pending or failed row) and a post opened from a grid. */
function igFeed(api: SimApi, screen: ScreenOf<'feed' | 'post'>): SimNode {
  const n = screen.name === 'feed' ? api.feedIndex : screen.n;
  const author = screen.name === 'feed' ? authorAt(n) : screen.author;
  const pending = screen.name === 'feed' && api.pendingReads > 0;
  if (pending) api.pendingReads -= 1;
  const posted = screen.name === 'feed' && !pending && api.postedReads > 0;
  if (posted) api.postedReads -= 1;
  const failed = screen.name === 'feed' && !pending && !posted && api.uploadFailed;
  // Every third post of the feed is an ad, as Instagram mixes sponsored posts into it.
  const ad = screen.name === 'feed' && !pending && !posted && !failed && n % 3 === 2;
  // A post opened with comments turned off shows its like button and no comment button.
  const commentsOff = screen.name === 'post' && api.commentsOff;
  const root = tree(
    commentsOff
      ? 'instagram/post-comments-off.xml'
      : pending
        ? 'instagram/feed-upload-pending.xml'
        : posted
          ? 'instagram/feed-upload-posted.xml'
          : failed
            ? 'instagram/feed-upload-failed.xml'
            : ad
              ? 'instagram/feed-ad.xml'
              : 'instagram/feed.xml',
    api,
  );
  if (failed)
    for (const node of all(root))
      if (idOf(node) === 'row_pending_media_discard_button')
        node.onTap = () => {
          if (api.leftoverFailed === 'stays') return api.log("tapped the failed upload's discard: it stays");
          api.uploadFailed = false;
          api.log('discarded the failed upload');
        };
  rename(root, commentsOff ? FIXTURE_AUTHOR.instagramCommentsOff : FIXTURE_AUTHOR.instagramFeed, author);
  igPost(api, root, ad ? `ad#${n}` : `${author}#${n}`);
  igTabs(api, root);
  igBack(api, root);
  return root;
}

/** Reels: one full-screen video, its like, comments, author and the way to a new reel. */
function igReels(api: SimApi): SimNode {
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

/** The "Try Again Later" dialog a refused like brings up. */
function igLimited(api: SimApi): SimNode {
  const root = tree('instagram/reels-action-blocked.xml', api);
  for (const node of all(root)) if (node.text === 'OK') node.onTap = () => api.back();
  return root;
}

/** The search page and its results as typed: accounts, a hashtag row, or nothing found. */
function igSearch(api: SimApi, screen: ScreenOf<'search' | 'results'>): SimNode {
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

/** A hashtag's grid of posts. */
function igTag(api: SimApi, screen: ScreenOf<'tag'>): SimNode {
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

/** A profile, public or private, with its follow button and grid; the own one names the account signed in. */
function igProfile(api: SimApi, screen: ScreenOf<'profile'>): SimNode {
  const isPrivate = !screen.own && api.privateAccounts.has(screen.user);
  const root = tree(screen.own ? 'instagram/profile-own.xml' : isPrivate ? 'instagram/profile-private.xml' : 'instagram/profile.xml', api);
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

/** A post's comments, the box being typed into and the comments this phone posted. */
function igComments(api: SimApi, screen: ScreenOf<'comments'>): SimNode {
  const root = tree('instagram/comments.xml', api);
  for (const node of all(root)) {
    const id = idOf(node);
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

/** The gallery a new post starts from, showing the phone's media. */
function igGallery(api: SimApi): SimNode {
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

/** A new post's caption screen and its Share button: a reel's for a video, a photo post's for a picture. */
function igCaption(api: SimApi): SimNode {
  const photo = /\.(jpe?g|png|webp|heic|gif)$/i.test(api.media[0] ?? '');
  const root = tree(photo ? 'instagram/caption-photo.xml' : 'instagram/caption.xml', api);
  for (const node of all(root)) {
    const id = idOf(node);
    if (id === 'caption_input_text_view') {
      node.text = api.draft.caption || node.text;
      node.focused = api.focused === 'caption';
      node.onTap = () => api.focus('caption');
    }
    if (id === 'share_button' || id === 'share_footer_button') node.onTap = () => api.publish();
  }
  igBack(api, root);
  return root;
}
