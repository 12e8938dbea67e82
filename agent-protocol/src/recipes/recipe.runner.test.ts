import { describe, expect, it } from 'vitest';
import { FixturePhone } from '../../test/fixture-phone.ts';
import { PhoneError } from '../phone/phone.device.ts';
import { toUiXml } from '../simphone/simphone.render.ts';
import { manualClock } from './recipe.pacing.ts';
import { runRecipe, type RecipeRunOptions, type StepProgress } from './recipe.runner.ts';
import { recipe as recipeSchema, type RecipeInput, type RecipeParams } from './recipe.schema.ts';

function recipeInput(steps: RecipeInput['steps'], extra: Partial<RecipeInput> = {}): RecipeInput {
  return {
    id: 'test.recipe',
    version: 3,
    name: 'Test',
    platform: 'instagram',
    routines: ['basic'],
    app: { package: 'com.instagram.android', writtenFor: '360.0.0.52.192' },
    elements: {
      like_button: { id: 'row_feed_button_like', desc: 'Like' },
      share_button: { id: 'share_footer_button' },
      home_tab: { id: 'feed_tab', fallback: { x: 0.1, y: 0.915 } },
    },
    dialogs: [{ id: 'dialog_root_view' }],
    steps,
    ...extra,
  };
}

function recipeOf(steps: RecipeInput['steps'], extra: Partial<RecipeInput> = {}) {
  return recipeSchema.parse(recipeInput(steps, extra));
}

async function run(
  phone: FixturePhone,
  steps: RecipeInput['steps'],
  params: RecipeParams = {},
  options: RecipeRunOptions = {},
  extra: Partial<RecipeInput> = {},
) {
  const clock = manualClock();
  const progress: StepProgress[] = [];
  const result = await runRecipe(phone, recipeOf(steps, extra), params, { random: () => 0.5, clock, onProgress: (event) => progress.push(event), ...options });
  return { result, clock, progress };
}

const dialog =
  (title: string, button: string, ids: { title?: string; button?: string } = {}) =>
  () =>
    toUiXml(
      {
        cls: 'android.widget.FrameLayout',
        bounds: [0, 0, 1080, 2400],
        children: [
          {
            // Instagram's dialog container (GramAddict/bot GramAddict/core/resources.py DIALOG_ROOT_VIEW).
            cls: 'android.widget.FrameLayout',
            id: 'dialog_root_view',
            bounds: [40, 800, 1040, 1500],
            children: [
              { cls: 'android.widget.TextView', id: ids.title ?? 'igds_headline_headline', text: title, bounds: [60, 900, 1020, 990] },
              { cls: 'android.widget.Button', id: ids.button ?? 'primary_button', text: button, clickable: true, bounds: [60, 1300, 1020, 1420] },
            ],
          },
        ],
      },
      'com.instagram.android',
    );

describe('running a recipe on recorded screens', () => {
  it('taps elements at the centre of their bounds in a real feed dump and counts the like', async () => {
    const phone = new FixturePhone('feed');
    const { result } = await run(phone, [
      { do: 'open_app' },
      { do: 'wait_for', target: 'home_tab' },
      { do: 'tap', target: 'like_button', counts: 'like' },
      { do: 'tap', target: { id: 'search_tab' } },
    ]);
    expect(result).toMatchObject({
      status: 'completed',
      steps: 4,
      actions: { like: 1, follow: 0, comment: 0, post: 0 },
      recipe: { id: 'test.recipe', version: 3 },
    });
    expect(phone.launched).toEqual(['com.instagram.android']);
    expect(phone.taps).toEqual([
      { x: 68, y: 1846 },
      { x: 324, y: 2206 },
    ]);
    expect(phone.at).toBe('search');
  });

  it('selects by text, textContains, desc, descContains, class, index and alternatives, with templated text', async () => {
    const phone = new FixturePhone('search');
    const { result } = await run(
      phone,
      [
        { do: 'tap', target: { id: 'row_search_user_username', text: '{{accounts|pick}}' } },
        { do: 'tap', target: { class: 'EditText' } },
        { do: 'tap', target: { textContains: 'DAILY SUN' } },
        { do: 'tap', target: { descContains: 'profile picture', index: -1 } },
        { do: 'tap', target: { id: 'not_in_this_version', or: [{ desc: 'Nope' }, { text: 'Accounts' }] } },
      ],
      { accounts: ['sunsetbeach_photos'] },
    );
    expect(result.status).toBe('completed');
    expect(phone.taps).toEqual([
      { x: 550, y: 722 },
      { x: 582, y: 202 },
      { x: 550, y: 941 },
      { x: 105, y: 916 },
      { x: 324, y: 344 },
    ]);
  });

  // Changed by issue 36: an element not found on a readable screen is a miss, never a tap at its fallback; points
  // are for steps marked positional (scaled to the screen as before).
  it('taps points scaled to the screen size only for positional steps, and never a fallback on a readable screen', async () => {
    const phone = new FixturePhone('caption', { size: { width: 720, height: 1600 } });
    const { result } = await run(phone, [
      { do: 'tap', target: { point: { x: 540, y: 1200, of: { width: 1080, height: 2400 } } }, positional: true },
      { do: 'long_press', target: { point: { x: 0.1, y: 0.9 } }, positional: true },
      { do: 'tap', target: { id: 'row_feed_button_like', fallback: { x: 0.5, y: 0.25 } }, positional: true, timeout: '2s' },
    ]);
    expect(phone.taps).toEqual([
      { x: 360, y: 800 },
      { x: 72, y: 1440 },
    ]);
    expect(result.failure).toMatchObject({ code: 'element_missing', message: 'The expected element did not appear on screen.', step: '2' });
    expect(recipeSchema.safeParse(recipeInput([{ do: 'tap', target: { point: { x: 0.5, y: 0.5 } } }])).success).toBe(false);
  });

  it('fails with element_missing, the step and a screenshot when an element never appears', async () => {
    const phone = new FixturePhone('feed');
    const { result, progress } = await run(phone, [
      { do: 'tap', target: 'like_button' },
      { do: 'tap', target: 'share_button', timeout: '3s' },
      { do: 'key', key: 'back' },
    ]);
    expect(result.status).toBe('failed');
    expect(result.failure).toMatchObject({ code: 'element_missing', message: 'Share button did not appear on screen.', step: '1', label: 'Tap share button' });
    expect(result.failure?.screenshot?.mime).toBe('image/jpeg');
    expect(result.steps).toBe(1);
    expect(phone.keys).toEqual([]);
    expect(phone.dumps).toBe(1 + 4);
    expect(progress.at(-1)).toMatchObject({ path: '1', status: 'failed', detail: 'Share button did not appear on screen.' });
  });

  it('leaves out optional steps and fails expect with the recipe reason and message', async () => {
    const phone = new FixturePhone('feed');
    const { result, progress } = await run(phone, [
      { do: 'tap', target: 'share_button', optional: true, timeout: 0 },
      { do: 'expect', target: { text: 'Your post has been shared' }, timeout: 0, reason: 'unknown', message: 'Instagram did not confirm the post.' },
    ]);
    expect(progress.filter((event) => event.status === 'skipped').map((event) => event.detail)).toEqual(['Not on screen; optional.']);
    expect(result.failure).toMatchObject({ code: 'unknown', message: 'Instagram did not confirm the post.', step: '1' });
  });

  it('retries a dump that fails on a busy screen after a pause', async () => {
    const phone = new FixturePhone('feed');
    phone.busy = 2;
    const { result, clock } = await run(phone, [{ do: 'tap', target: 'like_button', counts: 'like' }], {}, { busyPauseMs: 1500 });
    expect(result.status).toBe('completed');
    expect(phone.dumps).toBe(3);
    expect(clock.slept).toEqual([1500, 1500]);
    expect(phone.taps).toEqual([{ x: 68, y: 1846 }]);
  });

  // Changed by issue 36: wait_for no longer passes on a screen that cannot be read; the fallback point is used only
  // by a positional step while the screen stays unreadable.
  it('uses the fallback of a positional step on a screen that stays busy, and passes no wait on it', async () => {
    const phone = new FixturePhone('feed');
    phone.alwaysBusy = true;
    const { result } = await run(phone, [{ do: 'tap', target: 'home_tab', positional: true }]);
    expect(result.status).toBe('completed');
    expect(phone.taps).toEqual([{ x: 108, y: 2196 }]);
    const waiting = new FixturePhone('feed');
    waiting.alwaysBusy = true;
    const waited = await run(waiting, [{ do: 'wait_for', target: 'home_tab', timeout: '2s' }]);
    expect(waited.result.failure).toMatchObject({
      code: 'element_missing',
      message: 'Home tab could not be found: the screen never went idle long enough to be read.',
    });
    expect(waiting.taps).toEqual([]);
    const busy = new FixturePhone('feed');
    busy.alwaysBusy = true;
    const missing = await run(busy, [{ do: 'tap', target: 'like_button', timeout: '2s' }]);
    expect(missing.result.failure).toMatchObject({
      code: 'element_missing',
      message: 'Like button could not be found: the screen never went idle long enough to be read.',
    });
    expect(busy.taps).toEqual([]);
  });

  it('ends the run on a guard with its reason, taps popups away, and knows Android crash dialogs', async () => {
    const guards = [{ when: { textContains: 'try again later' }, reason: 'rate_limited' as const, message: 'Instagram is limiting actions.' }];
    const limited = new FixturePhone('limit', { xml: { limit: dialog('Try Again Later', 'OK') } });
    const one = await run(limited, [{ do: 'tap', target: 'like_button' }], {}, {}, { guards });
    expect(one.result.failure).toMatchObject({ code: 'rate_limited', message: 'Instagram is limiting actions.' });

    const popup = new FixturePhone('popup', { xml: { popup: dialog('Turn on notifications', 'Not Now') }, flow: { popup: { primary_button: 'feed' } } });
    const two = await run(popup, [{ do: 'tap', target: 'like_button' }], {}, {}, { dismiss: [{ text: 'Not Now' }] });
    expect(two.result.status).toBe('completed');
    expect(popup.taps).toEqual([
      { x: 540, y: 1360 },
      { x: 68, y: 1846 },
    ]);

    const crashed = new FixturePhone('crash', { xml: { crash: dialog('Instagram keeps stopping', 'Close app', { button: 'android:id/aerr_close' }) } });
    const three = await run(crashed, [{ do: 'tap', target: 'like_button' }]);
    expect(three.result.failure).toMatchObject({ code: 'app_crashed', message: 'The app crashed or stopped responding (Android showed its dialog).' });
  });

  it('paces swipes with counts and pauses drawn from the random source', async () => {
    const phone = new FixturePhone('feed');
    const { result, clock } = await run(phone, [
      { do: 'swipe', direction: 'up', count: '5..12', pause: '2..6s' },
      { do: 'pause', for: '1..3m' },
    ]);
    expect(result.status).toBe('completed');
    expect(phone.swipes).toHaveLength(9);
    expect(phone.swipes[0]).toEqual({ from: { x: 540, y: 1860 }, to: { x: 540, y: 540 }, durationMs: 350 });
    expect(clock.slept).toEqual([...Array(9).fill(4000), 120_000]);
  });

  it('counts engagement within the day allowances and stops repeats when they are spent', async () => {
    const phone = new FixturePhone('feed');
    const { result, progress } = await run(
      phone,
      [
        { do: 'repeat', times: 4, steps: [{ do: 'tap', target: 'like_button', counts: 'like' }] },
        { do: 'repeat', until_spent: ['like'], steps: [{ do: 'tap', target: 'like_button', counts: 'like' }] },
        { do: 'repeat', times: 1, needs: ['comments'], steps: [{ do: 'type', text: '{{comments|pick}}', counts: 'comment' }] },
      ],
      { allowances: { like: 2 } },
    );
    expect(result.actions).toEqual({ like: 2, follow: 0, comment: 0, post: 0 });
    expect(phone.taps).toHaveLength(2);
    expect(progress.filter((event) => event.status === 'skipped').map((event) => event.detail)).toEqual([
      'No likes left for today.',
      'No likes left for today.',
      'Left out: this work gives no comments.',
    ]);
  });

  it('repeats over list parameters and for a number of minutes on the clock', async () => {
    const phone = new FixturePhone('feed');
    const { result, clock } = await run(
      phone,
      [
        { do: 'repeat', each: 'keywords', as: 'keyword', steps: [{ do: 'type', text: '{{keyword}}!' }] },
        { do: 'repeat', minutes: '{{minutes}}', steps: [{ do: 'pause', for: '30s' }] },
      ],
      { keywords: ['sunset', 'street food'], minutes: 2 },
    );
    expect(result.status).toBe('completed');
    expect(phone.typed).toEqual(['sunset!', 'street food!']);
    expect(clock.slept).toEqual([30_000, 30_000, 30_000, 30_000]);
  });

  it('reports each step started and done, with paths and progress', async () => {
    const phone = new FixturePhone('feed');
    const { progress } = await run(phone, [
      { do: 'open_app', label: 'Open Instagram' },
      { do: 'when', present: 'like_button', steps: [{ do: 'key', key: 'back' }] },
    ]);
    expect(progress.map((event) => [event.seq, event.path, event.status, event.label, event.percent])).toEqual([
      [1, '0', 'started', 'Open Instagram', 0],
      [1, '0', 'done', 'Open Instagram', 0],
      [2, '1', 'started', 'If like button shows', 50],
      [3, '1.0', 'started', 'Press back', 50],
      [3, '1.0', 'done', 'Press back', 50],
      [3, '1', 'done', 'If like button shows', 50],
    ]);
  });

  it('moves progress through a repeat of minutes by the clock', async () => {
    const phone = new FixturePhone('feed');
    const { progress } = await run(phone, [{ do: 'open_app' }, { do: 'repeat', minutes: 2, steps: [{ do: 'pause', for: '30s' }] }]);
    expect(progress.filter((event) => event.do === 'pause' && event.status === 'started').map((event) => event.percent)).toEqual([50, 63, 75, 88]);
  });

  it('stops when cancelled and turns a silent phone into device_offline', async () => {
    const controller = new AbortController();
    controller.abort();
    const cancelled = await run(new FixturePhone('feed'), [{ do: 'key', key: 'back' }], {}, { signal: controller.signal });
    expect(cancelled.result.status).toBe('cancelled');
    const silent = new FixturePhone('feed');
    silent.failWith = new PhoneError('timeout', '"uiautomator dump" got no answer within 20000 ms.');
    const offline = await run(silent, [{ do: 'tap', target: 'like_button' }]);
    expect(offline.result.failure).toMatchObject({ code: 'device_offline', message: '"uiautomator dump" got no answer within 20000 ms.' });
    const noParam = await run(new FixturePhone('feed'), [{ do: 'type', text: '{{caption}}' }]);
    expect(noParam.result.failure).toMatchObject({ code: 'unknown', message: 'The recipe needs "caption", which this work does not give.' });
  });
});
