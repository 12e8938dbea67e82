/**
 * The simulated apps' screens, laid out like Instagram and TikTok on a 1080×2400 phone and carrying the same
 * resource ids, texts and content descriptions the shipped recipes select (see agent-protocol/recipes/).
 * Each builder takes the phone's state and wires taps to what the app would do.
 */
import type { SimNode } from './simphone.render.ts';

export const INSTAGRAM = 'com.instagram.android';
export const TIKTOK = 'com.zhiliaoapp.musically';
export const LAUNCHER = 'com.google.android.apps.nexuslauncher';

export type SimScreen =
  | { name: 'feed' }
  | { name: 'reels' }
  | { name: 'search'; query: string }
  | { name: 'tag'; keyword: string }
  | { name: 'post'; author: string; n: number }
  | { name: 'profile'; user: string }
  | { name: 'comments'; postId: string }
  | { name: 'gallery' }
  | { name: 'edit' }
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
  media: string[];
  draft: { query: string; caption: string; comment: string };
  focused: 'search' | 'caption' | 'comment' | null;
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
const COLOURS = ['#d9825b', '#5b8fd9', '#6fbf73', '#b76fd0', '#d0b36f', '#4fb3bf', '#bf4f6a', '#7d8a99'];
export const authorAt = (n: number) => AUTHORS[((n % AUTHORS.length) + AUTHORS.length) % AUTHORS.length] as string;
const colourAt = (n: number) => COLOURS[((n % COLOURS.length) + COLOURS.length) % COLOURS.length] as string;
const slug = (text: string) =>
  text
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '.')
    .replace(/^\.|\.$/g, '') || 'search';
/** Accounts a search finds: the one typed when it reads like a username, then look-alikes. */
const usersFor = (query: string) => {
  const typed = query.trim().replace(/^@/, '');
  const base = /^[\w.]+$/.test(typed) ? typed : slug(query);
  return [base, `${slug(query)}.daily`, `the.${slug(query)}`];
};

const FL = 'android.widget.FrameLayout';
const LL = 'android.widget.LinearLayout';
const TV = 'android.widget.TextView';
const IV = 'android.widget.ImageView';
const BT = 'android.widget.Button';
const ET = 'android.widget.EditText';
const RV = 'androidx.recyclerview.widget.RecyclerView';

function root(api: SimApi, children: SimNode[]): SimNode {
  return { cls: FL, bounds: [0, 0, api.width, api.height], children: [{ cls: FL, id: 'android:id/content', bounds: [0, 0, api.width, api.height], children }] };
}

// ---------------------------------------------------------------- Instagram

function igTabs(api: SimApi, selected: string): SimNode {
  const tabs: [string, string, () => void][] = [
    ['feed_tab', 'Home', () => api.replace({ name: 'feed' })],
    ['search_tab', 'Search and explore', () => api.replace({ name: 'search', query: '' })],
    ['clips_tab', 'Reels', () => api.replace({ name: 'reels' })],
    ['creation_tab', 'Create', () => api.push({ name: 'gallery' })],
    ['profile_tab', 'Profile', () => api.replace({ name: 'profile', user: 'you' })],
  ];
  const w = api.width / tabs.length;
  return {
    cls: LL,
    id: 'tab_bar',
    look: 'bar',
    bounds: [0, 2137, api.width, 2274],
    children: tabs.map(([id, desc, onTap], i) => ({
      cls: FL,
      id,
      desc,
      clickable: true,
      selected: id === selected,
      bounds: [Math.round(i * w), 2137, Math.round((i + 1) * w), 2274],
      onTap,
    })),
  };
}

function igPostRows(api: SimApi, author: string, n: number, top: number): SimNode[] {
  const postId = `${author}#${n}`;
  const liked = api.liked.has(postId);
  return [
    {
      cls: LL,
      id: 'row_feed_profile_header',
      bounds: [0, top, api.width, top + 147],
      children: [
        {
          cls: TV,
          id: 'row_feed_photo_profile_name',
          text: author,
          clickable: true,
          bounds: [147, top + 44, 620, top + 96],
          onTap: () => api.push({ name: 'profile', user: author }),
        },
      ],
    },
    {
      cls: FL,
      id: 'media_group',
      bounds: [0, top + 147, api.width, top + 1227],
      children: [
        {
          cls: FL,
          id: 'zoomable_view_container',
          desc: `Photo by ${author}`,
          look: 'media',
          colour: colourAt(n),
          clickable: true,
          bounds: [0, top + 147, api.width, top + 1227],
        },
      ],
    },
    {
      cls: LL,
      id: 'row_feed_view_group_buttons',
      bounds: [0, top + 1227, api.width, top + 1353],
      children: [
        {
          cls: IV,
          id: 'row_feed_button_like',
          desc: liked ? 'Liked' : 'Like',
          selected: liked,
          clickable: true,
          bounds: [21, top + 1248, 115, top + 1332],
          onTap: () => api.like(postId),
        },
        {
          cls: IV,
          id: 'row_feed_button_comment',
          desc: 'Comment',
          clickable: true,
          bounds: [136, top + 1248, 230, top + 1332],
          onTap: () => api.push({ name: 'comments', postId }),
        },
        { cls: IV, id: 'row_feed_button_share', desc: 'Send post', clickable: true, bounds: [251, top + 1248, 345, top + 1332] },
      ],
    },
    {
      cls: TV,
      id: 'row_feed_textview_likes',
      text: `${liked ? 'Liked by you and ' : ''}${((n * 37) % 900) + 40} others`,
      bounds: [42, top + 1353, 1038, top + 1406],
    },
  ];
}

function igFeed(api: SimApi): SimNode {
  const n = api.feedIndex;
  return root(api, [
    {
      cls: FL,
      id: 'action_bar_container',
      bounds: [0, 128, api.width, 275],
      children: [
        { cls: IV, id: 'title_logo', desc: 'Instagram', bounds: [42, 150, 330, 253] },
        { cls: FL, id: 'action_bar_inbox_button', desc: 'Messenger', clickable: true, bounds: [954, 128, 1080, 275] },
      ],
    },
    { cls: RV, id: 'android:id/list', scrollable: true, bounds: [0, 275, api.width, 2137], children: igPostRows(api, authorAt(n), n, 556) },
    igTabs(api, 'feed_tab'),
  ]);
}

function igReels(api: SimApi): SimNode {
  const n = api.reelIndex;
  const postId = `reel:${authorAt(n + 3)}#${n}`;
  const liked = api.liked.has(postId);
  return root(api, [
    {
      cls: 'androidx.viewpager.widget.ViewPager',
      id: 'clips_viewer_view_pager',
      scrollable: true,
      bounds: [0, 0, api.width, 2137],
      children: [
        { cls: FL, id: 'clips_video_container', desc: `Reel by ${authorAt(n + 3)}`, look: 'media', colour: colourAt(n + 3), bounds: [0, 0, api.width, 2137] },
        {
          cls: TV,
          id: 'clips_author_username',
          text: authorAt(n + 3),
          clickable: true,
          bounds: [42, 1900, 600, 1960],
          onTap: () => api.push({ name: 'profile', user: authorAt(n + 3) }),
        },
        {
          cls: IV,
          id: 'like_button',
          desc: liked ? 'Liked' : 'Like',
          selected: liked,
          clickable: true,
          bounds: [960, 1350, 1060, 1450],
          onTap: () => api.like(postId),
        },
        {
          cls: IV,
          id: 'comment_button',
          desc: 'Comment',
          clickable: true,
          bounds: [960, 1510, 1060, 1610],
          onTap: () => api.push({ name: 'comments', postId }),
        },
      ],
    },
    igTabs(api, 'clips_tab'),
  ]);
}

function igSearch(api: SimApi, query: string): SimNode {
  const rows: SimNode[] = [];
  if (query) {
    rows.push({
      cls: LL,
      id: 'row_search_keyword',
      clickable: true,
      bounds: [0, 412, api.width, 496],
      children: [{ cls: TV, id: 'row_search_keyword_title', text: query, bounds: [200, 428, 900, 480] }],
      onTap: () => api.push({ name: 'tag', keyword: query }),
    });
    const users = usersFor(query);
    users.forEach((user, i) => {
      const top = 496 + i * 168;
      rows.push({
        cls: LL,
        id: 'row_search_user_container',
        clickable: true,
        bounds: [0, top, api.width, top + 168],
        onTap: () => api.push({ name: 'profile', user }),
        children: [{ cls: TV, id: 'row_search_user_username', text: user, bounds: [200, top + 31, 900, top + 84] }],
      });
    });
  } else {
    for (let i = 0; i < 9; i++) {
      const [x, y] = [(i % 3) * 360, 412 + Math.floor(i / 3) * 360];
      rows.push({
        cls: FL,
        id: 'image_button',
        desc: `Photo by ${authorAt(i + 5)}`,
        look: 'media',
        colour: colourAt(i + 5),
        clickable: true,
        bounds: [x, y, x + 360, y + 360],
        onTap: () => api.push({ name: 'post', author: authorAt(i + 5), n: i + 100 }),
      });
    }
  }
  return root(api, [
    {
      cls: FL,
      id: 'action_bar_container',
      bounds: [0, 128, api.width, 275],
      children: [
        {
          cls: ET,
          id: 'action_bar_search_edit_text',
          look: 'field',
          text: query || 'Search',
          focused: api.focused === 'search',
          clickable: true,
          bounds: [42, 149, 1038, 254],
          onTap: () => api.focus('search'),
        },
      ],
    },
    { cls: RV, id: 'recycler_view', scrollable: true, bounds: [0, 412, api.width, 2137], children: rows },
    igTabs(api, 'search_tab'),
  ]);
}

function igTag(api: SimApi, keyword: string): SimNode {
  const cells: SimNode[] = [];
  for (let i = 0; i < 12; i++) {
    const [x, y] = [(i % 3) * 360, 420 + Math.floor(i / 3) * 360];
    const author = `${slug(keyword)}.${authorAt(i)}`;
    cells.push({
      cls: FL,
      id: 'image_button',
      desc: `Photo by ${author}`,
      look: 'media',
      colour: colourAt(i + 2),
      clickable: true,
      bounds: [x, y, x + 360, y + 360],
      onTap: () => api.push({ name: 'post', author, n: i }),
    });
  }
  return root(api, [
    {
      cls: FL,
      id: 'action_bar_container',
      bounds: [0, 128, api.width, 275],
      children: [
        { cls: IV, id: 'action_bar_button_back', desc: 'Back', clickable: true, bounds: [0, 128, 126, 275], onTap: () => api.back() },
        { cls: TV, id: 'action_bar_title', text: keyword, bounds: [150, 170, 900, 233] },
      ],
    },
    { cls: RV, id: 'recycler_view', scrollable: true, bounds: [0, 420, api.width, 2137], children: cells },
    igTabs(api, 'search_tab'),
  ]);
}

function igPost(api: SimApi, author: string, n: number): SimNode {
  return root(api, [
    {
      cls: FL,
      id: 'action_bar_container',
      bounds: [0, 128, api.width, 275],
      children: [
        { cls: IV, id: 'action_bar_button_back', desc: 'Back', clickable: true, bounds: [0, 128, 126, 275], onTap: () => api.back() },
        { cls: TV, id: 'action_bar_title', text: 'Posts', bounds: [150, 170, 900, 233] },
      ],
    },
    { cls: RV, id: 'android:id/list', scrollable: true, bounds: [0, 275, api.width, 2137], children: igPostRows(api, author, n, 300) },
    igTabs(api, 'search_tab'),
  ]);
}

function igProfile(api: SimApi, user: string): SimNode {
  const own = user === 'you';
  const following = api.followed.has(user);
  const cells: SimNode[] = [];
  for (let i = 0; i < 6; i++) {
    const [x, y] = [(i % 3) * 360, 1100 + Math.floor(i / 3) * 360];
    cells.push({
      cls: FL,
      id: 'image_button',
      desc: `Photo by ${user}`,
      look: 'media',
      colour: colourAt(i + user.length),
      clickable: true,
      bounds: [x, y, x + 360, y + 360],
      onTap: () => api.push({ name: 'post', author: user, n: i }),
    });
  }
  return root(api, [
    {
      cls: FL,
      id: 'action_bar_container',
      bounds: [0, 128, api.width, 275],
      children: [
        { cls: IV, id: 'action_bar_button_back', desc: 'Back', clickable: true, bounds: [0, 128, 126, 275], onTap: () => api.back() },
        { cls: TV, id: 'action_bar_title', text: user, bounds: [150, 170, 900, 233] },
      ],
    },
    { cls: TV, id: 'profile_header_full_name', text: user, bounds: [42, 560, 900, 620] },
    own
      ? { cls: BT, id: 'profile_header_edit_profile_button', look: 'button', text: 'Edit profile', clickable: true, bounds: [42, 800, 1038, 900] }
      : {
          cls: BT,
          id: 'profile_header_follow_button',
          look: 'button',
          text: following ? 'Following' : 'Follow',
          selected: following,
          clickable: true,
          bounds: [42, 800, 530, 900],
          onTap: () => api.follow(user),
        },
    { cls: RV, id: 'profile_tab_layout', bounds: [0, 1100, api.width, 2137], children: cells },
    igTabs(api, own ? 'profile_tab' : 'search_tab'),
  ]);
}

function igComments(api: SimApi, postId: string): SimNode {
  return root(api, [
    {
      cls: FL,
      id: 'action_bar_container',
      bounds: [0, 128, api.width, 275],
      children: [
        { cls: IV, id: 'action_bar_button_back', desc: 'Back', clickable: true, bounds: [0, 128, 126, 275], onTap: () => api.back() },
        { cls: TV, id: 'action_bar_title', text: 'Comments', bounds: [150, 170, 900, 233] },
      ],
    },
    {
      cls: ET,
      id: 'layout_comment_thread_edittext',
      look: 'field',
      text: api.draft.comment || 'Add a comment…',
      focused: api.focused === 'comment',
      clickable: true,
      bounds: [42, 2150, 880, 2260],
      onTap: () => api.focus('comment'),
    },
    {
      cls: TV,
      id: 'layout_comment_thread_post_button_click_area',
      text: 'Post',
      clickable: true,
      bounds: [880, 2150, 1060, 2260],
      onTap: () => api.comment(postId),
    },
  ]);
}

function igGallery(api: SimApi): SimNode {
  const items: SimNode[] = api.media.map((file, i) => {
    const [x, y] = [(i % 4) * 270, 1494 + Math.floor(i / 4) * 270];
    return {
      cls: FL,
      id: 'gallery_grid_item_thumbnail',
      desc: `Photo thumbnail, ${file}`,
      look: 'media',
      colour: colourAt(i + 1),
      clickable: true,
      bounds: [x, y, x + 270, y + 270],
    };
  });
  return root(api, [
    {
      cls: FL,
      id: 'action_bar_container',
      bounds: [0, 128, api.width, 275],
      children: [
        { cls: IV, id: 'action_bar_cancel', desc: 'Close', clickable: true, bounds: [0, 128, 147, 275], onTap: () => api.back() },
        { cls: TV, id: 'action_bar_title', text: 'New post', bounds: [168, 170, 700, 233] },
        { cls: TV, id: 'next_button_textview', text: 'Next', clickable: true, bounds: [920, 128, 1080, 275], onTap: () => api.swap({ name: 'edit' }) },
      ],
    },
    { cls: FL, id: 'crop_image_view', look: 'media', colour: colourAt(1), bounds: [0, 275, api.width, 1355] },
    { cls: RV, id: 'gallery_recycler_view', scrollable: true, bounds: [0, 1494, api.width, 2213], children: items },
    {
      cls: LL,
      id: 'camera_destination_picker',
      bounds: [0, 2213, api.width, 2303],
      children: [
        { cls: TV, id: 'cam_dest_feed', text: 'POST', selected: true, clickable: true, bounds: [462, 2213, 617, 2303] },
        { cls: TV, id: 'cam_dest_clips', text: 'REEL', clickable: true, bounds: [800, 2213, 949, 2302] },
      ],
    },
  ]);
}

function igEdit(api: SimApi): SimNode {
  return root(api, [
    {
      cls: FL,
      id: 'action_bar_container',
      bounds: [0, 128, api.width, 275],
      children: [
        { cls: IV, id: 'action_bar_button_back', desc: 'Back', clickable: true, bounds: [0, 128, 147, 275], onTap: () => api.back() },
        { cls: TV, id: 'next_button_textview', text: 'Next', clickable: true, bounds: [920, 128, 1080, 275], onTap: () => api.swap({ name: 'caption' }) },
      ],
    },
    { cls: FL, id: 'filter_view', look: 'media', colour: colourAt(1), bounds: [0, 275, api.width, 1355] },
    {
      cls: RV,
      id: 'filter_picker',
      bounds: [0, 1500, api.width, 1900],
      children: ['Normal', 'Clarendon', 'Gingham', 'Moon'].map((text, i) => ({
        cls: TV,
        text,
        clickable: true,
        bounds: [i * 270, 1500, (i + 1) * 270, 1900] as [number, number, number, number],
      })),
    },
  ]);
}

function igCaption(api: SimApi): SimNode {
  return root(api, [
    {
      cls: FL,
      id: 'action_bar_container',
      bounds: [0, 128, api.width, 275],
      children: [
        { cls: IV, id: 'button_back', desc: 'Back', clickable: true, bounds: [0, 128, 147, 275], onTap: () => api.back() },
        { cls: TV, id: 'action_bar_title', text: 'New post', bounds: [168, 170, 700, 233] },
      ],
    },
    { cls: IV, id: 'media_thumbnail', look: 'media', colour: colourAt(1), bounds: [340, 296, 740, 796] },
    {
      cls: 'android.widget.AutoCompleteTextView',
      id: 'caption_input_text_view',
      look: 'field',
      text: api.draft.caption || 'Add a caption...',
      focused: api.focused === 'caption',
      clickable: true,
      bounds: [42, 990, 1038, 1116],
      onTap: () => api.focus('caption'),
    },
    { cls: TV, id: 'tag_people_string', text: 'Tag people', clickable: true, bounds: [137, 1550, 954, 1603] },
    { cls: TV, id: 'location_label', text: 'Add location', clickable: true, bounds: [137, 1640, 975, 1766] },
    { cls: BT, id: 'share_footer_button', look: 'button', text: 'Share', clickable: true, bounds: [42, 2221, 1038, 2337], onTap: () => api.publish() },
  ]);
}

function challenge(api: SimApi, lines: { title: string; body: string; button: string; id?: string }): SimNode {
  return root(api, [
    { cls: TV, id: 'igds_headline_headline', text: lines.title, bounds: [60, 900, 1020, 990] },
    { cls: TV, id: 'igds_headline_body', text: lines.body, bounds: [60, 1000, 1020, 1160] },
    { cls: BT, id: lines.id ?? 'primary_button', look: 'button', text: lines.button, clickable: true, bounds: [60, 1300, 1020, 1420] },
  ]);
}

export function instagramScreen(api: SimApi, screen: SimScreen): SimNode {
  switch (screen.name) {
    case 'feed':
      return igFeed(api);
    case 'reels':
      return igReels(api);
    case 'search':
      return igSearch(api, screen.query);
    case 'tag':
      return igTag(api, screen.keyword);
    case 'post':
      return igPost(api, screen.author, screen.n);
    case 'profile':
      return igProfile(api, screen.user);
    case 'comments':
      return igComments(api, screen.postId);
    case 'gallery':
      return igGallery(api);
    case 'edit':
      return igEdit(api);
    case 'caption':
      return igCaption(api);
    case 'login':
      return root(api, [
        { cls: ET, id: 'login_username', look: 'field', text: 'Username, email or mobile number', clickable: true, bounds: [60, 1000, 1020, 1130] },
        { cls: ET, id: 'password', look: 'field', text: 'Password', clickable: true, bounds: [60, 1160, 1020, 1290] },
        { cls: BT, id: 'button_text', look: 'button', text: 'Log in', desc: 'Log in', clickable: true, bounds: [60, 1330, 1020, 1450] },
      ]);
    case 'blocked':
      return challenge(api, {
        title: 'We suspended your account',
        body: 'You have 180 days left to disagree with this decision.',
        button: 'Disagree with decision',
      });
    case 'limited':
      return challenge(api, { title: 'Try Again Later', body: 'We restrict certain activity to protect our community.', button: 'OK' });
  }
}

// ---------------------------------------------------------------- TikTok

function ttTabs(api: SimApi, selected: string): SimNode {
  const tabs: [string, string | undefined, string | undefined, () => void][] = [
    ['Home', 'Home', undefined, () => api.replace({ name: 'feed' })],
    ['Friends', 'Friends', undefined, () => undefined],
    ['Create', undefined, 'Create', () => api.push({ name: 'gallery' })],
    ['Inbox', 'Inbox', undefined, () => undefined],
    ['Profile', 'Profile', undefined, () => api.replace({ name: 'profile', user: 'you' })],
  ];
  const w = api.width / tabs.length;
  return {
    cls: LL,
    look: 'bar',
    bounds: [0, 2190, api.width, 2330],
    children: tabs.map(([key, text, desc, onTap], i) => ({
      cls: FL,
      ...(text ? { text } : {}),
      ...(desc ? { desc } : {}),
      clickable: true,
      selected: key === selected,
      bounds: [Math.round(i * w), 2190, Math.round((i + 1) * w), 2330],
      onTap,
    })),
  };
}

function ttVideo(api: SimApi, author: string, n: number, withTabs: boolean): SimNode {
  const postId = `tt:${author}#${n}`;
  const liked = api.liked.has(postId);
  const following = api.followed.has(author);
  return root(api, [
    {
      cls: 'androidx.viewpager.widget.ViewPager',
      id: 'viewpager',
      scrollable: true,
      bounds: [0, 0, api.width, 2190],
      children: [
        { cls: FL, id: 'video_view', desc: `Video by ${author}`, look: 'media', colour: colourAt(n + 4), bounds: [0, 0, api.width, 2190] },
        { cls: IV, desc: 'Search', clickable: true, bounds: [950, 120, 1060, 230], onTap: () => api.push({ name: 'search', query: '' }) },
        {
          cls: IV,
          id: 'yx4',
          desc: `${author} profile`,
          clickable: true,
          bounds: [950, 1080, 1060, 1190],
          onTap: () => api.push({ name: 'profile', user: author }),
        },
        ...(following
          ? []
          : [
              {
                cls: BT,
                id: 'hi1',
                desc: 'Follow',
                clickable: true,
                bounds: [975, 1170, 1035, 1230] as [number, number, number, number],
                onTap: () => api.follow(author),
              },
            ]),
        {
          cls: BT,
          id: 'f57',
          desc: liked ? 'Liked video' : 'Like video',
          selected: liked,
          clickable: true,
          bounds: [950, 1280, 1060, 1390],
          onTap: () => api.like(postId),
        },
        {
          cls: BT,
          id: 'dtv',
          desc: 'Read or add comments',
          clickable: true,
          bounds: [950, 1460, 1060, 1570],
          onTap: () => api.push({ name: 'comments', postId }),
        },
        { cls: BT, desc: 'Share video', clickable: true, bounds: [950, 1820, 1060, 1930] },
        { cls: TV, id: 'title', text: `@${author}`, bounds: [40, 1900, 800, 1960] },
      ],
    },
    ...(withTabs
      ? [ttTabs(api, 'Home')]
      : [{ cls: IV, desc: 'Back', clickable: true, bounds: [0, 120, 130, 230] as [number, number, number, number], onTap: () => api.back() }]),
  ]);
}

export function tiktokScreen(api: SimApi, screen: SimScreen): SimNode {
  switch (screen.name) {
    case 'feed':
    case 'reels':
      return ttVideo(api, authorAt(api.feedIndex + 2), api.feedIndex, true);
    case 'post':
      return ttVideo(api, screen.author, screen.n, false);
    case 'search':
    case 'tag': {
      const query = screen.name === 'search' ? screen.query : screen.keyword;
      const users = query ? usersFor(query).slice(0, 2) : [];
      return root(api, [
        { cls: IV, desc: 'Back', clickable: true, bounds: [0, 120, 130, 230], onTap: () => api.back() },
        {
          cls: ET,
          id: 'et_search_kw',
          look: 'field',
          text: query || 'Search',
          focused: api.focused === 'search',
          clickable: true,
          bounds: [130, 120, 860, 230],
          onTap: () => api.focus('search'),
        },
        { cls: TV, text: 'Search', clickable: true, bounds: [860, 120, 1060, 230], onTap: () => api.swap({ name: 'tag', keyword: api.draft.query }) },
        ...users.map(
          (user, i): SimNode => ({
            cls: LL,
            clickable: true,
            bounds: [0, 300 + i * 170, api.width, 470 + i * 170],
            onTap: () => api.push({ name: 'profile', user }),
            children: [{ cls: TV, text: user, bounds: [180, 330 + i * 170, 800, 390 + i * 170] }],
          }),
        ),
        ...(screen.name === 'tag'
          ? Array.from({ length: 6 }, (_, i): SimNode => {
              const [x, y] = [(i % 2) * 540, 700 + Math.floor(i / 2) * 480];
              return {
                cls: FL,
                desc: `Video by ${slug(query)}.${authorAt(i)}`,
                look: 'media',
                colour: colourAt(i),
                clickable: true,
                bounds: [x, y, x + 540, y + 480],
                onTap: () => api.push({ name: 'post', author: `${slug(query)}.${authorAt(i)}`, n: i }),
              };
            })
          : []),
      ]);
    }
    case 'profile': {
      const following = api.followed.has(screen.user);
      return root(api, [
        { cls: IV, desc: 'Back', clickable: true, bounds: [0, 120, 130, 230], onTap: () => api.back() },
        { cls: TV, text: `@${screen.user}`, bounds: [200, 600, 880, 670] },
        {
          cls: BT,
          look: 'button',
          text: following ? 'Following' : 'Follow',
          selected: following,
          clickable: true,
          bounds: [300, 800, 780, 910],
          onTap: () => api.follow(screen.user),
        },
        ...Array.from({ length: 6 }, (_, i): SimNode => {
          const [x, y] = [(i % 3) * 360, 1100 + Math.floor(i / 3) * 480];
          return {
            cls: FL,
            desc: `Video by ${screen.user}`,
            look: 'media',
            colour: colourAt(i + 3),
            clickable: true,
            bounds: [x, y, x + 360, y + 480],
            onTap: () => api.push({ name: 'post', author: screen.user, n: i }),
          };
        }),
      ]);
    }
    case 'comments':
      return root(api, [
        { cls: TV, text: 'Comments', bounds: [300, 900, 780, 980] },
        { cls: IV, desc: 'Close', clickable: true, bounds: [960, 880, 1060, 980], onTap: () => api.back() },
        {
          cls: ET,
          look: 'field',
          text: api.draft.comment || 'Add comment...',
          focused: api.focused === 'comment',
          clickable: true,
          bounds: [40, 2200, 880, 2320],
          onTap: () => api.focus('comment'),
        },
        { cls: IV, desc: 'Post comment', clickable: true, bounds: [900, 2200, 1040, 2320], onTap: () => api.comment(screen.postId) },
      ]);
    case 'gallery':
      return root(api, [
        { cls: IV, desc: 'Close', clickable: true, bounds: [0, 120, 130, 230], onTap: () => api.back() },
        { cls: TV, text: 'Upload', clickable: true, bounds: [820, 1950, 1040, 2080], onTap: () => api.swap({ name: 'edit' }) },
      ]);
    case 'edit':
      return root(api, [
        { cls: IV, desc: 'Back', clickable: true, bounds: [0, 120, 130, 230], onTap: () => api.back() },
        ...api.media.map((file, i): SimNode => {
          const [x, y] = [(i % 3) * 360, 400 + Math.floor(i / 3) * 360];
          return { cls: FL, desc: `Photo, ${file}`, look: 'media', colour: colourAt(i), clickable: true, bounds: [x, y, x + 360, y + 360] };
        }),
        { cls: BT, look: 'button', text: 'Next', clickable: true, bounds: [760, 2200, 1040, 2320], onTap: () => api.swap({ name: 'caption' }) },
      ]);
    case 'caption':
      return root(api, [
        { cls: IV, desc: 'Back', clickable: true, bounds: [0, 120, 130, 230], onTap: () => api.back() },
        {
          cls: ET,
          look: 'field',
          text: api.draft.caption || 'Add description...',
          focused: api.focused === 'caption',
          clickable: true,
          bounds: [40, 300, 760, 700],
          onTap: () => api.focus('caption'),
        },
        { cls: BT, look: 'button', text: 'Post', clickable: true, bounds: [560, 2200, 1040, 2320], onTap: () => api.publish() },
      ]);
    case 'login':
      return root(api, [
        { cls: TV, text: 'Log in to TikTok', bounds: [100, 700, 980, 800] },
        { cls: BT, look: 'button', text: 'Use phone / email / username', clickable: true, bounds: [100, 1000, 980, 1120] },
      ]);
    case 'blocked':
      return root(api, [
        { cls: TV, text: 'Your account was permanently banned', bounds: [60, 900, 1020, 1000] },
        { cls: BT, look: 'button', text: 'Log out', clickable: true, bounds: [60, 1300, 1020, 1420] },
      ]);
    case 'limited':
      return root(api, [
        { cls: TV, text: "You're tapping too fast", bounds: [60, 900, 1020, 1000] },
        { cls: BT, look: 'button', text: 'OK', clickable: true, bounds: [60, 1300, 1020, 1420], onTap: () => api.back() },
      ]);
  }
}

/** The home screen: a wallpaper, the phone's name as a widget, and the apps' icons in the dock row. */
export function launcherScreen(api: SimApi, open: (pkg: string) => void, name = 'Simulated Pixel'): SimNode {
  return {
    cls: FL,
    look: 'wallpaper',
    bounds: [0, 0, api.width, api.height],
    children: [
      { cls: TV, text: name, bounds: [60, 520, api.width - 60, 640] },
      {
        cls: TV,
        look: 'icon',
        colour: '#d6249f',
        text: 'Instagram',
        desc: 'Instagram',
        clickable: true,
        bounds: [100, 1700, 400, 2000],
        onTap: () => open(INSTAGRAM),
      },
      { cls: TV, look: 'icon', colour: '#25f4ee', text: 'TikTok', desc: 'TikTok', clickable: true, bounds: [680, 1700, 980, 2000], onTap: () => open(TIKTOK) },
    ],
  };
}
