/**
 * The phone side of Socket.IO (`/agent`), wiring only: a device credential opens the socket and the agent speaks only
 * for its device; every message is parsed with its schema and answered by its handler
 * (agents.handlers.ts); the dispatcher hands work to the phones connected here.
 */
import type { FastifyInstance } from 'fastify';
import type { Namespace } from 'socket.io';
import {
  AGENT_NAMESPACE,
  agentMessages,
  hostMessages,
  type Ack,
  type AgentMessage,
  type AgentMessageName,
  type AgentToServer,
  type HostToServer,
  type ServerMessage,
  type ServerToAgent,
} from '@farm/agent-protocol';
import { isUuid, serialize } from '@farm/sql';
import { ackTasks, automation, Outbox, Outboxes, type PhoneAck, progressTask, recordActivity } from '@farm/workers';
import { agentHandlers, type AgentPeer, type DeviceResult, writeResults } from './agents.handlers.ts';
import { findAgentDevice, markGone, type AgentDevice } from './agents.queries.ts';
import { findHostByToken, hostPhone, touchHost, type AgentHost } from './hosts.queries.ts';
import { Dispatcher } from './dispatcher.ts';
import { Gathered } from './gathered.ts';
import { PROGRESS_MS, ProgressGate } from './progress.ts';
import { Pulse } from './pulse.ts';
import type { LiveHub, LivePhone, RealtimeServer } from '../shared/sockets.types.ts';

/** Who a connection speaks for: one phone (with its own credential or through its host), or a host itself. */
type AgentSocketData = ({ kind: 'phone'; hostId: string | null } & AgentDevice) | ({ kind: 'host' } & AgentHost);

export type AgentNamespace = Namespace<AgentToServer & HostToServer, ServerToAgent, Record<string, never>, AgentSocketData>;

export const deviceRoom = (deviceId: string) => `device:${deviceId}`;
/** Every connection a host opened: its own and its phones'. */
export const hostRoom = (hostId: string) => `host:${hostId}`;
const hostControlRoom = (hostId: string) => `host-control:${hostId}`;

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
  /** Waits (at most `timeoutMs`) for the phones' messages this instance is still handling, so what they changed is announced before it stops. */
  drain(timeoutMs: number): Promise<void>;
}

/** A message that does not read as its schema, answered with every field that is wrong. */
function refused(message: string, error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): Ack {
  return { ok: false, error: error.issues.map((issue) => `${issue.path.join('.') || message}: ${issue.message}`).join('; ') };
}

export function attachAgents(app: FastifyInstance, io: RealtimeServer, live: LiveHub): Agents {
  const { db, changes, storage } = app.ctx;
  const nsp = io.of(AGENT_NAMESPACE) as unknown as AgentNamespace;
  const dispatcher = new Dispatcher(db, changes, app.log);
  const pulse = new Pulse(db, changes, (error) => app.log.warn({ err: error }, 'heartbeat batch failed'));
  const progress = new ProgressGate(
    async (device, report) => {
      const outbox = new Outbox(device.workspaceId);
      await progressTask(db, device.id, report, outbox);
      outbox.flush(changes);
    },
    (error) => app.log.warn({ err: error }, 'task progress write failed'),
    // A quarter of the lease's window at most, so a waiting report cannot let the lease lapse.
    () => Math.min(PROGRESS_MS, automation().progressWindowMs / 4),
  );
  const acks = new Gathered(async (given: PhoneAck[]) => {
    // An id that is no UUID names no task: it is answered without the statement, which it would fail for all.
    const outboxes = new Outboxes();
    const acked = await ackTasks(
      db,
      given.filter((ack) => isUuid(ack.taskId)),
      outboxes,
    );
    outboxes.flush(changes);
    return given.map((ack) => acked.find((task) => task.id === ack.taskId && task.deviceId === ack.deviceId && task.attempt === ack.attempt));
  });
  const results = new Gathered((given: DeviceResult[]) => writeResults(db, changes, given));
  const handlers = agentHandlers({ db, changes, storage, dispatcher, pulse, progress, acks, results, log: app.log });

  nsp.use((socket, next) => {
    const auth = (socket.handshake.auth ?? {}) as Record<string, unknown>;
    const text = (value: unknown, max: number) => (typeof value === 'string' && value.length > 0 && value.length <= max ? value : undefined);
    const admit = async () => {
      const token = text(auth.token, 200);
      if (token) {
        const device = await findAgentDevice(db, token);
        return device ? { kind: 'phone' as const, hostId: null, ...device } : undefined;
      }
      const hostToken = text(auth.hostToken, 200);
      const host = hostToken ? await findHostByToken(db, hostToken) : undefined;
      if (!host) return undefined;
      const serial = text(auth.serial, 100);
      if (!serial) return { kind: 'host' as const, ...host };
      // A host speaks for the phones it registered; a phone it sees for the first time is registered now.
      const phone = await hostPhone(db, host, { serial, model: text(auth.model, 100), androidVersion: text(auth.androidVersion, 20) });
      if ('refused' in phone) throw new Error(phone.refused);
      if (phone.created) {
        const outbox = new Outbox(host.workspaceId);
        outbox.add('device.created', serialize(phone.device));
        await recordActivity(
          db,
          {
            workspaceId: host.workspaceId,
            userId: null,
            action: `${phone.device.name} joined through host "${host.name}"`,
            deviceId: phone.device.id,
            type: 'success',
          },
          { action: 'device.registered', entityType: 'device', entityId: phone.device.id, data: { hostId: host.id, serial } },
          outbox,
        );
        outbox.flush(changes);
      }
      return { kind: 'phone' as const, hostId: host.id, id: phone.device.id, workspaceId: phone.device.workspaceId, name: phone.device.name };
    };
    admit()
      .then((data) => {
        if (!data) return next(new Error('unauthorized'));
        socket.data = data;
        next();
      })
      .catch((error: unknown) => next(error instanceof Error ? error : new Error('unavailable')));
  });

  /**
   * What this instance says to a phone on one of its own sockets goes straight to that socket. A plain `socket.emit`
   * passes through the adapter, to be kept for connection-state recovery: with Redis, one stream entry per dispatch,
   * read back by every instance, and the dispatch held until Redis answers. A phone's work does not rest on a replay:
   * a dispatch lost with its connection is never acked, its lease expires and the task goes out again.
   */
  const ownSocket = (socketId: string) => nsp.local.to(socketId);

  const connectedCount = async (deviceId: string) => (await nsp.in(deviceRoom(deviceId)).fetchSockets()).length;

  // What the phones' messages and departures are still doing here: a stopping instance lets it finish and announce.
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>): Promise<T> => {
    inFlight.add(work);
    void work.then(
      () => inFlight.delete(work),
      () => inFlight.delete(work),
    );
    return work;
  };

  nsp.on('connection', (socket) => {
    const data = socket.data;
    if (data.kind === 'host') {
      attachHost(socket, data);
      return;
    }
    const device: AgentDevice = { id: data.id, workspaceId: data.workspaceId, name: data.name };
    if (data.hostId) void socket.join(hostRoom(data.hostId));
    const peer: AgentPeer = {
      device,
      socketId: socket.id,
      protocol: 1,
      send: (event, message) => (ownSocket(socket.id).emit as (event: string, message: unknown) => boolean)(event, message),
    };
    // One live connection per phone: a newer one replaces the older, on whichever instance it is.
    void nsp
      .in(deviceRoom(device.id))
      .fetchSockets()
      .then((others) => {
        for (const other of others) if (other.id !== socket.id) other.disconnect(true);
        return socket.join(deviceRoom(device.id));
      })
      .catch((error: unknown) => app.log.warn({ err: error, deviceId: device.id, workspaceId: device.workspaceId }, 'agent room join failed'));

    // Frames of the live screen skip the queue: they are passed on at once or dropped, never waited on.
    socket.on('live.frame', (raw: unknown, ack?: (answer: Ack) => void) => {
      const parsed = agentMessages['live.frame'].safeParse(raw);
      ack?.(parsed.success ? live.frame(device.id, parsed.data) : refused('live.frame', parsed.error));
    });

    // A phone's messages are handled one after another, in the order it sent them (an ack before its result).
    let inOrder: Promise<unknown> = Promise.resolve();
    for (const name of Object.keys(agentMessages) as AgentMessageName[]) {
      if (name === 'live.frame') continue;
      socket.on(name, (raw: unknown, ack?: (answer: Ack) => void) => {
        const parsed = agentMessages[name].safeParse(raw);
        if (!parsed.success) {
          ack?.(refused(name, parsed.error));
          return;
        }
        const handled = track(inOrder.then(() => (handlers[name] as (peer: AgentPeer, message: unknown) => Promise<Ack>)(peer, parsed.data)));
        inOrder = handled.catch(() => undefined);
        handled.then(
          (answer) => {
            ack?.(answer);
            if (name === 'agent.hello' && !answer.ok) setTimeout(() => socket.disconnect(true), 50);
            if (name === 'agent.hello' && answer.ok && socket.connected)
              live.phoneReady(livePhone(socket, device, (parsed.data as AgentMessage<'agent.hello'>).features ?? []));
          },
          (error: unknown) => {
            app.log.warn({ err: error, message: name, deviceId: device.id, workspaceId: device.workspaceId }, 'agent message failed');
            ack?.({ ok: false, error: 'The server could not take this message; send it again' });
          },
        );
      });
    }

    /** The phone left this instance: offline unless it is connected elsewhere, said in the activity feed. */
    const gone = async () => {
      if ((await connectedCount(device.id)) > 0) return;
      // A last heartbeat still gathering must not bring the phone back online after it left.
      await pulse.flush();
      const outbox = new Outbox(device.workspaceId);
      const row = await markGone(db, device);
      if (row) outbox.add('device.updated', serialize(row));
      // Its attempt out keeps its lease: the phone may finish offline and report when it is back; if it does
      // not, the lease ends and the task is tried again.
      await recordActivity(
        db,
        { workspaceId: device.workspaceId, userId: null, action: `${device.name} disconnected`, deviceId: device.id, type: 'warning' },
        undefined,
        outbox,
      );
      outbox.flush(changes);
    };
    socket.on('disconnect', () => {
      dispatcher.detach(device.id, socket.id);
      live.phoneGone(device.id, socket.id);
      void track(gone().catch((error: unknown) => app.log.warn({ err: error }, 'agent disconnect handling failed')));
    });
  });

  /** A host's own connection: it says hello; while it is open, the host shows connected in Settings. */
  function attachHost(socket: Parameters<Parameters<typeof nsp.on>[1]>[0], host: AgentHost): void {
    void socket.join([hostRoom(host.id), hostControlRoom(host.id)]);
    void touchHost(db, host.id).catch(() => undefined);
    socket.on('host.hello', (raw: unknown, ack?: (answer: Ack) => void) => {
      const parsed = hostMessages['host.hello'].safeParse(raw);
      if (!parsed.success) return ack?.(refused('host.hello', parsed.error));
      void touchHost(db, host.id).catch(() => undefined);
      ack?.({ ok: true, hostId: host.id, hostName: host.name });
    });
    socket.on('disconnect', () => void touchHost(db, host.id).catch(() => undefined));
  }

  /** The phone's agent as the live screen drives it. */
  function livePhone(socket: Parameters<Parameters<typeof nsp.on>[1]>[0], device: AgentDevice, features: readonly string[]): LivePhone {
    return {
      deviceId: device.id,
      workspaceId: device.workspaceId,
      socketId: socket.id,
      features: new Set(features),
      start: (settings) => ownSocket(socket.id).emit('live.start', settings),
      stop: () => ownSocket(socket.id).emit('live.stop', {}),
      input: (message, timeoutMs) =>
        new Promise<Ack>((resolve, reject) => {
          socket.timeout(timeoutMs).emit('live.input', message, (error: Error | null, answer: Ack) => (error ? reject(error) : resolve(answer)));
        }),
    };
  }

  app.addHook('onClose', async () => {
    await dispatcher.close();
    await pulse.close().catch(() => undefined);
    await progress.close().catch(() => undefined);
    await acks.close();
    await results.close();
  });

  return {
    dispatcher,
    async command(deviceId, name) {
      if ((await connectedCount(deviceId)) === 0) return false;
      nsp.to(deviceRoom(deviceId)).emit('command', { name });
      return true;
    },
    disconnect(deviceId) {
      nsp.in(deviceRoom(deviceId)).disconnectSockets(true);
    },
    disconnectHost(hostId) {
      nsp.in(hostRoom(hostId)).disconnectSockets(true);
    },
    async drain(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
      await Promise.race([Promise.allSettled([...inFlight]), deadline]);
      clearTimeout(timer);
    },
    async hostConnected(hostId) {
      return (await nsp.in(hostControlRoom(hostId)).fetchSockets()).length > 0;
    },
  };
}
