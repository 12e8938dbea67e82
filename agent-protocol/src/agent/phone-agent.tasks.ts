/**
 * The phone agent's tasks, exactly once: a dispatch is written to the journal before it starts and acknowledged, its
 * work runs through the backend with progress sent as it goes, and its result is written down before it is sent
 * (until the server has it). A task dispatched again is answered from the journal instead of run again; one the
 * server calls off is dropped and nothing is sent for it; one the host cuts off is reported failed with the host's
 * reason. After a (re)connection, results made while away go first, and tasks a stop of the agent cut short are
 * reported as such.
 */
import { retryableByDefault, type FailureCode } from '../failures.ts';
import { serverMessages, taskDispatchV2, type TaskDispatchV2 } from '../messages.ts';
import { fitFailureTrace } from './dry-run.ts';
import type { TaskResult } from './journal.ts';
import type { WorkContext, WorkOutcome } from './phone-agent.backend.ts';
import { delay, type PhoneAgentState, type Running } from './phone-agent.state.ts';

/**
 * A run's progress reports go at most one per this gap: the first at once, then the newest of those made meanwhile at
 * the gap's end, unless the result comes first (it says more). A recipe's quick steps (taps a few milliseconds apart)
 * would otherwise be one message each, and the server writes at most one a second anyway (api agents/progress.ts).
 * Well inside the shortest lease window a report keeps alive.
 */
export const PROGRESS_GAP_MS = 250;

/** Whether the work happened is unknown: a person looks before it is tried again. */
const INTERRUPTED = 'The phone agent stopped in the middle of this task; check the phone before trying again';

export class Tasks {
  /** Tasks this agent completed, in order (the journal is the record; this is for a quick look). */
  readonly completed: string[] = [];

  constructor(private readonly state: PhoneAgentState) {}

  /** `task.dispatch`: a task to run, or to answer from the journal. */
  readonly dispatched = (raw: unknown): void => {
    const parsed = taskDispatchV2.safeParse(raw);
    if (parsed.success) void this.take(parsed.data);
    else this.state.log(`refused a dispatch it cannot read: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  };

  /** `task.cancel`: the server calls the attempt off; the journal says so and nothing is sent for it. */
  readonly cancelled = (raw: unknown): void => {
    const parsed = serverMessages['task.cancel'].safeParse(raw);
    if (!parsed.success) return;
    const running = this.state.running.get(parsed.data.taskId);
    if (!running) return;
    this.state.log(`task ${parsed.data.taskId} called off: ${parsed.data.reason}`);
    this.state.journal.dropped(parsed.data.taskId);
    running.abort.abort();
  };

  /** A dispatch: run it once, or answer it from the journal. */
  private async take(dispatch: TaskDispatchV2): Promise<void> {
    const { state } = this;
    const known = state.journal.get(dispatch.taskId);
    const running = state.running.get(dispatch.taskId);
    if (running) {
      // Still at it from an earlier attempt the server lost track of: carry on under the new attempt.
      running.attempt = dispatch.attempt;
      state.socket.emit('task.ack', { taskId: dispatch.taskId, attempt: dispatch.attempt });
      return;
    }
    // A failure of an earlier attempt the server has heard of: it decided to try again, so the phone runs it again.
    const retried = known?.state === 'done' && known.sent && known.result?.status === 'failed' && dispatch.attempt > known.attempt;
    if (known?.state === 'done' && known.result && !retried) {
      state.log(`task ${dispatch.taskId} was already run: answering from the journal`);
      await this.send(known.result);
      return;
    }
    if (known?.state === 'running') {
      await this.finish(dispatch.taskId, interrupted(dispatch.taskId, known.attempt));
      return;
    }
    if (state.dry) {
      // Left unacknowledged: the server gives it out again once the dry run has ended (as after any lost dispatch).
      state.log(`task ${dispatch.taskId} waits: a dry run is under way on this phone`);
      return;
    }
    if (state.appJobs > 0) {
      // An app is being installed or removed (`pm` kills the app): not started, not acknowledged, so the server gives
      // it out again once its lease ends; the hold said at the job's start keeps it from doing so before.
      state.log(`task ${dispatch.taskId} waits: an app is being installed on this phone`);
      return;
    }
    await this.run(dispatch);
  }

  private run(dispatch: TaskDispatchV2): Promise<void> {
    const abort = new AbortController();
    const running: Running = { attempt: dispatch.attempt, abort };
    this.state.running.set(dispatch.taskId, running);
    running.ended = this.work(dispatch, running);
    return running.ended;
  }

  private async work(dispatch: TaskDispatchV2, running: Running): Promise<void> {
    const { state } = this;
    state.journal.started(dispatch.taskId, dispatch.attempt);
    state.log(`task ${dispatch.taskId} (attempt ${dispatch.attempt}): ${dispatch.title}`);
    state.socket.emit('task.ack', { taskId: dispatch.taskId, attempt: dispatch.attempt });
    let outcome: WorkOutcome;
    try {
      outcome = await state.backend.run(dispatch.work, this.context(dispatch, running));
    } catch (error) {
      outcome = { status: 'failed', code: 'unknown', message: error instanceof Error ? error.message : 'The work stopped with an error' };
    }
    clearTimeout(running.heldProgress);
    // The posts it handed to a person reach the server before its result does.
    await Promise.allSettled(running.handOvers ?? []);
    state.running.delete(dispatch.taskId);
    // Cut off by the host: what it said, whatever the run made of being stopped — unless the work got done first (sent
    // as done: tried again, a post could go up twice).
    if (running.cut && outcome.status !== 'completed') outcome = cutOutcome(running.cut, running.publishing === true && dispatch.work.kind === 'post.publish');
    else if (running.abort.signal.aborted) return; // called off: the journal says so, nothing is sent
    // The failed step's trace goes only from an agent that said `dryrun` (a server that knows the field).
    const withTrace = state.features().includes('dryrun');
    const result = resultOf(dispatch.taskId, running.attempt, outcome, withTrace);
    if (result.status === 'completed') this.completed.push(dispatch.taskId);
    await this.finish(dispatch.taskId, result);
  }

  /** What the backend's run is told: the attempt's signal, and where its progress and its publishing step go. */
  private context(dispatch: TaskDispatchV2, running: Running): WorkContext {
    const { socket } = this.state;
    const signal = running.abort.signal;
    /** When the last progress report went (see PROGRESS_GAP_MS). */
    let sentAt = Number.NEGATIVE_INFINITY;
    return {
      taskId: dispatch.taskId,
      title: dispatch.title,
      signal,
      publishing: () => {
        running.publishing = true;
      },
      handOver: (item) => {
        // Told in the background, so the run goes on: a server that predates the message never answers it. Keyed by
        // task, attempt and index on the server, a copy sent again after a lost answer still makes one VA task.
        const message = { taskId: dispatch.taskId, attempt: running.attempt, ...item };
        const telling = (async () => {
          for (let tries = 0; tries < 2 && socket.connected && !signal.aborted; tries += 1) {
            const answer = await this.state.request('task.handover', message, 5000);
            if (answer?.ok) return;
            if (answer && !answer.ok) {
              this.state.log(`hand-over ${item.index} of task ${dispatch.taskId} refused: ${answer.error}`);
              return;
            }
          }
        })();
        running.handOvers = [...(running.handOvers ?? []), telling];
        return Promise.resolve();
      },
      progress: (percent, step) => {
        const report = {
          taskId: dispatch.taskId,
          attempt: running.attempt,
          percent: Math.max(0, Math.min(100, percent)),
          ...(step ? { step: step.slice(0, 200) } : {}),
        };
        const send = () => {
          sentAt = Date.now();
          if (socket.connected && !signal.aborted) socket.emit('task.progress', report);
        };
        clearTimeout(running.heldProgress);
        const wait = sentAt + PROGRESS_GAP_MS - Date.now();
        if (wait <= 0) send();
        else running.heldProgress = setTimeout(send, wait);
      },
    };
  }

  /** Writes the result down, then sends it until the server has it. */
  private async finish(taskId: string, result: TaskResult): Promise<void> {
    // The journal is JSON lines: a failure trace's frame (bytes) is sent from memory now, and left out of what the
    // journal keeps to send again after a restart (the trace's words, selector and tree still go).
    this.state.journal.finished(taskId, withoutTraceFrame(result));
    await this.send(result);
  }

  private async send(result: TaskResult): Promise<void> {
    const { state } = this;
    for (let tries = 0; !state.closed && state.socket.connected; tries += 1) {
      const answer = await state.request('task.result', result, 5000);
      if (answer?.ok || (answer && !answer.ok && /not given attempt/.test(answer.error))) {
        state.journal.sent(result.taskId);
        return;
      }
      await delay(Math.min(5000, 250 * 2 ** tries));
    }
    // Disconnected: sent on reconnect, before anything else.
  }

  /** Once let in: what was made while disconnected goes first; what a stop of this agent cut short is reported as such. */
  readonly replay = async (): Promise<void> => {
    const { state } = this;
    for (const result of state.journal.unsent()) await this.send(result);
    for (const entry of state.journal.interrupted()) {
      if (state.running.has(entry.taskId)) continue;
      await this.finish(entry.taskId, interrupted(entry.taskId, entry.attempt));
    }
  };

  /** Cuts every running task off with this code; each settles once its result was sent (or kept for later). */
  cutOff(code: FailureCode, message: string): Promise<void>[] {
    const ends: Promise<void>[] = [];
    for (const [taskId, running] of this.state.running) {
      this.state.log(`task ${taskId} cut off: ${message}`);
      running.cut = { code, message };
      running.abort.abort();
      if (running.ended) ends.push(running.ended);
    }
    return ends;
  }

  /** Stops every running task (the agent closes). */
  close(): void {
    for (const running of this.state.running.values()) running.abort.abort();
  }
}

function interrupted(taskId: string, attempt: number): TaskResult {
  return { taskId, attempt, status: 'failed', failure: { code: 'unknown', message: INTERRUPTED, retryable: false } };
}

/** A run the host cut off: its reason, or `post_unconfirmed` when it was publishing a post (the post may be up). */
function cutOutcome(cut: { code: FailureCode; message: string }, publishing: boolean): WorkOutcome {
  if (!publishing) return { status: 'failed', code: cut.code, message: cut.message };
  return {
    status: 'failed',
    code: 'post_unconfirmed',
    message: `Cut off while publishing (${cut.message}): the post may have gone up. Check the account before it is tried again.`.slice(0, 2000),
    retryable: false,
  };
}

/** The `task.result` for how the work ended; a failure's trace only when `withTrace` (and only if it fits). */
function resultOf(taskId: string, attempt: number, outcome: WorkOutcome, withTrace: boolean): TaskResult {
  const counted = {
    finishedAt: new Date().toISOString(),
    ...(outcome.engagement ? { engagement: outcome.engagement } : {}),
    ...(outcome.run ? { run: outcome.run } : {}),
  };
  if (outcome.status === 'completed') return { taskId, attempt, status: 'completed', ...counted };
  const trace = outcome.trace && withTrace ? fitFailureTrace(outcome.trace) : undefined;
  return {
    taskId,
    attempt,
    status: 'failed',
    failure: {
      code: outcome.code,
      ...(outcome.message ? { message: outcome.message.slice(0, 2000) } : {}),
      retryable: outcome.retryable ?? retryableByDefault[outcome.code],
      ...(outcome.recipe ? { recipe: outcome.recipe } : {}),
      ...(outcome.app ? { app: outcome.app } : {}),
      ...(trace ? { trace } : {}),
    },
    ...counted,
  };
}

/** A result as the journal keeps it: without a failure trace's frame, which JSON cannot hold as bytes. */
export function withoutTraceFrame(result: TaskResult): TaskResult {
  if (result.status !== 'failed' || !result.failure?.trace?.frame) return result;
  const { frame: _frame, ...trace } = result.failure.trace;
  return { ...result, failure: { ...result.failure, trace } };
}
