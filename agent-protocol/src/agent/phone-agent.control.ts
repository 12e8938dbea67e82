/**
 * A person's hands on the phone from the console: their taps, swipes, text and keys applied in the order they came,
 * each answered once it is done (with the element under the finger, read first, while they record a recipe), the
 * inputs applied remembered so the frames that show them can say so, and Inspect's capture of the screen's UI tree.
 */
import { groupResult } from '../group/group.messages.ts';
import { serverMessages } from '../messages.ts';
import { answerOf, type PhoneAgentState } from './phone-agent.state.ts';

/** Inputs remembered for the frames that show them. */
const APPLIED_KEPT = 50;

export class Control {
  /** Inputs applied, newest last (seq and when), for the frames that show them. */
  private readonly applied: { seq: number; at: number }[] = [];
  private inputs: Promise<unknown> = Promise.resolve();

  constructor(private readonly state: PhoneAgentState) {}

  /** `live.input`: a person's input, answered once applied. */
  readonly input = (raw: unknown, ack?: unknown): void => {
    const backend = this.state.backend;
    const parsed = serverMessages['live.input'].safeParse(raw);
    const answer = answerOf(ack);
    if (!parsed.success) {
      answer({ ok: false, error: parsed.error.issues[0]?.message ?? 'This input cannot be read' });
      return;
    }
    if (!backend.input) {
      answer({ ok: false, error: 'This phone cannot be controlled from the console' });
      return;
    }
    // In the order they came, each once the one before is done.
    this.inputs = this.inputs.then(async () => {
      try {
        const { input, record, seq } = parsed.data;
        // Recording: the element under the finger is read before the input changes the screen.
        const recorded =
          record && backend.recordTarget && (input.kind === 'tap' || input.kind === 'long_press')
            ? await backend.recordTarget({ x: input.x, y: input.y }).catch(() => undefined)
            : undefined;
        await backend.input!(input);
        this.applied.push({ seq, at: Date.now() });
        if (this.applied.length > APPLIED_KEPT) this.applied.splice(0, this.applied.length - APPLIED_KEPT);
        answer(recorded ? { ok: true, recorded } : { ok: true });
      } catch (error) {
        answer({ ok: false, error: error instanceof Error ? error.message : 'The phone could not do that' });
      }
    });
  };

  /**
   * `group.act`: one action of group control, answered with this phone's result. A phone running a task or a dry run
   * is Busy and never interrupted; the action goes in the order of a person's other input.
   */
  readonly groupAct = (raw: unknown, ack?: unknown): void => {
    const backend = this.state.backend;
    const parsed = serverMessages['group.act'].safeParse(raw);
    const answer = answerOf(ack);
    if (!parsed.success) {
      answer({ ok: false, error: parsed.error.issues[0]?.message ?? 'This action cannot be read' });
      return;
    }
    const { actionId } = parsed.data;
    if (!backend.groupAct) {
      answer({ ok: true, result: groupResult(actionId, 'not_supported') });
      return;
    }
    if (this.state.busy) {
      answer({ ok: true, result: groupResult(actionId, 'busy', { reason: 'A task or a dry run is running on this phone.' }) });
      return;
    }
    this.inputs = this.inputs.then(async () => {
      try {
        answer({ ok: true, result: await backend.groupAct!(parsed.data) });
      } catch (error) {
        answer({ ok: false, error: error instanceof Error ? error.message : 'The phone could not do that' });
      }
    });
  };

  /** `inspect.capture`: the screen's UI tree and its frame, or why not. */
  readonly capture = (_raw: unknown, ack?: unknown): void => {
    const backend = this.state.backend;
    const answer = answerOf(ack);
    if (!backend.capture) {
      answer({ ok: false, error: 'This phone cannot be inspected from the console' });
      return;
    }
    backend.capture().then(
      (capture) => answer({ ok: true, capture }),
      (error: unknown) => answer({ ok: false, error: error instanceof Error ? error.message : 'The phone could not read its screen' }),
    );
  };

  /** The last input applied at or before a moment, for the frame captured then. */
  inputSeqAt(capturedAt: number): number | undefined {
    for (let index = this.applied.length - 1; index >= 0; index -= 1) if (this.applied[index]!.at <= capturedAt) return this.applied[index]!.seq;
    return undefined;
  }

  /** The last input applied now. */
  lastInputSeq(): number | undefined {
    return this.applied.at(-1)?.seq;
  }
}
