import { mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture } from '../../test/fake-android.ts';
import { FixturePhone } from '../../test/fixture-phone.ts';
import { PhoneError, UiBusyError } from '../phone/phone.device.ts';
import { toUiXml } from '../simphone/simphone.render.ts';
import { manualClock } from './recipe.pacing.ts';
import type { HandOver } from './recipe.outcome.ts';
import { runRecipe, type RecipeRunOptions, type StepProgress } from './recipe.runner.ts';
import { SHIPPED_RECIPES_DIR } from './recipe.resolver.ts';
import { recipe as recipeSchema, type RecipeInput, type RecipeParams } from './recipe.schema.ts';
import { parseUiXml } from './recipe.ui.ts';

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

  // Changed by issue 51: a positional step's point, bare or an element's fallback, is tapped only while the screen
  // cannot be read (scaled to the screen as before); on a screen that can be read it is a miss, and no tap reaches
  // the phone.
  it('taps positional points scaled to the screen size only while the screen cannot be read', async () => {
    const steps: RecipeInput['steps'] = [
      { do: 'tap', target: { point: { x: 540, y: 1200, of: { width: 1080, height: 2400 } } }, positional: true },
      { do: 'long_press', target: { point: { x: 0.1, y: 0.9 } }, positional: true },
      { do: 'type', text: 'hi', target: { point: { x: 0.5, y: 0.5 } }, positional: true },
    ];
    const busy = new FixturePhone('caption', { size: { width: 720, height: 1600 } });
    busy.alwaysBusy = true;
    const unreadable = await run(busy, steps);
    expect(unreadable.result.status).toBe('completed');
    expect(busy.taps).toEqual([
      { x: 360, y: 800 },
      { x: 72, y: 1440 },
      { x: 360, y: 800 },
    ]);
    expect(busy.typed).toEqual(['hi']);

    for (const step of steps) {
      const phone = new FixturePhone('caption', { size: { width: 720, height: 1600 } });
      const { result } = await run(phone, [step]);
      expect(result.failure).toMatchObject({
        code: 'element_missing',
        message: 'The screen could be read, so the positional point was not tapped: a point is only for a screen that cannot be read.',
        step: '0',
      });
      expect(phone.taps).toEqual([]);
      expect(phone.typed).toEqual([]);
    }
  });

  it('never taps a fallback once the screen was read, even when it later cannot be read', async () => {
    const readable = new FixturePhone('caption');
    const { result } = await run(readable, [
      { do: 'tap', target: { id: 'row_feed_button_like', fallback: { x: 0.5, y: 0.25 } }, positional: true, timeout: '2s' },
    ]);
    expect(result.failure).toMatchObject({ code: 'element_missing', message: 'The expected element did not appear on screen.', step: '0' });
    expect(readable.taps).toEqual([]);

    // Read once (no like button there), then busy for the rest of the wait: still no tap at the fallback.
    class ReadOnce extends FixturePhone {
      override async dumpUi(): Promise<string> {
        const xml = await super.dumpUi();
        if (this.dumps > 1) throw new UiBusyError();
        return xml;
      }
    }
    const flaky = new ReadOnce('caption');
    const later = await run(flaky, [{ do: 'tap', target: 'home_tab', positional: true, timeout: '3s' }]);
    expect(later.result.status).toBe('failed');
    expect(flaky.dumps).toBeGreaterThan(1);
    expect(flaky.taps).toEqual([]);
  });

  it('never acts at a point for a step that counts, nor for a point outside a positional step', async () => {
    // A recipe that skipped the schema (the schema refuses both): the runner still never taps the point.
    const counted = recipeSchema.safeParse(
      recipeInput([{ do: 'tap', target: { id: 'row_feed_button_like', fallback: { x: 0.5, y: 0.25 } }, positional: true, counts: 'like' }]),
    );
    expect(counted.success).toBe(false);
    const busy = new FixturePhone('feed');
    busy.alwaysBusy = true;
    const clock = manualClock();
    const unchecked = recipeOf([{ do: 'tap', target: 'like_button' }]);
    unchecked.steps = [{ do: 'tap', target: { id: 'row_feed_button_like', fallback: { x: 0.5, y: 0.25 } }, positional: true, counts: 'like', timeout: '2s' }];
    const { failure } = await runRecipe(busy, unchecked, {}, { random: () => 0.5, clock });
    // The screen never reads: the run ends there, the point untouched.
    expect(failure).toMatchObject({ code: 'screen_unreadable' });
    expect(busy.taps).toEqual([]);

    expect(recipeSchema.safeParse(recipeInput([{ do: 'tap', target: { point: { x: 0.5, y: 0.5 } } }])).success).toBe(false);
    const blind = new FixturePhone('feed');
    const bare = recipeOf([{ do: 'tap', target: 'like_button' }]);
    bare.steps = [{ do: 'tap', target: { point: { x: 0.5, y: 0.5 } } }];
    const refused = await runRecipe(blind, bare, {}, { random: () => 0.5, clock: manualClock() });
    expect(refused.failure).toMatchObject({ code: 'unknown', message: expect.stringContaining('without being marked "positional"') });
    expect(blind.taps).toEqual([]);
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
  // by a positional step while the screen stays unreadable. Any other step ends the run screen_unreadable, touching
  // nothing.
  it('uses the fallback of a positional step on a screen that stays busy, and ends any other step screen_unreadable', async () => {
    const phone = new FixturePhone('feed');
    phone.alwaysBusy = true;
    const { result } = await run(phone, [{ do: 'tap', target: 'home_tab', positional: true }]);
    expect(result.status).toBe('completed');
    expect(phone.taps).toEqual([{ x: 108, y: 2196 }]);
    const waiting = new FixturePhone('feed');
    waiting.alwaysBusy = true;
    const waited = await run(waiting, [{ do: 'wait_for', target: 'home_tab', timeout: '2s' }]);
    expect(waited.result.failure).toMatchObject({
      code: 'screen_unreadable',
      message: expect.stringMatching(/^The phone's screen could not be read \(.*\) while looking for home tab; nothing was done on it\.$/),
    });
    expect(waiting.taps).toEqual([]);
    const busy = new FixturePhone('feed');
    busy.alwaysBusy = true;
    const missing = await run(busy, [{ do: 'tap', target: 'like_button', timeout: '2s' }]);
    expect(missing.result.failure).toMatchObject({ code: 'screen_unreadable' });
    expect(busy.taps).toEqual([]);
  });

  it('counts a reader that gave nothing (no UI server answer, no dump) as an unreadable screen, and a phone gone as offline', async () => {
    const nothing = new FixturePhone('feed');
    nothing.dumpUi = async () => {
      throw new PhoneError('command_failed', 'The phone could not read its screen (uiautomator: not found).');
    };
    const unread = await run(nothing, [
      { do: 'key', key: 'back' },
      { do: 'tap', target: 'like_button', timeout: '2s' },
    ]);
    // The key before it was a step of the recipe; on the unreadable screen nothing more is pressed.
    expect(nothing.keys).toEqual(['back']);
    expect(nothing.taps).toEqual([]);
    expect(unread.result.failure).toMatchObject({
      code: 'screen_unreadable',
      message:
        "The phone's screen could not be read (The phone could not read its screen (uiautomator: not found)) while looking for like button; nothing was done on it.",
    });
    const gone = new FixturePhone('feed');
    gone.dumpUi = async () => {
      throw new PhoneError('disconnected', 'The phone is no longer connected.');
    };
    expect((await run(gone, [{ do: 'tap', target: 'like_button', timeout: '2s' }])).result.failure).toMatchObject({ code: 'device_offline' });
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
        { do: 'repeat', times: 1, needs: ['keywords'], steps: [{ do: 'type', text: '{{keywords|first}}' }] },
      ],
      { allowances: { like: 2 } },
    );
    expect(result.actions).toEqual({ like: 2, follow: 0, comment: 0, post: 0 });
    expect(phone.taps).toHaveLength(2);
    expect(progress.filter((event) => event.status === 'skipped').map((event) => event.detail)).toEqual([
      'No likes left for today.',
      'No likes left for today.',
      'Left out: this work gives no keywords.',
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

/**
 * The runner's safety rules on UI trees of real phones (`test/fixtures/real/`, each naming its source: Instagram from
 * YallaPapi/geelark-automation's December 2025 page sources and GramAddict/bot's id table, TikTok musically 43.1.4
 * from the same project, trill 46.1.3 from iwa147369/phonefarm_automated), with the shipped recipes' own selectors.
 */
class ScreenPhone extends FixturePhone {
  constructor(
    at: string,
    files: Record<string, string>,
    private readonly onTap: (at: string, x: number, y: number) => string = (screen) => screen,
  ) {
    super(at, {
      xml: Object.fromEntries(Object.entries(files).map(([name, file]) => [name, () => fixture(`real/${file}`)])),
      size: { width: 720, height: 1440 },
    });
  }

  override async tap(x: number, y: number): Promise<void> {
    this.taps.push({ x, y });
    this.at = this.onTap(this.at, x, y);
  }
}

function shipped(file: string, steps: RecipeInput['steps']): RecipeInput {
  const input = JSON.parse(readFileSync(`${SHIPPED_RECIPES_DIR}${file}`, 'utf8')) as RecipeInput;
  return { ...input, steps };
}

async function runShipped(phone: FixturePhone, file: string, steps: RecipeInput['steps'], params: RecipeParams = {}, options: RecipeRunOptions = {}) {
  const progress: StepProgress[] = [];
  const result = await runRecipe(phone, recipeSchema.parse(shipped(file, steps)), params, {
    random: () => 0.5,
    clock: manualClock(),
    pollMs: 500,
    onProgress: (event) => progress.push(event),
    ...options,
  });
  return { result, progress, skipped: progress.filter((event) => event.status === 'skipped').map((event) => event.detail) };
}

const inRound = (steps: RecipeInput['steps']): RecipeInput['steps'] => [{ do: 'repeat', times: 1, steps }];
const igLike = { do: 'toggle', target: 'like_button', off: [{ selected: false }], on: [{ selected: true }], counts: 'like', within: '2s' } as const;
const ttLike = { do: 'toggle', target: 'like_button', off: [{ selected: false }], on: [{ selected: true }], counts: 'like', within: '2s' } as const;

describe('safe steps on real phones’ screens', () => {
  it('likes an unliked Instagram post once it reads selected, and leaves an already-liked one alone', async () => {
    const phone = new ScreenPhone('feed', { feed: 'instagram/feed.xml', liked: 'instagram/feed-liked.xml' }, (at) => (at === 'feed' ? 'liked' : at));
    const liked = await runShipped(phone, 'instagram/warmup.json', inRound([igLike]));
    expect(liked.result.actions.like).toBe(1);
    expect(phone.taps).toEqual([{ x: 40, y: 1014 }]);

    const already = new ScreenPhone('liked', { liked: 'instagram/feed-liked.xml' });
    const left = await runShipped(already, 'instagram/warmup.json', inRound([igLike]));
    expect(already.taps).toEqual([]);
    expect(left.result.actions.like).toBe(0);
    expect(left.skipped).toContain('Already selected; left alone.');
  });

  it('counts no like the app never shows: a tap that leaves the post unliked is a miss', async () => {
    const phone = new ScreenPhone('feed', { feed: 'instagram/feed.xml' });
    const { result, skipped } = await runShipped(phone, 'instagram/warmup.json', inRound([igLike]));
    expect(phone.taps).toHaveLength(1);
    expect(result).toMatchObject({ status: 'completed', actions: { like: 0 }, misses: 1 });
    expect(skipped.at(-1)).toMatch(/^Missed: Turn on like button: tapped, but it never read selected\.$/);
  });

  it('likes on TikTok by the description on both packages, never by the shared id, and skips a liked video', async () => {
    for (const [pkg, feed, likedFile] of [
      ['tiktok-musically', 'tiktok-musically/feed.xml', 'tiktok-musically/feed-liked.xml'],
      ['tiktok-trill', 'tiktok-trill/feed.xml', 'tiktok-trill/feed-liked.xml'],
    ] as const) {
      const phone = new ScreenPhone('feed', { feed, liked: likedFile }, (at) => (at === 'feed' ? 'liked' : at));
      const { result } = await runShipped(phone, 'tiktok/warmup.json', inRound([ttLike]));
      expect(result.actions.like, pkg).toBe(1);
      expect(phone.taps, pkg).toHaveLength(1);
      // The Like button, not Share (same id on musically) nor the "Like" icon inside it.
      expect(phone.taps[0]!.x, pkg).toBe(996);
      const already = new ScreenPhone('liked', { liked: likedFile });
      const left = await runShipped(already, 'tiktok/warmup.json', inRound([ttLike]));
      expect(already.taps, pkg).toEqual([]);
      expect(left.result.actions.like, pkg).toBe(0);
    }
  });

  it('finds a like after a TikTok update renamed its ids (35.x build), as it matches the description', async () => {
    const phone = new ScreenPhone('feed', { feed: 'tiktok-musically/feed-renamed-35.xml', liked: 'tiktok-musically/feed-liked.xml' }, () => 'liked');
    const { result } = await runShipped(phone, 'tiktok/warmup.json', inRound([ttLike]));
    expect(result.actions.like).toBe(1);
  });

  it('reads guards only inside dialogs: a caption saying "try again later" is content, a block dialog over a video ends the run', async () => {
    for (const [file, feed] of [
      ['instagram/warmup.json', 'instagram/feed-caption-try-again.xml'],
      ['tiktok/warmup.json', 'tiktok-musically/feed-caption-try-again.xml'],
    ] as const) {
      const phone = new ScreenPhone('feed', { feed });
      const { result } = await runShipped(phone, file, [{ do: 'wait_for', target: 'home_tab' }]);
      expect(result.status, feed).toBe('completed');
    }
    const reel = new ScreenPhone('reel', { reel: 'instagram/reels-action-blocked.xml' });
    const blocked = await runShipped(reel, 'instagram/warmup.json', [{ do: 'wait_for', target: 'home_tab' }]);
    expect(blocked.result.failure).toMatchObject({ code: 'rate_limited' });
    const video = new ScreenPhone('video', { video: 'tiktok-musically/feed-action-blocked.xml' });
    const limited = await runShipped(video, 'tiktok/warmup.json', [{ do: 'wait_for', target: 'home_tab' }]);
    expect(limited.result.failure).toMatchObject({ code: 'rate_limited' });
    expect(reel.taps).toEqual([]);
    expect(video.taps).toEqual([]);
  });

  it('ends the run rate_limited when a block dialog answers the like, and does not count the like', async () => {
    const phone = new ScreenPhone('feed', { feed: 'tiktok-musically/feed.xml', blocked: 'tiktok-musically/feed-action-blocked.xml' }, () => 'blocked');
    const { result } = await runShipped(phone, 'tiktok/warmup.json', inRound([ttLike]));
    expect(phone.taps).toHaveLength(1);
    expect(result).toMatchObject({ status: 'failed', actions: { like: 0 }, failure: { code: 'rate_limited' } });
  });

  it('closes TikTok’s add-phone-number sheet by its only X, then goes on', async () => {
    const phone = new ScreenPhone(
      'sheet',
      { sheet: 'tiktok-musically/feed-add-phone.xml', feed: 'tiktok-musically/feed.xml', liked: 'tiktok-musically/feed-liked.xml' },
      (at) => (at === 'sheet' ? 'feed' : 'liked'),
    );
    const { result } = await runShipped(phone, 'tiktok/warmup.json', inRound([ttLike]));
    expect(phone.taps[0]).toEqual({ x: 1000, y: 1480 });
    expect(result.actions.like).toBe(1);
  });

  it('leaves out ordinary content with its reason and no miss: an ad, a private profile, comments off or limited, no results', async () => {
    const ad = new ScreenPhone('feed', { feed: 'instagram/feed-ad.xml' });
    const adRun = await runShipped(ad, 'instagram/warmup.json', inRound([igLike]));
    expect(ad.taps).toEqual([]);
    expect(adRun.result).toMatchObject({ status: 'completed', misses: 0, skipped: ['an ad'] });

    // The ordinary feed has an ad below the post: the post's own header is not sponsored, so it is liked.
    const feed = new ScreenPhone('feed', { feed: 'instagram/feed.xml' }, () => 'feed');
    await runShipped(feed, 'instagram/warmup.json', inRound([igLike]));
    expect(feed.taps).toHaveLength(1);

    // A follow by a plain tap does not read `selected` as followed: Instagram's Follow button is selected while not following.
    const notFollowed = new ScreenPhone('profile', { profile: 'instagram/profile.xml' });
    const tapped = await runShipped(notFollowed, 'instagram/engage.json', [{ do: 'tap', target: 'follow_button', counts: 'follow' }]);
    expect(notFollowed.taps).toHaveLength(1);
    expect(tapped.result).toMatchObject({ status: 'completed', actions: { follow: 1 } });

    const profile = new ScreenPhone('profile', { profile: 'instagram/profile-private.xml' });
    const follow = {
      do: 'toggle',
      target: 'follow_button',
      off: [{ text: 'Follow' }],
      on: [{ text: 'Following' }, { text: 'Requested' }],
      counts: 'follow',
    } as const;
    const privateRun = await runShipped(profile, 'instagram/engage.json', inRound([follow, { do: 'tap', target: 'grid_post' }]));
    expect(profile.taps).toEqual([]);
    expect(privateRun.result).toMatchObject({ status: 'completed', misses: 0, skipped: ['a private profile'] });

    // Comments turned off: the post shows its like button and no comment button (GramAddict's rule), a skip.
    const post = new ScreenPhone('post', { post: 'instagram/post-comments-off.xml' });
    const closed = await runShipped(post, 'instagram/engage.json', inRound([{ do: 'tap', target: 'comment_button' }]));
    expect(post.taps).toEqual([]);
    expect(closed.result).toMatchObject({ status: 'completed', misses: 0, skipped: ['comments turned off'] });
    // A post with its comment button is no such post: the button is tapped.
    const open = new ScreenPhone('post', { post: 'instagram/post-liked.xml' });
    const opened = await runShipped(open, 'instagram/engage.json', inRound([{ do: 'tap', target: 'comment_button' }]));
    expect(open.taps).toEqual([{ x: 134, y: 1222 }]);
    expect(opened.result).toMatchObject({ status: 'completed', misses: 0, skipped: [] });
    // A screen with neither (the app elsewhere) is a miss, not a skip.
    const elsewhere = new ScreenPhone('profile', { profile: 'instagram/profile.xml' });
    const lost = await runShipped(elsewhere, 'instagram/engage.json', inRound([{ do: 'tap', target: 'comment_button' }]));
    expect(lost.result).toMatchObject({ misses: 1, skipped: [] });

    // Comments limited: the sheet opens with its rows and no box (GramAddict logs it; the screen shows no words).
    const comments = new ScreenPhone('comments', { comments: 'instagram/comments-off.xml' });
    const off = await runShipped(comments, 'instagram/engage.json', inRound([{ do: 'type', target: 'comment_box', text: 'Lovely light' }]), {});
    expect(comments.typed).toEqual([]);
    expect(off.result).toMatchObject({ status: 'completed', misses: 0, skipped: ['comments limited'] });

    const search = new ScreenPhone('search', { search: 'instagram/search-no-results.xml' });
    const none = await runShipped(search, 'instagram/engage.json', inRound([{ do: 'tap', target: 'keyword_result' }]));
    expect(search.taps).toEqual([]);
    expect(none.result).toMatchObject({ status: 'completed', misses: 0, skipped: ['no search results'] });
  });

  it('hands a post to a VA with its author and frame, typing and tapping nothing; within the allowance; not where the post has no comment button', async () => {
    const handOver = { do: 'hand_over', kind: 'comment', author: 'post_author', near: 'comment_button' } as const;
    const feed = new ScreenPhone('feed', { feed: 'instagram/feed.xml' });
    const handed: HandOver[] = [];
    const { result, progress } = await runShipped(
      feed,
      'instagram/engage.json',
      [{ do: 'repeat', times: 3, steps: [handOver] }],
      { allowances: { comment: 2 } },
      {
        onHandOver: (item) => void handed.push(item),
      },
    );
    // The first post's comment button, and the author in the header nearest above it (not the ad's below).
    expect(handed.map(({ index, kind, author }) => ({ index, kind, author }))).toEqual([
      { index: 0, kind: 'comment', author: 'sunny.trails' },
      { index: 1, kind: 'comment', author: 'sunny.trails' },
    ]);
    expect(handed[0]?.frame?.data.byteLength).toBeGreaterThan(0);
    expect(feed.taps).toEqual([]);
    expect(feed.typed).toEqual([]);
    expect(result).toMatchObject({ status: 'completed', misses: 0, actions: { comment: 0 }, handedOver: { comment: 2 } });
    expect(progress.filter((event) => event.status === 'skipped').map((event) => event.detail)).toEqual(['No comments left for today.']);

    // TikTok's author is its avatar's description ("<name> profile").
    const tiktok = new ScreenPhone('feed', { feed: 'tiktok-musically/feed.xml' });
    const tt: HandOver[] = [];
    await runShipped(
      tiktok,
      'tiktok/engage.json',
      [{ do: 'hand_over', kind: 'comment', author: 'video_author', near: 'comments_button' }],
      {},
      {
        onHandOver: (item) => void tt.push(item),
      },
    );
    expect(tt.map((item) => item.author)).toEqual(['lena.paints']);

    // A reference account's post: the author is the account the round is for.
    const known: HandOver[] = [];
    await runShipped(
      new ScreenPhone('feed', { feed: 'instagram/feed.xml' }),
      'instagram/engage.json',
      [{ do: 'repeat', each: 'accounts', as: 'account', steps: [{ do: 'hand_over', kind: 'comment', authorIs: '{{account}}', near: 'comment_button' }] }],
      { accounts: ['maya_k'] },
      { onHandOver: (item) => void known.push(item) },
    );
    expect(known.map((item) => item.author)).toEqual(['maya_k']);

    // No comment button on screen (comments turned off hide it): nothing handed over, no miss.
    const profile = new ScreenPhone('profile', { profile: 'instagram/profile.xml' });
    const none: HandOver[] = [];
    const off = await runShipped(
      profile,
      'instagram/engage.json',
      [{ do: 'repeat', times: 1, steps: [handOver] }],
      {},
      { onHandOver: (item) => void none.push(item) },
    );
    expect(none).toEqual([]);
    expect(off.result).toMatchObject({ status: 'completed', misses: 0, skipped: ['comments turned off (the post shows no comment button)'] });
  });

  it('still runs a round’s `after` steps (the swipe on) when a skip or a miss ended the round early', async () => {
    const phone = new ScreenPhone('feed', { feed: 'instagram/feed-ad.xml' });
    const { result } = await runShipped(phone, 'instagram/warmup.json', [{ do: 'repeat', times: 3, steps: [igLike], after: [{ do: 'key', key: 'back' }] }]);
    expect(result).toMatchObject({ status: 'completed', skipped: ['an ad', 'an ad', 'an ad'], misses: 0 });
    expect(phone.keys).toEqual(['back', 'back', 'back']);
    expect(phone.taps).toEqual([]);
  });

  it('counts a post only when Instagram says "Posted!": a pending row that goes from view is post_unconfirmed, "can’t be posted" too', async () => {
    const share = {
      do: 'tap',
      target: 'share_button',
      counts: 'post',
      confirm: { present: 'posted', failed: 'post_failed', reason: 'post_unconfirmed' },
    } as const;
    const files = {
      caption: 'instagram/caption.xml',
      photo: 'instagram/caption-photo.xml',
      pending: 'instagram/feed-upload-pending.xml',
      posted: 'instagram/feed-upload-posted.xml',
      feed: 'instagram/feed.xml',
      failed: 'instagram/feed-upload-failed.xml',
    };
    /** After the tap: the pending row for two reads, then `then`. */
    const afterPending = (phone: ScreenPhone, then: string) => {
      let reads = 0;
      const dump = phone.dumpUi.bind(phone);
      phone.dumpUi = async () => {
        if (phone.at === 'pending' && ++reads > 2) phone.at = then;
        return dump();
      };
    };
    const done = new ScreenPhone('caption', files, () => 'pending');
    afterPending(done, 'posted');
    const posted = await runShipped(done, 'instagram/post.json', [share], { media: ['/srv/farm/media/pier.mp4'] });
    expect(posted.result).toMatchObject({ status: 'completed', actions: { post: 1 } });
    // The share tap says as it starts that it counts a post: a cut-off from here may leave the post up.
    expect(posted.progress.filter((event) => event.status === 'started' && event.counts === 'post').map((event) => event.path)).toEqual(['0']);

    // A photo post's Share is share_footer_button (no share_button on its screen): found, tapped, counted on "Posted!".
    const photo = new ScreenPhone('photo', files, () => 'pending');
    afterPending(photo, 'posted');
    const shared = await runShipped(photo, 'instagram/post.json', [share], { media: ['/srv/farm/media/pier.jpg'] });
    expect(shared.result).toMatchObject({ status: 'completed', actions: { post: 1 } });
    expect(photo.taps).toEqual([{ x: 360, y: 1293 }]);

    // The pending row goes (scrolled off, or gone unsaid) and nothing says "Posted!": not a post.
    const gone = new ScreenPhone('caption', files, () => 'pending');
    afterPending(gone, 'feed');
    const clock = manualClock();
    const unsaid = await runShipped(gone, 'instagram/post.json', [share], { media: ['/srv/farm/media/pier.jpg'] }, { clock });
    expect(unsaid.result).toMatchObject({ status: 'failed', actions: { post: 0 }, failure: { code: 'post_unconfirmed' } });
    // The limit for an image (3 minutes) ran out.
    expect(clock.now()).toBeGreaterThanOrEqual(3 * 60_000);
    expect(clock.now()).toBeLessThan(4 * 60_000);

    const failing = new ScreenPhone('caption', files, () => 'failed');
    const failed = await runShipped(failing, 'instagram/post.json', [share], { media: ['/srv/farm/media/pier.jpg'] });
    expect(failed.result).toMatchObject({
      status: 'failed',
      actions: { post: 0 },
      failure: { code: 'post_unconfirmed', message: 'The app said it could not finish: "Video can\'t be posted".' },
    });
  });

  it('leaves a failed-upload banner from before the share out of the new upload’s outcome (dismissed first, or left as stale)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'farm-media-'));
    const file = join(dir, 'pier.jpg');
    writeFileSync(file, Buffer.from([0xff, 0xd8, 0xff, 0xd9]));
    const media = { files: [file], dir };
    const files = {
      failed: 'instagram/feed-upload-failed.xml',
      photo: 'instagram/caption-photo.xml',
      pending: 'instagram/feed-upload-pending.xml',
      posted: 'instagram/feed-upload-posted.xml',
    };
    // The banner stays whatever is tapped: the share opens the caption screen, Share goes back to the feed, where the
    // old banner still shows between the pending row and "Posted!".
    const phone = new ScreenPhone('failed', files, (at) => (at === 'photo' ? 'stale' : at));
    phone.share = async (intent) => {
      phone.shared.push(intent);
      phone.at = 'photo';
    };
    const order = ['failed', 'pending', 'posted'];
    let reads = 0;
    const dump = phone.dumpUi.bind(phone);
    phone.dumpUi = async () => {
      if (phone.at === 'stale') phone.at = order[0] as string;
      else if (order.includes(phone.at) && phone.shared.length > 0 && ++reads % 2 === 0) phone.at = order[Math.min(order.indexOf(phone.at) + 1, 2)] as string;
      return dump();
    };
    const recipe = JSON.parse(readFileSync(`${SHIPPED_RECIPES_DIR}instagram/post.json`, 'utf8')) as RecipeInput;
    const steps = recipe.steps.filter((step) => {
      const kind = step as { do: string; counts?: string; present?: string };
      return kind.present === 'post_failed' || kind.do === 'share_media' || kind.counts === 'post';
    });
    const { result } = await runShipped(phone, 'instagram/post.json', steps, { media: [file] }, { media });
    // The dismiss was tried on the old banner (its discard button), and the new upload counted on "Posted!".
    expect(phone.taps[0]).toEqual({ x: 681, y: 410 });
    expect(result).toMatchObject({ status: 'completed', actions: { post: 1 } });
  });

  it('says at once that a TikTok post cannot be confirmed on a reader blind to toasts, and counts only the words evidence shows', async () => {
    const post = {
      do: 'tap',
      target: 'post_button',
      counts: 'post',
      confirm: { present: 'posted_toast', failed: 'post_refused', reason: 'post_unconfirmed' },
    } as const;
    const blind = new ScreenPhone('caption', { caption: 'tiktok-musically/caption.xml' });
    const clock = manualClock();
    const dump = await runShipped(blind, 'tiktok/post.json', [post], { media: ['/srv/farm/media/run.mp4'] }, { clock });
    expect(blind.taps).toHaveLength(1);
    expect(dump.result.failure).toMatchObject({ code: 'post_unconfirmed', message: expect.stringContaining('only with a toast') });
    expect(clock.now()).toBeLessThan(60_000);

    // Through a reader that sees toasts (the UI server): "Video posted" confirms it; "Couldn't post", which holds
    // "post" as the old confirmation matched, confirms nothing (post_unconfirmed at the limit: its words have no
    // public source to make it a refusal at once).
    const through = async (toastFile: string) => {
      const phone = new ScreenPhone('caption', { caption: 'tiktok-musically/caption.xml', after: toastFile }, () => 'after');
      phone.uiReader = async () => ({ kind: 'ui-server', version: '10.6.6', seesToasts: true });
      return runShipped(phone, 'tiktok/post.json', [post], { media: ['/srv/farm/media/run.mp4'] });
    };
    const posted = await through('tiktok-musically/toast-posted.xml');
    expect(posted.result).toMatchObject({ status: 'completed', actions: { post: 1 } });
    const refused = await through('tiktok-musically/toast-couldnt-post.xml');
    expect(refused.result).toMatchObject({
      status: 'failed',
      actions: { post: 0 },
      failure: { code: 'post_unconfirmed', message: 'The app did not confirm in time.' },
    });
  });

  it('ends a carousel unsupported before it acts: no phone can be handed several files at once', async () => {
    const phone = new ScreenPhone('caption', { caption: 'instagram/caption.xml' });
    const recipe = JSON.parse(readFileSync(`${SHIPPED_RECIPES_DIR}instagram/post.json`, 'utf8')) as RecipeInput;
    const { result } = await runShipped(phone, 'instagram/post.json', recipe.steps, { media: ['/srv/farm/media/a.jpg', '/srv/farm/media/b.jpg'] });
    expect(result).toMatchObject({
      status: 'failed',
      failure: {
        code: 'unsupported',
        retryable: false,
        message: "Carousel posts are not supported on phones: Android's am cannot send several files to the app.",
      },
    });
    expect(phone.dumps).toBe(0);
    expect(phone.taps).toEqual([]);
    expect(phone.shared).toEqual([]);
  });

  it('ends the run app_changed after five misses in a row, never tapping a point', async () => {
    const phone = new ScreenPhone('feed', { feed: 'instagram/feed.xml' });
    const { result } = await runShipped(phone, 'instagram/warmup.json', [
      { do: 'repeat', times: 10, steps: [{ do: 'tap', target: { id: 'renamed_like_button', evidence: 'test' }, timeout: '1s' }] },
    ]);
    expect(result.failure).toMatchObject({ code: 'app_changed' });
    expect(result.misses).toBe(5);
    expect(phone.taps).toEqual([]);
  });

  it('types by replacing the field and checks what landed: a field that shows something else is a miss', async () => {
    const phone = new ScreenPhone('comments', { comments: 'instagram/comments.xml' });
    phone.landed = 'Lovely';
    const { result, skipped } = await runShipped(
      phone,
      'instagram/engage.json',
      inRound([{ do: 'type', target: 'comment_box', text: 'Lovely light', counts: 'comment' }]),
    );
    expect(phone.typed).toEqual(['Lovely light', 'Lovely light']);
    expect(result).toMatchObject({ actions: { comment: 0 }, misses: 1 });
    expect(skipped.at(-1)).toBe('Missed: The field shows "Lovely" after typing "Lovely light".');
  });

  it('reads the UI server’s page source (tags named by class) like a dump, with parents', () => {
    const screen = parseUiXml(
      '<?xml version="1.0"?><hierarchy index="0" rotation="0" width="720" height="1440"><android.widget.FrameLayout index="0" package="com.instagram.android" class="android.widget.FrameLayout" resource-id="com.instagram.android:id/dialog_root_view" bounds="[0,0][720,1440]"><android.widget.TextView index="0" package="com.instagram.android" class="android.widget.TextView" text="Try Again Later" resource-id="com.instagram.android:id/igds_headline_emphasized_headline" selected="false" bounds="[92,510][628,560]" /></android.widget.FrameLayout><android.widget.Toast index="1" class="android.widget.Toast" text="Posted" bounds="[0,0][0,0]" /></hierarchy>',
    );
    expect(screen.nodes.map((node) => [node.className, node.text, node.parent, node.depth])).toEqual([
      ['android.widget.FrameLayout', '', -1, 0],
      ['android.widget.TextView', 'Try Again Later', 0, 1],
      ['android.widget.Toast', 'Posted', -1, 0],
    ]);
  });
});

describe('the pre-flight before a run', () => {
  const start = (phone: FixturePhone, file: string, preflight: RecipeRunOptions['preflight'] = {}, steps: RecipeInput['steps'] = [{ do: 'pause', for: 0 }]) =>
    runShipped(phone, file, steps, {}, { preflight });

  it('wakes the screen and stops at a PIN lock with device_locked', async () => {
    const phone = new ScreenPhone('feed', { feed: 'instagram/feed.xml' });
    phone.lock = 'locked_secure';
    phone.screen = async () => ({ on: false });
    const { result } = await start(phone, 'instagram/warmup.json');
    expect(phone.woken).toBe(1);
    expect(result.failure).toMatchObject({ code: 'device_locked', step: 'start' });
    expect(phone.launched).toEqual([]);
  });

  it('refuses an app version outside the tested range unless the work allows it', async () => {
    const phone = new ScreenPhone('feed', { feed: 'instagram/feed.xml' });
    phone.appVersion = async () => '360.0.0.52.192';
    const refused = await start(phone, 'instagram/warmup.json');
    expect(refused.result.failure).toMatchObject({ code: 'app_version_untested' });
    expect(refused.result.failure?.message).toContain('440.0.0.46.86 to 447.0.0.55.81');
    const allowed = await start(phone, 'instagram/warmup.json', { allowUntestedApp: true });
    expect(allowed.result.status).toBe('completed');
    expect(phone.stopped).toEqual(['com.instagram.android']);
    expect(phone.launched).toEqual(['com.instagram.android']);
    // A version the workspace verified the recipe on passes without the setting; a verification of another does not.
    const recipeId = allowed.result.recipe.id;
    const verified = await start(phone, 'instagram/warmup.json', { verifiedApps: [{ recipeId, package: 'com.instagram.android', version: '360.0.0.52.192' }] });
    expect(verified.result.status).toBe('completed');
    const other = await start(phone, 'instagram/warmup.json', { verifiedApps: [{ recipeId, package: 'com.instagram.android', version: '360.0.0.52.193' }] });
    expect(other.result.failure).toMatchObject({ code: 'app_version_untested' });
  });

  it('drives TikTok in whichever of its packages is installed, at that package’s tested version', async () => {
    const phone = new ScreenPhone('feed', { feed: 'tiktok-trill/feed.xml' });
    phone.appVersion = async (name?: string) => (name === 'com.ss.android.ugc.trill' ? '46.1.3' : null);
    const { result } = await start(phone, 'tiktok/warmup.json');
    expect(result).toMatchObject({ status: 'completed', package: 'com.ss.android.ugc.trill', appVersion: '46.1.3' });
    expect(phone.launched).toEqual(['com.ss.android.ugc.trill']);
  });

  it('reads the signed-in account from the own profile and ends wrong_account when it is another', async () => {
    const files = { feed: 'instagram/feed.xml', profile: 'instagram/profile.xml' };
    const phone = new ScreenPhone('feed', files, (at, _x, y) => (at === 'feed' && y > 1266 ? 'profile' : 'feed'));
    phone.appVersion = async () => '447.0.0.55.81';
    const profileName = parseUiXml(fixture('real/instagram/profile.xml')).nodes.find((node) => node.resourceId.endsWith(':id/action_bar_title'))?.text;
    expect(profileName).toBeTruthy();
    const wrong = await start(phone, 'instagram/warmup.json', { account: 'glow.daily' });
    expect(wrong.result.failure).toMatchObject({
      code: 'wrong_account',
      message: `@${profileName} is signed in on this phone, not @glow.daily, and the app offers no switch to it.`,
    });
    const right = new ScreenPhone('feed', files, (at, _x, y) => (at === 'feed' && y > 1266 ? 'profile' : 'feed'));
    right.appVersion = async () => '447.0.0.55.81';
    right.key = async (key) => {
      right.keys.push(key);
      right.at = 'feed';
    };
    const ok = await start(right, 'instagram/warmup.json', { account: `@${profileName}` });
    expect(ok.result.status).toBe('completed');
    expect(right.keys).toEqual(['back']);
  });

  it('ends a run whose screen the app’s home never shows on a login screen as login_required', async () => {
    const login = () =>
      toUiXml(
        {
          cls: 'android.widget.FrameLayout',
          bounds: [0, 0, 1080, 2400],
          children: [
            // The words geelark's screen_detector.py reads as Instagram's login screen (LOGIN_SCREEN markers).
            { cls: 'android.widget.Button', text: 'Forgot password?', clickable: true, bounds: [60, 1300, 1020, 1420] },
            { cls: 'android.widget.Button', text: 'Create new account', clickable: true, bounds: [60, 2000, 1020, 2120] },
          ],
        },
        'com.instagram.android',
      );
    const phone = new FixturePhone('login', { xml: { login } });
    phone.appVersion = async () => '447.0.0.55.81';
    const { result } = await start(phone, 'instagram/warmup.json');
    expect(result.failure).toMatchObject({ code: 'login_required', message: 'Instagram asks to log in again on this phone.' });
  });
});

describe('a run copies to the phone only the media fetched for it', () => {
  const steps: RecipeInput['steps'] = [{ do: 'repeat', each: 'media', as: 'file', steps: [{ do: 'push_media', from: '{{file}}', as: 'remote' }] }];
  /** A media folder as the agent's fetcher leaves it, with two fetched files (one: a post's single file to share). */
  function mediaFolder(names = ['a1.jpg', 'b2.jpg']) {
    const dir = mkdtempSync(join(tmpdir(), 'farm-media-'));
    const files = names.map((name) => {
      writeFileSync(join(dir, name), 'jpeg');
      return join(dir, name);
    });
    return { dir: realpathSync(dir), files: files.map((file) => realpathSync(file)) };
  }
  const share = (from?: string): RecipeInput['steps'] => [
    { do: 'share_media', activity: 'com.instagram.share.handleractivity.ShareHandlerActivity', ...(from ? { from } : {}) },
  ];

  it('copies each file the fetcher brought for the run', async () => {
    const media = mediaFolder();
    const phone = new FixturePhone('feed');
    const { result } = await run(phone, steps, {}, { media });
    expect(result.failure).toBeUndefined();
    expect(phone.pushed).toEqual(media.files);
    const one = mediaFolder(['a1.jpg']);
    const sharing = new FixturePhone('feed');
    expect((await run(sharing, share(), {}, { media: one })).result.failure).toBeUndefined();
    expect(sharing.pushed).toEqual(one.files);
    // Two files in one share are a carousel: refused before anything reaches the phone.
    const carousel = new FixturePhone('feed');
    expect((await run(carousel, share(), {}, { media })).result.failure).toMatchObject({ code: 'unsupported', retryable: false });
    expect(carousel.pushed).toEqual([]);
  });

  it("refuses a host path in the work's parameters: params.media is not what the run was given", async () => {
    const media = mediaFolder();
    const phone = new FixturePhone('feed');
    const { result } = await run(phone, share(), { media: ['/etc/passwd'] }, { media: { dir: media.dir, files: [] } });
    expect(result.failure).toMatchObject({ code: 'unknown', message: expect.stringContaining('The work gives no media to share'), retryable: false });
    const pushing = new FixturePhone('feed');
    const pushed = await run(pushing, [{ do: 'push_media', from: '{{caption}}' }], { caption: '/etc/shadow' }, { media });
    expect(pushed.result.failure).toMatchObject({
      code: 'unknown',
      message: 'push_media copies only the media the farm host fetched for this run from the console\'s stored uploads; "/etc/shadow" is not one of them.',
      retryable: false,
    });
    expect([...phone.pushed, ...pushing.pushed]).toEqual([]);
  });

  it("refuses share_media naming a recipe default or another scope value that holds a host path (the adb key, the agent's credential)", async () => {
    const media = mediaFolder(['a1.jpg']);
    const adbKey = join(homedir(), '.android', 'adbkey');
    // The recipe's own defaults: `media` from them is never the run's media, and any other name is not either.
    // Set past the schema (which may refuse it): a recipe stored before it did, run by a host not yet upgraded.
    const byDefault = new FixturePhone('feed');
    const carrying = { ...recipeOf(share()), defaults: { media: [adbKey] } };
    const fromDefaults = { result: await runRecipe(byDefault, carrying, {}, { clock: manualClock(), media: { dir: media.dir, files: [] } }) };
    expect(fromDefaults.result.failure).toMatchObject({ code: 'unknown', message: 'The work gives no media to share.', retryable: false });
    const byKeywords = new FixturePhone('feed');
    const fromKeywords = await run(byKeywords, share('keywords'), { keywords: [adbKey] }, { media });
    expect(fromKeywords.result.failure).toMatchObject({
      code: 'unknown',
      message: `share_media copies only the media the farm host fetched for this run from the console's stored uploads; ${JSON.stringify(adbKey)} is not one of them.`,
      retryable: false,
    });
    const byDefaultList = new FixturePhone('feed');
    const fromDefaultList = await run(byDefaultList, share('hashtags'), {}, { media }, { defaults: { hashtags: ['/home/farm/.farm-agent/host.json'] } });
    expect(fromDefaultList.result.failure).toMatchObject({ message: expect.stringContaining('is not one of them'), retryable: false });
    expect([...byDefault.pushed, ...byKeywords.pushed, ...byDefaultList.pushed, ...byDefault.shared]).toEqual([]);
  });

  it('refuses a file of the media folder that is a symbolic link leading out of it', async () => {
    const media = mediaFolder();
    const outside = mkdtempSync(join(tmpdir(), 'farm-secret-'));
    writeFileSync(join(outside, 'adbkey'), 'PRIVATE KEY');
    const link = join(media.dir, 'c3.jpg');
    symlinkSync(join(outside, 'adbkey'), link);
    const phone = new FixturePhone('feed');
    const { result } = await run(phone, share(), {}, { media: { dir: media.dir, files: [link] } });
    expect(result.failure).toMatchObject({
      code: 'unknown',
      message: `share_media: the media file ${JSON.stringify(link)} leads outside the farm host's media folder and is not copied to a phone.`,
      retryable: false,
    });
    expect(phone.pushed).toEqual([]);
  });
});
