/**
 * What a recipe run is told (its options and pre-flight checks), what it says as it goes and at the end (progress,
 * stops, failures, the result), and the errors that end a step. They sit apart from the runner so the rooms that do
 * the work (pre-flight, actions, traces, locating) share one vocabulary without importing the runner back.
 */
import type { FailureCode } from '../failures.ts';
import type { FailureTrace, TraceStep } from '../dryrun.ts';
import { PhoneError, type Point, type Screenshot } from '../phone/phone.device.ts';
import type { Clock } from './recipe.pacing.ts';
import type { EngagementAction, HandOverKind, Step } from './recipe.schema.ts';
import type { RunMedia } from './recipe.media.ts';
import type { TemplateValue } from './recipe.template.ts';
import type { AppVerification } from '../work.ts';

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
  /**
   * A dry run, watched by a person: an app language the recipe does not cover is tried rather than ending the run
   * `language_untested` (a passing dry run is what verifies the recipe in that language).
   */
  tryUntestedLanguage?: boolean;
  /**
   * A dry run, watched by a person: a recipe held back on a version inside its tested range only because it acts on
   * what no public source shows is tried (a passing dry run of the workspace's copy is what verifies it there).
   */
  tryUnverifiedClaims?: boolean;
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
  /**
   * Told of each post a `hand_over` step hands to a person (a comment for a VA to write), in order, `index` from 0.
   * Awaited; a hand-over that could not be told does not end the run.
   */
  onHandOver?: (item: HandOver) => void | Promise<void>;
}

/** A post handed to a person: who wrote it, its address when known, and the screen as the run saw it. */
export interface HandOver {
  index: number;
  kind: HandOverKind;
  /** The post's author's handle, without @. */
  author: string;
  link?: string;
  frame?: { mime: 'image/jpeg' | 'image/png'; data: Uint8Array; width: number; height: number };
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
  /** Posts handed to a person (`hand_over`), by kind: comments a VA writes. */
  handedOver: Record<HandOverKind, number>;
  /** The package the run drove (one of the recipe's packages), once known. */
  package?: string;
  /** The app's version on the phone, when read. */
  appVersion?: string;
  /** The UI language the app showed (its own on Android 13+, else the phone's), when the pre-flight read it. */
  appLocale?: string;
  failure?: RecipeFailure;
  /** Why it stopped, when it did (`status: 'stopped'`). */
  stopped?: RecipeStop;
  startedAt: number;
  finishedAt: number;
}

export class StepFailure extends Error {
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
export class Miss extends Error {}

/** Ordinary content (`skips`): ends the round with its reason; not a miss. */
export class SkipRound extends Error {}

export class Cancelled extends Error {}

/** The run stops before a step (no effects, the person, the trace limit). */
export class RunStopped extends Error {
  constructor(readonly stop: RecipeStop) {
    super(stop.message);
  }
}

/** The parameters a step sees: the work's, the recipe's defaults, and what earlier steps kept (`typed`, `as`). */
export type Scope = Map<string, TemplateValue>;

/** What a run says for an error that ended a step: its reason code, message and whether a retry could help. */
export function failureOf(error: unknown): { code: FailureCode; message: string; retryable?: boolean } {
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
