/**
 * What every room of the phone agent reads and moves: its options, its one connection to the server, the journal,
 * the tasks under way, the dry run under way, whether its host holds its work, and whether it was closed. The rooms
 * (connection, tasks, live screen, control, dry runs) each need some of these, so they live in one place rather than
 * being passed from room to room; so do the few ways of speaking on the connection that several rooms share.
 */
import { io, type Socket } from 'socket.io-client';
import type { FailureCode } from '../failures.ts';
import type { AgentFeature } from '../live.ts';
import { AGENT_NAMESPACE, type Ack, type AgentMessage, type AgentMessageName, type AgentToServer, type ServerToAgent } from '../messages.ts';
import type { DryRunSession } from './dry-run.ts';
import { Journal } from './journal.ts';
import type { PhoneBackend } from './phone-agent.backend.ts';

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

/** A task the phone works now. */
export interface Running {
  attempt: number;
  abort: AbortController;
  /** Cut off by the host (an adb server restart): reported failed with this, not dropped as a call-off is. */
  cut?: { code: FailureCode; message: string };
  /** The run started publishing a post (`WorkContext.publishing`). */
  publishing?: boolean;
  /** Settles once the run stopped and its result was written and sent. */
  ended?: Promise<void>;
  /** Posts handed to a person being told to the server (`task.handover`); the result waits for them. */
  handOvers?: Promise<void>[];
  /** A progress report held back to be sent at the end of its gap (`PROGRESS_GAP_MS`); the result drops it. */
  heldProgress?: NodeJS.Timeout;
}

/**
 * A server message's handler. What arrives is parsed by the handler with the message's schema, never trusted by its
 * type; `ack` is the server's answer callback for the messages that are answered.
 */
export type MessageHandler = (raw: unknown, ack?: unknown) => void;

/** The answer callback a message came with, or one that answers nobody. */
export function answerOf(ack: unknown): (answer: Ack) => void {
  return typeof ack === 'function' ? (ack as (answer: Ack) => void) : () => undefined;
}

export const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class PhoneAgentState {
  readonly socket: Socket<ServerToAgent, AgentToServer>;
  readonly journal: Journal;
  readonly backend: PhoneBackend;
  readonly running = new Map<string, Running>();
  /** The dry run under way: no task is taken meanwhile. */
  dry: DryRunSession | undefined;
  /** Its farm host holds its work (`hold`): said in the hello and at once when it changes. */
  holding = false;
  /** App jobs queued or running on the phone (`appJob`): no task is taken while any is, as an install kills the app. */
  appJobs = 0;
  /** The server let this agent in and what it made while away was sent. */
  ready = false;
  closed = false;

  constructor(readonly options: PhoneAgentOptions) {
    this.backend = options.backend;
    this.journal = options.journal ?? new Journal();
    this.socket = io(new URL(AGENT_NAMESPACE, options.url).toString(), {
      transports: ['websocket'],
      auth: options.auth ?? { token: options.token ?? '' },
      reconnectionDelay: options.reconnectionDelayMs ?? 500,
      reconnectionDelayMax: Math.max(options.reconnectionDelayMs ?? 500, 5000),
    });
  }

  /** The server is to give the phone no new task: its host holds it, or an app job is queued or runs on it. */
  get held(): boolean {
    return this.holding || this.appJobs > 0;
  }

  /** A task or a dry run runs on the phone now. */
  get busy(): boolean {
    return this.running.size > 0 || this.dry !== undefined;
  }

  /** What this agent can do beyond tasks, said in its hello. */
  features(): AgentFeature[] {
    const backend = this.backend;
    return [
      ...(backend.openLive ? (['live'] as const) : []),
      ...(backend.input ? (['control'] as const) : []),
      ...(backend.openVideo ? (['h264'] as const) : []),
      ...(backend.capture ? (['inspect'] as const) : []),
      ...(backend.recordTarget ? (['record'] as const) : []),
      ...(backend.dryRun ? (['dryrun'] as const) : []),
      ...(backend.groupAct ? (['group'] as const) : []),
    ];
  }

  /** Listens to the server's messages, each with its handler. */
  listen(handlers: Readonly<Record<string, MessageHandler>>): void {
    const socket = this.socket as unknown as { on(event: string, listener: MessageHandler): unknown };
    for (const [name, handler] of Object.entries(handlers)) socket.on(name, handler);
  }

  /** Sends a message and waits for the server's answer; undefined when none came in time. */
  request<N extends AgentMessageName>(event: N, message: AgentMessage<N>, timeoutMs = 5000): Promise<Ack | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), timeoutMs);
      (this.socket.emit as (event: string, message: unknown, ack: (answer: Ack) => void) => void)(event, message, (answer: Ack) => {
        clearTimeout(timer);
        resolve(answer);
      });
    });
  }

  log(line: string): void {
    this.options.log?.(line);
  }
}
