/**
 * Traces of a run (the recipe studio's dry runs) on recorded screens: per step its verdict, the selector it looked for
 * with its parameters filled, the node it matched in the tree it sends, where it touched; the gate before each step;
 * the no-effects mode; and the failed step's trace a real run carries.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixture } from '../../test/fake-android.ts';
import { FixturePhone } from '../../test/fixture-phone.ts';
import { failureTrace, MAX_TRACE_FRAME_BYTES, MAX_TRACE_STEPS, traceStep, type TraceStep } from '../dryrun.ts';
import { manualClock } from './recipe.pacing.ts';
import { runRecipe, StopRun, type RecipeRunOptions } from './recipe.runner.ts';
import { SHIPPED_RECIPES_DIR } from './recipe.resolver.ts';
import { recipe as recipeSchema, type RecipeInput, type RecipeParams } from './recipe.schema.ts';

function recipeOf(steps: RecipeInput['steps'], extra: Partial<RecipeInput> = {}) {
  return recipeSchema.parse({
    id: 'test.trace',
    version: 1,
    name: 'Trace',
    platform: 'instagram',
    routines: ['basic'],
    app: { package: 'com.instagram.android', writtenFor: '360.0.0.52.192' },
    elements: {
      like_button: { id: 'row_feed_button_like', desc: 'Like' },
      home_tab: { id: 'feed_tab' },
    },
    steps,
    ...extra,
  });
}

async function traced(phone: FixturePhone, steps: RecipeInput['steps'], params: RecipeParams = {}, options: RecipeRunOptions = {}) {
  const traces: TraceStep[] = [];
  const result = await runRecipe(phone, recipeOf(steps), params, {
    random: () => 0.5,
    clock: manualClock(),
    pollMs: 500,
    onTrace: (step) => {
      traces.push(step);
    },
    ...options,
  });
  return { result, traces };
}

/** The real screens of `test/fixtures/real/` (each names its source), moving on a tap as `onTap` says. */
class ScreenPhone extends FixturePhone {
  constructor(
    at: string,
    files: Record<string, string>,
    private readonly onTap: (at: string) => string = (screen) => screen,
  ) {
    super(at, {
      xml: Object.fromEntries(Object.entries(files).map(([name, file]) => [name, () => fixture(`real/${file}`)])),
      size: { width: 720, height: 1440 },
    });
  }

  override async tap(x: number, y: number): Promise<void> {
    this.taps.push({ x, y });
    this.at = this.onTap(this.at);
  }
}

const shippedWarmup = (steps: RecipeInput['steps']) =>
  recipeSchema.parse({ ...(JSON.parse(readFileSync(`${SHIPPED_RECIPES_DIR}instagram/warmup.json`, 'utf8')) as RecipeInput), steps });
const igLike = { do: 'toggle', target: 'like_button', off: [{ selected: false }], on: [{ selected: true }], counts: 'like', within: '2s' } as const;

describe('traces of a run', () => {
  it('says each step’s verdict, the selector it used with parameters filled, the node it matched and where it touched', async () => {
    const phone = new FixturePhone('search');
    const { result, traces } = await traced(
      phone,
      [
        { do: 'tap', target: { id: 'row_search_user_username', text: '{{accounts|first}}' } },
        { do: 'tap', target: { id: 'not_in_this_version', or: [{ desc: 'Nope' }, { text: 'Accounts' }] } },
        { do: 'wait_for', target: { id: 'never_here' }, optional: true, timeout: '1s' },
        { do: 'key', key: 'back' },
      ],
      { accounts: ['sunsetbeach_photos'] },
      { traceScreens: true },
    );
    expect(result.status).toBe('completed');
    for (const step of traces) expect(traceStep.safeParse(step).success).toBe(true);
    expect(traces.map((step) => [step.seq, step.path, step.do, step.verdict])).toEqual([
      [1, '0', 'tap', 'done'],
      [2, '1', 'tap', 'done'],
      [3, '2', 'wait_for', 'skipped'],
      [4, '3', 'key', 'done'],
    ]);
    const [first, second, missing, key] = traces as [TraceStep, TraceStep, TraceStep, TraceStep];
    expect(first.selector).toEqual({ id: 'row_search_user_username', text: 'sunsetbeach_photos' });
    expect(first.point).toEqual(phone.taps[0]);
    // The node it matched, found in the tree the trace sends.
    const node = first.tree?.nodes[first.matched?.node ?? -1];
    expect(node).toMatchObject({ text: 'sunsetbeach_photos', bounds: first.matched?.bounds });
    expect(node?.resourceId).toMatch(/:id\/row_search_user_username$/);
    // The alternative that matched, not the selector that missed.
    expect(second.selector).toEqual({ text: 'Accounts' });
    expect(second.tree?.nodes[second.matched?.node ?? -1]?.text).toBe('Accounts');
    expect(missing).toMatchObject({ selector: { id: 'never_here' }, detail: 'Not on screen; optional.' });
    expect(missing.matched).toBeUndefined();
    // A screenshot with each; no tree for a step that read none.
    expect(traces.every((step) => step.frame?.mime === 'image/jpeg')).toBe(true);
    expect(key.tree).toBeUndefined();
  });

  it('matches a toggle’s node on the screen it read last, after the tap, and says the like it counted', async () => {
    const phone = new ScreenPhone('feed', { feed: 'instagram/feed.xml', liked: 'instagram/feed-liked.xml' }, (at) => (at === 'feed' ? 'liked' : at));
    const traces: TraceStep[] = [];
    const result = await runRecipe(
      phone,
      shippedWarmup([{ do: 'repeat', times: 1, steps: [igLike] }]),
      {},
      {
        random: () => 0.5,
        clock: manualClock(),
        pollMs: 500,
        traceScreens: true,
        onTrace: (step) => void traces.push(step),
      },
    );
    expect(result.actions.like).toBe(1);
    expect(traces.map((step) => [step.path, step.verdict])).toEqual([
      ['0.0', 'done'],
      ['0', 'done'],
    ]);
    const like = traces[0]!;
    expect(like).toMatchObject({ do: 'toggle', action: 'like', point: phone.taps[0] });
    expect(like.tree?.nodes[like.matched?.node ?? -1]).toMatchObject({ selected: true, bounds: like.matched?.bounds });
    expect(traces[1]).toMatchObject({ do: 'repeat', detail: '1 round', seq: 1 });
  });

  it('waits at the gate before the pre-flight and each step that acts, in order, and stops where the person says', async () => {
    const gates: string[] = [];
    const phone = new FixturePhone('feed');
    const { result, traces } = await traced(
      phone,
      [
        { do: 'wait_for', target: 'home_tab' },
        {
          do: 'repeat',
          times: 2,
          steps: [
            { do: 'key', key: 'back' },
            { do: 'pause', for: 0 },
          ],
        },
        { do: 'when', present: 'home_tab', steps: [{ do: 'key', key: 'home' }] },
        { do: 'tap', target: { id: 'search_tab' } },
      ],
      {},
      {
        beforeStep: async (at) => {
          gates.push(`${at.path} ${at.do}`);
          if (at.path === '3') throw new StopRun();
        },
      },
    );
    expect(gates).toEqual(['0 wait_for', '1.0 key', '1.1 pause', '1.0 key', '1.1 pause', '2.0 key', '3 tap']);
    expect(result).toMatchObject({ status: 'stopped', stopped: { by: 'person', step: '3', message: 'Stopped by the person before this step.' } });
    expect(phone.taps).toEqual([]);
    expect(phone.keys).toEqual(['back', 'back', 'home']);
    expect(traces.at(-1)).toMatchObject({ path: '3', do: 'tap', verdict: 'stopped', detail: 'Stopped by the person before this step.', ms: 0 });
    // Containers trace once they end, after their steps (their seq is when they began).
    expect(traces.filter((step) => step.path === '1' || step.path === '2').map((step) => [step.seq, step.detail])).toEqual([
      [2, '2 rounds'],
      [7, 'Shown'],
    ]);
  });

  it('gates the pre-flight once, as path start', async () => {
    const gates: string[] = [];
    const phone = new ScreenPhone('feed', { feed: 'instagram/feed.xml' });
    phone.appVersion = async () => '447.0.0.55.81';
    const traces: TraceStep[] = [];
    const result = await runRecipe(
      phone,
      shippedWarmup([{ do: 'pause', for: 0 }]),
      {},
      {
        random: () => 0.5,
        clock: manualClock(),
        pollMs: 500,
        preflight: {},
        beforeStep: async (at) => void gates.push(`${at.path} ${at.do}`),
        onTrace: (step) => void traces.push(step),
      },
    );
    expect(result.status).toBe('completed');
    expect(gates).toEqual(['start preflight', '0 pause']);
    expect(traces[0]).toMatchObject({ seq: 1, path: 'start', do: 'preflight', verdict: 'done', detail: 'com.instagram.android 447.0.0.55.81' });
    expect(traces[0]?.selector).toBeDefined();
  });

  it('in no-effects mode stops before the like, with nothing tapped, and says so in the result', async () => {
    const phone = new ScreenPhone('feed', { feed: 'instagram/feed.xml', liked: 'instagram/feed-liked.xml' }, (at) => (at === 'feed' ? 'liked' : at));
    const traces: TraceStep[] = [];
    const result = await runRecipe(
      phone,
      shippedWarmup([
        { do: 'wait_for', target: 'like_button' },
        { do: 'repeat', times: 3, steps: [igLike] },
      ]),
      {},
      { random: () => 0.5, clock: manualClock(), pollMs: 500, effects: false, onTrace: (step) => void traces.push(step) },
    );
    expect(phone.taps).toEqual([]);
    expect(result).toMatchObject({
      status: 'stopped',
      actions: { like: 0 },
      stopped: { by: 'effects', step: '1.0', message: 'No effects: stopped before a step that counts a like.' },
    });
    expect(result.failure).toBeUndefined();
    expect(traces.map((step) => [step.path, step.verdict])).toEqual([
      ['0', 'done'],
      ['1.0', 'stopped'],
    ]);
    expect(traces[1]?.detail).toBe('No effects: stopped before a step that counts a like.');
  });

  it('in no-effects mode still runs a step that counts nothing and a counted step left out for the day', async () => {
    const phone = new FixturePhone('feed');
    const { result } = await traced(
      phone,
      [
        { do: 'tap', target: 'like_button', counts: 'like' },
        { do: 'tap', target: { id: 'search_tab' } },
        { do: 'tap', target: { id: 'feed_tab' }, double: true },
      ],
      { allowances: { like: 0 } },
      { effects: false },
    );
    expect(phone.taps).toEqual([{ x: 324, y: 2206 }]);
    expect(result.stopped).toMatchObject({ by: 'effects', step: '2', message: 'No effects: stopped before a double tap (a double tap likes a post).' });
  });

  it('stops a traced run past MAX_TRACE_STEPS steps', async () => {
    const { result, traces } = await traced(new FixturePhone('feed'), [{ do: 'repeat', times: 1000, steps: [{ do: 'pause', for: 0 }] }]);
    expect(result).toMatchObject({ status: 'stopped', stopped: { by: 'limit' } });
    expect(traces.at(-1)).toMatchObject({ seq: MAX_TRACE_STEPS, verdict: 'stopped', detail: `Too many steps: a dry run traces at most ${MAX_TRACE_STEPS}.` });
    expect(traces.every((step) => traceStep.safeParse(step).success)).toBe(true);
  });

  it('gives a real run’s failure the failed step’s trace: the selector that missed, the tree it missed on and the screen, scaled to fit', async () => {
    const phone = new FixturePhone('feed');
    const result = await runRecipe(
      phone,
      recipeOf([
        { do: 'wait_for', target: 'home_tab' },
        { do: 'wait_for', target: { id: 'gone_in_this_build', or: [{ desc: 'Gone' }] }, timeout: '2s' },
      ]),
      {},
      { random: () => 0.5, clock: manualClock(), pollMs: 500 },
    );
    expect(result.failure).toMatchObject({ code: 'element_missing', step: '1' });
    const trace = result.failure?.trace;
    expect(failureTrace.safeParse(trace).success).toBe(true);
    expect(trace).toMatchObject({ seq: 2, path: '1', do: 'wait_for', verdict: 'failed', selector: { id: 'gone_in_this_build' } });
    expect(trace?.detail).toBe(result.failure?.message);
    expect(trace?.tree?.nodes.some((node) => node.resourceId.endsWith(':id/feed_tab'))).toBe(true);
    expect(trace?.frame?.data.byteLength).toBeGreaterThan(0);
    expect(trace?.frame?.data.byteLength).toBeLessThanOrEqual(MAX_TRACE_FRAME_BYTES);
    expect(trace).not.toHaveProperty('matched');
  });

  it('traces a failed like inside a round to the toggle, not the repeat around it', async () => {
    const phone = new ScreenPhone('feed', { feed: 'instagram/feed.xml', blocked: 'instagram/reels-action-blocked.xml' }, () => 'blocked');
    const result = await runRecipe(
      phone,
      shippedWarmup([{ do: 'repeat', times: 1, steps: [igLike] }]),
      {},
      { random: () => 0.5, clock: manualClock(), pollMs: 500 },
    );
    expect(result.status).toBe('failed');
    expect(result.failure?.trace).toMatchObject({ path: '0.0', do: 'toggle', verdict: 'failed', selector: { id: 'row_feed_button_like' } });
  });
});
