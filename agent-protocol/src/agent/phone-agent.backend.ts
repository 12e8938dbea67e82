/**
 * What the phone agent drives and what it hears back: the `PhoneBackend` contract (a simulated phone, or a real one
 * through `DeviceBackend`), the context a task's work runs in, and how a task or a dry run ended. The agent's rooms
 * and every backend import these from here, so none of them needs the agent itself.
 */
import type { FailureCode } from '../failures.ts';
import type { GroupActMessage, GroupActResult } from '../group/group.messages.ts';
import type { DryRunResult, DryRunStart, FailureTrace, TraceStep } from '../dryrun.ts';
import type { LiveInput, LiveVideoStream } from '../live.ts';
import type { InstalledApp, RecipeRun, ServerMessage } from '../messages.ts';
import type { LiveFrameSource, LiveVideoSession, UiReaderInfo } from '../phone/phone.device.ts';
import type { RecordedTarget, UiCapture } from '../recipes/recipe.inspect.ts';
import type { HandOver } from '../recipes/recipe.outcome.ts';
import type { Recipe, RecipeParams } from '../recipes/recipe.schema.ts';
import type { EngagementReport, TaskWork } from '../work.ts';

export type WorkOutcome =
  | { status: 'completed'; engagement?: EngagementReport; run?: RecipeRun }
  | {
      status: 'failed';
      code: FailureCode;
      message?: string;
      retryable?: boolean;
      engagement?: EngagementReport;
      /** The recipe that ran and the app it drove, when the run got that far. */
      recipe?: { id: string; version: number };
      app?: { package: string; version: string };
      /** The recipe run, with its duration, when a recipe ran (the server's health board counts it). */
      run?: RecipeRun;
      /** The failed step as the run saw it (sent only by agents that list `dryrun`). */
      trace?: FailureTrace;
    };

/** A dry run the backend runs (see dryrun.ts): the recipe checked, its gate, its traces. */
export interface DryRunWork {
  recipe: Recipe;
  /** Its parameters; a `media` among them is not a file and is never copied (the run's files are `media` below). */
  params: RecipeParams;
  /** Stored uploads the person picked (`/api/objects/<id>`), fetched as a task's media are before the run. */
  media: readonly string[];
  /** False: stop before the first step that counts an engagement. */
  effects: boolean;
  preflight: DryRunStart['preflight'];
  signal: AbortSignal;
  /** Awaited before each step; throws `StopRun` to stop there. */
  beforeStep(at: { path: string; label: string; do: string }): Promise<void>;
  /** Each step's trace, screenshot and tree with it, as it ends; awaited. */
  onTrace(step: TraceStep): Promise<void>;
}

/** How a dry run ended, as `dryrun.result` says it (without its id). */
export type DryRunOutcome = Omit<DryRunResult, 'runId'>;

export interface WorkContext {
  taskId: string;
  title: string;
  /** Aborted when the server calls the attempt off: stop as soon as it is safe. */
  signal: AbortSignal;
  progress(percent: number, step?: string): void;
  /**
   * The run started the step that publishes a post (its share tap): from here a cut-off may leave the post up, so it
   * is reported `post_unconfirmed` (a person checks) rather than tried again.
   */
  publishing?(): void;
  /** The run handed a post to a person (a comment a VA writes): the agent tells the server (`task.handover`). */
  handOver?(item: HandOver): Promise<void>;
}

/** What the agent drives: a simulated phone or a real one. */
export interface PhoneBackend {
  describe(): { model: string; androidVersion: string; serial?: string; agentVersion: string };
  state(): { battery: number; charging: boolean; screenOn: boolean; status: 'online' | 'busy' | 'idle'; foregroundApp?: string | undefined };
  screenshot(): Promise<{ mime: 'image/jpeg' | 'image/png'; data: Buffer } | undefined>;
  run(work: TaskWork, context: WorkContext): Promise<WorkOutcome>;
  command?(name: ServerMessage<'command'>['name']): void;
  /** Told the device's name in the console once the server has let the agent in. */
  named?(name: string): void;
  /** The screen as a stream of frames, while someone watches it live (absent: this agent does not stream). */
  openLive?(settings: { maxSide: number; quality: number }): Promise<LiveFrameSource>;
  /** The screen as H.264 with input over the same session (absent: JPEG only); rejects with the reason it cannot. */
  openVideo?(kind: LiveVideoStream): Promise<LiveVideoSession>;
  /** The screen's UI tree and the frame it belongs to, for the recipe studio's Inspect (absent: it cannot). */
  capture?(): Promise<UiCapture>;
  /** The element under a point (a share of the screen) read now, for Record (absent: it cannot). */
  recordTarget?(point: { x: number; y: number }): Promise<RecordedTarget>;
  /** A person's tap, swipe, text or key from the console (absent: this agent cannot be controlled). */
  input?(input: LiveInput): Promise<void>;
  /** Which reader reads the phone's UI, said in the hello (undefined when it cannot be told in a moment). */
  uiReader?(): Promise<UiReaderInfo | undefined>;
  /** The installed versions of the apps recipes drive, said in the hello (undefined when they cannot be read). */
  installedApps?(): Promise<InstalledApp[] | undefined>;
  /** One action of group control on this phone, with its result (absent: this agent does not list `group`). */
  groupAct?(message: GroupActMessage): Promise<GroupActResult>;
  /** Runs a recipe as a dry run with a trace of every step (absent: this agent cannot, and does not list `dryrun`). */
  dryRun?(work: DryRunWork): Promise<DryRunOutcome>;
}
