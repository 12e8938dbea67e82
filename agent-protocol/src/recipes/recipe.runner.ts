/**
 * Runs a recipe against a phone: reads the screen (the UI server's page source or `uiautomator dump`), finds
 * elements by the recipe's selectors, acts, and paces itself with drawn pauses. Every step reports progress; the
 * first step that cannot be done ends the run with its reason code, a message and a screenshot.
 *
 * Safe by default: an element that is not found is a miss, never a tap. A point is used only by a step marked
 * `positional`, and only while the screen cannot be read; a toggle (like, follow) reads its element's state before
 * and after and never uses a point. A miss ends the current round of a repeat and the run goes on; five misses in a
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
 */
import { basename } from 'node:path';
import type { FailureCode } from '../failures.ts';
import type { AppVerification } from '../work.ts';
import { coversApp, recipePackages } from './recipe.coverage.ts';
import { PhoneError, UiBusyError, type PhoneDevice, type Point, type Screenshot, type ScreenSize } from '../phone/phone.device.ts';
import { drawCount, drawDuration, systemClock, type Clock } from './recipe.pacing.ts';
import {
  engagementActions,
  type ConfirmSpec,
  type ElementSpec,
  type ElementState,
  type EngagementAction,
  type Recipe,
  type RecipeParams,
  type RecipePoint,
  type Selector,
  type Step,
  type Target,
} from './recipe.schema.ts';
import { fillTemplate, TEMPLATE_PATTERN, type TemplateValue } from './recipe.template.ts';
import { describeStep } from './recipe.describe.ts';
import { checkRunFile, MediaRefused, type RunMedia } from './recipe.media.ts';

export { describeStep };
import { centerOf, isWithin, parseUiXml, type UiNode, type UiScreen } from './recipe.ui.ts';
import { captureTreeIndexed, isOnScreen, nodeMatches } from './recipe.inspect.ts';
import { MAX_TRACE_FRAME_BYTES, MAX_TRACE_STEPS, type FailureTrace, type TraceStep, type TraceVerdict } from '../dryrun.ts';

export interface StepProgress {
  /** 1, 2, 3… in the order steps ran (repeats count again). */
  seq: number;
  /** Where the step sits in the recipe: `3` or `3.1` (0-based); `start` for the pre-flight. */
  path: string;
  do: Step['do'] | 'preflight';
  label: string;
  status: 'started' | 'done' | 'skipped' | 'failed';
  detail?: string;
  /** Share of the recipe's top-level steps done, 0..100. */
  percent: number;
  /** The engagement this step performed, when it counts one. */
  action?: EngagementAction;
  /**
   * Said as a step starts: the engagement it counts once done. A run cut off after such a step started may have
   * taken effect (a post's share tap went in), so it must not simply be run again.
   */
  counts?: EngagementAction;
  /** Where a tap landed, in screen pixels. */
  point?: Point;
}

/** What the run checks before its first step, and against what. */
export interface RecipePreflight {
  /** The account the work is for (username, without @); the signed-in one must be it where the recipe can read it. */
  account?: string | null;
  /** The work lets templates run on app versions outside the recipe's tested range. */
  allowUntestedApp?: boolean;
  /** App versions the workspace verified its recipes on (with the tested range, what the recipe covers). */
  verifiedApps?: readonly AppVerification[];
  /** Below this battery level (and not charging) the run does not start. Default 10. */
  minBattery?: number;
}

export interface RecipeRunOptions {
  random?: () => number;
  clock?: Clock;
  onProgress?: (progress: StepProgress) => void;
  signal?: AbortSignal;
  /** Between two looks at the screen while waiting for an element. */
  pollMs?: number;
  /** Busy reads retried before the screen counts as unreadable. */
  busyRetries?: number;
  busyPauseMs?: number;
  screenshotOnFailure?: boolean;
  /** Checks and a known start before the steps; absent: the steps run on the phone as it is. */
  preflight?: RecipePreflight;
  /** Misses in a row that end the run `app_changed`. Default 5. */
  missLimit?: number;
  /**
   * Told when each step ends (done, skipped, failed or stopped), the pre-flight as path `start`: what it looked for,
   * what it matched, where it touched, its time. Awaited, so traces leave in order. A run with traces stops past
   * MAX_TRACE_STEPS steps.
   */
  onTrace?: (step: TraceStep) => void | Promise<void>;
  /** Traces carry the last UI tree each step read and a screenshot (after the step; before it for a failed or stopped one). */
  traceScreens?: boolean;
  /**
   * Awaited before the pre-flight and before each step that acts or looks (the steps of a `repeat` or `when`, not
   * the container itself; the pre-flight's own steps go with it). Throw `StopRun` to stop the run there.
   */
  beforeStep?: (at: { path: string; label: string; do: string }) => Promise<void>;
  /** False: "no effects" — the run stops before the first step that would count an engagement. Default true. */
  effects?: boolean;
  /**
   * The files the agent's media fetcher brought for this run and its media folder: all that a step may copy to the
   * phone (`recipe.media.ts`), and the run's `media` parameter. Absent: no step copies any file.
   */
  media?: RunMedia;
}

/** Thrown by `beforeStep`: the person stopped the run; it ends `stopped` before that step. */
export class StopRun extends Error {
  constructor(message = 'Stopped by the person before this step.') {
    super(message);
    this.name = 'StopRun';
  }
}

/** Why a run stopped before a step without failing. */
export interface RecipeStop {
  /** `effects`: no-effects mode reached a step that counts; `person`: `beforeStep` threw StopRun; `limit`: too many steps. */
  by: 'effects' | 'person' | 'limit';
  message: string;
  /** The step it stopped before: its path and label. */
  step: string;
  label: string;
}

export interface RecipeFailure {
  code: FailureCode;
  message: string;
  /** The step's path and label. */
  step: string;
  label: string;
  screenshot?: Screenshot;
  /** False where another attempt would meet the same wall (the work itself lacks what the recipe needs). */
  retryable?: boolean;
  /** The failed step as the run saw it: the selector that missed and the tree it missed on (no frame). */
  trace?: FailureTrace;
}

export interface RecipeRunResult {
  /** `stopped`: before a step, by no-effects mode, the person (`StopRun`) or the trace limit; never a pass. */
  status: 'completed' | 'failed' | 'cancelled' | 'stopped';
  recipe: { id: string; version: number };
  /** Engagement performed (and confirmed on screen), for the server's daily counts. */
  actions: Record<EngagementAction, number>;
  /** Steps run to the end. */
  steps: number;
  /** Required elements absent on screens the recipe recognised, over the whole run. */
  misses: number;
  /** Rounds left out for ordinary content, with their reasons. */
  skipped: string[];
  /** The package the run drove (one of the recipe's packages), once known. */
  package?: string;
  /** The app's version on the phone, when read. */
  appVersion?: string;
  failure?: RecipeFailure;
  /** Why it stopped, when it did (`status: 'stopped'`). */
  stopped?: RecipeStop;
  startedAt: number;
  finishedAt: number;
}

/** A step under way, gathering what its trace says. */
interface OpenStep {
  seq: number;
  path: string;
  do: string;
  label: string;
  startedAt: number;
  verdict?: 'done' | 'skipped';
  detail?: string;
  /** The last screen the step read. */
  screen?: UiScreen;
  /** The selector it looked for (parameters filled): the one that matched, or the first tried. */
  selector?: Selector;
  /** The node it found, on the screen it was read from. */
  node?: UiNode;
  nodeScreen?: UiScreen;
  point?: Point;
  action?: EngagementAction;
}

class StepFailure extends Error {
  constructor(
    readonly code: FailureCode,
    message: string,
    /** False where another attempt would meet the same wall; absent, the code's own default. */
    readonly retryable?: boolean,
  ) {
    super(message);
  }
}

/** A required element absent on a screen the recipe recognised: ends the round, never taps. */
class Miss extends Error {}

/** Ordinary content (`skips`): ends the round with its reason; not a miss. */
class SkipRound extends Error {}

class Cancelled extends Error {}

/** The run stops before a step (no effects, the person, the trace limit). */
class RunStopped extends Error {
  constructor(readonly stop: RecipeStop) {
    super(stop.message);
  }
}

const PREFLIGHT_LABEL = 'Check the phone and the app before the run';

/** Android's own crash and not-responding dialogs, whatever the app: only their ids, never words on screen. */
const CRASH_DIALOG = (node: UiNode) => node.resourceId.startsWith('android:id/aerr_');

/** Android's alert dialog parts: words inside these are the system's or the app's dialog, not content. */
const ANDROID_ALERT_IDS = new Set([
  'android:id/parentPanel',
  'android:id/topPanel',
  'android:id/contentPanel',
  'android:id/customPanel',
  'android:id/buttonPanel',
  'android:id/alertTitle',
  'android:id/message',
]);

const VIDEO_FILE = /\.(mp4|mov|m4v|3gp|webm|mkv)$/i;

const MIME_BY_EXTENSION: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  heic: 'image/heic',
  gif: 'image/gif',
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  '3gp': 'video/3gpp',
  webm: 'video/webm',
  mkv: 'video/x-matroska',
};

/** The type a share intent carries: the files' own when they agree, else `image/*`, `video/*` or any. */
export function shareMime(files: readonly string[]): string {
  const types = new Set(files.map((file) => MIME_BY_EXTENSION[file.split('.').pop()?.toLowerCase() ?? ''] ?? 'application/octet-stream'));
  if (types.size === 1) return [...types][0] as string;
  const kinds = new Set([...types].map((type) => type.split('/')[0]));
  return kinds.size === 1 && (kinds.has('image') || kinds.has('video')) ? `${[...kinds][0]}/*` : '*/*';
}

type Scope = Map<string, TemplateValue>;

export async function runRecipe(phone: PhoneDevice, recipe: Recipe, params: RecipeParams, options: RecipeRunOptions = {}): Promise<RecipeRunResult> {
  return new RecipeRun(phone, recipe, params, options).run();
}

export { recipePackages, testedRange, isTestedVersion } from './recipe.coverage.ts';

class RecipeRun {
  private readonly random: () => number;
  private readonly clock: Clock;
  private readonly actions = Object.fromEntries(engagementActions.map((action) => [action, 0])) as Record<EngagementAction, number>;
  private size: ScreenSize | null = null;
  private lastScreen: UiScreen | null = null;
  private seq = 0;
  private done = 0;
  private percent = 0;
  private topIndex = 0;
  /** Repeats the current step runs inside; a miss or a skip ends the innermost round. */
  private rounds = 0;
  private missesInARow = 0;
  private misses = 0;
  private readonly skipped: string[] = [];
  private packageName: string;
  private appVersion: string | undefined;
  /** Whether the last look at the screen could read it. */
  private readLast = false;
  /** Whether the phone's UI reader shows toasts (the UI server does, `uiautomator dump` does not). */
  private seesToasts = false;
  /** Steps under way, innermost last, gathering their traces. */
  private readonly open: OpenStep[] = [];
  /** Errors a step already traced (the containers it ends trace nothing more), with that trace. */
  private readonly traced = new WeakMap<object, TraceStep>();
  /** The pre-flight runs its own steps without waiting at `beforeStep` (one gate for the whole of it). */
  private inPreflight = false;

  constructor(
    private readonly phone: PhoneDevice,
    private readonly recipe: Recipe,
    private readonly params: RecipeParams,
    private readonly options: RecipeRunOptions,
  ) {
    this.random = options.random ?? Math.random;
    this.clock = options.clock ?? systemClock;
    this.packageName = recipe.app.package;
  }

  /** A file a step copies to the phone: only one fetched for this run, inside the media folder (its real path). */
  private async runFile(file: string, step: string): Promise<string> {
    try {
      return await checkRunFile(this.options.media, file, step);
    } catch (error) {
      if (error instanceof MediaRefused) throw new StepFailure('unknown', error.message, false);
      throw error;
    }
  }

  async run(): Promise<RecipeRunResult> {
    const startedAt = this.clock.now();
    const scope: Scope = new Map();
    for (const [key, value] of Object.entries({ ...this.recipe.defaults, ...this.params }))
      if (key !== 'allowances' && key !== 'media' && value !== undefined) scope.set(key, value as TemplateValue);
    // `media` is the files fetched for this run, never a list from the work's parameters or the recipe's defaults.
    if (this.options.media && this.options.media.files.length > 0) scope.set('media', [...this.options.media.files]);
    try {
      this.size = (await this.phone.info()).screen;
    } catch {
      this.size = null; // taken from the first screen read instead
    }
    this.seesToasts = await this.phone
      .uiReader()
      .then((reader) => reader.seesToasts)
      .catch(() => false);
    const blind = (this.recipe.guards ?? []).filter((guard) => this.isToastOnly(guard.when));
    if (!this.seesToasts && blind.length > 0)
      // Said, not skipped in silence: these guards cannot fire on this phone.
      this.options.onProgress?.({
        seq: this.seq,
        path: 'start',
        do: 'preflight',
        label: 'Guards this phone cannot see',
        status: 'skipped',
        percent: 0,
        detail: `Unavailable on this phone's UI reader (it cannot see toasts): ${blind.map((guard) => guard.message).join('; ')}`,
      });
    const total = this.recipe.steps.length;
    const preflightStep: Step = { do: 'pause', for: 0, label: PREFLIGHT_LABEL };
    let current: { path: string; label: string; step: Step } = { path: 'start', label: preflightStep.label ?? '', step: preflightStep };
    try {
      if (this.options.preflight) {
        await this.gate('start', 'preflight', PREFLIGHT_LABEL, true);
        await this.preflight(this.options.preflight, scope);
      }
      current = { path: '0', label: '', step: this.recipe.steps[0] as Step };
      for (const [index, step] of this.recipe.steps.entries()) {
        current = { path: String(index), label: describeStep(step), step };
        this.topIndex = index;
        this.percent = Math.round((index / total) * 100);
        await this.step(step, String(index), scope, (at) => (current = at));
      }
      this.percent = 100;
      return this.result('completed', startedAt);
    } catch (error) {
      if (error instanceof Cancelled) return this.result('cancelled', startedAt);
      if (error instanceof RunStopped) return this.result('stopped', startedAt, undefined, error.stop);
      if (error instanceof SkipRound) {
        // Ordinary content outside any repeat (a private profile the whole run was for): nothing more to do here.
        this.report(current.step, current.path, 'skipped', { detail: error.message });
        return this.result('completed', startedAt);
      }
      const failure = this.failureOf(error);
      this.report(current.step, current.path, 'failed', { detail: failure.message });
      let screenshot: Screenshot | undefined;
      if (this.options.screenshotOnFailure !== false) screenshot = await this.phone.screenshot().catch(() => undefined);
      const traced = typeof error === 'object' && error !== null ? this.traced.get(error) : undefined;
      let trace: FailureTrace | undefined = traced ? (({ frame: _frame, ...rest }) => rest)(traced) : undefined;
      // The screen it failed on goes with the trace, scaled to fit (a dry run's trace has its own already).
      if (trace && !traced?.frame && this.options.screenshotOnFailure !== false) {
        const shot = await this.traceFrame();
        if (shot.frame) trace = { ...trace, frame: shot.frame };
      } else if (trace && traced?.frame) trace = { ...trace, frame: traced.frame };
      return this.result('failed', startedAt, {
        ...failure,
        step: current.path,
        label: current.label,
        ...(screenshot ? { screenshot } : {}),
        ...(trace ? { trace } : {}),
      });
    }
  }

  private failureOf(error: unknown): { code: FailureCode; message: string; retryable?: boolean } {
    if (error instanceof StepFailure)
      return { code: error.code, message: error.message, ...(error.retryable === undefined ? {} : { retryable: error.retryable }) };
    // A miss outside any repeat: the screen the recipe must pass never showed what it needs.
    if (error instanceof Miss) return { code: 'element_missing', message: error.message };
    if (error instanceof PhoneError) {
      if (error.code === 'timeout' || error.code === 'disconnected') return { code: 'device_offline', message: error.message };
      return { code: 'unknown', message: error.message };
    }
    return { code: 'unknown', message: error instanceof Error ? error.message : String(error) };
  }

  private result(status: RecipeRunResult['status'], startedAt: number, failure?: RecipeFailure, stopped?: RecipeStop): RecipeRunResult {
    return {
      status,
      recipe: { id: this.recipe.id, version: this.recipe.version },
      actions: { ...this.actions },
      steps: this.done,
      misses: this.misses,
      skipped: [...this.skipped],
      package: this.packageName,
      ...(this.appVersion ? { appVersion: this.appVersion } : {}),
      ...(failure ? { failure } : {}),
      ...(stopped ? { stopped } : {}),
      startedAt,
      finishedAt: this.clock.now(),
    };
  }

  private report(step: Step, path: string, status: StepProgress['status'], extra: Partial<StepProgress> = {}): void {
    if (status === 'started') this.seq += 1;
    this.note(path, status, extra);
    this.options.onProgress?.({ seq: this.seq, path, do: step.do, label: describeStep(step), status, percent: this.percent, ...extra });
  }

  private fill(template: string, scope: Scope): string {
    return fillTemplate(template, Object.fromEntries(scope), this.random);
  }

  private spent(action: EngagementAction): boolean {
    const allowance = this.params.allowances?.[action];
    return allowance !== undefined && this.actions[action] >= allowance;
  }

  private chanceOf(step: { chance?: number | string | undefined }, scope: Scope): number {
    if (step.chance === undefined) return 1;
    if (typeof step.chance === 'number') return step.chance;
    const value = Number(this.fill(step.chance.slice(0, -1), scope));
    return Number.isFinite(value) ? value / 100 : 0;
  }

  /** Found what it looked for: the misses in a row start again. */
  private hit(): void {
    this.missesInARow = 0;
  }

  /** A required element absent on a recognised screen; the fifth in a row ends the run `app_changed`. */
  private miss(message: string): Miss {
    this.misses += 1;
    this.missesInARow += 1;
    const limit = this.options.missLimit ?? 5;
    if (this.missesInARow >= limit)
      throw new StepFailure('app_changed', `${limit} misses in a row (the last: ${message}) — the app's screens no longer match this recipe.`);
    return new Miss(message);
  }

  // ---------------------------------------------------------------- traces

  /**
   * Before a step: past the trace limit, or stopped by the person at `beforeStep` (when `wait`), the run stops here
   * with a `stopped` trace of the step it did not run.
   */
  private async gate(path: string, kind: string, label: string, wait: boolean): Promise<void> {
    let stop: RecipeStop | null = null;
    if (this.options.onTrace && this.seq + 1 >= MAX_TRACE_STEPS)
      stop = { by: 'limit', message: `Too many steps: a dry run traces at most ${MAX_TRACE_STEPS}.`, step: path, label };
    else if (wait && this.options.beforeStep) {
      try {
        await this.options.beforeStep({ path, label, do: kind });
      } catch (error) {
        if (!(error instanceof StopRun)) throw error;
        stop = { by: 'person', message: error.message, step: path, label };
      }
    }
    if (!stop) return;
    this.seq += 1;
    const error = new RunStopped(stop);
    await this.closeTrace({ seq: this.seq, path, do: kind, label, startedAt: this.clock.now() }, error);
    throw error;
  }

  /** Runs a step's body with its trace open (the step reported `started` just before, so it has its seq). */
  private async traceStep(path: string, kind: string, label: string, body: () => Promise<void>): Promise<void> {
    const open: OpenStep = { seq: this.seq, path, do: kind, label, startedAt: this.clock.now() };
    this.open.push(open);
    const close = () => {
      const at = this.open.lastIndexOf(open);
      if (at >= 0) this.open.length = at;
    };
    try {
      await body();
    } catch (error) {
      close();
      await this.closeTrace(open, error);
      throw error;
    }
    close();
    await this.closeTrace(open);
  }

  /** What a step's progress says goes into its trace: the verdict, the detail, where it touched, what it counted. */
  private note(path: string, status: StepProgress['status'], extra: Partial<StepProgress>): void {
    const open = this.open.at(-1);
    if (!open || open.path !== path || status === 'started' || status === 'failed') return;
    open.verdict = status;
    // The pre-flight says what it found as it goes (an untested version allowed, then the app and account).
    if (extra.detail !== undefined) open.detail = path === 'start' && open.detail && status === 'done' ? `${open.detail} ${extra.detail}` : extra.detail;
    if (extra.point) open.point = extra.point;
    if (extra.action) open.action = extra.action;
  }

  /** What the step looked for and found (the selector filled, the node), for its trace. */
  private looked(spec: ElementSpec, found: { node: UiNode; selector: Selector; screen: UiScreen } | null, scope: Scope): void {
    const open = this.open.at(-1);
    if (!open) return;
    const selector = found?.selector ?? this.selectorsOf(spec)[0];
    if (selector) open.selector = traceSelector(selector, scope);
    if (found) {
      open.node = found.node;
      open.nodeScreen = found.screen;
    } else {
      delete open.node;
      delete open.nodeScreen;
    }
  }

  /** Ends a step's trace; an error a step inside already traced leaves the containers it ends without one. */
  private async closeTrace(open: OpenStep, error?: unknown): Promise<void> {
    let verdict: TraceVerdict = open.verdict ?? 'done';
    let detail = open.detail;
    if (error !== undefined) {
      if (typeof error === 'object' && error !== null && this.traced.has(error)) return;
      if (error instanceof RunStopped) {
        verdict = 'stopped';
        detail = error.stop.message;
      } else if (error instanceof Cancelled) {
        verdict = 'stopped';
        detail = 'Called off.';
      } else if (error instanceof SkipRound) {
        verdict = 'skipped';
        detail = `Left out: ${error.message}`;
      } else if (error instanceof Miss && this.rounds > 0) {
        // Ends the round, not the run.
        verdict = 'skipped';
        detail = `Missed: ${error.message}`;
      } else {
        verdict = 'failed';
        detail = this.failureOf(error).message;
      }
    }
    // A run without traces keeps only its failed step's (it goes with the failure).
    if (!this.options.onTrace && verdict !== 'failed') return;
    const withTree = verdict === 'failed' || (this.options.traceScreens === true && this.options.onTrace !== undefined);
    let tree: TraceStep['tree'];
    let nodeIndex: number | null = null;
    if (withTree && open.screen && open.screen.nodes.length > 0) {
      const cut = captureTreeIndexed(open.screen);
      tree = cut.tree;
      if (open.node) {
        const node = open.node;
        let at = open.screen.nodes.indexOf(node);
        // Read again since (a toggle reads its state after the tap): the same element on the last screen.
        if (at < 0)
          at = open.screen.nodes.findIndex(
            (other) =>
              other.resourceId === node.resourceId &&
              other.className === node.className &&
              other.bounds.left === node.bounds.left &&
              other.bounds.top === node.bounds.top &&
              other.bounds.right === node.bounds.right &&
              other.bounds.bottom === node.bounds.bottom,
          );
        nodeIndex = at >= 0 ? (cut.index.get(at) ?? null) : null;
      }
    }
    const notes: string[] = [];
    let frame: TraceStep['frame'];
    if (this.options.traceScreens && this.options.onTrace) {
      const shot = await this.traceFrame();
      frame = shot.frame;
      if (shot.note) notes.push(shot.note);
    }
    const said = [detail, ...notes].filter(Boolean).join(' ');
    const trace: TraceStep = {
      seq: open.seq,
      path: open.path.slice(0, 40),
      do: open.do.slice(0, 40),
      label: open.label.slice(0, 200),
      verdict,
      ...(said ? { detail: said.slice(0, 2000) } : {}),
      ...(open.selector ? { selector: open.selector } : {}),
      ...(open.node ? { matched: { node: nodeIndex, bounds: { ...open.node.bounds } } } : {}),
      ...(open.point ? { point: { x: open.point.x, y: open.point.y } } : {}),
      ...(open.action ? { action: open.action } : {}),
      ms: Math.max(0, Math.min(24 * 3_600_000, Math.round(this.clock.now() - open.startedAt))),
      ...(frame ? { frame } : {}),
      ...(tree ? { tree } : {}),
    };
    if (typeof error === 'object' && error !== null) this.traced.set(error, trace);
    try {
      await this.options.onTrace?.(trace);
    } catch {
      // A trace that could not be sent does not end the run.
    }
  }

  /** A screenshot for a trace, scaled down until it fits MAX_TRACE_FRAME_BYTES; left out (and said) when it cannot. */
  private async traceFrame(): Promise<{ frame?: NonNullable<TraceStep['frame']>; note?: string }> {
    for (const size of [
      { maxSide: 720, quality: 70 },
      { maxSide: 480, quality: 50 },
    ]) {
      let shot: Screenshot;
      try {
        shot = await this.phone.screenshot(size);
      } catch (error) {
        return { note: `No screenshot: ${error instanceof Error ? error.message : 'the phone could not take one'}.` };
      }
      if (shot.data.byteLength > 0 && shot.data.byteLength <= MAX_TRACE_FRAME_BYTES)
        return {
          frame: {
            mime: shot.mime,
            data: shot.data,
            width: Math.max(1, Math.min(8192, shot.width)),
            height: Math.max(1, Math.min(8192, shot.height)),
          },
        };
    }
    return { note: 'The screenshot was too large for a trace and was left out.' };
  }

  // ---------------------------------------------------------------- pre-flight

  private preflightReport(status: StepProgress['status'], detail: string): void {
    if (status === 'started') this.seq += 1;
    this.note('start', status, { detail });
    this.options.onProgress?.({ seq: this.seq, path: 'start', do: 'preflight', label: PREFLIGHT_LABEL, status, percent: 0, detail });
  }

  private async preflight(checks: RecipePreflight, scope: Scope): Promise<void> {
    this.preflightReport('started', 'Screen, app, version, battery, network, language, account');
    this.inPreflight = true;
    try {
      await this.traceStep('start', 'preflight', PREFLIGHT_LABEL, () => this.preflightChecks(checks, scope));
    } finally {
      this.inPreflight = false;
    }
  }

  private async preflightChecks(checks: RecipePreflight, scope: Scope): Promise<void> {
    // The screen on and unlocked: a swipe opens a plain keyguard; a PIN, pattern or password needs a person.
    const screen = await this.phone.screen();
    if (!screen.on) await this.phone.wake();
    let lock = await this.phone.lockState();
    if (lock === 'locked') {
      const { width, height } = this.screenSize();
      await this.phone.swipe({ x: Math.round(width / 2), y: Math.round(height * 0.85) }, { x: Math.round(width / 2), y: Math.round(height * 0.3) }, 300);
      await this.clock.sleep(800);
      lock = await this.phone.lockState();
    }
    if (lock === 'locked_secure')
      throw new StepFailure('device_locked', 'The phone is locked with a PIN, pattern or password; a person must unlock it (or turn the lock off).');
    if (lock === 'locked') throw new StepFailure('device_locked', 'The phone stays on its lock screen after a swipe.');

    // Installed in one of its packages.
    const packages = recipePackages(this.recipe);
    let found: { name: string; version: string } | null = null;
    for (const name of packages) {
      const version = await this.phone.appVersion(name);
      if (version) {
        found = { name, version };
        break;
      }
    }
    if (!found) throw new StepFailure('unknown', `${packages.join(' or ')} is not installed on this phone.`);
    this.packageName = found.name;
    this.appVersion = found.version;
    // Covered: the package, the UI language the recipe's words are written for (where the phone can say it), and a
    // version tested or verified by the workspace (or, where the work allows it, a template on any version).
    const phoneLocale = this.recipe.app.locale && this.phone.locale ? await this.phone.locale() : null;
    const coverage = coversApp(
      this.recipe,
      { package: found.name, version: found.version, locale: phoneLocale },
      { verifications: checks.verifiedApps ?? [], allowUntested: checks.allowUntestedApp ?? false },
    );
    if (!coverage.covered) throw new StepFailure(coverage.problem === 'version' ? 'app_version_untested' : 'unknown', coverage.reason);
    if (coverage.by === 'untested_allowed') this.preflightReport('done', `Running on untested ${found.name} ${found.version}, as the workspace allows.`);

    const battery = await this.phone.battery();
    const minBattery = checks.minBattery ?? 10;
    if (battery.level < minBattery && !battery.charging) throw new StepFailure('unknown', `The battery is at ${battery.level}% and not charging.`);
    const network = await this.phone.network();
    if (!network.connected) throw new StepFailure('network', 'The phone has no network connection.');

    // A known start: force-stopped and launched to its home, drafts discarded on the way.
    await this.phone.forceStop(this.packageName);
    await this.phone.launchApp(this.packageName);
    const start = this.recipe.start;
    if (start) {
      // Only with no home screen (no feed, no captions) may words anywhere tell a login or suspension page.
      const insteadOfHome = () => {
        const screen = this.lastScreen;
        if (!screen || !this.readLast) return;
        if (start.signedOut && this.findTarget(screen, start.signedOut, scope))
          throw new StepFailure('login_required', `${this.packageName} is signed out on this phone; a person must log in.`);
        for (const item of start.instead ?? []) if (this.findTarget(screen, item.when, scope)) throw new StepFailure(item.reason, item.message);
      };
      let home = await this.locate(start.home, 20_000, scope);
      if (!home.node) {
        insteadOfHome();
        if (start.back) {
          for (const [index, step] of start.back.entries()) await this.step(step, `start.back.${index}`, scope, () => undefined);
          home = await this.locate(start.home, 10_000, scope);
        }
      }
      if (!home.node) {
        insteadOfHome();
        throw await this.missing(start.home, undefined, 'The app did not come to its home screen after launch.');
      }
      const wanted = checks.account?.replace(/^@/, '').trim().toLowerCase();
      if (wanted && start.account) {
        const account = start.account;
        const inner = new Map(scope).set('account', wanted);
        const readAccount = async () => {
          for (const [index, step] of account.open.entries()) await this.step(step, `start.account.${index}`, inner, () => undefined);
          const read = await this.locate(account.read, 10_000, inner);
          return read.node ? read.node.text.replace(/^@/, '').trim().toLowerCase() : null;
        };
        let signedIn = await readAccount();
        if (signedIn !== null && signedIn !== wanted && account.switch) {
          const other = signedIn;
          try {
            for (const [index, step] of account.switch.entries()) await this.step(step, `start.switch.${index}`, inner, () => undefined);
          } catch (error) {
            // The phone does not hold the work's account (nothing to switch to): the other one stays signed in.
            if (error instanceof Miss || (error instanceof StepFailure && error.code === 'element_missing'))
              throw new StepFailure('wrong_account', `@${other} is signed in on this phone, not @${wanted}, and the app offers no switch to it.`);
            throw error;
          }
          signedIn = await readAccount();
        }
        if (signedIn === null) throw new StepFailure('element_missing', 'The signed-in account could not be read from the app.');
        if (signedIn !== wanted) throw new StepFailure('wrong_account', `@${signedIn} is signed in on this phone, not @${wanted}.`);
        for (const [index, step] of (account.close ?? []).entries()) await this.step(step, `start.close.${index}`, inner, () => undefined);
      }
    }
    this.preflightReport('done', `${this.packageName} ${this.appVersion}${checks.account ? `, @${checks.account.replace(/^@/, '')}` : ''}`);
  }

  // ---------------------------------------------------------------- steps

  private async step(step: Step, path: string, scope: Scope, enter: (at: { path: string; label: string; step: Step }) => void): Promise<void> {
    if (this.options.signal?.aborted) throw new Cancelled();
    const label = describeStep(step);
    // A repeat or a when opens without a wait: each step inside waits (a person's "next" always shows a step).
    await this.gate(path, step.do, label, step.do !== 'repeat' && step.do !== 'when' && !this.inPreflight);
    enter({ path, label, step });
    this.report(step, path, 'started', 'counts' in step && step.counts ? { counts: step.counts } : {});
    await this.traceStep(path, step.do, label, () => this.act(step, path, scope, enter));
  }

  private async act(step: Step, path: string, scope: Scope, enter: (at: { path: string; label: string; step: Step }) => void): Promise<void> {
    const skip = (detail: string) => this.report(step, path, 'skipped', { detail });
    const finish = (extra: Partial<StepProgress> = {}) => {
      this.done += 1;
      this.report(step, path, 'done', extra);
    };

    const missing = (step.needs ?? []).find((needed) => {
      const value = scope.get(needed);
      return value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
    });
    if (missing) return skip(`Left out: this work gives no ${missing}.`);
    if ('chance' in step && this.random() >= this.chanceOf(step, scope)) return skip('Left out this time (chance).');
    if ('counts' in step && step.counts && this.spent(step.counts)) return skip(`No ${step.counts}s left for today.`);
    if (this.options.effects === false) {
      const effect = effectOf(step);
      if (effect) throw new RunStopped({ by: 'effects', message: `No effects: stopped before ${effect}.`, step: path, label: describeStep(step) });
    }

    switch (step.do) {
      case 'open_app':
        await this.phone.launchApp(step.package ?? this.packageName, step.activity);
        return finish();
      case 'open_url':
        await this.phone.openUrl(this.fill(step.url, scope), step.package ?? this.packageName);
        return finish();
      case 'wait_for':
      case 'expect': {
        const found = await this.locate(step.target, this.duration(step.timeout, step.do === 'wait_for' ? 10_000 : 5_000), scope, {
          skips: step.do === 'wait_for',
        });
        if (found.node) {
          this.hit();
          return finish();
        }
        if (step.do === 'wait_for' && step.optional) return skip('Not on screen; optional.');
        // A screen the recipe must pass never came (or could never be read): the run ends here.
        throw await this.missing(step.target, step.reason, step.message);
      }
      case 'tap':
      case 'long_press': {
        const found = await this.locate(step.target, this.duration(step.timeout, 5_000), scope, { positional: step.positional === true, skips: true });
        if (!found.node && !found.point) {
          if (step.optional) return skip('Not on screen; optional.');
          throw await this.absent(step.target);
        }
        const at = found.point as Point;
        if (found.node) this.hit();
        if (step.do === 'long_press') {
          await this.phone.longPress(at.x, at.y, this.duration(step.duration, 800));
          return finish({ point: at });
        }
        // A like or follow through a plain tap (older recipes): never on an item already liked or followed.
        if ((step.counts === 'like' || step.counts === 'follow') && found.node?.selected)
          return skip(`Already ${step.counts === 'like' ? 'liked' : 'followed'}; left alone.`);
        await this.phone.tap(at.x, at.y);
        if (step.double) {
          await this.clock.sleep(drawDuration('80..140ms', this.random));
          await this.phone.tap(at.x, at.y);
        }
        if (step.confirm) {
          const confirmed = await this.confirm(step.confirm, scope, step.counts);
          if (!confirmed) throw this.miss(`${describeStep(step)}: the app did not show that it took.`);
        }
        if (step.counts) this.actions[step.counts] += 1;
        return finish({ point: at, ...(step.counts ? { action: step.counts } : {}) });
      }
      case 'toggle':
        return this.toggle(step, scope, skip, finish);
      case 'type': {
        let at: Point | undefined;
        if (step.target) {
          const found = await this.locate(step.target, this.duration(step.timeout, 5_000), scope, { positional: step.positional === true, skips: true });
          if (!found.node && !found.point) {
            if (step.optional) return skip('Not on screen; optional.');
            throw await this.absent(step.target);
          }
          if (found.node) this.hit();
          at = found.point ?? undefined;
        }
        const value = this.fill(step.text, scope);
        await this.typeChecked(value, at);
        scope.set('typed', value);
        if (step.confirm) {
          const confirmed = await this.confirm(step.confirm, scope, step.counts);
          if (!confirmed) throw this.miss(`${describeStep(step)}: the app did not show what was typed.`);
        }
        if (step.counts) this.actions[step.counts] += 1;
        return finish(step.counts ? { action: step.counts } : {});
      }
      case 'share_media': {
        const value = scope.get(step.from ?? 'media');
        const files = Array.isArray(value) ? [...(value as readonly string[])] : typeof value === 'string' && value ? [value] : [];
        if (files.length === 0) throw new StepFailure('unknown', `The work gives no ${step.from ?? 'media'} to share.`, false);
        // Every file is checked before any goes: whatever scope value `from` names, only this run's fetched media pass.
        const real: string[] = [];
        for (const file of files) real.push(await this.runFile(file, 'share_media'));
        // Every file of a carousel goes to the phone, is indexed by the media store, then shared in one intent.
        const remote: string[] = [];
        for (const [index, file] of real.entries())
          remote.push(await this.phone.pushMedia(file, { ...(step.dir ? { remoteDir: step.dir } : {}), name: basename(files[index]!) }));
        await this.phone.scanMedia(remote);
        await this.clock.sleep(3000);
        const mime = shareMime(files);
        await this.phone.share({
          package: this.packageName,
          activity: step.activity,
          mime,
          files: remote,
          ...(step.text ? { text: this.fill(step.text, scope) } : {}),
        });
        return finish({ detail: `${remote.length} file${remote.length === 1 ? '' : 's'} shared` });
      }
      case 'swipe': {
        const times = drawCount(typeof step.count === 'string' ? this.fill(step.count, scope) : (step.count ?? 1), this.random);
        for (let round = 0; round < times; round++) {
          if (this.options.signal?.aborted) throw new Cancelled();
          const { from, to } = this.swipeLine(step.direction, step.distance ?? 0.55);
          await this.phone.swipe(from, to, this.duration(step.speed ?? '250..450ms', 300));
          await this.clock.sleep(this.duration(step.pause ?? '800..1600ms', 1000));
        }
        return finish({ detail: `${times} swipe${times === 1 ? '' : 's'}` });
      }
      case 'key': {
        const times = drawCount(typeof step.count === 'string' ? this.fill(step.count, scope) : (step.count ?? 1), this.random);
        for (let round = 0; round < times; round++) await this.phone.key(step.key);
        return finish();
      }
      case 'push_media': {
        const file = this.fill(step.from, scope);
        // The run's fetched media only: a recipe never names another file of the farm PC.
        const real = await this.runFile(file, 'push_media');
        const remote = await this.phone.pushMedia(real, { ...(step.dir ? { remoteDir: step.dir } : {}), name: basename(file) });
        if (step.as) scope.set(step.as, remote);
        return finish({ detail: remote });
      }
      case 'pause':
        await this.clock.sleep(this.duration(step.for, 1000));
        return finish();
      case 'when': {
        const found = await this.locate(step.present, this.duration(step.timeout, 0), scope);
        const shown = found.node !== null;
        const branch = shown ? step.steps : (step.else ?? []);
        for (const [index, inner] of branch.entries()) await this.step(inner, `${path}.${shown ? '' : 'else.'}${index}`, scope, enter);
        return finish({ detail: shown ? 'Shown' : 'Not shown' });
      }
      case 'repeat': {
        const value = step.each === undefined ? undefined : scope.get(step.each);
        const list = Array.isArray(value) ? (value as readonly string[]) : undefined;
        if (step.each !== undefined && list === undefined)
          throw new StepFailure('unknown', `The recipe repeats over "${step.each}", which this work does not give as a list.`, false);
        const times = step.times === undefined ? undefined : drawCount(typeof step.times === 'string' ? this.fill(step.times, scope) : step.times, this.random);
        const minutes = step.minutes === undefined ? undefined : Number(typeof step.minutes === 'string' ? this.fill(step.minutes, scope) : step.minutes);
        const deadline = minutes === undefined ? undefined : this.clock.now() + minutes * 60_000;
        const max = step.max ?? 10_000;
        let round = 0;
        for (;;) {
          if (times !== undefined && round >= times) break;
          if (list !== undefined && round >= list.length) break;
          if (deadline !== undefined && this.clock.now() >= deadline) break;
          if (step.until_spent?.every((action) => this.spent(action))) break;
          if (round >= max) break;
          const inner = new Map(scope);
          if (list !== undefined) inner.set(step.as ?? 'item', list[round] ?? '');
          this.rounds += 1;
          try {
            for (const [part, steps] of [
              ['', step.steps],
              ['after.', step.after ?? []],
            ] as const) {
              try {
                for (const [index, child] of steps.entries()) await this.step(child, `${path}.${part}${index}`, inner, enter);
              } catch (error) {
                // A miss or ordinary content ends this round only (its `after` steps still run); the run goes on.
                if (!(error instanceof Miss) && !(error instanceof SkipRound)) throw error;
                if (error instanceof SkipRound) this.skipped.push(error.message);
                this.report(step, path, 'skipped', { detail: `${error instanceof Miss ? 'Missed' : 'Left out'}: ${error.message}` });
              }
            }
          } finally {
            this.rounds -= 1;
          }
          // Media pushed inside a round stays known after it.
          for (const [key, item] of inner) if (!scope.has(key) && key !== (step.as ?? 'item')) scope.set(key, item);
          round += 1;
          if (!path.includes('.')) this.roundDone(round, times ?? list?.length, deadline, minutes);
        }
        return finish({ detail: `${round} round${round === 1 ? '' : 's'}` });
      }
    }
  }

  /** Reads the toggle's state first, taps it only when off, and counts it only once it reads on. */
  private async toggle(
    step: Extract<Step, { do: 'toggle' }>,
    scope: Scope,
    skip: (detail: string) => void,
    finish: (extra?: Partial<StepProgress>) => void,
  ): Promise<void> {
    const found = await this.locate(step.target, this.duration(step.timeout, 5_000), scope, { skips: true });
    if (!found.node) {
      if (step.optional) return skip('Not on screen; optional.');
      throw await this.absent(step.target);
    }
    this.hit();
    const node = found.node;
    if (this.inState(node, step.on, scope)) return skip(`Already ${this.stateWords(step.on)}; left alone.`);
    if (!this.inState(node, step.off, scope)) throw this.miss(`${describeStep(step)}: it shows neither state ("${node.text || node.desc}").`);
    const at = centerOf(node.bounds);
    await this.phone.tap(at.x, at.y);
    const deadline = this.clock.now() + this.duration(step.within, 3_000);
    for (;;) {
      await this.clock.sleep(Math.min(this.options.pollMs ?? 1000, Math.max(1, deadline - this.clock.now())));
      const read = await this.read();
      // A block dialog often answers the tap itself: guards look at every screen read while waiting (a popup tapped
      // away leaves this look without a screen to judge).
      const screen = read && (await this.guard(read, scope)) ? null : read;
      if (screen) {
        // The same element: the match nearest where the tap landed (a previous post's button can stay in the tree).
        const spec = this.element(step.target);
        const candidates = this.findAll(screen, spec, scope);
        const nearest = candidates.sort((a, b) => distance(centerOf(a.bounds), at) - distance(centerOf(b.bounds), at))[0];
        if (nearest && this.inState(nearest, step.on, scope)) {
          if (step.counts) this.actions[step.counts] += 1;
          return finish({ point: at, ...(step.counts ? { action: step.counts } : {}) });
        }
      }
      if (this.clock.now() >= deadline) throw this.miss(`${describeStep(step)}: tapped, but it never read ${this.stateWords(step.on)}.`);
    }
  }

  private inState(node: UiNode, states: ElementState[], scope: Scope): boolean {
    return states.some((state) => this.matches(node, state, scope));
  }

  private stateWords(states: ElementState[]): string {
    return states
      .map((state) =>
        state.selected !== undefined
          ? state.selected
            ? 'selected'
            : 'not selected'
          : (state.text ?? state.textContains ?? state.desc ?? state.descContains ?? (state.checked ? 'checked' : 'unchecked')),
      )
      .join(' or ');
  }

  /** Replaces the field's text, then checks what landed; once more when it differs, then a miss. */
  private async typeChecked(value: string, at: Point | undefined): Promise<void> {
    const same = (a: string, b: string) => a.replace(/\s+/g, ' ').trim() === b.replace(/\s+/g, ' ').trim();
    let landed: string | null = null;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        landed = await this.phone.setText(value, at);
      } catch (error) {
        if (error instanceof PhoneError && error.code === 'unsupported') throw new StepFailure('unknown', error.message);
        throw error;
      }
      if (landed === null) landed = await this.focusedText(at);
      // Nothing readable to check against: the reader answered what it could.
      if (landed === null || same(landed, value)) return;
    }
    throw this.miss(`The field shows "${(landed ?? '').slice(0, 80)}" after typing "${value.slice(0, 80)}".`);
  }

  /** What the focused field (or the field at `at`) holds, read from the screen. */
  private async focusedText(at: Point | undefined): Promise<string | null> {
    const screen = await this.read();
    if (!screen) return null;
    const fields = screen.nodes.filter((node) => /EditText|AutoCompleteTextView/.test(node.className));
    const inside = (node: UiNode) => at && at.x >= node.bounds.left && at.x < node.bounds.right && at.y >= node.bounds.top && at.y < node.bounds.bottom;
    const field = fields.find((node) => node.focused) ?? fields.find(inside) ?? null;
    return field ? field.text : null;
  }

  /** Whether a target matches only toasts (`class: Toast` on every selector), which some readers never see. */
  private isToastOnly(target: Target): boolean {
    if (typeof target !== 'string' && 'point' in target) return false;
    const selectors = this.selectorsOf(this.element(target));
    return selectors.length > 0 && selectors.every((selector) => selector.class !== undefined && /(^|\.)Toast$/.test(selector.class));
  }

  /** Waits for the confirmation; `failed` or its absence at the limit end the run when the recipe gives a reason. */
  private async confirm(spec: ConfirmSpec, scope: Scope, counts: EngagementAction | undefined): Promise<boolean> {
    if (!this.seesToasts && this.isToastOnly(spec.present) && !spec.finished) {
      // Waiting would only run out the clock: say at once that this phone cannot see the confirmation.
      const message = "The app confirms this only with a toast, which this phone's UI reader cannot see; check it on the phone.";
      if (spec.reason) throw new StepFailure(spec.reason, message);
      return false;
    }
    const media = scope.get('media');
    const video = Array.isArray(media) ? media.some((file) => VIDEO_FILE.test(file)) : typeof media === 'string' && VIDEO_FILE.test(media);
    const fallback = counts === 'post' ? (video ? 10 * 60_000 : 3 * 60_000) : 10_000;
    const deadline = this.clock.now() + this.duration(spec.timeout, fallback);
    let pending = false;
    for (;;) {
      if (this.options.signal?.aborted) throw new Cancelled();
      const read = await this.read();
      const screen = read && (await this.guard(read, scope)) ? null : read;
      if (screen) {
        if (spec.failed && this.findTarget(screen, spec.failed, scope))
          throw new StepFailure(spec.reason ?? 'post_unconfirmed', spec.message ?? 'The app said it could not finish.');
        if (this.findTarget(screen, spec.present, scope)) return true;
        if (spec.finished) {
          // Seen, then gone from a screen of the app: the work it stood for finished.
          const shows = this.findTarget(screen, spec.finished, scope) !== null;
          if (shows) pending = true;
          else if (pending && screen.packageName !== null && recipePackages(this.recipe).includes(screen.packageName)) return true;
        }
      }
      if (this.clock.now() >= deadline) {
        if (spec.reason) throw new StepFailure(spec.reason, spec.message ?? 'The app did not confirm in time.');
        return false;
      }
      await this.clock.sleep(Math.min(Math.max(this.options.pollMs ?? 1000, 2000), Math.max(1, deadline - this.clock.now())));
    }
  }

  private findTarget(screen: UiScreen, target: Target, scope: Scope): UiNode | null {
    if (typeof target !== 'string' && 'point' in target) return null;
    return this.find(screen, this.element(target), scope);
  }

  /** Moves progress through a top-level repeat by rounds, or by time for a repeat of minutes. */
  private roundDone(round: number, rounds: number | undefined, deadline: number | undefined, minutes: number | undefined): void {
    const total = this.recipe.steps.length;
    let share: number | null = null;
    if (deadline !== undefined && minutes) share = 1 - Math.max(0, deadline - this.clock.now()) / (minutes * 60_000);
    else if (rounds) share = round / rounds;
    if (share === null) return;
    this.percent = Math.round(((this.topIndex + Math.min(1, Math.max(0, share))) / total) * 100);
  }

  private duration(value: number | string | undefined, fallback: number): number {
    return value === undefined ? fallback : drawDuration(value, this.random);
  }

  private screenSize(): ScreenSize {
    if (this.size) return this.size;
    if (this.lastScreen && this.lastScreen.width > 0) return { width: this.lastScreen.width, height: this.lastScreen.height };
    return { width: 1080, height: 2400 };
  }

  private scale(point: RecipePoint): Point {
    const { width, height } = this.screenSize();
    if (point.of) return { x: Math.round((point.x / point.of.width) * width), y: Math.round((point.y / point.of.height) * height) };
    return { x: Math.round(point.x * width), y: Math.round(point.y * height) };
  }

  /** A swipe across the middle of the screen with a little drift, as a thumb makes. */
  private swipeLine(direction: 'up' | 'down' | 'left' | 'right', distance: number): { from: Point; to: Point } {
    const { width, height } = this.screenSize();
    const jitter = (span: number) => Math.round((this.random() - 0.5) * span * 0.06);
    const cx = Math.round(width / 2) + jitter(width);
    const cy = Math.round(height / 2) + jitter(height);
    const half = distance / 2;
    switch (direction) {
      case 'up':
        return { from: { x: cx, y: Math.round(cy + height * half) }, to: { x: cx + jitter(width), y: Math.round(cy - height * half) } };
      case 'down':
        return { from: { x: cx, y: Math.round(cy - height * half) }, to: { x: cx + jitter(width), y: Math.round(cy + height * half) } };
      case 'left':
        return { from: { x: Math.round(cx + width * half), y: cy }, to: { x: Math.round(cx - width * half), y: cy + jitter(height) } };
      case 'right':
        return { from: { x: Math.round(cx - width * half), y: cy }, to: { x: Math.round(cx + width * half), y: cy + jitter(height) } };
    }
  }

  private element(target: Exclude<Target, { point: RecipePoint }>): ElementSpec {
    if (typeof target !== 'string') return target;
    const spec = this.recipe.elements?.[target];
    if (!spec) throw new StepFailure('unknown', `The recipe has no element named "${target}".`, false);
    return spec;
  }

  /**
   * Reads the screen; a busy screen or a malformed tree is retried after a pause, and answers null while it stays
   * so (an unreadable screen: nothing is tapped on it, and nothing waited for passes).
   */
  private async read(): Promise<UiScreen | null> {
    const retries = this.options.busyRetries ?? 3;
    for (let attempt = 0; ; attempt++) {
      try {
        const screen = parseUiXml(await this.phone.dumpUi());
        this.lastScreen = screen;
        this.readLast = true;
        const open = this.open.at(-1);
        if (open) open.screen = screen;
        return screen;
      } catch (error) {
        const unreadable = error instanceof UiBusyError || (error instanceof Error && !(error instanceof PhoneError) && /UI tree/.test(error.message));
        if (!unreadable) throw error;
        if (attempt >= retries) {
          this.readLast = false;
          return null;
        }
        await this.clock.sleep(this.options.busyPauseMs ?? 1500);
      }
    }
  }

  private matches(node: UiNode, selector: Omit<Selector, 'index' | 'evidence'> & { checked?: boolean | undefined }, scope: Scope): boolean {
    return nodeMatches(node, selector, (value) => this.fill(value, scope));
  }

  /** The selectors of an element in the order they are tried: its own, then its alternatives. */
  private selectorsOf(spec: ElementSpec): Selector[] {
    const { or, fallback: _fallback, ...own } = spec;
    const hasOwn = Boolean(own.id || own.text || own.textContains || own.desc || own.descContains || own.textMatches || own.descMatches || own.class);
    return [...(hasOwn ? [own] : []), ...(or ?? [])];
  }

  /** Whether a node can be acted on (the studio's Inspect uses the same rule). */
  private onScreen(screen: UiScreen, node: UiNode): boolean {
    return isOnScreen(screen, node);
  }

  private find(screen: UiScreen, spec: ElementSpec, scope: Scope, where?: (node: UiNode, selector: Selector) => boolean): UiNode | null {
    return this.findWith(screen, spec, scope, where)?.node ?? null;
  }

  /** The node an element's selectors find first, with the selector (or alternative) that found it. */
  private findWith(
    screen: UiScreen,
    spec: ElementSpec,
    scope: Scope,
    where?: (node: UiNode, selector: Selector) => boolean,
  ): { node: UiNode; selector: Selector } | null {
    for (const selector of this.selectorsOf(spec)) {
      const found = screen.nodes.filter((node) => this.onScreen(screen, node) && this.matches(node, selector, scope) && (where?.(node, selector) ?? true));
      const pick = selector.index === -1 ? found[found.length - 1] : found[selector.index ?? 0];
      if (pick) return { node: pick, selector };
    }
    return null;
  }

  /** Every visible node any of the element's selectors matches. */
  private findAll(screen: UiScreen, spec: ElementSpec, scope: Scope): UiNode[] {
    return screen.nodes.filter((node) => this.onScreen(screen, node) && this.selectorsOf(spec).some((selector) => this.matches(node, selector, scope)));
  }

  /** Whether a node lies inside a dialog or sheet: the recipe's containers or Android's alert parts. */
  private inDialog(screen: UiScreen, node: UiNode): boolean {
    const containers = this.recipe.dialogs ?? [];
    return isWithin(screen, node, (at) => ANDROID_ALERT_IDS.has(at.resourceId) || containers.some((selector) => this.matches(at, selector, new Map())));
  }

  /**
   * A guard or popup selector matching words (text or description) looks only inside dialogs and sheets: captions
   * and comments can say "try again later". One that matches an id alone may look anywhere (ids are not content).
   */
  private findInDialogs(screen: UiScreen, spec: ElementSpec, scope: Scope): UiNode | null {
    return this.find(screen, spec, scope, (node, selector) => {
      const words =
        selector.text !== undefined ||
        selector.textContains !== undefined ||
        selector.desc !== undefined ||
        selector.descContains !== undefined ||
        selector.textMatches !== undefined ||
        selector.descMatches !== undefined;
      return !words || this.inDialog(screen, node);
    });
  }

  /** Fails the run when a guard's dialog shows; taps popups away. Answers whether the screen changed. */
  private async guard(screen: UiScreen, scope: Scope): Promise<boolean> {
    if (screen.nodes.some(CRASH_DIALOG)) throw new StepFailure('app_crashed', 'The app crashed or stopped responding (Android showed its dialog).');
    for (const item of this.recipe.guards ?? []) {
      if (typeof item.when !== 'string' && 'point' in item.when) continue;
      if (this.findInDialogs(screen, this.element(item.when), scope)) throw new StepFailure(item.reason, item.message);
    }
    for (const popup of this.recipe.dismiss ?? []) {
      if (typeof popup !== 'string' && 'point' in popup) continue;
      const node = this.findInDialogs(screen, this.element(popup), scope);
      if (node) {
        const { x, y } = centerOf(node.bounds);
        await this.phone.tap(x, y);
        await this.clock.sleep(drawDuration('600..1200ms', this.random));
        return true;
      }
    }
    return false;
  }

  /**
   * The reason of the first `skips` entry on screen, if any. An entry with `item` counts only for the element about
   * to be acted on (`near`): its marker must lie between the nearest item header above that element and the element.
   */
  private skipOn(screen: UiScreen, scope: Scope, near: UiNode | null, looking: Target): string | null {
    for (const entry of this.recipe.skips ?? []) {
      if (entry.for && !(typeof looking === 'string' && entry.for.includes(looking))) continue;
      const markers = this.findAll(screen, this.element(entry.when), scope);
      if (!entry.item) {
        if (markers.length > 0) return entry.reason;
        continue;
      }
      if (!near) continue;
      const top = near.bounds.top;
      const headers = this.findAll(screen, this.element(entry.item), scope).filter((node) => node.bounds.top <= top);
      const header = headers.sort((a, b) => b.bounds.top - a.bounds.top)[0];
      if (!header) continue;
      if (markers.some((marker) => marker.bounds.top >= header.bounds.top && marker.bounds.top <= top)) return entry.reason;
    }
    return null;
  }

  /**
   * Where the target is. `node` is the element found on a read screen; `point` where to act (its centre, or for a
   * positional step its fallback while the screen cannot be read). Neither within the timeout: not found. Inside a
   * repeat, ordinary content the recipe names (`skips`) ends the round at once when `skips` is set.
   */
  private async locate(
    target: Target,
    timeoutMs: number,
    scope: Scope,
    how: { positional?: boolean; skips?: boolean } = {},
  ): Promise<{ node: UiNode | null; point: Point | null }> {
    if (typeof target !== 'string' && 'point' in target) {
      // A point is a blind tap: older recipes may still give one (they validate), but only a positional step uses it.
      if (!how.positional)
        throw new StepFailure('unknown', 'This step taps a fixed point without being marked "positional": true; points are blind taps.', false);
      return { node: null, point: this.scale(target.point) };
    }
    const spec = this.element(target);
    this.looked(spec, null, scope);
    const fallback = how.positional ? spec.fallback : undefined;
    const deadline = this.clock.now() + timeoutMs;
    let popups = 0;
    for (;;) {
      if (this.options.signal?.aborted) throw new Cancelled();
      const screen = await this.read();
      if (screen === null) {
        if (fallback) return { node: null, point: this.scale(fallback) };
      } else {
        if (popups < 5 && (await this.guard(screen, scope))) {
          popups += 1;
          continue;
        }
        const hit = this.findWith(screen, spec, scope);
        const node = hit?.node ?? null;
        this.looked(spec, hit ? { ...hit, screen } : null, scope);
        if (how.skips && this.rounds > 0) {
          const reason = this.skipOn(screen, scope, node, target);
          if (reason) throw new SkipRound(reason);
        }
        if (node) return { node, point: centerOf(node.bounds) };
      }
      if (this.clock.now() >= deadline) return { node: null, point: null };
      await this.clock.sleep(Math.min(this.options.pollMs ?? 1000, Math.max(1, deadline - this.clock.now())));
    }
  }

  /** Why an element is missing: the app left the screen (crash to launcher), the screen could not be read, or it never came. */
  private async missing(target: Target, reason?: FailureCode, message?: string): Promise<StepFailure> {
    const name = typeof target === 'string' ? target.replace(/_/g, ' ') : 'The expected element';
    const screen = this.lastScreen;
    const packages = recipePackages(this.recipe);
    if (!reason && screen?.packageName && !packages.includes(screen.packageName) && /launcher/i.test(screen.packageName)) {
      return new StepFailure('app_crashed', `${this.packageName} is no longer on screen (the home screen shows).`);
    }
    if (!reason && (screen === null || !this.readLast))
      return new StepFailure('element_missing', `${capitalise(name)} could not be found: the screen never went idle long enough to be read.`);
    return new StepFailure(reason ?? 'element_missing', message ?? `${capitalise(name)} did not appear on screen.`);
  }

  /**
   * An acting step's element is absent. On the app's own screen, read, that is a miss (the round ends; five in a
   * row end the run); a crash, another app or an unreadable screen end the run with their reason.
   */
  private async absent(target: Target): Promise<Error> {
    const screen = this.lastScreen;
    const name = typeof target === 'string' ? target.replace(/_/g, ' ') : 'The expected element';
    if (screen && (screen.packageName === null || recipePackages(this.recipe).includes(screen.packageName)) && this.readLast)
      return this.miss(`${capitalise(name)} did not appear on screen.`);
    return this.missing(target);
  }
}

function distance(a: Point, b: Point): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * What a step would do that counts an engagement (the no-effects mode stops before it): any step with `counts` (a tap,
 * a toggle, a typed comment; a post's publish tap counts `post`), and a double tap, the gesture that likes a post.
 */
function effectOf(step: Step): string | null {
  if ('counts' in step && step.counts) return `a step that counts a ${step.counts}`;
  if (step.do === 'tap' && step.double) return 'a double tap (a double tap likes a post)';
  return null;
}

/**
 * A selector as a trace shows it: its parameters filled (`{{account}}` → the account), a random pick left as written
 * (filling it again would draw another item than the run did), and a field that would come out empty kept as written.
 */
function traceSelector(selector: Selector, scope: Scope): Selector {
  const values = Object.fromEntries(scope);
  const filled: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(selector)) {
    if (typeof value !== 'string' || key === 'evidence') {
      filled[key] = value;
      continue;
    }
    const text = value.replace(new RegExp(TEMPLATE_PATTERN.source, 'g'), (whole: string, _name: string, filter: string | undefined) => {
      if (filter === 'pick') return whole;
      try {
        return fillTemplate(whole, values);
      } catch {
        return whole;
      }
    });
    filled[key] = text.length > 0 ? text : value;
  }
  return filled as Selector;
}
