import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { manualClock, seededRandom } from '../recipes/recipe.pacing.ts';
import { resolveRecipe, shippedRecipes } from '../recipes/recipe.resolver.ts';
import { runRecipe, type StepProgress } from '../recipes/recipe.runner.ts';
import type { RecipeParams, RecipePlatform, RoutineType } from '../recipes/recipe.schema.ts';
import { SimulatedPhoneUi, type SimulatedPhoneUiOptions } from './simphone.device.ts';

const params: RecipeParams = {
  caption: 'Golden hour at the pier',
  hashtags: ['#sunset', '#travel'],
  media: ['/srv/farm/media/pier.jpg'],
  keywords: ['sunset beach', 'street food'],
  accounts: ['maya_k', 'north.shore.surf'],
  comments: ['Love this!', 'So good'],
  count: 3,
  minutes: 2,
  engagement: 100,
};

async function run(platform: RecipePlatform, routine: RoutineType, options: SimulatedPhoneUiOptions = {}, extra: Partial<RecipeParams> = {}) {
  const phone = new SimulatedPhoneUi(options);
  const resolved = resolveRecipe({ routine, platform });
  if (!resolved) throw new Error(`no recipe for ${platform} ${routine}`);
  const progress: StepProgress[] = [];
  const result = await runRecipe(
    phone,
    resolved.recipe,
    { ...params, ...extra },
    { random: seededRandom(7), clock: manualClock(), onProgress: (event) => progress.push(event), screenshotOnFailure: true },
  );
  return { phone, result, progress, recipe: resolved.recipe };
}

describe('the shipped recipes on the simulated phone', () => {
  it('publishes an Instagram post: media pushed, flow walked, caption with hashtags shared', async () => {
    const { phone, result, progress } = await run('instagram', 'create_post');
    expect(result.failure).toBeUndefined();
    expect(result.status).toBe('completed');
    expect(result.actions).toEqual({ like: 0, follow: 0, comment: 0, post: 1 });
    expect(phone.published).toEqual([{ app: 'instagram', caption: 'Golden hour at the pier #sunset #travel', media: 'pier.jpg' }]);
    expect(phone.taps.map((tap) => tap.hit)).toEqual([
      'creation_tab',
      'cam_dest_feed',
      'gallery_grid_item_thumbnail',
      'next_button_textview',
      'next_button_textview',
      'caption_input_text_view',
      'share_footer_button',
    ]);
    expect(phone.taps[0]).toMatchObject({ x: 756, y: 2206, app: 'instagram', screen: 'instagram/feed' });
    expect(phone.where).toBe('instagram/feed');
    expect(progress.filter((event) => event.status === 'done').map((event) => event.label)).toContain('Confirm the post went out');
    expect(progress.at(-1)).toMatchObject({ status: 'done', percent: expect.any(Number) });
  });

  it('engages on Instagram by keywords and reference accounts within the allowances', async () => {
    const { phone, result } = await run('instagram', 'engage_comments', {}, { allowances: { like: 4, follow: 5, comment: 1 } });
    expect(result.failure).toBeUndefined();
    expect(result.actions.like).toBe(4);
    expect(result.actions.follow).toBe(2);
    expect(result.actions.comment).toBeLessThanOrEqual(1);
    expect([...phone.followed].sort()).toEqual(['maya_k', 'north.shore.surf']);
    expect(phone.liked.size).toBe(4);
    expect(phone.typed.slice(0, 1)).toEqual(['sunset beach']);
    expect(phone.typed).toContain('maya_k');
  });

  it('warms up on Instagram for the routine duration and likes a share', async () => {
    const { phone, result } = await run('instagram', 'warmup', {}, { engagement: 30, minutes: 3 });
    expect(result.status).toBe('completed');
    expect(result.finishedAt - result.startedAt).toBeGreaterThanOrEqual(3 * 60_000);
    expect(phone.swipes.length).toBeGreaterThan(10);
    expect(result.actions.like).toBe(phone.liked.size);
    expect(result.actions.like).toBeGreaterThan(0);
  });

  it('scrolls Instagram without engaging', async () => {
    const { phone, result } = await run('instagram', 'doom_scroll');
    expect(result.status).toBe('completed');
    expect(result.actions).toEqual({ like: 0, follow: 0, comment: 0, post: 0 });
    expect(phone.liked.size).toBe(0);
  });

  it('runs the TikTok recipes: warm-up on a busy video feed taps the fallback points', async () => {
    const { phone, result } = await run('tiktok', 'warmup', { busyOnVideo: true }, { engagement: 50, minutes: 2 });
    expect(result.failure).toBeUndefined();
    expect(result.actions.like).toBeGreaterThan(0);
    // The like button's fallback point (0.93, 0.554 of 1080×2400) lands on the like button.
    expect(phone.taps.filter((tap) => tap.hit === 'f57').every((tap) => tap.x === 1004 && tap.y === 1330)).toBe(true);
    expect(phone.liked.size).toBe(result.actions.like);
  });

  it('runs TikTok engage, post and scroll', async () => {
    const engage = await run('tiktok', 'engage_comments', {}, { allowances: { like: 3 } });
    expect(engage.result.failure).toBeUndefined();
    expect(engage.result.actions.like).toBe(3);
    expect([...engage.phone.followed].sort()).toEqual(['maya_k', 'north.shore.surf']);
    const post = await run('tiktok', 'create_post');
    expect(post.result.failure).toBeUndefined();
    expect(post.phone.published).toEqual([{ app: 'tiktok', caption: 'Golden hour at the pier #sunset #travel', media: 'pier.jpg' }]);
    const scroll = await run('tiktok', 'basic_scroll');
    expect(scroll.result.status).toBe('completed');
  });

  it('fails with login_required on a login challenge, with a screenshot of it', async () => {
    const { result, phone } = await run('instagram', 'warmup', { challenge: 'login' });
    expect(result.status).toBe('failed');
    expect(result.failure).toMatchObject({
      code: 'login_required',
      message: 'Instagram asks to log in again on this phone.',
      step: '2',
      label: 'Wait for the home feed',
    });
    expect(result.failure?.screenshot?.mime).toBe('image/jpeg');
    expect(phone.where).toBe('instagram/login');
  });

  it('fails with account_blocked on a suspended account and rate_limited when the platform limits likes', async () => {
    expect((await run('instagram', 'engage_comments', { challenge: 'blocked' })).result.failure?.code).toBe('account_blocked');
    const limited = await run('instagram', 'engage_comments', { rateLimitAfterLikes: 2 });
    expect(limited.result.failure).toMatchObject({ code: 'rate_limited', message: "Instagram is limiting this account's actions for now." });
    expect(limited.result.actions.like).toBe(2);
  });
});

describe('the simulated phone', () => {
  it('reacts to taps, keys, swipes and typing, and records taps with coordinates', async () => {
    const phone = new SimulatedPhoneUi();
    await phone.launchApp('com.instagram.android');
    expect(phone.where).toBe('instagram/feed');
    await phone.tap(324, 2206);
    expect(phone.where).toBe('instagram/search');
    await phone.tap(540, 200);
    await phone.text('maya_k');
    expect(await phone.dumpUi()).toContain('text="maya_k" resource-id="com.instagram.android:id/row_search_user_username"');
    await phone.key('back');
    await phone.key('back');
    expect(phone.where).toBe('launcher');
    await phone.tap(5, 5);
    expect(phone.taps.at(-1)).toEqual({ x: 5, y: 5, hit: null, app: 'launcher', screen: 'launcher' });
    await expect(phone.launchApp('com.example.none')).rejects.toThrow('could not be opened');
  });

  it('draws its screen as a JPEG scaled to the asked size', async () => {
    const phone = new SimulatedPhoneUi({ now: () => new Date('2026-01-05T09:41:00') });
    await phone.launchApp('com.instagram.android');
    phone.caption = 'Like this post';
    const shot = await phone.screenshot({ maxSide: 720 });
    expect([shot.mime, shot.width, shot.height]).toEqual(['image/jpeg', 324, 720]);
    const meta = await sharp(shot.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 324, 720]);
  });

  it('shows the name the console gave it on its home screen, not a colourless page', async () => {
    const phone = new SimulatedPhoneUi({ model: 'Pixel 8' });
    expect(phone.nodes().map((node) => node.text)).toContain('Pixel 8');
    phone.named('Pixel 7 #04');
    expect(phone.nodes().map((node) => node.text)).toContain('Pixel 7 #04');
    const { dominant } = await sharp((await phone.screenshot({ maxSide: 720 })).data).stats();
    // The wallpaper: a dark blue-violet, not the white page of an app.
    expect(dominant.b).toBeGreaterThan(dominant.g);
    expect(dominant.r + dominant.g + dominant.b).toBeLessThan(450);
  });

  it('has a recipe for every platform and routine it plays', () => {
    for (const recipe of shippedRecipes()) expect(['instagram', 'tiktok']).toContain(recipe.platform);
  });
});
