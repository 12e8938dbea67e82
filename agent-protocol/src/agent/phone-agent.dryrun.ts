/**
 * The phone agent's dry runs (the recipe studio, `dryrun.ts`): `dryrun.start` answered at once (refused with a
 * sentence, or accepted and then run through the backend), each step's trace sent and answered before the next goes,
 * the person's next and stop passed to the run's gate (`dry-run.ts`), and the run's end sent once the console has it.
 * No task is taken while one runs; a dropped connection, a host's cut-off or the agent's stop ends it before its next
 * step.
 */
import { dryRunResult, dryRunServerMessages, MAX_TRACE_STEPS, type DryRunResult, type DryRunStart, type TraceStep } from '../dryrun.ts';
import type { Ack } from '../messages.ts';
import { parseRecipe, type Recipe } from '../recipes/recipe.schema.ts';
import { DryRunSession, fitTrace } from './dry-run.ts';
import type { DryRunOutcome } from './phone-agent.backend.ts';
import { answerOf, delay, type PhoneAgentState } from './phone-agent.state.ts';

export class DryRuns {
  constructor(private readonly state: PhoneAgentState) {}

  /** `dryrun.start`: answered at once, then run when accepted. */
  readonly started = (raw: unknown, ack?: unknown): void => {
    answerOf(ack)(this.start(raw));
  };

  /** `dryrun.next`: the person asks for the next step of the run under way. */
  readonly next = (raw: unknown): void => {
    const parsed = dryRunServerMessages['dryrun.next'].safeParse(raw);
    if (parsed.success && this.state.dry?.runId === parsed.data.runId) this.state.dry.next();
  };

  /** `dryrun.stop`: the person stops the run under way before its next step. */
  readonly stopped = (raw: unknown): void => {
    const parsed = dryRunServerMessages['dryrun.stop'].safeParse(raw);
    if (parsed.success && this.state.dry?.runId === parsed.data.runId) this.state.dry.stop();
  };

  /**
   * Refused with a sentence (this phone cannot, it is busy, the message or the recipe is not valid, naming the
   * field), or accepted, and then run.
   */
  private start(raw: unknown): Ack {
    const { state } = this;
    if (!state.backend.dryRun) return { ok: false, error: 'This phone cannot run dry runs.' };
    const parsed = dryRunServerMessages['dryrun.start'].safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { ok: false, error: `The dry run cannot be read: ${issue?.path.join('.') || 'message'}: ${issue?.message ?? 'not valid'}.` };
    }
    const start = parsed.data;
    if (state.dry) return { ok: false, error: 'The phone is already running a dry run.' };
    if (state.running.size > 0) return { ok: false, error: 'The phone is running a task; start the dry run once it is done.' };
    if (state.holding) return { ok: false, error: 'The phone’s farm host is holding its work (it restarts its adb server); try again in a minute.' };
    if (state.appJobs > 0) return { ok: false, error: 'An app is being installed on the phone; start the dry run once it is done.' };
    const recipe = parseRecipe(start.recipe);
    if (!recipe.ok) return { ok: false, error: `The recipe is not valid: ${recipe.errors[0] ?? 'recipe: not valid'}.`.replace(/\.\.$/, '.') };
    const session = new DryRunSession(start.runId, start.mode, state.options.dryRunIdleMs);
    state.dry = session;
    state.log(`dry run ${start.runId} (${start.mode}${start.effects ? '' : ', no effects'}): ${recipe.recipe.id} v${recipe.recipe.version}`);
    session.ended = this.run(session, start, recipe.recipe);
    return { ok: true };
  }

  private async run(session: DryRunSession, start: DryRunStart, recipe: Recipe): Promise<void> {
    const { state } = this;
    const started = Date.now();
    let outcome: DryRunOutcome;
    try {
      // Not before the start's answer has gone.
      await Promise.resolve();
      outcome = await state.backend.dryRun!({
        recipe,
        params: start.params,
        media: start.media ?? [],
        effects: start.effects,
        preflight: start.preflight,
        signal: session.abort.signal,
        beforeStep: session.gate,
        onTrace: (step) => this.sendTrace(session.runId, step),
      });
    } catch (error) {
      outcome = {
        outcome: 'failed',
        failure: { code: 'unknown', message: (error instanceof Error ? error.message : 'The dry run stopped with an error').slice(0, 2000) },
        steps: 0,
        durationMs: Math.max(0, Date.now() - started),
      };
    }
    // Free for tasks before the console hears the end (it hands the phone its next task as soon as it does).
    if (state.dry === session) state.dry = undefined;
    const result: DryRunResult = { ...outcome, runId: session.runId, steps: Math.min(MAX_TRACE_STEPS, outcome.steps) };
    state.log(`dry run ${session.runId} ${result.outcome}`);
    await this.sendResult(
      dryRunResult.safeParse(result).success ? result : { runId: result.runId, outcome: result.outcome, steps: result.steps, durationMs: result.durationMs },
    );
  }

  /** One step's trace, answered before the next goes (order holds); a refusal is logged, never the end of the run. */
  private async sendTrace(runId: string, step: TraceStep): Promise<void> {
    const { state } = this;
    if (!state.socket.connected) return state.log(`dry run ${runId}: step ${step.seq} not sent (disconnected)`);
    const answer = await state.request('dryrun.step', { runId, step: fitTrace(step) }, 15_000);
    if (!answer) state.log(`dry run ${runId}: the console did not answer step ${step.seq}`);
    else if (!answer.ok) state.log(`dry run ${runId}: the console refused step ${step.seq}: ${answer.error}`);
  }

  /** The dry run's end, sent once it is answered; tried again a few times while the connection is down. */
  private async sendResult(result: DryRunResult): Promise<void> {
    const { state } = this;
    for (let tries = 0; tries < 6 && !state.closed; tries += 1) {
      if (state.socket.connected) {
        const answer = await state.request('dryrun.result', result, 5000);
        if (answer?.ok) return;
        if (answer) return state.log(`dry run ${result.runId}: the console refused its result: ${answer.error}`);
      }
      await delay(Math.min(5000, 250 * 2 ** tries));
    }
    state.log(`dry run ${result.runId}: its result could not be sent`);
  }

  /** Nobody can ask for the next step or see it: the dry run stops before its next one. */
  disconnected(): void {
    this.state.dry?.stop('The phone lost its connection to the console; the dry run stopped here.');
  }

  /** The host cuts the run off; settles once its result was sent (or given up on). */
  cutOff(message: string): Promise<void> | undefined {
    const dry = this.state.dry;
    if (!dry) return undefined;
    this.state.log(`dry run ${dry.runId} cut off: ${message}`);
    dry.stop(message);
    dry.abort.abort();
    return dry.ended;
  }

  /** The agent stops: so does the run. */
  close(): void {
    this.state.dry?.stop('The phone agent stopped.');
    this.state.dry?.abort.abort();
  }
}
