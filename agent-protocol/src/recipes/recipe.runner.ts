/**
 * Runs a recipe against a phone: reads the screen (the UI server's page source or `uiautomator dump`), finds
 * elements by the recipe's selectors, acts, and paces itself with drawn pauses. Every step reports progress; the
 * first step that cannot be done ends the run with its reason code, a message and a screenshot.
 *
 * Safe by default: an element that is not found is a miss, never a tap. A point is used only by a step marked
 * `positional` that counts no action, and only while the screen cannot be read (a bare point too: on a read screen
 * that step is a miss, never a tap); a toggle (like, follow) reads its element's state before and after and never
 * uses a point. Any other step on a screen that cannot be read (busy, no UI server answer, no dump) ends the run
 * `screen_unreadable` with nothing pressed on it, Back included. A post of several files (a carousel) ends
 * `unsupported` before the run acts. A miss ends the current round of a repeat and the run goes on; five misses in a
 * row end it `app_changed`. Ordinary content the recipe names in `skips` (a private profile, comments turned off, no
 * results, an ad) ends the round with its reason and is no miss. Guards and popups that match words look only inside
 * dialogs and sheets; the crash check only at Android's `aerr_*` dialogs.
 *
 * Before the steps, when asked (`preflight`), the run starts from a known place: the screen on and unlocked, the
 * app installed in one of its packages at a tested version, battery and network, the UI language, the app
 * force-stopped and launched to its home, and the signed-in account checked against the work's.
 *
 * A dry run (the recipe studio) traces every step as it ends (`onTrace`: what it looked for, what it matched, where it
 * touched, with the screen's tree and a screenshot when `traceScreens`), waits before each step at `beforeStep` (step
 * by step; `StopRun` stops it there), and without effects stops before the first step that would count an
 * engagement; a stopped run is `stopped`, never a pass. A real run's failure carries its failed step's trace.
 *
 * This file composes the run and owns its answer; the work lives in rooms that change for their own reasons:
 * `recipe.preflight.ts`, `recipe.actions.ts`, `recipe.confirm.ts`, `recipe.locate.ts`, `recipe.trace.ts`, with the
 * run's counts in `recipe.state.ts` and its vocabulary in `recipe.outcome.ts`.
 */
import type { PhoneDevice, Screenshot } from '../phone/phone.device.ts';
import { StepActions, type Enter } from './recipe.actions.ts';
import { Confirmations } from './recipe.confirm.ts';
import { describeStep } from './recipe.describe.ts';
import { Locator } from './recipe.locate.ts';
import {
  Cancelled,
  failureOf,
  RunStopped,
  SkipRound,
  type RecipeFailure,
  type RecipeRunOptions,
  type RecipeRunResult,
  type RecipeStop,
  type Scope,
} from './recipe.outcome.ts';
import { Preflight, PREFLIGHT_LABEL } from './recipe.preflight.ts';
import type { Recipe, RecipeParams, Step } from './recipe.schema.ts';
import { RunState } from './recipe.state.ts';
import type { TemplateValue } from './recipe.template.ts';
import { TraceRecorder } from './recipe.trace.ts';

// The run's vocabulary and pieces live in their rooms; callers keep importing them from here.
export { describeStep };
export { shareMime } from './recipe.actions.ts';
export {
  StopRun,
  type HandOver,
  type RecipeFailure,
  type RecipePreflight,
  type RecipeRunOptions,
  type RecipeRunResult,
  type RecipeStop,
  type StepProgress,
} from './recipe.outcome.ts';
export { recipePackages, testedRange, isTestedVersion } from './recipe.coverage.ts';

export async function runRecipe(phone: PhoneDevice, recipe: Recipe, params: RecipeParams, options: RecipeRunOptions = {}): Promise<RecipeRunResult> {
  return new RecipeRun(phone, recipe, params, options).run();
}

/** What a person reads on a carousel post: why a phone cannot make one. */
export const CAROUSEL_UNSUPPORTED = "Carousel posts are not supported on phones: Android's am cannot send several files to the app.";

/**
 * A post of several files (a carousel) on a recipe that shares media: `unsupported`, never retried, before the run
 * acts. `am` carries one URI extra and no list of URIs, so the share sheet's ACTION_SEND_MULTIPLE cannot be sent.
 */
function carouselOf(recipe: Recipe, params: RecipeParams, options: RecipeRunOptions): RecipeFailure | null {
  const files = Math.max(options.media?.files.length ?? 0, params.media?.length ?? 0);
  if (files < 2 || !sharesMedia(recipe.steps)) return null;
  return { code: 'unsupported', message: CAROUSEL_UNSUPPORTED, retryable: false, step: 'start', label: `${files} files in one post` };
}

function sharesMedia(steps: readonly Step[]): boolean {
  return steps.some(
    (step) =>
      step.do === 'share_media' ||
      (step.do === 'repeat' && (sharesMedia(step.steps) || sharesMedia(step.after ?? []))) ||
      (step.do === 'when' && (sharesMedia(step.steps) || sharesMedia(step.else ?? []))),
  );
}

/** One run from start to result: composes the rooms and turns how the steps ended into the run's answer. */
class RecipeRun {
  private readonly state: RunState;
  private readonly trace: TraceRecorder;
  private readonly locator: Locator;
  private readonly actions: StepActions;
  private readonly preflight: Preflight;

  constructor(phone: PhoneDevice, recipe: Recipe, params: RecipeParams, options: RecipeRunOptions) {
    this.state = new RunState(phone, recipe, params, options);
    this.trace = new TraceRecorder(this.state);
    this.locator = new Locator(this.state, this.trace);
    this.actions = new StepActions(this.state, this.trace, this.locator, new Confirmations(this.state, this.locator));
    this.preflight = new Preflight(this.state, this.trace, this.locator, (step, path, scope) => this.actions.step(step, path, scope, () => undefined));
  }

  async run(): Promise<RecipeRunResult> {
    const { state } = this;
    const { recipe, options } = state;
    const startedAt = state.clock.now();
    const scope: Scope = new Map();
    for (const [key, value] of Object.entries({ ...recipe.defaults, ...state.params }))
      if (key !== 'allowances' && key !== 'media' && value !== undefined) scope.set(key, value as TemplateValue);
    // `media` is the files fetched for this run, never a list from the work's parameters or the recipe's defaults.
    if (options.media && options.media.files.length > 0) scope.set('media', [...options.media.files]);
    // A carousel is refused before anything is done on the phone: it could only end half-made in the app.
    const carousel = carouselOf(recipe, state.params, options);
    if (carousel) return this.result('failed', startedAt, carousel);
    await this.readPhone();
    const total = recipe.steps.length;
    const preflightStep: Step = { do: 'pause', for: 0, label: PREFLIGHT_LABEL };
    let current: Parameters<Enter>[0] = { path: 'start', label: preflightStep.label ?? '', step: preflightStep };
    try {
      if (options.preflight) {
        await this.trace.gate('start', 'preflight', PREFLIGHT_LABEL, true);
        await this.preflight.check(options.preflight, scope);
      }
      current = { path: '0', label: '', step: recipe.steps[0] as Step };
      for (const [index, step] of recipe.steps.entries()) {
        current = { path: String(index), label: describeStep(step), step };
        state.topIndex = index;
        state.percent = Math.round((index / total) * 100);
        await this.actions.step(step, String(index), scope, (at) => (current = at));
      }
      state.percent = 100;
      return this.result('completed', startedAt);
    } catch (error) {
      if (error instanceof Cancelled) return this.result('cancelled', startedAt);
      if (error instanceof RunStopped) return this.result('stopped', startedAt, undefined, error.stop);
      if (error instanceof SkipRound) {
        // Ordinary content outside any repeat (a private profile the whole run was for): nothing more to do here.
        this.trace.report(current.step, current.path, 'skipped', { detail: error.message });
        return this.result('completed', startedAt);
      }
      return this.failed(error, current, startedAt);
    }
  }

  /** The screen's size and whether the UI reader sees toasts; guards that need toasts are said to be blind here. */
  private async readPhone(): Promise<void> {
    const { state } = this;
    try {
      state.size = (await state.phone.info()).screen;
    } catch {
      state.size = null; // taken from the first screen read instead
    }
    state.seesToasts = await state.phone
      .uiReader()
      .then((reader) => reader.seesToasts)
      .catch(() => false);
    const blind = (state.recipe.guards ?? []).filter((guard) => this.locator.isToastOnly(guard.when));
    if (!state.seesToasts && blind.length > 0)
      // Said, not skipped in silence: these guards cannot fire on this phone.
      state.options.onProgress?.({
        seq: state.seq,
        path: 'start',
        do: 'preflight',
        label: 'Guards this phone cannot see',
        status: 'skipped',
        percent: 0,
        detail: `Unavailable on this phone's UI reader (it cannot see toasts): ${blind.map((guard) => guard.message).join('; ')}`,
      });
  }

  /** A failed run: its reason, the step it failed at, a screenshot and the failed step's trace. */
  private async failed(error: unknown, current: Parameters<Enter>[0], startedAt: number): Promise<RecipeRunResult> {
    const failure = failureOf(error);
    this.trace.report(current.step, current.path, 'failed', { detail: failure.message });
    let screenshot: Screenshot | undefined;
    if (this.state.options.screenshotOnFailure !== false) screenshot = await this.state.phone.screenshot().catch(() => undefined);
    const trace = await this.trace.failureTrace(error);
    return this.result('failed', startedAt, {
      ...failure,
      step: current.path,
      label: current.label,
      ...(screenshot ? { screenshot } : {}),
      ...(trace ? { trace } : {}),
    });
  }

  private result(status: RecipeRunResult['status'], startedAt: number, failure?: RecipeFailure, stopped?: RecipeStop): RecipeRunResult {
    const { state } = this;
    return {
      status,
      recipe: { id: state.recipe.id, version: state.recipe.version },
      actions: { ...state.actions },
      steps: state.done,
      misses: state.misses,
      skipped: [...state.skipped],
      handedOver: { ...state.handedOver },
      package: state.packageName,
      ...(state.appVersion ? { appVersion: state.appVersion } : {}),
      ...(state.appLocale ? { appLocale: state.appLocale } : {}),
      ...(failure ? { failure } : {}),
      ...(stopped ? { stopped } : {}),
      startedAt,
      finishedAt: state.clock.now(),
    };
  }
}
