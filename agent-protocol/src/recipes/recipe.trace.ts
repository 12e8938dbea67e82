/**
 * The run's record of itself: progress as each step starts and ends, and the trace a dry run shows in the recipe
 * studio (what a step looked for, what it matched, where it touched, the tree and a screenshot). It also holds the
 * gate before each step (the person's "next", the MAX_TRACE_STEPS stop) because a stop there is traced like a step.
 * Kept apart so what a trace says can change without touching what the steps do on the phone.
 */
import { MAX_TRACE_FRAME_BYTES, MAX_TRACE_STEPS, type FailureTrace, type TraceStep, type TraceVerdict } from '../dryrun.ts';
import type { Point, Screenshot } from '../phone/phone.device.ts';
import { describeStep } from './recipe.describe.ts';
import { captureTreeIndexed } from './recipe.inspect.ts';
import { Cancelled, failureOf, Miss, RunStopped, SkipRound, StopRun, type RecipeStop, type Scope, type StepProgress } from './recipe.outcome.ts';
import type { RunState } from './recipe.state.ts';
import type { EngagementAction, Selector, Step } from './recipe.schema.ts';
import { fillTemplate, TEMPLATE_PATTERN } from './recipe.template.ts';
import type { UiNode, UiScreen } from './recipe.ui.ts';

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

export class TraceRecorder {
  /** Steps under way, innermost last, gathering their traces. */
  private readonly open: OpenStep[] = [];
  /** Errors a step already traced (the containers it ends trace nothing more), with that trace. */
  private readonly traced = new WeakMap<object, TraceStep>();

  constructor(private readonly run: RunState) {}

  /** Says a step's progress (a start takes the next seq) and notes it for the step's trace. */
  report(step: Step, path: string, status: StepProgress['status'], extra: Partial<StepProgress> = {}): void {
    this.progress(path, step.do, describeStep(step), status, extra);
  }

  progress(path: string, kind: StepProgress['do'], label: string, status: StepProgress['status'], extra: Partial<StepProgress> = {}): void {
    const run = this.run;
    if (status === 'started') run.seq += 1;
    this.note(path, status, extra);
    run.options.onProgress?.({ seq: run.seq, path, do: kind, label, status, percent: run.percent, ...extra });
  }

  /**
   * Before a step: past the trace limit, or stopped by the person at `beforeStep` (when `wait`), the run stops here
   * with a `stopped` trace of the step it did not run.
   */
  async gate(path: string, kind: string, label: string, wait: boolean): Promise<void> {
    const { options } = this.run;
    let stop: RecipeStop | null = null;
    if (options.onTrace && this.run.seq + 1 >= MAX_TRACE_STEPS)
      stop = { by: 'limit', message: `Too many steps: a dry run traces at most ${MAX_TRACE_STEPS}.`, step: path, label };
    else if (wait && options.beforeStep) {
      try {
        await options.beforeStep({ path, label, do: kind });
      } catch (error) {
        if (!(error instanceof StopRun)) throw error;
        stop = { by: 'person', message: error.message, step: path, label };
      }
    }
    if (!stop) return;
    this.run.seq += 1;
    const error = new RunStopped(stop);
    await this.closeTrace({ seq: this.run.seq, path, do: kind, label, startedAt: this.run.clock.now() }, error);
    throw error;
  }

  /** Runs a step's body with its trace open (the step reported `started` just before, so it has its seq). */
  async traceStep(path: string, kind: string, label: string, body: () => Promise<void>): Promise<void> {
    const open: OpenStep = { seq: this.run.seq, path, do: kind, label, startedAt: this.run.clock.now() };
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

  /** The screen the current step read last: it goes into the step's trace. */
  saw(screen: UiScreen): void {
    const open = this.open.at(-1);
    if (open) open.screen = screen;
  }

  /** What the step looked for and found (the selector filled, the node), for its trace. */
  looked(selector: Selector | undefined, found: { node: UiNode; screen: UiScreen } | null, scope: Scope): void {
    const open = this.open.at(-1);
    if (!open) return;
    if (selector) open.selector = traceSelector(selector, scope);
    if (found) {
      open.node = found.node;
      open.nodeScreen = found.screen;
    } else {
      delete open.node;
      delete open.nodeScreen;
    }
  }

  /**
   * The failed step's trace for a run's failure: the one its step left (without its frame unless it had one), with
   * the screen it failed on, scaled to fit, when screenshots on failure are wanted.
   */
  async failureTrace(error: unknown): Promise<FailureTrace | undefined> {
    const traced = typeof error === 'object' && error !== null ? this.traced.get(error) : undefined;
    let trace: FailureTrace | undefined = traced ? (({ frame: _frame, ...rest }) => rest)(traced) : undefined;
    // The screen it failed on goes with the trace, scaled to fit (a dry run's trace has its own already).
    if (trace && !traced?.frame && this.run.options.screenshotOnFailure !== false) {
      const shot = await this.traceFrame();
      if (shot.frame) trace = { ...trace, frame: shot.frame };
    } else if (trace && traced?.frame) trace = { ...trace, frame: traced.frame };
    return trace;
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

  /** The verdict and detail of a step that ended with an error (`null`: a step inside already traced it). */
  private verdictOf(open: OpenStep, error: unknown): { verdict: TraceVerdict; detail: string | undefined } | null {
    if (error === undefined) return { verdict: open.verdict ?? 'done', detail: open.detail };
    if (typeof error === 'object' && error !== null && this.traced.has(error)) return null;
    if (error instanceof RunStopped) return { verdict: 'stopped', detail: error.stop.message };
    if (error instanceof Cancelled) return { verdict: 'stopped', detail: 'Called off.' };
    if (error instanceof SkipRound) return { verdict: 'skipped', detail: `Left out: ${error.message}` };
    // Ends the round, not the run.
    if (error instanceof Miss && this.run.rounds > 0) return { verdict: 'skipped', detail: `Missed: ${error.message}` };
    return { verdict: 'failed', detail: failureOf(error).message };
  }

  /** Ends a step's trace; an error a step inside already traced leaves the containers it ends without one. */
  private async closeTrace(open: OpenStep, error?: unknown): Promise<void> {
    const { options } = this.run;
    const said = this.verdictOf(open, error);
    if (!said) return;
    const { verdict, detail } = said;
    // A run without traces keeps only its failed step's (it goes with the failure).
    if (!options.onTrace && verdict !== 'failed') return;
    const withTree = verdict === 'failed' || (options.traceScreens === true && options.onTrace !== undefined);
    const { tree, nodeIndex } = withTree ? treeOf(open) : { tree: undefined, nodeIndex: null };
    const notes: string[] = [];
    let frame: TraceStep['frame'];
    if (options.traceScreens && options.onTrace) {
      const shot = await this.traceFrame();
      frame = shot.frame;
      if (shot.note) notes.push(shot.note);
    }
    const text = [detail, ...notes].filter(Boolean).join(' ');
    const trace: TraceStep = {
      seq: open.seq,
      path: open.path.slice(0, 40),
      do: open.do.slice(0, 40),
      label: open.label.slice(0, 200),
      verdict,
      ...(text ? { detail: text.slice(0, 2000) } : {}),
      ...(open.selector ? { selector: open.selector } : {}),
      ...(open.node ? { matched: { node: nodeIndex, bounds: { ...open.node.bounds } } } : {}),
      ...(open.point ? { point: { x: open.point.x, y: open.point.y } } : {}),
      ...(open.action ? { action: open.action } : {}),
      ms: Math.max(0, Math.min(24 * 3_600_000, Math.round(this.run.clock.now() - open.startedAt))),
      ...(frame ? { frame } : {}),
      ...(tree ? { tree } : {}),
    };
    if (typeof error === 'object' && error !== null) this.traced.set(error, trace);
    try {
      await options.onTrace?.(trace);
    } catch {
      // A trace that could not be sent does not end the run.
    }
  }

  /** A screenshot for a trace or a hand-over, scaled down until it fits MAX_TRACE_FRAME_BYTES; left out (and said) when it cannot. */
  async traceFrame(): Promise<{ frame?: NonNullable<TraceStep['frame']>; note?: string }> {
    for (const size of [
      { maxSide: 720, quality: 70 },
      { maxSide: 480, quality: 50 },
    ]) {
      let shot: Screenshot;
      try {
        shot = await this.run.phone.screenshot(size);
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
}

/** The step's last screen as a trace's tree, with the index of the node it matched in that tree. */
function treeOf(open: OpenStep): { tree: TraceStep['tree']; nodeIndex: number | null } {
  if (!open.screen || open.screen.nodes.length === 0) return { tree: undefined, nodeIndex: null };
  const cut = captureTreeIndexed(open.screen);
  if (!open.node) return { tree: cut.tree, nodeIndex: null };
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
  return { tree: cut.tree, nodeIndex: at >= 0 ? (cut.index.get(at) ?? null) : null };
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
