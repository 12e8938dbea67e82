/**
 * A dry run on the agent's side (the recipe studio, `dryrun.ts`): the gate a step-by-step run waits at for the
 * person's `dryrun.next`, the stop that ends it before its next step, and traces cut to what one message may carry.
 */
import { failureTrace, MAX_TRACE_STEPS, traceStep, type DryRunMode, type FailureTrace, type TraceStep } from '../dryrun.ts';
import { StopRun } from '../recipes/recipe.runner.ts';

/** A tree bigger than this (as JSON) is left out of a trace: the frame and the tree go in one Socket.IO message. */
export const TRACE_TREE_BUDGET = 512 * 1024;
/** A failed task's trace rides in its result (and the phone's journal): its tree is held to less. */
export const FAILURE_TREE_BUDGET = 256 * 1024;
/** How long a step-by-step run waits for the next step before it stops on its own. */
export const DRY_RUN_IDLE_MS = 10 * 60_000;

export class DryRunSession {
  /** `dryrun.next` that came before the run reached its gate: each lets one step go. */
  private credits = 0;
  private waiting: { resolve: () => void; reject: (error: Error) => void; timer: NodeJS.Timeout } | undefined;
  private stopped: string | undefined;
  readonly abort = new AbortController();
  /** Settles once the run ended and its result was sent (or given up on). */
  ended: Promise<void> = Promise.resolve();

  constructor(
    readonly runId: string,
    readonly mode: DryRunMode,
    private readonly idleMs = DRY_RUN_IDLE_MS,
  ) {}

  /** The runner's `beforeStep`: straight on, or in step mode once the person asked for the next step. */
  readonly gate = async (): Promise<void> => {
    if (this.stopped !== undefined) throw new StopRun(this.stopped);
    if (this.mode === 'straight') return;
    if (this.credits > 0) {
      this.credits -= 1;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        this.stopped = `No next step was asked for in ${Math.round(this.idleMs / 60_000)} minutes; the dry run stopped here.`;
        reject(new StopRun(this.stopped));
      }, this.idleMs);
      timer.unref();
      this.waiting = { resolve, reject, timer };
    });
  };

  /** The person asks for the next step. */
  next(): void {
    const waiting = this.waiting;
    if (!waiting) {
      this.credits += 1;
      return;
    }
    this.waiting = undefined;
    clearTimeout(waiting.timer);
    waiting.resolve();
  }

  /** Stops the run before its next step (the step under way finishes). */
  stop(reason = 'Stopped by the person before this step.'): void {
    this.stopped ??= reason;
    const waiting = this.waiting;
    if (!waiting) return;
    this.waiting = undefined;
    clearTimeout(waiting.timer);
    waiting.reject(new StopRun(this.stopped));
  }
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}

function said(detail: string | undefined, note: string): string {
  return [detail, note].filter(Boolean).join(' ').slice(0, 2000);
}

/**
 * A trace as `dryrun.step` carries it: valid by the schema, its tree within TRACE_TREE_BUDGET. What cannot be sent
 * is left out and said in `detail`, never the whole step.
 */
export function fitTrace(step: TraceStep): TraceStep {
  let fitted = step;
  if (fitted.tree && jsonBytes(fitted.tree) > TRACE_TREE_BUDGET) {
    const { tree: _tree, ...rest } = fitted;
    fitted = { ...rest, detail: said(rest.detail, 'The screen’s tree was too large to send and was left out.') };
    if (fitted.matched) fitted = { ...fitted, matched: { ...fitted.matched, node: null } };
  }
  if (traceStep.safeParse(fitted).success) return fitted;
  const { tree: _tree, frame: _frame, matched, ...bare } = fitted;
  const plain: TraceStep = {
    ...bare,
    seq: Math.min(MAX_TRACE_STEPS, Math.max(1, bare.seq)),
    ...(matched ? { matched: { ...matched, node: null } } : {}),
    detail: said(bare.detail, 'The screen could not be sent with this step.'),
  };
  return traceStep.safeParse(plain).success
    ? plain
    : { seq: plain.seq, path: plain.path, do: plain.do, label: plain.label, verdict: plain.verdict, ms: plain.ms };
}

/** A failed task's trace as its result carries it: valid, its tree within FAILURE_TREE_BUDGET; undefined if it cannot be. */
export function fitFailureTrace(trace: FailureTrace): FailureTrace | undefined {
  let fitted = trace;
  if (fitted.tree && jsonBytes(fitted.tree) > FAILURE_TREE_BUDGET) {
    const { tree: _tree, ...rest } = fitted;
    fitted = { ...rest, ...(rest.matched ? { matched: { ...rest.matched, node: null } } : {}) };
  }
  if (failureTrace.safeParse(fitted).success) return fitted;
  const { tree: _tree, ...bare } = fitted;
  return failureTrace.safeParse(bare).success ? bare : undefined;
}
