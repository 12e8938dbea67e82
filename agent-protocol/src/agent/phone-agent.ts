/**
 * The reference phone agent (protocol 2): it holds the phone's connection to the server, says hello, heartbeats at
 * the interval the server gives, sends screenshots, and works the tasks it is given through a backend (a simulated
 * phone, or a real one over ADB). Exactly once is kept with the journal: a task is written down before it starts,
 * its result before it is sent; a task dispatched again is answered from the journal instead of run again, and
 * results made while disconnected are sent on reconnect before anything else.
 */
import { io, type Socket } from 'socket.io-client';
import { retryableByDefault, type FailureCode } from '../failures.ts';
import {
  AGENT_NAMESPACE,
  helloAnswer,
  PROTOCOL_VERSION,
  serverMessages,
  taskDispatchV2,
  type Ack,
  type InstalledApp,
  type AgentToServer,
  type RecipeRun,
  type ServerMessage,
  type ServerToAgent,
  type TaskDispatchV2,
} from '../messages.ts';
import { LIVE_DEFAULTS, liveStart, liveStop, type AgentFeature, type LiveInput, type LiveVideoStream } from '../live.ts';
import type { LiveFrameSource, LiveVideoSession, UiReaderInfo } from '../phone/phone.device.ts';
import type { EngagementReport, TaskWork } from '../work.ts';
import type { RecordedTarget, UiCapture } from '../recipes/recipe.inspect.ts';
import { dryRunResult, dryRunServerMessages, MAX_TRACE_STEPS, type DryRunResult, type DryRunStart, type FailureTrace, type TraceStep } from '../dryrun.ts';
import { parseRecipe, type Recipe, type RecipeParams } from '../recipes/recipe.schema.ts';
import { DryRunSession, fitFailureTrace, fitTrace } from './dry-run.ts';
import { beating, type Beating } from './beating.ts';
import { Journal, type TaskResult } from './journal.ts';
import { LiveStream } from './live-stream.ts';
import { LiveVideo } from './live-video.ts';

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
  /** Runs a recipe as a dry run with a trace of every step (absent: this agent cannot, and does not list `dryrun`). */
  dryRun?(work: DryRunWork): Promise<DryRunOutcome>;
}

export interface PhoneAgentOptions {
  url: string;
  /** The device's own credential. */
  token?: string;
  /** Or another way in: a farm host's credential with the phone's serial. */
  auth?: Record<string, string>;
  backend: PhoneBackend;
  /** Where the journal is kept; in memory when not given. */
  journal?: Journal;
  /** Screenshot every this many ms (0: only on command). */
  screenshotMs?: number;
  log?: (line: string) => void;
  /** Reconnection delays, for tests. */
  reconnectionDelayMs?: number;
  /** Told when the server will not let this agent in (a revoked credential, a phone of another host). */
  onRefused?: (reason: string) => void;
  /** How long a step-by-step dry run waits for the next step before it stops (tests shorten it). */
  dryRunIdleMs?: number;
}

interface Running {
  attempt: number;
  abort: AbortController;
  /** Cut off by the host (an adb server restart): reported failed with this, not dropped as a call-off is. */
  cut?: { code: FailureCode; message: string };
  /** The run started publishing a post (`WorkContext.publishing`). */
  publishing?: boolean;
  /** Settles once the run stopped and its result was written and sent. */
  ended?: Promise<void>;
}

export class PhoneAgent {
  readonly socket: Socket<ServerToAgent, AgentToServer>;
  readonly journal: Journal;
  /** Tasks this agent completed, in order (the journal is the record; this is for a quick look). */
  readonly completed: string[] = [];
  private readonly running = new Map<string, Running>();
  private heartbeatMs = 5000;
  private screenshots: Beating | undefined;
  /** Told by the server to send no screenshot before this time (its limit per phone). */
  private screenshotsWaitUntil = 0;
  private heartbeat: Beating | undefined;
  private ready = false;
  private closed = false;
  /** Its farm host holds its work (`hold`): said in the hello and at once when it changes. */
  private holding = false;
  /** The device's name in the console, once the server said hello back. */
  deviceName: string | undefined;
  /** Why the server refused this agent, when it did. */
  refused: string | undefined;
  /** The live screen, streaming while the server asks. */
  readonly live: LiveStream;
  /** The live screen as H.264, where the phone can (`h264`). */
  readonly video: LiveVideo;
  /** Inputs applied, newest last (seq and when), for the frames that show them. */
  private readonly applied: { seq: number; at: number }[] = [];
  private inputs: Promise<unknown> = Promise.resolve();
  /** The dry run under way: no task is taken meanwhile. */
  private dry: DryRunSession | undefined;

  constructor(private readonly options: PhoneAgentOptions) {
    this.journal = options.journal ?? new Journal();
    this.socket = io(new URL(AGENT_NAMESPACE, options.url).toString(), {
      transports: ['websocket'],
      auth: options.auth ?? { token: options.token ?? '' },
      reconnectionDelay: options.reconnectionDelayMs ?? 500,
      reconnectionDelayMax: Math.max(options.reconnectionDelayMs ?? 500, 5000),
    });
    this.socket.on('connect', () => void this.hello());
    this.socket.on('connect_error', (error) => {
      this.log(`cannot connect: ${error.message}`);
      options.onRefused?.(error.message);
    });
    this.socket.on('disconnect', (reason) => {
      this.ready = false;
      this.log(`disconnected: ${reason}`);
      // The server let go of this phone on purpose (an instance stopping, a credential revoked): come back, through
      // whichever instance answers; a credential that no longer holds is refused at the handshake, and that ends it.
      if (reason === 'io server disconnect') {
        setTimeout(() => {
          if (!this.closed && !this.socket.connected && !this.socket.active) this.socket.connect();
        }, options.reconnectionDelayMs ?? 1000).unref();
      }
    });
    this.socket.on('task.dispatch', (raw) => {
      const parsed = taskDispatchV2.safeParse(raw);
      if (parsed.success) void this.take(parsed.data);
      else this.log(`refused a dispatch it cannot read: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    });
    this.socket.on('task.cancel', (raw) => {
      const parsed = serverMessages['task.cancel'].safeParse(raw);
      if (parsed.success) this.cancel(parsed.data);
    });
    this.socket.on('command', (raw) => {
      const parsed = serverMessages.command.safeParse(raw);
      if (!parsed.success) return;
      this.log(`command: ${parsed.data.name}`);
      if (parsed.data.name === 'screenshot') void this.screenshot();
      options.backend.command?.(parsed.data.name);
    });
    if (options.screenshotMs) this.screenshots = beating(() => void this.screenshot(), options.screenshotMs);

    const backend = options.backend;
    this.live = new LiveStream({
      open: (settings) => (backend.openLive ? backend.openLive(settings) : Promise.reject(new Error('This phone cannot stream its screen'))),
      sender: {
        send: (frame) =>
          this.request(
            'live.frame',
            {
              seq: frame.seq,
              mime: 'image/jpeg',
              data: frame.data,
              width: frame.width,
              height: frame.height,
              source: frame.source,
              capturedAt: frame.capturedAt,
              ...(frame.inputSeq !== undefined ? { inputSeq: frame.inputSeq } : {}),
            },
            3000,
          ).then((answer) => (answer ? { ok: answer.ok, slow: answer.ok && answer.slow === true } : undefined)),
      },
      inputSeqAt: (capturedAt) => {
        for (let index = this.applied.length - 1; index >= 0; index -= 1) if (this.applied[index]!.at <= capturedAt) return this.applied[index]!.seq;
        return undefined;
      },
      log: (line) => this.log(line),
    });
    this.video = new LiveVideo({
      open: (kind) => (backend.openVideo ? backend.openVideo(kind) : Promise.reject(new Error('This phone cannot stream H.264'))),
      emit: (packet, done) => {
        // Never queued for a later connection: a packet that cannot leave now is dropped.
        if (!this.socket.connected) return done();
        (this.socket.emit as (event: string, message: unknown, ack: () => void) => void)('live.video', packet, done);
      },
      inputSeq: () => this.applied.at(-1)?.seq,
      // No H.264 stream can run: JPEG frames instead, as before (the Live tab says which path it is on).
      unavailable: (_kind, _reason, running) => {
        if (!running && backend.openLive && !this.live.active) this.live.start({ ...LIVE_DEFAULTS });
      },
      log: (line) => this.log(line),
    });
    this.socket.on('live.start', (raw) => {
      const parsed = liveStart.safeParse(raw);
      if (!parsed.success) return;
      const { codec, stream, ...settings } = parsed.data;
      if (codec === 'h264' && stream && backend.openVideo) void this.video.start(stream);
      else if (backend.openLive) this.live.start(settings);
    });
    this.socket.on('live.stop', (raw) => {
      const stream = liveStop.safeParse(raw ?? {}).data?.stream;
      if (stream === undefined || stream === 'jpeg') void this.live.stop();
      if (stream !== 'jpeg') this.video.stop(stream);
    });
    this.socket.on('live.keyframe', (raw) => {
      const parsed = serverMessages['live.keyframe'].safeParse(raw);
      if (parsed.success) this.video.keyFrame(parsed.data.stream);
    });
    this.socket.on('disconnect', () => {
      void this.live.stop();
      this.video.stop();
      // Nobody can ask for the next step or see it: the dry run stops before its next one.
      this.dry?.stop('The phone lost its connection to the console; the dry run stopped here.');
    });
    this.socket.on('inspect.capture', (_raw, ack) => {
      const answer = typeof ack === 'function' ? ack : () => undefined;
      if (!backend.capture) return answer({ ok: false, error: 'This phone cannot be inspected from the console' });
      backend.capture().then(
        (capture) => answer({ ok: true, capture }),
        (error: unknown) => answer({ ok: false, error: error instanceof Error ? error.message : 'The phone could not read its screen' }),
      );
    });
    this.socket.on('dryrun.start', (raw, ack) => {
      const answer = typeof ack === 'function' ? ack : () => undefined;
      answer(this.startDryRun(raw));
    });
    this.socket.on('dryrun.next', (raw) => {
      const parsed = dryRunServerMessages['dryrun.next'].safeParse(raw);
      if (parsed.success && this.dry?.runId === parsed.data.runId) this.dry.next();
    });
    this.socket.on('dryrun.stop', (raw) => {
      const parsed = dryRunServerMessages['dryrun.stop'].safeParse(raw);
      if (parsed.success && this.dry?.runId === parsed.data.runId) this.dry.stop();
    });
    this.socket.on('live.input', (raw, ack) => {
      const parsed = serverMessages['live.input'].safeParse(raw);
      const answer = typeof ack === 'function' ? ack : () => undefined;
      if (!parsed.success) return answer({ ok: false, error: parsed.error.issues[0]?.message ?? 'This input cannot be read' });
      if (!backend.input) return answer({ ok: false, error: 'This phone cannot be controlled from the console' });
      // In the order they came, each once the one before is done.
      this.inputs = this.inputs.then(async () => {
        try {
          const { input, record } = parsed.data;
          // Recording: the element under the finger is read before the input changes the screen.
          const recorded =
            record && backend.recordTarget && (input.kind === 'tap' || input.kind === 'long_press')
              ? await backend.recordTarget({ x: input.x, y: input.y }).catch(() => undefined)
              : undefined;
          await backend.input!(input);
          this.applied.push({ seq: parsed.data.seq, at: Date.now() });
          if (this.applied.length > 50) this.applied.splice(0, this.applied.length - 50);
          answer(recorded ? { ok: true, recorded } : { ok: true });
        } catch (error) {
          answer({ ok: false, error: error instanceof Error ? error.message : 'The phone could not do that' });
        }
      });
    });
  }

  /** What this agent can do beyond tasks, said in its hello. */
  private features(): AgentFeature[] {
    const backend = this.options.backend;
    return [
      ...(backend.openLive ? (['live'] as const) : []),
      ...(backend.input ? (['control'] as const) : []),
      ...(backend.openVideo ? (['h264'] as const) : []),
      ...(backend.capture ? (['inspect'] as const) : []),
      ...(backend.recordTarget ? (['record'] as const) : []),
      ...(backend.dryRun ? (['dryrun'] as const) : []),
    ];
  }

  get connected(): boolean {
    return this.socket.connected && this.ready;
  }

  private async hello(): Promise<void> {
    const facts = this.options.backend.describe();
    const state = this.options.backend.state();
    const uiReader = await this.options.backend.uiReader?.().catch(() => undefined);
    const apps = await this.options.backend.installedApps?.().catch(() => undefined);
    const features: AgentFeature[] = [...this.features(), ...(uiReader?.kind === 'ui-server' ? (['ui-server'] as const) : [])];
    const raw = await this.request('agent.hello', {
      protocol: PROTOCOL_VERSION,
      ...facts,
      battery: state.battery,
      charging: state.charging,
      screenOn: state.screenOn,
      ...(features.length > 0 ? { features } : {}),
      ...(uiReader ? { uiReader } : {}),
      ...(apps ? { apps } : {}),
      ...(this.holding ? { holding: true } : {}),
    });
    const answer = helloAnswer.safeParse(raw);
    if (!answer.success || !answer.data.ok) {
      this.refused = answer.success && !answer.data.ok ? answer.data.error : 'no answer';
      this.log(`the server refused this agent: ${this.refused}`);
      return;
    }
    this.deviceName = answer.data.deviceName;
    this.options.backend.named?.(answer.data.deviceName);
    this.heartbeatMs = answer.data.heartbeatMs;
    this.heartbeat?.stop();
    this.heartbeat = beating(() => this.beat(), this.heartbeatMs);
    this.log(`connected as ${answer.data.deviceName} (protocol ${answer.data.protocol}, heartbeat ${this.heartbeatMs} ms)`);
    // What was made while disconnected goes first; what was cut short by a stop of this agent is reported as such.
    for (const result of this.journal.unsent()) await this.send(result);
    for (const entry of this.journal.interrupted()) {
      if (this.running.has(entry.taskId)) continue;
      await this.finish(entry.taskId, {
        taskId: entry.taskId,
        attempt: entry.attempt,
        status: 'failed',
        // Whether the work happened is unknown: a person looks before it is tried again.
        failure: { code: 'unknown', message: 'The phone agent stopped in the middle of this task; check the phone before trying again', retryable: false },
      });
    }
    this.ready = true;
  }

  /**
   * The host holds this phone's work (around an adb server restart) or lets go of it: the server is told at once, on
   * this connection, so a result sent after it finds the phone held and no new task follows it.
   */
  hold(holding: boolean): void {
    if (this.holding === holding) return;
    this.holding = holding;
    // Not connected: the next hello says it.
    if (this.socket.connected) this.socket.emit('agent.hold', { holding });
  }

  /** A task or a dry run runs on the phone now. */
  get busy(): boolean {
    return this.running.size > 0 || this.dry !== undefined;
  }

  /**
   * The host cuts the running tasks off (it must restart the adb server under them): each is stopped and reported
   * failed with this code, written to the journal first, so the server tries it again instead of waiting for its
   * lease to end. Resolves once each run has stopped and its result was sent (or kept for the next connection).
   */
  async cutOff(code: FailureCode, message: string): Promise<void> {
    const ends: Promise<void>[] = [];
    if (this.dry) {
      this.log(`dry run ${this.dry.runId} cut off: ${message}`);
      this.dry.stop(message);
      this.dry.abort.abort();
      ends.push(this.dry.ended);
    }
    for (const [taskId, running] of this.running) {
      this.log(`task ${taskId} cut off: ${message}`);
      running.cut = { code, message };
      running.abort.abort();
      if (running.ended) ends.push(running.ended);
    }
    await Promise.all(ends);
  }

  private beat(): void {
    if (!this.socket.connected) return;
    const state = this.options.backend.state();
    this.socket.emit('agent.heartbeat', {
      battery: state.battery,
      status: this.running.size > 0 || this.dry ? 'busy' : state.status,
      charging: state.charging,
      screenOn: state.screenOn,
      ...(state.foregroundApp ? { foregroundApp: state.foregroundApp.slice(0, 200) } : {}),
    });
  }

  async screenshot(): Promise<void> {
    if (!this.socket.connected || Date.now() < this.screenshotsWaitUntil) return;
    const shot = await this.options.backend.screenshot().catch(() => undefined);
    if (!shot) return;
    this.socket.emit('agent.screenshot', { mime: shot.mime, data: shot.data.toString('base64'), capturedAt: new Date().toISOString() }, (answer) => {
      // The server's limit per phone: no screenshot is taken (nor sent) until it says the next may go.
      if (!answer.ok && answer.retryAfterMs) this.screenshotsWaitUntil = Date.now() + answer.retryAfterMs;
    });
  }

  /** A dispatch: run it once, or answer it from the journal. */
  private async take(dispatch: TaskDispatchV2): Promise<void> {
    const known = this.journal.get(dispatch.taskId);
    const running = this.running.get(dispatch.taskId);
    if (running) {
      // Still at it from an earlier attempt the server lost track of: carry on under the new attempt.
      running.attempt = dispatch.attempt;
      this.socket.emit('task.ack', { taskId: dispatch.taskId, attempt: dispatch.attempt });
      return;
    }
    // A failure of an earlier attempt the server has heard of: it decided to try again, so the phone runs it again.
    const retried = known?.state === 'done' && known.sent && known.result?.status === 'failed' && dispatch.attempt > known.attempt;
    if (known?.state === 'done' && known.result && !retried) {
      this.log(`task ${dispatch.taskId} was already run: answering from the journal`);
      await this.send(known.result);
      return;
    }
    if (known?.state === 'running') {
      await this.finish(dispatch.taskId, {
        taskId: dispatch.taskId,
        attempt: known.attempt,
        status: 'failed',
        failure: { code: 'unknown', message: 'The phone agent stopped in the middle of this task; check the phone before trying again', retryable: false },
      });
      return;
    }
    if (this.dry) {
      // Left unacknowledged: the server gives it out again once the dry run has ended (as after any lost dispatch).
      this.log(`task ${dispatch.taskId} waits: a dry run is under way on this phone`);
      return;
    }
    await this.run(dispatch);
  }

  private run(dispatch: TaskDispatchV2): Promise<void> {
    const abort = new AbortController();
    const state: Running = { attempt: dispatch.attempt, abort };
    this.running.set(dispatch.taskId, state);
    state.ended = this.work(dispatch, state);
    return state.ended;
  }

  private async work(dispatch: TaskDispatchV2, state: Running): Promise<void> {
    const { abort } = state;
    this.journal.started(dispatch.taskId, dispatch.attempt);
    this.log(`task ${dispatch.taskId} (attempt ${dispatch.attempt}): ${dispatch.title}`);
    this.socket.emit('task.ack', { taskId: dispatch.taskId, attempt: dispatch.attempt });
    let outcome: WorkOutcome;
    try {
      outcome = await this.options.backend.run(dispatch.work, {
        taskId: dispatch.taskId,
        title: dispatch.title,
        signal: abort.signal,
        publishing: () => {
          state.publishing = true;
        },
        progress: (percent, step) => {
          if (this.socket.connected && !abort.signal.aborted) {
            this.socket.emit('task.progress', {
              taskId: dispatch.taskId,
              attempt: state.attempt,
              percent: Math.max(0, Math.min(100, percent)),
              ...(step ? { step: step.slice(0, 200) } : {}),
            });
          }
        },
      });
    } catch (error) {
      outcome = { status: 'failed', code: 'unknown', message: error instanceof Error ? error.message : 'The work stopped with an error' };
    }
    this.running.delete(dispatch.taskId);
    // Cut off by the host: what it said, whatever the run made of being stopped — unless the work got done first (sent
    // as done: tried again, a post could go up twice).
    if (state.cut && outcome.status !== 'completed')
      outcome =
        state.publishing && dispatch.work.kind === 'post.publish'
          ? {
              status: 'failed',
              code: 'post_unconfirmed',
              message: `Cut off while publishing (${state.cut.message}): the post may have gone up. Check the account before it is tried again.`.slice(0, 2000),
              retryable: false,
            }
          : { status: 'failed', code: state.cut.code, message: state.cut.message };
    else if (abort.signal.aborted) return; // called off: the journal says so, nothing is sent
    // The failed step's trace goes only from an agent that said `dryrun` (a server that knows the field).
    const trace = outcome.status === 'failed' && outcome.trace && this.features().includes('dryrun') ? fitFailureTrace(outcome.trace) : undefined;
    const result: TaskResult =
      outcome.status === 'completed'
        ? {
            taskId: dispatch.taskId,
            attempt: state.attempt,
            status: 'completed',
            finishedAt: new Date().toISOString(),
            ...(outcome.engagement ? { engagement: outcome.engagement } : {}),
            ...(outcome.run ? { run: outcome.run } : {}),
          }
        : {
            taskId: dispatch.taskId,
            attempt: state.attempt,
            status: 'failed',
            failure: {
              code: outcome.code,
              ...(outcome.message ? { message: outcome.message.slice(0, 2000) } : {}),
              retryable: outcome.retryable ?? retryableByDefault[outcome.code],
              ...(outcome.recipe ? { recipe: outcome.recipe } : {}),
              ...(outcome.app ? { app: outcome.app } : {}),
              ...(trace ? { trace } : {}),
            },
            finishedAt: new Date().toISOString(),
            ...(outcome.engagement ? { engagement: outcome.engagement } : {}),
            ...(outcome.run ? { run: outcome.run } : {}),
          };
    if (result.status === 'completed') this.completed.push(dispatch.taskId);
    await this.finish(dispatch.taskId, result);
  }

  private cancel(message: ServerMessage<'task.cancel'>): void {
    const running = this.running.get(message.taskId);
    if (!running) return;
    this.log(`task ${message.taskId} called off: ${message.reason}`);
    this.journal.dropped(message.taskId);
    running.abort.abort();
  }

  /** Writes the result down, then sends it until the server has it. */
  private async finish(taskId: string, result: TaskResult): Promise<void> {
    // The journal is JSON lines: a failure trace's frame (bytes) is sent from memory now, and left out of what the
    // journal keeps to send again after a restart (the trace's words, selector and tree still go).
    this.journal.finished(taskId, withoutTraceFrame(result));
    await this.send(result);
  }

  private async send(result: TaskResult): Promise<void> {
    for (let tries = 0; !this.closed && this.socket.connected; tries += 1) {
      const answer = await this.request('task.result', result, 5000);
      if (answer?.ok || (answer && !answer.ok && /not given attempt/.test(answer.error))) {
        this.journal.sent(result.taskId);
        return;
      }
      await delay(Math.min(5000, 250 * 2 ** tries));
    }
    // Disconnected: sent on reconnect, before anything else.
  }

  /**
   * `dryrun.start`: answered at once — refused with a sentence (this phone cannot, it is busy, the message or the
   * recipe is not valid, naming the field), or accepted, and then run.
   */
  private startDryRun(raw: unknown): Ack {
    const backend = this.options.backend;
    if (!backend.dryRun) return { ok: false, error: 'This phone cannot run dry runs.' };
    const parsed = dryRunServerMessages['dryrun.start'].safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { ok: false, error: `The dry run cannot be read: ${issue?.path.join('.') || 'message'}: ${issue?.message ?? 'not valid'}.` };
    }
    const start = parsed.data;
    if (this.dry) return { ok: false, error: 'The phone is already running a dry run.' };
    if (this.running.size > 0) return { ok: false, error: 'The phone is running a task; start the dry run once it is done.' };
    if (this.holding) return { ok: false, error: 'The phone’s farm host is holding its work (it restarts its adb server); try again in a minute.' };
    const recipe = parseRecipe(start.recipe);
    if (!recipe.ok) return { ok: false, error: `The recipe is not valid: ${recipe.errors[0] ?? 'recipe: not valid'}.`.replace(/\.\.$/, '.') };
    const session = new DryRunSession(start.runId, start.mode, this.options.dryRunIdleMs);
    this.dry = session;
    this.log(`dry run ${start.runId} (${start.mode}${start.effects ? '' : ', no effects'}): ${recipe.recipe.id} v${recipe.recipe.version}`);
    session.ended = this.dryRun(session, start, recipe.recipe);
    return { ok: true };
  }

  private async dryRun(session: DryRunSession, start: DryRunStart, recipe: Recipe): Promise<void> {
    const started = Date.now();
    let outcome: DryRunOutcome;
    try {
      // Not before the start's answer has gone.
      await Promise.resolve();
      outcome = await this.options.backend.dryRun!({
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
    if (this.dry === session) this.dry = undefined;
    const result: DryRunResult = { ...outcome, runId: session.runId, steps: Math.min(MAX_TRACE_STEPS, outcome.steps) };
    this.log(`dry run ${session.runId} ${result.outcome}`);
    await this.sendDryRunResult(
      dryRunResult.safeParse(result).success ? result : { runId: result.runId, outcome: result.outcome, steps: result.steps, durationMs: result.durationMs },
    );
  }

  /** One step's trace, answered before the next goes (order holds); a refusal is logged, never the end of the run. */
  private async sendTrace(runId: string, step: TraceStep): Promise<void> {
    if (!this.socket.connected) return this.log(`dry run ${runId}: step ${step.seq} not sent (disconnected)`);
    const answer = await this.emitWithAnswer('dryrun.step', { runId, step: fitTrace(step) }, 15_000);
    if (!answer) this.log(`dry run ${runId}: the console did not answer step ${step.seq}`);
    else if (!answer.ok) this.log(`dry run ${runId}: the console refused step ${step.seq}: ${answer.error}`);
  }

  /** The dry run's end, sent once it is answered; tried again a few times while the connection is down. */
  private async sendDryRunResult(result: DryRunResult): Promise<void> {
    for (let tries = 0; tries < 6 && !this.closed; tries += 1) {
      if (this.socket.connected) {
        const answer = await this.emitWithAnswer('dryrun.result', result, 5000);
        if (answer?.ok) return;
        if (answer) return this.log(`dry run ${result.runId}: the console refused its result: ${answer.error}`);
      }
      await delay(Math.min(5000, 250 * 2 ** tries));
    }
    this.log(`dry run ${result.runId}: its result could not be sent`);
  }

  private emitWithAnswer(event: 'dryrun.step' | 'dryrun.result', message: unknown, timeoutMs: number): Promise<Ack | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), timeoutMs);
      (this.socket.emit as (event: string, message: unknown, ack: (answer: Ack) => void) => void)(event, message, (answer: Ack) => {
        clearTimeout(timer);
        resolve(answer);
      });
    });
  }

  private request<N extends 'agent.hello' | 'task.result' | 'live.frame'>(
    event: N,
    message: Parameters<AgentToServer[N]>[0],
    timeoutMs = 5000,
  ): Promise<Ack | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), timeoutMs);
      (this.socket.emit as (event: string, message: unknown, ack: (answer: Ack) => void) => void)(event, message, (answer: Ack) => {
        clearTimeout(timer);
        resolve(answer);
      });
    });
  }

  close(): void {
    this.closed = true;
    this.screenshots?.stop();
    this.heartbeat?.stop();
    for (const running of this.running.values()) running.abort.abort();
    this.dry?.stop('The phone agent stopped.');
    this.dry?.abort.abort();
    void this.live.stop();
    this.video.stop();
    this.socket.disconnect();
  }

  private log(line: string): void {
    this.options.log?.(line);
  }
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A result as the journal keeps it: without a failure trace's frame, which JSON cannot hold as bytes. */
export function withoutTraceFrame(result: TaskResult): TaskResult {
  if (result.status !== 'failed' || !result.failure?.trace?.frame) return result;
  const { frame: _frame, ...trace } = result.failure.trace;
  return { ...result, failure: { ...result.failure, trace } };
}
