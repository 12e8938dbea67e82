/**
 * The phone side of Socket.IO (`/agent`), wiring only: a credential opens the socket (agents.admission.ts) and the
 * agent speaks only for its device, or a host for itself (agents.hosts.ts); every message of a phone is parsed with
 * its schema and answered, one after another in the order sent, by the transport's own handler (agents.handlers.ts)
 * or by the feature that owns it (agents.features.ts, composed at the top); the dispatcher hands work to the phones
 * connected here. `AgentSockets` holds this instance's connections and the messages still being handled, with one
 * named step per moment of a phone connection's life: it connects, sends a message or a live frame, leaves.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { z } from 'zod';
import {
  AGENT_NAMESPACE,
  agentMessages,
  type Ack,
  type AgentMessage,
  type AgentMessageName,
  type AppJob,
  type DryRunStart,
  type ServerMessage,
} from '@farm/agent-protocol';
import type { PhoneSettingsAnswer, PhoneSettingsRequest } from '@farm/agent-protocol/fleet';
import { serialize } from '@farm/sql';
import type { ChangeFeed } from '../events/changes.ts';
import { write } from '../events/write.ts';
import type { LiveHub, LivePhone, RealtimeServer } from '../shared/sockets.types.ts';
import type { Db } from '../shared/types.ts';
import { AdmissionRefused, admit } from './agents.admission.ts';
import type { AgentFeatures, AgentPeer, LiveMessageName, PhoneHandler } from './agents.features.ts';
import { type AgentContext, closeAgentContext, openAgentContext, transportHandlers } from './agents.handlers.ts';
import { HostLinks } from './agents.hosts.ts';
import { type AgentNamespace, type AgentSocket, type AgentSocketData, type Answer, deviceRoom, hostRoom, refused } from './agents.namespace.ts';
import { type AgentDevice, markGone } from './agents.queries.ts';
import type { Dispatcher } from './dispatcher.ts';
import { PhoneAsks } from './agents.asks.ts';

export { deviceRoom, hostRoom } from './agents.namespace.ts';

export interface Agents {
  dispatcher: Dispatcher;
  /** Sends a command to the device's agent wherever it is connected; answers whether one was there to hear it. */
  command(deviceId: string, name: ServerMessage<'command'>['name']): Promise<boolean>;
  /** Closes the device's agent connections on every instance (its credential was revoked or it was deleted). */
  disconnect(deviceId: string): void;
  /** Closes a host's connection and its phones' (it was revoked). */
  disconnectHost(hostId: string): void;
  /** The host's control connection is open, on any instance. */
  hostConnected(hostId: string): Promise<boolean>;
  /** Sends a host its fleet settings (Settings → Phone hosts). */
  sendHostSettings(hostId: string, settings: unknown): void;
  /**
   * Asks a host to set settings on its phones and waits for its answer: the answer, or why there is none (its control
   * connection is closed, its farm-agent predates `phone-settings`, or it did not answer in time).
   */
  setPhoneSettings(hostId: string, request: PhoneSettingsRequest, timeoutMs: number): Promise<PhoneSettingsAnswer | 'offline' | 'unsupported' | 'no answer'>;
  /** Hands an app job to a host that installs apps: `taken`, or why not (its agent is too old, or it is not connected). */
  sendAppJob(hostId: string, job: AppJob): Promise<'taken' | 'outdated' | 'offline'>;
  /** Whether the device's agent is connected (anywhere) and listed `dryrun` in its hello. */
  dryRunReady(deviceId: string): Promise<'ready' | 'offline' | 'unsupported'>;
  /** Hands a dry run to the device's agent and waits for its answer, or says why there is none. */
  startDryRun(deviceId: string, message: DryRunStart, timeoutMs: number): Promise<Ack | 'offline' | 'unsupported' | 'no answer'>;
  /** Tells the device's agent to go on with, or stop, a dry run; answers whether an agent was there to hear it. */
  sendDryRun(deviceId: string, event: 'dryrun.next' | 'dryrun.stop', runId: string): Promise<boolean>;
  /** Waits (at most `timeoutMs`) for the phones' messages this instance is still handling, so what they changed is announced before it stops. */
  drain(timeoutMs: number): Promise<void>;
}

/** The features' part of the phone side, made once the phones' side exists (a feature may ask things of it). */
export type AgentFeaturesOf = (agents: Agents) => AgentFeatures;

/** The messages a phone's connection queues: all but the live screen's. */
type QueuedMessageName = Exclude<AgentMessageName, LiveMessageName>;
type AnyHandler = (peer: AgentPeer, message: unknown) => Promise<Ack>;

export function attachAgents(app: FastifyInstance, io: RealtimeServer, live: LiveHub, featuresOf: AgentFeaturesOf): Agents {
  const agents = new AgentSockets(io.of(AGENT_NAMESPACE) as unknown as AgentNamespace, app.ctx, live, app.log, featuresOf);
  app.addHook('onClose', () => agents.close());
  return agents;
}

class AgentSockets implements Agents {
  readonly dispatcher: Dispatcher;
  private readonly ctx: AgentContext;
  private readonly features: AgentFeatures;
  private readonly handlers: { [N in QueuedMessageName]: PhoneHandler<N> };
  private readonly hosts: HostLinks;
  private readonly asks: PhoneAsks;
  /** What the phones' messages and departures are still doing here: a stopping instance lets it finish and announce. */
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly nsp: AgentNamespace,
    deps: { db: Db; changes: ChangeFeed },
    private readonly live: LiveHub,
    private readonly log: FastifyBaseLogger,
    featuresOf: AgentFeaturesOf,
  ) {
    this.features = featuresOf(this);
    this.ctx = openAgentContext({ db: deps.db, changes: deps.changes, log }, this.features.hooks);
    this.dispatcher = this.ctx.dispatcher;
    this.handlers = { ...this.features.messages, ...transportHandlers(this.ctx) };
    this.hosts = new HostLinks(nsp, deps.db, this.features, log);
    this.asks = new PhoneAsks(nsp);
    nsp.use((socket, next) => {
      admit(deps, socket.handshake.auth ?? {})
        .then((data) => {
          if (!data) return next(new Error('unauthorized'));
          socket.data = data;
          next();
        })
        .catch((error: unknown) => {
          // A refusal is said to the agent as it is; anything else (the database away) is logged and the agent hears
          // only 'unavailable', never an address inside the network.
          if (error instanceof AdmissionRefused) return next(error);
          this.log.error({ err: error }, 'agent handshake: the check could not run');
          next(new Error('unavailable'));
        });
    });
    nsp.on('connection', (socket: AgentSocket) => {
      const data = socket.data;
      if (data.kind === 'host') this.hosts.connect(socket, data);
      else this.connectPhone(socket, data);
    });
  }

  // ── a phone's connection ──────────────────────────────────────────────────────────────────────────────────

  private connectPhone(socket: AgentSocket, data: Extract<AgentSocketData, { kind: 'phone' }>): void {
    const device: AgentDevice = { id: data.id, workspaceId: data.workspaceId, name: data.name };
    if (data.hostId) void socket.join(hostRoom(data.hostId));
    const peer: AgentPeer = {
      device,
      socketId: socket.id,
      protocol: 1,
      send: (event, message) => (this.asks.ownSocket(socket.id).emit as (event: string, message: unknown) => boolean)(event, message),
    };
    this.replaceOlder(socket, device);
    // Frames of the live screen skip the queue: they are passed on at once or dropped, never waited on.
    socket.on('live.frame', (raw: unknown, ack?: Answer) => this.onLiveFrame(device, raw, ack));
    socket.on('live.video', (raw: unknown, ack?: Answer) => this.onLiveVideo(device, raw, ack));
    // A phone's messages are handled one after another, in the order it sent them (an ack before its result).
    const order = { last: Promise.resolve() as Promise<unknown> };
    for (const name of Object.keys(agentMessages) as AgentMessageName[]) {
      if (name === 'live.frame' || name === 'live.video') continue;
      socket.on(name, (raw: unknown, ack?: Answer) => this.onMessage(socket, peer, order, name, raw, ack));
    }
    socket.on('disconnect', () => this.onPhoneDisconnect(socket, device));
  }

  /** One live connection per phone: a newer one replaces the older, on whichever instance it is. */
  private replaceOlder(socket: AgentSocket, device: AgentDevice): void {
    void this.nsp
      .in(deviceRoom(device.id))
      .fetchSockets()
      .then((others) => {
        for (const other of others) if (other.id !== socket.id) other.disconnect(true);
        return socket.join(deviceRoom(device.id));
      })
      .catch((error: unknown) => this.log.warn({ err: error, deviceId: device.id, workspaceId: device.workspaceId }, 'agent room join failed'));
  }

  private onLiveFrame(device: AgentDevice, raw: unknown, ack: Answer | undefined): void {
    const parsed = agentMessages['live.frame'].safeParse(raw);
    ack?.(parsed.success ? this.live.frame(device.id, parsed.data) : refused('live.frame', parsed.error));
  }

  private onLiveVideo(device: AgentDevice, raw: unknown, ack: Answer | undefined): void {
    const parsed = agentMessages['live.video'].safeParse(raw);
    ack?.(parsed.success ? this.live.video(device.id, parsed.data) : refused('live.video', parsed.error));
  }

  /** A message parsed with its schema, handled after the phone's previous ones, and answered. */
  private onMessage(
    socket: AgentSocket,
    peer: AgentPeer,
    order: { last: Promise<unknown> },
    name: QueuedMessageName,
    raw: unknown,
    ack: Answer | undefined,
  ): void {
    const parsed = this.parse(peer, name, raw);
    if (!parsed.success) {
      ack?.(refused(name, parsed.error));
      return;
    }
    const handler = this.handlers[name] as AnyHandler;
    const handled = this.track(
      order.last.then(() => {
        // Whatever it says, a phone that speaks is there (its hello is heard as it attaches).
        if (name !== 'agent.hello') this.dispatcher.heard(peer.device.id);
        return handler(peer, parsed.data);
      }),
    );
    order.last = handled.catch(() => undefined);
    handled.then(
      (answer) => {
        ack?.(answer);
        if (name === 'agent.hello') this.helloAnswered(socket, peer, parsed.data as AgentMessage<'agent.hello'>, answer);
      },
      (error: unknown) => {
        this.log.warn({ err: error, message: name, deviceId: peer.device.id, workspaceId: peer.device.workspaceId }, 'agent message failed');
        ack?.({ ok: false, error: 'The server could not take this message; send it again' });
      },
    );
  }

  /** A message as read: a result the way the features read it, anything else by its schema. */
  private parse(peer: AgentPeer, name: QueuedMessageName, raw: unknown): { success: true; data: unknown } | { success: false; error: z.ZodError } {
    if (name === 'task.result' && this.features.parseResult) return this.features.parseResult(raw, peer);
    return agentMessages[name].safeParse(raw);
  }

  /** A refused hello closes the connection; an accepted one makes the phone ready for the live screen. */
  private helloAnswered(socket: AgentSocket, peer: AgentPeer, hello: AgentMessage<'agent.hello'>, answer: Ack): void {
    if (!answer.ok) {
      setTimeout(() => socket.disconnect(true), 50);
      return;
    }
    if (!socket.connected) return;
    const features = hello.features ?? [];
    // Kept with the connection, for whichever instance asks (`dryRunReady`).
    if (socket.data.kind === 'phone') socket.data.features = [...features];
    this.live.phoneReady(this.livePhone(socket, peer.device, features));
  }

  private onPhoneDisconnect(socket: AgentSocket, device: AgentDevice): void {
    this.dispatcher.detach(device.id, socket.id);
    this.live.phoneGone(device.id, socket.id);
    void this.track(this.phoneGone(device).catch((error: unknown) => this.log.warn({ err: error }, 'agent disconnect handling failed')));
  }

  /** The phone left this instance: offline unless it is connected elsewhere, said in the activity feed. */
  private async phoneGone(device: AgentDevice): Promise<void> {
    if (await this.asks.connected(device.id)) return;
    // A last heartbeat still gathering must not bring the phone back online after it left.
    await this.ctx.pulse.flush();
    for (const hooks of this.features.hooks) await hooks.phoneGone?.(device);
    // Its attempt out keeps its lease: the phone may finish offline and report when it is back; if it does
    // not, the lease ends and the task is tried again.
    await write(this.ctx, device.workspaceId, async (tx, outbox) => {
      const row = await markGone(tx, device);
      if (row) outbox.add('device.updated', serialize(row));
      await outbox.record({ userId: null, action: `${device.name} disconnected`, deviceId: device.id, type: 'warning' });
    });
  }

  /** The phone's agent as the live screen drives it. */
  private livePhone(socket: AgentSocket, device: AgentDevice, features: readonly string[]): LivePhone {
    const own = () => this.asks.ownSocket(socket.id);
    return {
      deviceId: device.id,
      workspaceId: device.workspaceId,
      socketId: socket.id,
      features: new Set(features),
      start: (settings) => own().emit('live.start', settings),
      stop: (stream) => own().emit('live.stop', stream ? { stream } : {}),
      keyFrame: (stream) => own().emit('live.keyframe', { stream }),
      input: (message, timeoutMs) =>
        new Promise<Ack>((resolve, reject) => {
          socket.timeout(timeoutMs).emit('live.input', message, (error: Error | null, answer: Ack) => (error ? reject(error) : resolve(answer)));
        }),
      capture: (timeoutMs) =>
        new Promise<Ack>((resolve, reject) => {
          socket.timeout(timeoutMs).emit('inspect.capture', {}, (error: Error | null, answer: Ack) => (error ? reject(error) : resolve(answer)));
        }),
      group: (message, timeoutMs) =>
        new Promise<Ack>((resolve, reject) => {
          socket.timeout(timeoutMs).emit('group.act', message, (error: Error | null, answer: Ack) => (error ? reject(error) : resolve(answer)));
        }),
    };
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    void work.then(
      () => this.inFlight.delete(work),
      () => this.inFlight.delete(work),
    );
    return work;
  }

  // ── what the rest of the API asks of the phones and hosts ─────────────────────────────────────────────────

  command(deviceId: string, name: ServerMessage<'command'>['name']): Promise<boolean> {
    return this.asks.command(deviceId, name);
  }

  disconnect(deviceId: string): void {
    this.nsp.in(deviceRoom(deviceId)).disconnectSockets(true);
  }

  dryRunReady(deviceId: string): Promise<'ready' | 'offline' | 'unsupported'> {
    return this.asks.ready(deviceId, 'dryrun');
  }

  startDryRun(deviceId: string, message: DryRunStart, timeoutMs: number): Promise<Ack | 'offline' | 'unsupported' | 'no answer'> {
    return this.asks.ask(deviceId, 'dryrun', 'dryrun.start', message, timeoutMs);
  }

  sendDryRun(deviceId: string, event: 'dryrun.next' | 'dryrun.stop', runId: string): Promise<boolean> {
    return this.asks.tell(deviceId, 'dryrun', event, { runId });
  }

  disconnectHost(hostId: string): void {
    this.hosts.disconnect(hostId);
  }

  hostConnected(hostId: string): Promise<boolean> {
    return this.hosts.connected(hostId);
  }

  sendHostSettings(hostId: string, settings: unknown): void {
    this.hosts.sendSettings(hostId, settings);
  }

  setPhoneSettings(hostId: string, request: PhoneSettingsRequest, timeoutMs: number): Promise<PhoneSettingsAnswer | 'offline' | 'unsupported' | 'no answer'> {
    return this.hosts.setPhoneSettings(hostId, request, timeoutMs);
  }

  sendAppJob(hostId: string, job: AppJob): Promise<'taken' | 'outdated' | 'offline'> {
    return this.hosts.sendAppJob(hostId, job);
  }

  async drain(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([Promise.allSettled([...this.inFlight]), deadline]);
    clearTimeout(timer);
  }

  close(): Promise<void> {
    return closeAgentContext(this.ctx);
  }
}
