/**
 * The reference phone agent (protocol 2): it holds the phone's connection to the server, says hello, heartbeats at
 * the interval the server gives, sends screenshots, and works the tasks it is given through a backend (a simulated
 * phone, or a real one over ADB). Exactly once is kept with the journal: a task is written down before it starts,
 * its result before it is sent; a task dispatched again is answered from the journal instead of run again, and
 * results made while disconnected are sent on reconnect before anything else.
 *
 * This file composes the agent and owns its table of server messages; the work lives in rooms that change for their
 * own reasons: `phone-agent.connection.ts` (hello, reconnect, heartbeats, screenshots, commands, hold),
 * `phone-agent.tasks.ts` (dispatch, ack, journal, results), `phone-agent.live.ts` (the live screen),
 * `phone-agent.control.ts` (a person's input, Inspect) and `phone-agent.dryrun.ts` (dry runs), sharing what they
 * read and move in `phone-agent.state.ts`. What the agent drives is `phone-agent.backend.ts`.
 */
import type { Socket } from 'socket.io-client';
import type { FailureCode } from '../failures.ts';
import type { AgentMessage, AgentToServer, ServerMessageName, ServerToAgent } from '../messages.ts';
import type { Journal } from './journal.ts';
import type { LiveStream } from './live-stream.ts';
import type { LiveVideo } from './live-video.ts';
import { Connection } from './phone-agent.connection.ts';
import { Control } from './phone-agent.control.ts';
import { DryRuns } from './phone-agent.dryrun.ts';
import { LiveScreen } from './phone-agent.live.ts';
import { delay, PhoneAgentState, type MessageHandler, type PhoneAgentOptions } from './phone-agent.state.ts';
import { Tasks } from './phone-agent.tasks.ts';

// The agent's vocabulary lives in its rooms; callers keep importing it from here.
export type { DryRunOutcome, DryRunWork, PhoneBackend, WorkContext, WorkOutcome } from './phone-agent.backend.ts';
export type { PhoneAgentOptions } from './phone-agent.state.ts';
export { withoutTraceFrame } from './phone-agent.tasks.ts';

export class PhoneAgent {
  readonly socket: Socket<ServerToAgent, AgentToServer>;
  readonly journal: Journal;
  /** Tasks this agent completed, in order (the journal is the record; this is for a quick look). */
  readonly completed: string[];
  /** The live screen, streaming while the server asks. */
  readonly live: LiveStream;
  /** The live screen as H.264, where the phone can (`h264`). */
  readonly video: LiveVideo;
  private readonly state: PhoneAgentState;
  private readonly connection: Connection;
  private readonly tasks: Tasks;
  private readonly screen: LiveScreen;
  private readonly dryRuns: DryRuns;

  constructor(options: PhoneAgentOptions) {
    const state = new PhoneAgentState(options);
    this.state = state;
    this.socket = state.socket;
    this.journal = state.journal;
    this.tasks = new Tasks(state);
    this.completed = this.tasks.completed;
    this.connection = new Connection(state, this.tasks.replay);
    const control = new Control(state);
    this.screen = new LiveScreen(state, control);
    this.live = this.screen.stream;
    this.video = this.screen.video;
    this.dryRuns = new DryRuns(state);

    this.socket.on('connect', () => void this.connection.hello());
    this.socket.on('connect_error', (error) => this.connection.connectError(error));
    this.socket.on('disconnect', (reason) => {
      this.connection.disconnected(reason);
      this.screen.close();
      this.dryRuns.disconnected();
    });
    // Every server message has exactly one handler, in the room that owns it.
    const handlers: Record<ServerMessageName, MessageHandler> = {
      'task.dispatch': this.tasks.dispatched,
      'task.cancel': this.tasks.cancelled,
      command: this.connection.command,
      'live.start': this.screen.start,
      'live.stop': this.screen.stop,
      'live.keyframe': this.screen.keyFrame,
      'live.input': control.input,
      'inspect.capture': control.capture,
      'dryrun.start': this.dryRuns.started,
      'dryrun.next': this.dryRuns.next,
      'dryrun.stop': this.dryRuns.stopped,
      'group.act': control.groupAct,
    };
    state.listen(handlers);
  }

  /** The server let this agent in, and what it made while away was sent. */
  get connected(): boolean {
    return this.socket.connected && this.state.ready;
  }

  /** The device's name in the console, once the server said hello back. */
  get deviceName(): string | undefined {
    return this.connection.deviceName;
  }

  /** Why the server refused this agent, when it did. */
  get refused(): string | undefined {
    return this.connection.refused;
  }

  /** A task or a dry run runs on the phone now. */
  get busy(): boolean {
    return this.state.busy;
  }

  /**
   * The host holds this phone's work (around an adb server restart) or lets go of it: the server is told at once, on
   * this connection, so a result sent after it finds the phone held and no new task follows it.
   */
  hold(holding: boolean): void {
    this.connection.hold(holding);
  }

  /**
   * An app job was queued for this phone or runs on it (true), or one ended (false): while any is, the phone takes no
   * new task and the server is told to give it none (`pm install -r` kills the app a task drives).
   */
  appJob(active: boolean): void {
    this.connection.appJob(active);
  }

  /** Resolves once no task or dry run runs on the phone (an app job waits for this before it installs). */
  async idle(): Promise<void> {
    while (this.state.busy) {
      const ended = [...this.state.running.values()].map((running) => running.ended);
      await Promise.race([Promise.allSettled(ended), delay(250)]);
    }
  }

  /**
   * The host cuts the running tasks off (it must restart the adb server under them): each is stopped and reported
   * failed with this code, written to the journal first, so the server tries it again instead of waiting for its
   * lease to end. Resolves once each run has stopped and its result was sent (or kept for the next connection).
   */
  async cutOff(code: FailureCode, message: string): Promise<void> {
    const dry = this.dryRuns.cutOff(message);
    await Promise.all([...(dry ? [dry] : []), ...this.tasks.cutOff(code, message)]);
  }

  /**
   * The backend's phone came back on a new connection (the host bound it again): the live streams start again on it.
   * The connection to the server stays; tasks, dry runs and input use the backend, which drives the new phone already.
   */
  phoneReturned(): Promise<void> {
    return this.screen.restart();
  }

  /** The phone's transport went and its host waits for it: the console is told (it shows the phone reconnecting). */
  phoneAway(reason: AgentMessage<'phone.away'>['reason']): void {
    this.connection.away(reason);
  }

  /** The phone is back (bound again, or attached anew after its host gave up): how, and what it runs now. */
  phoneBack(how: Pick<AgentMessage<'phone.back'>, 'awayMs' | 'transport' | 'rebooted'>): Promise<void> {
    return this.connection.back(how);
  }

  /** Sends a screenshot now, unless the server's limit says to wait. */
  screenshot(): Promise<void> {
    return this.connection.screenshot();
  }

  close(): void {
    this.state.closed = true;
    this.connection.close();
    this.tasks.close();
    this.dryRuns.close();
    this.screen.close();
    this.socket.disconnect();
  }
}
