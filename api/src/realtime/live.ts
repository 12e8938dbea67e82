/**
 * Live screens and remote control. Browsers watch on the `/live` namespace; the instance holding a phone's agent
 * asks it to stream while anyone anywhere watches, passes its frames on the live bus (never the console's event
 * stream), and stops it within a moment of the last watcher leaving. Each watcher gets a frame only once it has
 * acknowledged the previous one: a slow viewer gets fewer frames, never late ones, and the phone is told to ease off.
 *
 * One person controls a phone at a time (the database says who); their inputs go to the phone in order and each is
 * answered with its latency. Every watch and control is a usage session; control left unused is released after a
 * prompt; sessions of an instance that died are closed by the others.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Namespace, Socket } from 'socket.io';
import { Adapter } from 'socket.io-adapter';
import { LIVE_DEFAULTS, MAX_LIVE_BYTES_PER_SECOND, MAX_LIVE_FPS } from '@farm/agent-protocol';
import { serialize, type DeviceRow } from '@farm/sql';
import { Outbox, recordActivity } from '@farm/workers';
import {
  LIVE_NAMESPACE,
  liveClientMessages,
  type LiveAnswer,
  type LiveClientMessageName,
  type LiveClientToServer,
  type LiveServerToClient,
} from '@farm/contracts';
import {
  closeStaleUsage,
  endWatches,
  findLiveDevice,
  mayControl,
  releaseControl,
  startUsage,
  takeControl,
  touchUsage,
} from '../modules/usage/usage.queries.ts';
import { LocalLiveBus, RedisLiveBus, type BusFrame, type LiveBus } from './live.bus.ts';
import type { LiveHub, LivePhone, RealtimeServer } from '../shared/sockets.types.ts';
import { crossSite, personOf, unavailable, type SocketPerson } from './handshake.ts';

/** How often an instance repeats who watches here, and how long the phone's instance believes it without news. */
const ANNOUNCE_MS = 1000;
const WATCHERS_EXPIRE_MS = 3500;
/** A frame a watcher has not acknowledged within this long no longer holds back the next. */
const FRAME_ACK_WAIT_MS = 3000;
const INPUT_TIMEOUT_MS = 5000;
const USAGE_TOUCH_MS = 10_000;
const USAGE_STALE_MS = 45_000;
const IDLE_CHECK_MS = 2000;
/** Watchers missing more than this share of frames are slow: the phone lowers its rate and quality. */
const SLOW_SHARE = 0.3;

type LiveSocketData = SocketPerson;
type LiveSocket = Socket<LiveClientToServer, LiveServerToClient, Record<string, never>, LiveSocketData>;
type LiveNamespace = Namespace<LiveClientToServer, LiveServerToClient, Record<string, never>, LiveSocketData>;

interface Watch {
  socket: LiveSocket;
  deviceId: string;
  usageId: Promise<string | null>;
  inFlight: boolean;
  sentAt: number;
}

interface Control {
  usageId: string;
  deviceId: string;
  deviceName: string;
  socket: LiveSocket;
  lastUsedAt: number;
  prompted: boolean;
}

interface HeldPhone {
  phone: LivePhone;
  streaming: boolean;
  /** Frames and bytes passed on in the current second. */
  window: { start: number; frames: number; bytes: number };
  inputs: Promise<unknown>;
}

const NOT_STREAMING = {
  offline: 'This phone is offline. Its screen shows here as soon as its agent connects.',
  gone: 'The phone disconnected. Its screen shows here again when it is back.',
  unable: "This phone's agent cannot stream its screen. Update farm-agent on it to watch it live; its periodic screenshots still come.",
} as const;

export async function attachLive(app: FastifyInstance, io: RealtimeServer, options: { redisUrl?: string | undefined }): Promise<LiveHub> {
  const { db, changes } = app.ctx;
  const idleMs = app.ctx.config.liveControlIdleMs;
  const promptBeforeMs = Math.min(60_000, Math.floor(idleMs / 5));
  const warn = (error: unknown) => app.log.warn({ err: error }, 'live screen');
  const bus: LiveBus = options.redisUrl ? await RedisLiveBus.connect(options.redisUrl, warn) : new LocalLiveBus();
  const me = bus.instanceId;
  const nsp = io.of(LIVE_NAMESPACE) as unknown as LiveNamespace;
  // The server's adapter would keep what is sent to a socket for recovery (in memory, or in the Redis stream with
  // several instances): frames must never be kept, so this namespace has the plain adapter, which only delivers.
  await Promise.resolve(nsp.adapter.close()).catch(() => undefined);
  nsp.adapter = new Adapter(nsp as unknown as ConstructorParameters<typeof Adapter>[0]);

  // ── the watchers' side ────────────────────────────────────────────────────────────────────────────────────
  const watchers = new Map<string, Set<Watch>>();
  const frameSubscriptions = new Map<string, () => void>();
  /** Frames sent and dropped per phone since the last announcement, for "slow". */
  const delivery = new Map<string, { sent: number; dropped: number }>();
  const controls = new Map<string, Control>();
  const pendingInputs = new Map<string, { answer: (answer: LiveAnswer<{ latencyMs: number }>) => void; sentAt: number; timer: NodeJS.Timeout }>();

  // ── the phones' side ──────────────────────────────────────────────────────────────────────────────────────
  const held = new Map<string, HeldPhone>();
  const remoteWatchers = new Map<string, Map<string, { count: number; slow: boolean; at: number }>>();

  nsp.use((socket, next) => {
    const refused = crossSite(app, socket.handshake.headers);
    if (refused) return next(refused);
    personOf(app, socket.handshake.headers.cookie).then(
      (person) => {
        if (person instanceof Error) return next(person);
        socket.data = person;
        next();
      },
      (error: unknown) => next(unavailable(app, error)),
    );
  });

  const refuse = (error: string) => ({ ok: false as const, error });

  nsp.on('connection', (socket: LiveSocket) => {
    const on = <N extends LiveClientMessageName>(name: N, handle: (message: Parameters<LiveClientToServer[N]>[0]) => Promise<LiveAnswer<object>>) => {
      (socket.on as (event: string, listener: (raw: unknown, ack?: (answer: unknown) => void) => void) => void)(name, (raw, ack) => {
        const parsed = liveClientMessages[name].safeParse(raw);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          ack?.(refuse(`${issue?.path.join('.') || name}: ${issue?.message ?? 'is not valid'}`));
          return;
        }
        handle(parsed.data as Parameters<LiveClientToServer[N]>[0]).then(
          (answer) => ack?.(answer),
          (error: unknown) => {
            app.log.warn({ err: error, message: name }, 'live message failed');
            ack?.(refuse('The server could not do that just now; try again'));
          },
        );
      });
    };

    on('live.watch', async ({ deviceId }) => {
      const device = await findLiveDevice(db, socket.data.workspaceId, deviceId);
      if (!device) return refuse('This phone is not in your workspace');
      if (!watchOf(socket, deviceId)) {
        const watch: Watch = { socket, deviceId, usageId: startUsage(db, socket.data, deviceId, 'watch').catch(() => null), inFlight: false, sentAt: 0 };
        let set = watchers.get(deviceId);
        if (!set) {
          set = new Set();
          watchers.set(deviceId, set);
        }
        set.add(watch);
        if (!frameSubscriptions.has(deviceId)) frameSubscriptions.set(deviceId, bus.subscribeFrames(deviceId, deliver));
        announce(deviceId);
      }
      const offline = device.status === 'offline';
      return { ok: true, streaming: !offline, ...(offline ? { reason: NOT_STREAMING.offline } : {}), canControl: mayControl(socket.data, device) };
    });

    on('live.unwatch', async ({ deviceId }) => {
      await unwatch(socket, deviceId, 'stopped watching');
      return { ok: true };
    });

    on('live.control', async ({ deviceId, takeOver }) => {
      if (!watchOf(socket, deviceId)) return refuse("Open the phone's live screen before taking control");
      return take(socket, deviceId, { takeOver: takeOver ?? false });
    });

    on('live.release', async ({ deviceId }) => {
      const control = controls.get(deviceId);
      if (control?.socket === socket) await release(control, 'handed back');
      return { ok: true };
    });

    on('live.input', async ({ deviceId, seq, input }) => {
      const control = controls.get(deviceId);
      if (!control || control.socket !== socket) return refuse('Take control of this phone first');
      control.lastUsedAt = Date.now();
      control.prompted = false;
      const reqId = randomUUID();
      return new Promise<LiveAnswer<{ latencyMs: number }>>((resolve) => {
        const timer = setTimeout(() => {
          pendingInputs.delete(reqId);
          resolve(refuse('The phone did not answer in time. Is it still connected?'));
        }, INPUT_TIMEOUT_MS);
        pendingInputs.set(reqId, { answer: resolve, sentAt: Date.now(), timer });
        bus.signal({ t: 'input', from: me, reqId, deviceId, seq, input });
      });
    });

    on('live.keep', async ({ deviceId }) => {
      const control = controls.get(deviceId);
      if (!control || control.socket !== socket) return refuse('You are not in control of this phone any more');
      control.lastUsedAt = Date.now();
      control.prompted = false;
      return { ok: true };
    });

    on('live.ask', async ({ deviceId }) => {
      if (!watchOf(socket, deviceId)) return refuse("Open the phone's live screen first");
      const current = await db
        .selectFrom('deviceUsage')
        .select(['id'])
        .where('deviceId', '=', deviceId)
        .where('workspaceId', '=', socket.data.workspaceId)
        .where('mode', '=', 'control')
        .where('endedAt', 'is', null)
        .executeTakeFirst();
      if (!current) return refuse('Nobody controls this phone now: take control');
      bus.signal({ t: 'ask', from: me, deviceId, usageId: current.id, userId: socket.data.userId, name: socket.data.name });
      return { ok: true };
    });

    on('live.handover', async ({ deviceId, userId }) => {
      const control = controls.get(deviceId);
      if (!control || control.socket !== socket) return refuse('You are not in control of this phone');
      // Only to an active member of this workspace: a name from elsewhere never reaches the activity feed.
      const to = await db
        .selectFrom('workspaceMembers as m')
        .innerJoin('users as u', 'u.id', 'm.userId')
        .select('u.name')
        .where('m.workspaceId', '=', socket.data.workspaceId)
        .where('m.userId', '=', userId)
        .where('m.deactivatedAt', 'is', null)
        .executeTakeFirst();
      if (!to) return refuse('That person is not a member of this workspace');
      await release(control, `handed over to ${to.name}`, userId);
      return { ok: true };
    });

    socket.on('disconnect', () => {
      for (const [deviceId, set] of watchers) for (const watch of set) if (watch.socket === socket) void unwatch(socket, deviceId, 'disconnected');
    });
  });

  function watchOf(socket: LiveSocket, deviceId: string): Watch | undefined {
    for (const watch of watchers.get(deviceId) ?? []) if (watch.socket === socket) return watch;
    return undefined;
  }

  async function unwatch(socket: LiveSocket, deviceId: string, reason: string): Promise<void> {
    const watch = watchOf(socket, deviceId);
    if (!watch) return;
    const set = watchers.get(deviceId)!;
    set.delete(watch);
    if (set.size === 0) {
      watchers.delete(deviceId);
      frameSubscriptions.get(deviceId)?.();
      frameSubscriptions.delete(deviceId);
    }
    announce(deviceId);
    const control = controls.get(deviceId);
    if (control?.socket === socket) await release(control, reason);
    const usageId = await watch.usageId;
    if (usageId) await endWatches(db, [usageId], reason).catch(warn);
  }

  /** Tells every instance how many watch this phone here (the phone's instance starts or stops its stream). */
  function announce(deviceId: string): void {
    const count = watchers.get(deviceId)?.size ?? 0;
    const counts = delivery.get(deviceId);
    const slow = counts ? counts.dropped > SLOW_SHARE * (counts.sent + counts.dropped) : false;
    delivery.delete(deviceId);
    bus.signal({ t: 'watchers', from: me, deviceId, count, slow });
  }

  /** A frame for this instance's watchers: each gets it unless still busy with the previous one. */
  function deliver(frame: BusFrame): void {
    const now = Date.now();
    let counts = delivery.get(frame.deviceId);
    if (!counts) {
      counts = { sent: 0, dropped: 0 };
      delivery.set(frame.deviceId, counts);
    }
    for (const watch of watchers.get(frame.deviceId) ?? []) {
      if (watch.inFlight && now - watch.sentAt < FRAME_ACK_WAIT_MS) {
        counts.dropped += 1;
        continue;
      }
      counts.sent += 1;
      watch.inFlight = true;
      watch.sentAt = now;
      watch.socket.emit('live.frame', frame, () => {
        watch.inFlight = false;
      });
    }
  }

  async function take(socket: LiveSocket, deviceId: string, how: { takeOver: boolean; handedBy?: string }): Promise<LiveAnswer> {
    const result = await takeControl(db, socket.data, deviceId, how);
    if (!result.ok) return result;
    const previous = controls.get(deviceId);
    if (previous && previous.usageId !== result.usageId && previous.socket !== socket)
      previous.socket.emit('live.released', { deviceId, reason: `${socket.data.name} took over ${result.device.name}` });
    controls.set(deviceId, { usageId: result.usageId, deviceId, deviceName: result.device.name, socket, lastUsedAt: Date.now(), prompted: false });
    bus.signal({ t: 'control', from: me, deviceId, usageId: result.usageId, reason: `${socket.data.name} took over ${result.device.name}` });
    const outbox = new Outbox(socket.data.workspaceId);
    outbox.add('device.updated', serialize(result.device));
    const verb = how.handedBy
      ? `was handed ${result.device.name}`
      : result.replaced && result.replaced.userId !== socket.data.userId
        ? `took over ${result.device.name}`
        : `took control of ${result.device.name}`;
    await recordActivity(
      db,
      { workspaceId: socket.data.workspaceId, userId: socket.data.userId, action: `${socket.data.name} ${verb}`, deviceId, type: 'info' },
      { action: 'device.controlled', entityType: 'device', entityId: deviceId, data: { usageId: result.usageId } },
      outbox,
    );
    outbox.flush(changes);
    return { ok: true };
  }

  /** Ends a control session held here and frees the phone (its tasks go on); `offerTo` is who it is handed to. */
  async function release(control: Control, reason: string, offerTo?: string): Promise<void> {
    if (controls.get(control.deviceId) === control) controls.delete(control.deviceId);
    const freed = await releaseControl(db, control.usageId, reason);
    if (!freed) return;
    announceFreed(
      freed.device,
      `${freed.userName} ${reason === 'idle' ? `was away: ${freed.device.name} was released` : `stopped controlling ${freed.device.name} (${reason})`}`,
      freed.userId,
    );
    bus.signal({ t: 'control', from: me, deviceId: control.deviceId, usageId: null, reason, ...(offerTo ? { offerTo } : {}) });
  }

  function announceFreed(device: DeviceRow, action: string, userId: string | null): void {
    const outbox = new Outbox(device.workspaceId);
    outbox.add('device.updated', serialize(device));
    // Its waiting work may go now.
    outbox.internal('device.wake', { deviceId: device.id });
    void recordActivity(db, { workspaceId: device.workspaceId, userId, action, deviceId: device.id, type: 'info' }, undefined, outbox)
      .catch(warn)
      .finally(() => outbox.flush(changes));
  }

  // ── the phones' side ──────────────────────────────────────────────────────────────────────────────────────

  function watcherCount(deviceId: string): { count: number; slow: boolean } {
    const now = Date.now();
    let count = 0;
    let slow = false;
    for (const entry of remoteWatchers.get(deviceId)?.values() ?? []) {
      if (now - entry.at > WATCHERS_EXPIRE_MS) continue;
      count += entry.count;
      slow ||= entry.slow && entry.count > 0;
    }
    return { count, slow };
  }

  /** Starts or stops the phone's stream to match whether anyone watches it. */
  function reconcile(deviceId: string, tell = false): void {
    const phone = held.get(deviceId);
    if (!phone) return;
    const { count } = watcherCount(deviceId);
    if (count > 0 && !phone.phone.features.has('live')) {
      if (tell) bus.signal({ t: 'status', from: me, deviceId, streaming: false, reason: NOT_STREAMING.unable });
      return;
    }
    if (count > 0 && !phone.streaming) {
      phone.streaming = true;
      phone.phone.start({ ...LIVE_DEFAULTS });
      bus.signal({ t: 'status', from: me, deviceId, streaming: true });
    } else if (count === 0 && phone.streaming) {
      phone.streaming = false;
      phone.phone.stop();
    } else if (tell && count > 0) {
      bus.signal({ t: 'status', from: me, deviceId, streaming: true });
    }
  }

  bus.onSignal((message) => {
    switch (message.t) {
      case 'watchers': {
        let byInstance = remoteWatchers.get(message.deviceId);
        if (!byInstance) {
          byInstance = new Map();
          remoteWatchers.set(message.deviceId, byInstance);
        }
        const before = byInstance.get(message.from)?.count ?? 0;
        if (message.count === 0) byInstance.delete(message.from);
        else byInstance.set(message.from, { count: message.count, slow: message.slow, at: Date.now() });
        if (byInstance.size === 0) remoteWatchers.delete(message.deviceId);
        reconcile(message.deviceId, message.count > before);
        return;
      }
      case 'status':
        for (const watch of watchers.get(message.deviceId) ?? [])
          watch.socket.emit('live.status', { deviceId: message.deviceId, streaming: message.streaming, ...(message.reason ? { reason: message.reason } : {}) });
        return;
      case 'input': {
        const phone = held.get(message.deviceId);
        if (!phone) return;
        const answer = (ok: boolean, error?: string) =>
          bus.signal({ t: 'input.ack', from: me, to: message.from, reqId: message.reqId, ok, ...(error ? { error } : {}) });
        if (!phone.phone.features.has('control'))
          return answer(false, "This phone's agent cannot take input. Update farm-agent on it to control it from here.");
        // One after another, in the order they came.
        phone.inputs = phone.inputs
          .then(() => phone.phone.input({ seq: message.seq, input: message.input }, INPUT_TIMEOUT_MS))
          .then(
            (ack) => answer(ack.ok, ack.ok ? undefined : ack.error),
            () => answer(false, 'The phone did not answer in time. Is it still connected?'),
          );
        return;
      }
      case 'input.ack': {
        if (message.to !== me) return;
        const pending = pendingInputs.get(message.reqId);
        if (!pending) return;
        pendingInputs.delete(message.reqId);
        clearTimeout(pending.timer);
        pending.answer(message.ok ? { ok: true, latencyMs: Date.now() - pending.sentAt } : refuse(message.error ?? 'The phone could not do that'));
        return;
      }
      case 'control': {
        const control = controls.get(message.deviceId);
        if (control && control.usageId !== message.usageId && message.from !== me) {
          controls.delete(message.deviceId);
          control.socket.emit('live.released', { deviceId: message.deviceId, reason: message.reason });
        }
        const offerTo = message.offerTo;
        if (message.usageId === null && offerTo) {
          // Handed to someone watching here: they have it now.
          const watch = [...(watchers.get(message.deviceId) ?? [])].find((candidate) => candidate.socket.data.userId === offerTo);
          if (watch) {
            void take(watch.socket, message.deviceId, { takeOver: false, handedBy: offerTo }).then((answer) => {
              if (!answer.ok) watch.socket.emit('live.released', { deviceId: message.deviceId, reason: answer.error });
            }, warn);
          }
        }
        return;
      }
      case 'ask':
        for (const control of controls.values()) {
          if (control.usageId === message.usageId)
            control.socket.emit('live.asked', { deviceId: message.deviceId, userId: message.userId, name: message.name });
        }
        return;
    }
  });

  // ── timers: announcements, idle control, usage kept alive, sessions of dead instances closed ──────────────
  const timers = [
    setInterval(() => {
      for (const deviceId of watchers.keys()) announce(deviceId);
      for (const deviceId of held.keys()) reconcile(deviceId);
    }, ANNOUNCE_MS),
    setInterval(
      () => {
        const now = Date.now();
        for (const control of [...controls.values()]) {
          const idle = now - control.lastUsedAt;
          if (idle >= idleMs) {
            control.socket.emit('live.released', {
              deviceId: control.deviceId,
              reason: `${control.deviceName} was released after ${spell(idleMs)} without use`,
            });
            void release(control, 'idle').catch(warn);
          } else if (idle >= idleMs - promptBeforeMs && !control.prompted) {
            control.prompted = true;
            control.socket.emit('live.idle', { deviceId: control.deviceId, deviceName: control.deviceName, releaseInMs: idleMs - idle });
          }
        }
      },
      Math.min(IDLE_CHECK_MS, Math.max(250, Math.floor(promptBeforeMs / 4))),
    ),
    setInterval(() => void keepUsage().catch(warn), USAGE_TOUCH_MS),
    setInterval(() => void closeStale().catch(warn), USAGE_STALE_MS / 3),
  ];
  for (const timer of timers) timer.unref();

  /** The usage sessions of this instance's watches (a watch whose row could not be written has none). */
  async function watchUsageIds(): Promise<string[]> {
    const ids = await Promise.all([...watchers.values()].flatMap((set) => [...set].map((watch) => watch.usageId)));
    return ids.filter((id): id is string => id !== null);
  }

  async function keepUsage(): Promise<void> {
    const open = await touchUsage(db, [...(await watchUsageIds()), ...[...controls.values()].map((control) => control.usageId)]);
    for (const control of [...controls.values()]) {
      if (open.has(control.usageId)) continue;
      controls.delete(control.deviceId);
      control.socket.emit('live.released', { deviceId: control.deviceId, reason: `Your control of ${control.deviceName} ended` });
    }
  }

  async function closeStale(): Promise<void> {
    for (const device of await closeStaleUsage(db, USAGE_STALE_MS)) {
      announceFreed(device, `${device.name} was released: its controller's connection was lost`, null);
      bus.signal({ t: 'control', from: me, deviceId: device.id, usageId: null, reason: 'connection lost' });
    }
  }

  // A signed-out session's live screens close with its other sockets.
  const unsubscribe = changes.subscribe((change) => {
    if (change.event !== 'auth.revoked') return;
    const revoked = new Set(change.payload.sessionIds);
    for (const socket of nsp.sockets.values()) if (revoked.has(socket.data.sessionId)) socket.disconnect(true);
  });

  return {
    phoneReady(phone) {
      held.set(phone.deviceId, { phone, streaming: false, window: { start: 0, frames: 0, bytes: 0 }, inputs: Promise.resolve() });
      reconcile(phone.deviceId, true);
    },
    phoneGone(deviceId, socketId) {
      const phone = held.get(deviceId);
      if (!phone || phone.phone.socketId !== socketId) return;
      held.delete(deviceId);
      if (watcherCount(deviceId).count > 0) bus.signal({ t: 'status', from: me, deviceId, streaming: false, reason: NOT_STREAMING.gone });
    },
    frame(deviceId, frame) {
      const phone = held.get(deviceId);
      if (!phone?.streaming) {
        phone?.phone.stop();
        return { ok: false, error: 'Nobody watches this phone now: stop streaming' };
      }
      const now = Date.now();
      if (now - phone.window.start >= 1000) phone.window = { start: now, frames: 0, bytes: 0 };
      const { slow } = watcherCount(deviceId);
      // The stream's own budget: what is over it is dropped here, and the phone is told to ease off.
      if (phone.window.frames >= MAX_LIVE_FPS || phone.window.bytes + frame.data.byteLength > MAX_LIVE_BYTES_PER_SECOND)
        return { ok: true, dropped: true, slow: true };
      phone.window.frames += 1;
      phone.window.bytes += frame.data.byteLength;
      const data = Buffer.isBuffer(frame.data) ? frame.data : Buffer.from(frame.data.buffer, frame.data.byteOffset, frame.data.byteLength);
      const { mime: _mime, data: _bytes, ...facts } = frame;
      bus.publishFrame({ ...facts, deviceId, data });
      return { ok: true, slow };
    },
    async close() {
      for (const timer of timers) clearInterval(timer);
      unsubscribe();
      for (const control of [...controls.values()]) await release(control, 'server stopped').catch(warn);
      await endWatches(db, await watchUsageIds(), 'server stopped').catch(warn);
      for (const deviceId of watchers.keys()) bus.signal({ t: 'watchers', from: me, deviceId, count: 0, slow: false });
      watchers.clear();
      for (const pending of pendingInputs.values()) clearTimeout(pending.timer);
      await new Promise((resolve) => setTimeout(resolve, 20));
      await bus.close();
    },
  };
}

/** 15 minutes, 1 minute, 30 seconds. */
function spell(ms: number): string {
  const unit = ms >= 60_000 ? { size: 60_000, name: 'minute' } : { size: 1000, name: 'second' };
  const count = Math.round(ms / unit.size);
  return `${count} ${unit.name}${count === 1 ? '' : 's'}`;
}
