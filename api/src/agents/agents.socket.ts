/**
 * The phone side of Socket.IO (`/agent`), wiring only: a device credential opens the socket and the agent speaks only
 * for its device; every message is parsed with its schema and answered by its handler (agents.handlers.ts); the
 * dispatcher hands work to the phones connected here. `AgentSockets` holds this instance's state (the batches, the
 * messages still being handled) and one named handler per step of a connection's life: admit, connect (a phone or a
 * host), a message, a live frame, a departure.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Namespace, Socket } from 'socket.io';
import {
  AGENT_NAMESPACE,
  agentMessages,
  hostMessages,
  type Ack,
  type AgentMessage,
  type AppJob,
  type DryRunStart,
  type AgentMessageName,
  type AgentToServer,
  type HostToServer,
  type ServerMessage,
  type ServerToAgent,
} from '@farm/agent-protocol';
import { PHONE_SETTINGS_FEATURE, phoneSettingsAnswer, type PhoneSettingsAnswer, type PhoneSettingsRequest } from '@farm/agent-protocol/fleet';
import { isUuid, serialize, type TaskRow } from '@farm/sql';
import { ackTasks, automation, Outbox, Outboxes, type PhoneAck, progressTask, recordActivity } from '@farm/workers';
import type { ChangeFeed } from '../events/changes.ts';
import type { LiveHub, LivePhone, RealtimeServer } from '../shared/sockets.types.ts';
import type { Db } from '../shared/types.ts';
import type { Storage } from '../storage/storage.ts';
import { type AgentHandlers, agentHandlers, type AgentPeer, type DeviceResult, type ResultAnswer, writeResults } from './agents.handlers.ts';
import { type AgentDevice, findAgentDevice, markGone } from './agents.queries.ts';
import { Dispatcher } from './dispatcher.ts';
import { Gathered } from './gathered.ts';
import { type AgentHost, findHostByToken, hostPhone, touchHost } from './hosts.queries.ts';
import { fleetHandlers } from './agents.fleet.ts';
import { resendAppJobs } from '../modules/apps/apps.rollout.ts';
import { parseTaskResult } from '../modules/evidence/evidence.service.ts';
import { endRunsOfGonePhone } from '../modules/dryruns/dryruns.service.ts';
import { hostSettings } from './fleet.queries.ts';
import { PROGRESS_MS, ProgressGate, type ProgressReport } from './progress.ts';
import { Pulse } from './pulse.ts';

/** Who a connection speaks for: one phone (with its own credential or through its host), or a host itself. */
type AgentSocketData = ({ kind: 'phone'; hostId: string | null; features?: string[] } & AgentDevice) | ({ kind: 'host'; features?: string[] } & AgentHost);

export type AgentNamespace = Namespace<AgentToServer & HostToServer, ServerToAgent, Record<string, never>, AgentSocketData>;
type AgentSocket = Socket<AgentToServer & HostToServer, ServerToAgent, Record<string, never>, AgentSocketData>;
type Answer = (answer: Ack) => void;

export const deviceRoom = (deviceId: string) => `device:${deviceId}`;
/** Every connection a host opened: its own and its phones'. */
export const hostRoom = (hostId: string) => `host:${hostId}`;
const hostControlRoom = (hostId: string) => `host-control:${hostId}`;
/** A host's control connection that said it installs apps (`features: ['apps']` in its hello). */
const hostAppsRoom = (hostId: string) => `host-apps:${hostId}`;
/** How long a host has to say it took an app job (it answers before downloading). */
const APP_JOB_ACK_MS = 15_000;

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

/** A message that does not read as its schema, answered with every field that is wrong. */
function refused(message: string, error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): Ack {
  return { ok: false, error: error.issues.map((issue) => `${issue.path.join('.') || message}: ${issue.message}`).join('; ') };
}

/** A handshake's text field, if it is one of a sensible length. */
const text = (value: unknown, max: number) => (typeof value === 'string' && value.length > 0 && value.length <= max ? value : undefined);

export function attachAgents(app: FastifyInstance, io: RealtimeServer, live: LiveHub): Agents {
  const agents = new AgentSockets(io.of(AGENT_NAMESPACE) as unknown as AgentNamespace, app.ctx, live, app.log);
  app.addHook('onClose', () => agents.close());
  return agents;
}

class AgentSockets implements Agents {
  readonly dispatcher: Dispatcher;
  private readonly db: Db;
  private readonly changes: ChangeFeed;
  private readonly pulse: Pulse;
  private readonly progress: ProgressGate;
  /** Acks, written together with those that come while one is written. */
  private readonly acks: Gathered<PhoneAck, TaskRow | undefined>;
  /** Results, written together with those that come while one is written. */
  private readonly results: Gathered<DeviceResult, ResultAnswer>;
  private readonly handlers: AgentHandlers;
  /** What the phones' messages and departures are still doing here: a stopping instance lets it finish and announce. */
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly nsp: AgentNamespace,
    ctx: { db: Db; changes: ChangeFeed; storage: Storage },
    private readonly live: LiveHub,
    private readonly log: FastifyBaseLogger,
  ) {
    const { db, changes, storage } = ctx;
    this.db = db;
    this.changes = changes;
    this.dispatcher = new Dispatcher(db, changes, log);
    this.pulse = new Pulse(db, changes, (error) => log.warn({ err: error }, 'heartbeat batch failed'));
    this.progress = new ProgressGate(
      (device, report) => this.writeProgress(device, report),
      (error) => log.warn({ err: error }, 'task progress write failed'),
      // A quarter of the lease's window at most, so a waiting report cannot let the lease lapse.
      () => Math.min(PROGRESS_MS, automation().progressWindowMs / 4),
    );
    this.acks = new Gathered((given: PhoneAck[]) => this.writeAcks(given));
    this.results = new Gathered((given: DeviceResult[]) => writeResults(db, changes, given));
    this.handlers = agentHandlers({
      db,
      changes,
      storage,
      dispatcher: this.dispatcher,
      pulse: this.pulse,
      progress: this.progress,
      acks: this.acks,
      results: this.results,
      log,
    });
    nsp.use((socket, next) => {
      this.admit(socket.handshake.auth ?? {})
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
      if (data.kind === 'host') this.connectHost(socket, data);
      else this.connectPhone(socket, data);
    });
  }

  // ── the batches ───────────────────────────────────────────────────────────────────────────────────────────

  private async writeProgress(device: AgentDevice, report: ProgressReport): Promise<void> {
    const outbox = new Outbox(device.workspaceId);
    await progressTask(this.db, device.id, report, outbox);
    outbox.flush(this.changes);
  }

  private async writeAcks(given: PhoneAck[]) {
    // An id that is no UUID names no task: it is answered without the statement, which it would fail for all.
    const outboxes = new Outboxes();
    const acked = await ackTasks(
      this.db,
      given.filter((ack) => isUuid(ack.taskId)),
      outboxes,
    );
    outboxes.flush(this.changes);
    return given.map((ack) => acked.find((task) => task.id === ack.taskId && task.deviceId === ack.deviceId && task.attempt === ack.attempt));
  }

  // ── admission: who the connection speaks for ──────────────────────────────────────────────────────────────

  private async admit(auth: Record<string, unknown>): Promise<AgentSocketData | undefined> {
    const token = text(auth.token, 200);
    if (token) {
      const device = await findAgentDevice(this.db, token);
      return device ? { kind: 'phone', hostId: null, ...device } : undefined;
    }
    const hostToken = text(auth.hostToken, 200);
    const host = hostToken ? await findHostByToken(this.db, hostToken) : undefined;
    if (!host) return undefined;
    const serial = text(auth.serial, 100);
    if (!serial) return { kind: 'host', ...host };
    return this.admitHostPhone(host, { serial, model: text(auth.model, 100), androidVersion: text(auth.androidVersion, 20) });
  }

  /** A host speaks for the phones it registered; a phone it sees for the first time is registered now. */
  private async admitHostPhone(
    host: AgentHost,
    seen: { serial: string; model: string | undefined; androidVersion: string | undefined },
  ): Promise<AgentSocketData> {
    const phone = await hostPhone(this.db, host, seen);
    if ('refused' in phone) throw new AdmissionRefused(phone.refused);
    if (phone.created) {
      const outbox = new Outbox(host.workspaceId);
      outbox.add('device.created', serialize(phone.device));
      await recordActivity(
        this.db,
        {
          workspaceId: host.workspaceId,
          userId: null,
          action: `${phone.device.name} joined through host "${host.name}"`,
          deviceId: phone.device.id,
          type: 'success',
        },
        { action: 'device.registered', entityType: 'device', entityId: phone.device.id, data: { hostId: host.id, serial: seen.serial } },
        outbox,
      );
      outbox.flush(this.changes);
    }
    return { kind: 'phone', hostId: host.id, id: phone.device.id, workspaceId: phone.device.workspaceId, name: phone.device.name };
  }

  // ── a phone's connection ──────────────────────────────────────────────────────────────────────────────────

  private connectPhone(socket: AgentSocket, data: Extract<AgentSocketData, { kind: 'phone' }>): void {
    const device: AgentDevice = { id: data.id, workspaceId: data.workspaceId, name: data.name };
    if (data.hostId) void socket.join(hostRoom(data.hostId));
    const peer: AgentPeer = {
      device,
      socketId: socket.id,
      protocol: 1,
      send: (event, message) => (this.ownSocket(socket.id).emit as (event: string, message: unknown) => boolean)(event, message),
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
    name: Exclude<AgentMessageName, 'live.frame' | 'live.video'>,
    raw: unknown,
    ack: Answer | undefined,
  ): void {
    const parsed = name === 'task.result' ? this.parseResult(peer.device, raw) : agentMessages[name].safeParse(raw);
    if (!parsed.success) {
      ack?.(refused(name, parsed.error));
      return;
    }
    const handled = this.track(order.last.then(() => (this.handlers[name] as (peer: AgentPeer, message: unknown) => Promise<Ack>)(peer, parsed.data)));
    order.last = handled.catch(() => undefined);
    handled.then(
      (answer) => {
        ack?.(answer);
        if (name === 'agent.hello' && !answer.ok) setTimeout(() => socket.disconnect(true), 50);
        if (name === 'agent.hello' && answer.ok && socket.connected) {
          const features = (parsed.data as AgentMessage<'agent.hello'>).features ?? [];
          // Kept with the connection, for whichever instance asks (`dryRunReady`).
          if (socket.data.kind === 'phone') socket.data.features = [...features];
          this.live.phoneReady(this.livePhone(socket, peer.device, features));
        }
      },
      (error: unknown) => {
        this.log.warn({ err: error, message: name, deviceId: peer.device.id, workspaceId: peer.device.workspaceId }, 'agent message failed');
        ack?.({ ok: false, error: 'The server could not take this message; send it again' });
      },
    );
  }

  /** A result, its failure's trace read on its own: a trace that does not fit is dropped and logged, the result kept. */
  private parseResult(device: AgentDevice, raw: unknown) {
    const parsed = parseTaskResult(raw);
    if (parsed.success && parsed.droppedTrace) {
      const issue = parsed.droppedTrace.issues[0];
      this.log.warn(
        { deviceId: device.id, workspaceId: device.workspaceId, field: ['failure', 'trace', ...(issue?.path ?? [])].join('.'), reason: issue?.message },
        'failure trace dropped: it does not fit the schema',
      );
    }
    return parsed;
  }

  private onPhoneDisconnect(socket: AgentSocket, device: AgentDevice): void {
    this.dispatcher.detach(device.id, socket.id);
    this.live.phoneGone(device.id, socket.id);
    void this.track(this.phoneGone(device).catch((error: unknown) => this.log.warn({ err: error }, 'agent disconnect handling failed')));
  }

  /** The phone left this instance: offline unless it is connected elsewhere, said in the activity feed. */
  private async phoneGone(device: AgentDevice): Promise<void> {
    if ((await this.connectedCount(device.id)) > 0) return;
    // A last heartbeat still gathering must not bring the phone back online after it left.
    await this.pulse.flush();
    await endRunsOfGonePhone({ db: this.db, changes: this.changes }, device);
    const outbox = new Outbox(device.workspaceId);
    const row = await markGone(this.db, device);
    if (row) outbox.add('device.updated', serialize(row));
    // Its attempt out keeps its lease: the phone may finish offline and report when it is back; if it does
    // not, the lease ends and the task is tried again.
    await recordActivity(
      this.db,
      { workspaceId: device.workspaceId, userId: null, action: `${device.name} disconnected`, deviceId: device.id, type: 'warning' },
      undefined,
      outbox,
    );
    outbox.flush(this.changes);
  }

  /** The phone's agent as the live screen drives it. */
  private livePhone(socket: AgentSocket, device: AgentDevice, features: readonly string[]): LivePhone {
    return {
      deviceId: device.id,
      workspaceId: device.workspaceId,
      socketId: socket.id,
      features: new Set(features),
      start: (settings) => this.ownSocket(socket.id).emit('live.start', settings),
      stop: (stream) => this.ownSocket(socket.id).emit('live.stop', stream ? { stream } : {}),
      keyFrame: (stream) => this.ownSocket(socket.id).emit('live.keyframe', { stream }),
      input: (message, timeoutMs) =>
        new Promise<Ack>((resolve, reject) => {
          socket.timeout(timeoutMs).emit('live.input', message, (error: Error | null, answer: Ack) => (error ? reject(error) : resolve(answer)));
        }),
      capture: (timeoutMs) =>
        new Promise<Ack>((resolve, reject) => {
          socket.timeout(timeoutMs).emit('inspect.capture', {}, (error: Error | null, answer: Ack) => (error ? reject(error) : resolve(answer)));
        }),
    };
  }

  // ── a host's own connection ───────────────────────────────────────────────────────────────────────────────

  /** A host's own connection: it says hello; while it is open, the host shows connected in Settings. */
  private connectHost(socket: AgentSocket, host: AgentHost): void {
    void socket.join([hostRoom(host.id), hostControlRoom(host.id)]);
    this.touch(host);
    socket.on('host.hello', (raw: unknown, ack?: Answer) => {
      const parsed = hostMessages['host.hello'].safeParse(raw);
      if (!parsed.success) return ack?.(refused('host.hello', parsed.error));
      // What it can do is kept with its connection, for whichever instance asks (`setPhoneSettings`).
      if (socket.data.kind === 'host') socket.data.features = parsed.data.features ?? [];
      this.touch(host);
      // Only a host that says it installs apps is sent app jobs: older ones keep working as they did.
      if (parsed.data.features?.includes('apps')) {
        void Promise.resolve(socket.join(hostAppsRoom(host.id)))
          .then(() => resendAppJobs(this.db, this, host))
          .catch((error: unknown) => this.log.warn({ err: error, hostId: host.id }, 'app jobs not sent again'));
      }
      ack?.({ ok: true, hostId: host.id, hostName: host.name });
    });
    socket.on('disconnect', () => this.touch(host));
    this.connectHostFleet(socket, host);
  }

  /** Fleet health on the host's connection (`agents.fleet.ts`); its settings are sent as it connects. */
  private connectHostFleet(socket: AgentSocket, host: AgentHost): void {
    fleetHandlers({ db: this.db, changes: this.changes }, this.log, socket as unknown as Parameters<typeof fleetHandlers>[2], host, this);
    void hostSettings(this.db, host.id).then(
      (settings) => (socket as unknown as Socket).emit('host.settings', settings),
      () => undefined,
    );
  }

  /** New fleet settings for a host: sent to its control connection wherever it is. */
  sendHostSettings(hostId: string, settings: unknown): void {
    (this.nsp as unknown as Namespace).to(hostControlRoom(hostId)).emit('host.settings', settings);
  }

  async setPhoneSettings(
    hostId: string,
    request: PhoneSettingsRequest,
    timeoutMs: number,
  ): Promise<PhoneSettingsAnswer | 'offline' | 'unsupported' | 'no answer'> {
    const sockets = await this.nsp.in(hostControlRoom(hostId)).fetchSockets();
    if (sockets.length === 0) return 'offline';
    const able = sockets.find((socket) => socket.data.kind === 'host' && socket.data.features?.includes(PHONE_SETTINGS_FEATURE));
    if (!able) return 'unsupported';
    try {
      const answers: unknown = await (this.nsp as unknown as Namespace).to(able.id).timeout(timeoutMs).emitWithAck('host.phone-settings', request);
      const parsed = phoneSettingsAnswer.safeParse(Array.isArray(answers) ? answers[0] : answers);
      return parsed.success ? parsed.data : 'no answer';
    } catch {
      return 'no answer';
    }
  }

  async sendAppJob(hostId: string, job: AppJob): Promise<'taken' | 'outdated' | 'offline'> {
    const nsp = this.nsp as unknown as Namespace;
    let answers: { ok?: unknown }[] = [];
    try {
      answers = (await nsp.to(hostAppsRoom(hostId)).timeout(APP_JOB_ACK_MS).emitWithAck('app.run', job)) as { ok?: unknown }[];
    } catch {
      return 'offline';
    }
    if (answers.some((answer) => answer?.ok === true)) return 'taken';
    if (answers.length > 0) return 'offline';
    return (await this.hostConnected(hostId)) ? 'outdated' : 'offline';
  }

  async dryRunReady(deviceId: string): Promise<'ready' | 'offline' | 'unsupported'> {
    const sockets = await this.nsp.in(deviceRoom(deviceId)).fetchSockets();
    if (sockets.length === 0) return 'offline';
    return sockets.some((socket) => socket.data.kind === 'phone' && socket.data.features?.includes('dryrun')) ? 'ready' : 'unsupported';
  }

  async startDryRun(deviceId: string, message: DryRunStart, timeoutMs: number): Promise<Ack | 'offline' | 'unsupported' | 'no answer'> {
    const sockets = await this.nsp.in(deviceRoom(deviceId)).fetchSockets();
    if (sockets.length === 0) return 'offline';
    const able = sockets.find((socket) => socket.data.kind === 'phone' && socket.data.features?.includes('dryrun'));
    if (!able) return 'unsupported';
    try {
      const answers: unknown = await (this.nsp as unknown as Namespace).to(able.id).timeout(timeoutMs).emitWithAck('dryrun.start', message);
      const answer = (Array.isArray(answers) ? answers[0] : answers) as Ack | undefined;
      if (!answer || typeof answer !== 'object' || typeof answer.ok !== 'boolean') return 'no answer';
      return answer.ok ? { ok: true } : { ok: false, error: String(answer.error).slice(0, 500) };
    } catch {
      return 'no answer';
    }
  }

  async sendDryRun(deviceId: string, event: 'dryrun.next' | 'dryrun.stop', runId: string): Promise<boolean> {
    if ((await this.dryRunReady(deviceId)) !== 'ready') return false;
    this.nsp.to(deviceRoom(deviceId)).emit(event, { runId });
    return true;
  }

  private touch(host: AgentHost): void {
    void touchHost(this.db, host.id).catch(() => undefined);
  }

  // ── helpers ───────────────────────────────────────────────────────────────────────────────────────────────

  /**
   * What this instance says to a phone on one of its own sockets goes straight to that socket. A plain `socket.emit`
   * passes through the adapter, to be kept for connection-state recovery: with Redis, one stream entry per dispatch,
   * read back by every instance, and the dispatch held until Redis answers. A phone's work does not rest on a replay:
   * a dispatch lost with its connection is never acked, its lease expires and the task goes out again.
   */
  private ownSocket(socketId: string) {
    return this.nsp.local.to(socketId);
  }

  private async connectedCount(deviceId: string): Promise<number> {
    return (await this.nsp.in(deviceRoom(deviceId)).fetchSockets()).length;
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    void work.then(
      () => this.inFlight.delete(work),
      () => this.inFlight.delete(work),
    );
    return work;
  }

  // ── what the rest of the API asks of the phones ───────────────────────────────────────────────────────────

  async command(deviceId: string, name: ServerMessage<'command'>['name']): Promise<boolean> {
    if ((await this.connectedCount(deviceId)) === 0) return false;
    this.nsp.to(deviceRoom(deviceId)).emit('command', { name });
    return true;
  }

  disconnect(deviceId: string): void {
    this.nsp.in(deviceRoom(deviceId)).disconnectSockets(true);
  }

  disconnectHost(hostId: string): void {
    this.nsp.in(hostRoom(hostId)).disconnectSockets(true);
  }

  async drain(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([Promise.allSettled([...this.inFlight]), deadline]);
    clearTimeout(timer);
  }

  async hostConnected(hostId: string): Promise<boolean> {
    return (await this.nsp.in(hostControlRoom(hostId)).fetchSockets()).length > 0;
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
    await this.pulse.close().catch(() => undefined);
    await this.progress.close().catch(() => undefined);
    await this.acks.close();
    await this.results.close();
  }
}

/** Why a connection was not let in, said to the agent as it is. */
class AdmissionRefused extends Error {}
