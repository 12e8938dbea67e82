/**
 * Live screens and remote control. Browsers watch on the `/live` namespace; the instance holding a phone's agent
 * asks it to stream while anyone anywhere watches, passes its frames on the live bus (never the console's event
 * stream), and stops it within a moment of the last watcher leaving. Each watcher gets a frame only once it has
 * acknowledged the previous one: a slow viewer gets fewer frames, never late ones, and the phone is told to ease off.
 *
 * One person controls a phone at a time (the database says who); their inputs go to the phone in order and each is
 * answered with its latency. Every watch and control is a usage session; control left unused is released after a
 * prompt; sessions of an instance that died are closed by the others.
 *
 * `attachLive` opens the namespace; `LiveScreens` holds this instance's state (who watches and controls here, the
 * phones held here, what the other instances said) with one named handler per browser message, bus signal and timer.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Namespace, Socket } from 'socket.io';
import { Adapter } from 'socket.io-adapter';
import {
  type Ack,
  KeyFrameCache,
  LIVE_DEFAULTS,
  type LiveFrame,
  type LiveStreamName,
  type LiveVideo,
  type LiveVideoStream,
  MAX_LIVE_BYTES_PER_SECOND,
  MAX_LIVE_FPS,
  MAX_VIDEO_BYTES_PER_SECOND,
  recordedTarget,
  type RecordedTarget,
  uiCaptureSchema,
  type UiCapture,
} from '@farm/agent-protocol';
import { serialize, type DeviceRow } from '@farm/sql';
import { Outbox, recordActivity } from '@farm/workers';
import {
  LIVE_NAMESPACE,
  liveClientMessages,
  type LiveAnswer,
  type LiveCaptureOut,
  type LiveInputAnswer,
  type LiveWatchAnswer,
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
import type { ChangeFeed } from '../events/changes.ts';
import type { Db } from '../shared/types.ts';
import { LocalLiveBus, RedisLiveBus, type BusFrame, type BusJpeg, type BusVideo, type LiveBus, type LiveSignal } from './live.bus.ts';
import { LiveRules, type LiveHoldings } from './live.rules.ts';
import type { LiveHub, LivePhone, RealtimeServer } from '../shared/sockets.types.ts';
import { crossSite, personOf, unavailable, type SocketPerson } from './handshake.ts';

/** How often an instance repeats who watches here, and how long the phone's instance believes it without news. */
const ANNOUNCE_MS = 1000;
const WATCHERS_EXPIRE_MS = 3500;
/** A frame a watcher has not acknowledged within this long no longer holds back the next. */
const FRAME_ACK_WAIT_MS = 3000;
const INPUT_TIMEOUT_MS = 5000;
/** A UI tree read can take seconds (`uiautomator dump` about 2.5 s); the capture waits this long. */
const CAPTURE_TIMEOUT_MS = 20_000;
const USAGE_TOUCH_MS = 10_000;
const USAGE_STALE_MS = 45_000;
const IDLE_CHECK_MS = 2000;
/** Watchers missing more than this share of frames are slow: the phone lowers its rate and quality. */
const SLOW_SHARE = 0.3;
/** An H.264 stream with no packet for this long is not running (a watcher follows the other one, or JPEG). */
const VIDEO_STALE_MS = 2500;
/** A watcher with this many bytes unacknowledged, or its oldest packet unacknowledged this long, is behind. */
const VIDEO_BACKLOG_BYTES = 1024 * 1024;
const VIDEO_ACK_WAIT_MS = 1500;
/** Unacknowledged this long, a packet's ack is taken as lost (the watcher starts again at a key frame). */
const VIDEO_ACK_LOST_MS = 10_000;
/** A phone is asked for a key frame at most this often per stream. */
const KEY_FRAME_EVERY_MS = 500;

type LiveSocketData = SocketPerson;
type LiveSocket = Socket<LiveClientToServer, LiveServerToClient, Record<string, never>, LiveSocketData>;
type LiveNamespace = Namespace<LiveClientToServer, LiveServerToClient, Record<string, never>, LiveSocketData>;

/** One kind of signal on the live bus. */
type Signal<T extends LiveSignal['t']> = Extract<LiveSignal, { t: T }>;

interface Watch {
  socket: LiveSocket;
  deviceId: string;
  usageId: Promise<string | null>;
  inFlight: boolean;
  sentAt: number;
  /** The browser decodes H.264: it is sent packets while the phone streams them. */
  h264: boolean;
  video: WatchVideo;
}

/** Where an H.264 watcher is: the stream it follows, whether it waits for a key frame, what it has not acknowledged. */
interface WatchVideo {
  follow: LiveVideoStream | null;
  waitingKey: boolean;
  unacked: number;
  /** When each unacknowledged packet was sent, oldest first (acks come in order). */
  sentAt: number[];
  /** Bumped when the backlog is given up, so late acks of before do not count. */
  generation: number;
}

/** A phone's H.264 streams as this instance's watchers receive them: each one's last group of pictures and pace. */
interface DeviceVideo {
  caches: Record<LiveVideoStream, KeyFrameCache<BusVideo>>;
  lastAt: Record<LiveVideoStream, number>;
  lastSeq: Record<LiveVideoStream, number>;
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
  /** The streams asked of an H.264 agent (`control`, `watch`, `jpeg`). */
  streams: Set<LiveStreamName>;
  /** Bytes of each H.264 stream passed on in the current second. */
  videoWindow: Record<LiveVideoStream, { start: number; bytes: number }>;
  keyFrameAskedAt: Record<LiveVideoStream, number>;
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
  const warn = (error: unknown) => app.log.warn({ err: error }, 'live screen');
  const bus: LiveBus = options.redisUrl ? await RedisLiveBus.connect(options.redisUrl, warn) : new LocalLiveBus();
  const nsp = io.of(LIVE_NAMESPACE) as unknown as LiveNamespace;
  // The server's adapter would keep what is sent to a socket for recovery (in memory, or in the Redis stream with
  // several instances): frames must never be kept, so this namespace has the plain adapter, which only delivers.
  await Promise.resolve(nsp.adapter.close()).catch(() => undefined);
  nsp.adapter = new Adapter(nsp as unknown as ConstructorParameters<typeof Adapter>[0]);
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
  return new LiveScreens(nsp, bus, app.ctx.db, app.ctx.changes, app.ctx.config.liveControlIdleMs, app.log);
}

const refuse = (error: string) => ({ ok: false as const, error });

/** A browser's live message, as its handler takes it. */
type Message<N extends LiveClientMessageName> = Parameters<LiveClientToServer[N]>[0];

/**
 * This instance's live screens: the watchers and controllers connected here (the watchers' side), the phones whose
 * agents are connected here (the phones' side), and what each hears of the others on the live bus. Each browser
 * message, bus signal and timer has its named handler.
 */
class LiveScreens implements LiveHub {
  private readonly me: string;
  private readonly promptBeforeMs: number;
  private readonly warn: (error: unknown) => void;
  private readonly timers: NodeJS.Timeout[];
  private readonly rules: LiveRules<LiveSocket>;

  // ── the watchers' side ──
  private readonly watchers = new Map<string, Set<Watch>>();
  private readonly frameSubscriptions = new Map<string, () => void>();
  /** Frames sent and dropped per phone since the last announcement, for "slow". */
  private readonly delivery = new Map<string, { sent: number; dropped: number }>();
  private readonly videos = new Map<string, DeviceVideo>();
  private readonly controls = new Map<string, Control>();
  private readonly pendingInputs = new Map<string, { answer: (answer: LiveAnswer<LiveInputAnswer>) => void; sentAt: number; timer: NodeJS.Timeout }>();
  private readonly pendingCaptures = new Map<string, { answer: (answer: LiveAnswer<{ capture: LiveCaptureOut }>) => void; timer: NodeJS.Timeout }>();

  // ── the phones' side ──
  private readonly held = new Map<string, HeldPhone>();
  private readonly remoteWatchers = new Map<string, Map<string, { count: number; slow: boolean; h264: number; controlling: boolean; at: number }>>();

  constructor(
    nsp: LiveNamespace,
    private readonly bus: LiveBus,
    private readonly db: Db,
    private readonly changes: ChangeFeed,
    private readonly idleMs: number,
    log: FastifyBaseLogger,
  ) {
    this.me = bus.instanceId;
    this.promptBeforeMs = Math.min(60_000, Math.floor(idleMs / 5));
    this.warn = (error) => log.warn({ err: error }, 'live screen');
    nsp.on('connection', (socket: LiveSocket) => this.connect(socket, log));
    bus.onSignal((message) => this.heard(message));
    this.timers = [
      setInterval(() => this.announceAll(), ANNOUNCE_MS),
      setInterval(() => this.checkIdle(), Math.min(IDLE_CHECK_MS, Math.max(250, Math.floor(this.promptBeforeMs / 4)))),
      setInterval(() => void this.keepUsage().catch(this.warn), USAGE_TOUCH_MS),
      setInterval(() => void this.closeStale().catch(this.warn), USAGE_STALE_MS / 3),
    ];
    for (const timer of this.timers) timer.unref();
    // A signed-out session's live screens close with its other sockets; lost rights end controls and watches.
    this.rules = new LiveRules(db, bus, changes, this.holdings(nsp), this.warn);
  }

  // ── a browser's socket: each message parsed with its schema and answered by its handler ──────────────────

  private connect(socket: LiveSocket, log: FastifyBaseLogger): void {
    const on = <N extends LiveClientMessageName>(name: N, handle: (socket: LiveSocket, message: Message<N>) => Promise<LiveAnswer<object>>) => {
      (socket.on as (event: string, listener: (raw: unknown, ack?: (answer: unknown) => void) => void) => void)(name, (raw, ack) => {
        const parsed = liveClientMessages[name].safeParse(raw);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          ack?.(refuse(`${issue?.path.join('.') || name}: ${issue?.message ?? 'is not valid'}`));
          return;
        }
        handle(socket, parsed.data as Message<N>).then(
          (answer) => ack?.(answer),
          (error: unknown) => {
            log.warn({ err: error, message: name }, 'live message failed');
            ack?.(refuse('The server could not do that just now; try again'));
          },
        );
      });
    };
    on('live.watch', (from, message) => this.onWatch(from, message));
    on('live.unwatch', (from, message) => this.onUnwatch(from, message));
    on('live.control', (from, message) => this.onControl(from, message));
    on('live.release', (from, message) => this.onRelease(from, message));
    on('live.input', (from, message) => this.onInput(from, message));
    on('live.keep', (from, message) => this.onKeep(from, message));
    on('live.ask', (from, message) => this.onAsk(from, message));
    on('live.handover', (from, message) => this.onHandover(from, message));
    on('live.inspect', (from, message) => this.onInspect(from, message));
    socket.on('disconnect', () => {
      for (const [deviceId, set] of this.watchers) for (const watch of set) if (watch.socket === socket) void this.unwatch(socket, deviceId, 'disconnected');
    });
  }

  private async onWatch(socket: LiveSocket, { deviceId, h264 }: Message<'live.watch'>): Promise<LiveAnswer<LiveWatchAnswer>> {
    const device = await findLiveDevice(this.db, socket.data.workspaceId, deviceId);
    if (!device) return refuse('This phone is not in your workspace');
    if (!this.watchOf(socket, deviceId)) {
      const watch: Watch = {
        socket,
        deviceId,
        usageId: startUsage(this.db, socket.data, deviceId, 'watch').catch(() => null),
        inFlight: false,
        sentAt: 0,
        h264: h264 === true,
        video: { follow: null, waitingKey: true, unacked: 0, sentAt: [], generation: 0 },
      };
      let set = this.watchers.get(deviceId);
      if (!set) {
        set = new Set();
        this.watchers.set(deviceId, set);
      }
      set.add(watch);
      if (!this.frameSubscriptions.has(deviceId))
        this.frameSubscriptions.set(
          deviceId,
          this.bus.subscribeFrames(deviceId, (frame) => this.deliver(frame)),
        );
      this.announce(deviceId);
      // A late H.264 watcher starts at once: the current group of pictures now, and a fresh key frame asked for.
      if (watch.h264) this.startVideo(watch);
    }
    const offline = device.status === 'offline';
    return { ok: true, streaming: !offline, ...(offline ? { reason: NOT_STREAMING.offline } : {}), canControl: mayControl(socket.data, device) };
  }

  private async onUnwatch(socket: LiveSocket, { deviceId }: Message<'live.unwatch'>): Promise<LiveAnswer> {
    await this.unwatch(socket, deviceId, 'stopped watching');
    return { ok: true };
  }

  private async onControl(socket: LiveSocket, { deviceId, takeOver }: Message<'live.control'>): Promise<LiveAnswer> {
    if (!this.watchOf(socket, deviceId)) return refuse("Open the phone's live screen before taking control");
    return this.take(socket, deviceId, { takeOver: takeOver ?? false });
  }

  private async onRelease(socket: LiveSocket, { deviceId }: Message<'live.release'>): Promise<LiveAnswer> {
    const control = this.controls.get(deviceId);
    if (control?.socket === socket) await this.release(control, 'handed back');
    return { ok: true };
  }

  private async onInput(socket: LiveSocket, { deviceId, seq, input, record }: Message<'live.input'>): Promise<LiveAnswer<LiveInputAnswer>> {
    const control = this.controls.get(deviceId);
    if (!control || control.socket !== socket) return refuse('Take control of this phone first');
    control.lastUsedAt = Date.now();
    control.prompted = false;
    const reqId = randomUUID();
    return new Promise<LiveAnswer<LiveInputAnswer>>((resolve) => {
      const timer = setTimeout(() => {
        this.pendingInputs.delete(reqId);
        resolve(refuse('The phone did not answer in time. Is it still connected?'));
      }, INPUT_TIMEOUT_MS);
      this.pendingInputs.set(reqId, { answer: resolve, sentAt: Date.now(), timer });
      this.bus.signal({ t: 'input', from: this.me, reqId, deviceId, seq, input, ...(record ? { record: true } : {}) });
    });
  }

  private async onKeep(socket: LiveSocket, { deviceId }: Message<'live.keep'>): Promise<LiveAnswer> {
    // The rules are checked again before control is kept: a right lost since ends it here.
    if (this.controls.get(deviceId)?.socket === socket) await this.rules.check(socket.data.workspaceId);
    const control = this.controls.get(deviceId);
    if (!control || control.socket !== socket) return refuse('You are not in control of this phone any more');
    control.lastUsedAt = Date.now();
    control.prompted = false;
    return { ok: true };
  }

  private async onAsk(socket: LiveSocket, { deviceId }: Message<'live.ask'>): Promise<LiveAnswer> {
    if (!this.watchOf(socket, deviceId)) return refuse("Open the phone's live screen first");
    const current = await this.db
      .selectFrom('deviceUsage')
      .select(['id'])
      .where('deviceId', '=', deviceId)
      .where('workspaceId', '=', socket.data.workspaceId)
      .where('mode', '=', 'control')
      .where('endedAt', 'is', null)
      .executeTakeFirst();
    if (!current) return refuse('Nobody controls this phone now: take control');
    this.bus.signal({ t: 'ask', from: this.me, deviceId, usageId: current.id, userId: socket.data.userId, name: socket.data.name });
    return { ok: true };
  }

  private async onHandover(socket: LiveSocket, { deviceId, userId }: Message<'live.handover'>): Promise<LiveAnswer> {
    const control = this.controls.get(deviceId);
    if (!control || control.socket !== socket) return refuse('You are not in control of this phone');
    // Only to an active member of this workspace: a name from elsewhere never reaches the activity feed.
    const to = await this.db
      .selectFrom('workspaceMembers as m')
      .innerJoin('users as u', 'u.id', 'm.userId')
      .select('u.name')
      .where('m.workspaceId', '=', socket.data.workspaceId)
      .where('m.userId', '=', userId)
      .where('m.deactivatedAt', 'is', null)
      .executeTakeFirst();
    if (!to) return refuse('That person is not a member of this workspace');
    await this.release(control, `handed over to ${to.name}`, userId);
    return { ok: true };
  }

  /** The screen's UI tree and frame, for whoever may control the phone (a VA: the phones assigned to them). */
  private async onInspect(socket: LiveSocket, { deviceId }: Message<'live.inspect'>): Promise<LiveAnswer<{ capture: LiveCaptureOut }>> {
    if (!this.watchOf(socket, deviceId)) return refuse("Open the phone's live screen before inspecting it");
    const device = await findLiveDevice(this.db, socket.data.workspaceId, deviceId);
    if (!device) return refuse('This phone is not in your workspace');
    if (!mayControl(socket.data, device)) return refuse('Only operators and the VA this phone is assigned to may inspect it');
    const reqId = randomUUID();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pendingCaptures.delete(reqId);
        resolve(refuse('The phone did not send its screen in time. Is it still connected?'));
      }, CAPTURE_TIMEOUT_MS + 1000);
      this.pendingCaptures.set(reqId, { answer: resolve, timer });
      this.bus.signal({ t: 'inspect', from: this.me, reqId, deviceId });
    });
  }

  // ── watching and controlling ─────────────────────────────────────────────────────────────────────────────

  private watchOf(socket: LiveSocket, deviceId: string): Watch | undefined {
    for (const watch of this.watchers.get(deviceId) ?? []) if (watch.socket === socket) return watch;
    return undefined;
  }

  private async unwatch(socket: LiveSocket, deviceId: string, reason: string): Promise<void> {
    const watch = this.watchOf(socket, deviceId);
    if (!watch) return;
    const set = this.watchers.get(deviceId)!;
    set.delete(watch);
    if (set.size === 0) {
      this.watchers.delete(deviceId);
      this.videos.delete(deviceId);
      this.frameSubscriptions.get(deviceId)?.();
      this.frameSubscriptions.delete(deviceId);
    }
    this.announce(deviceId);
    const control = this.controls.get(deviceId);
    if (control?.socket === socket) await this.release(control, reason);
    const usageId = await watch.usageId;
    if (usageId) await endWatches(this.db, [usageId], reason).catch(this.warn);
  }

  /** Tells every instance how many watch this phone here (the phone's instance starts or stops its stream). */
  private announce(deviceId: string): void {
    const watches = [...(this.watchers.get(deviceId) ?? [])];
    const counts = this.delivery.get(deviceId);
    const slow = counts ? counts.dropped > SLOW_SHARE * (counts.sent + counts.dropped) : false;
    this.delivery.delete(deviceId);
    const control = this.controls.get(deviceId);
    this.bus.signal({
      t: 'watchers',
      from: this.me,
      deviceId,
      count: watches.length,
      slow,
      h264: watches.filter((watch) => watch.h264).length,
      controlling: control !== undefined && watches.some((watch) => watch.h264 && watch.socket === control.socket),
    });
  }

  private deliver(frame: BusFrame): void {
    if (frame.codec === 'h264') this.deliverVideo(frame);
    else this.deliverJpeg(frame);
  }

  /** A frame for this instance's watchers: each gets it unless still busy with the previous one (or on H.264 now). */
  private deliverJpeg(frame: BusJpeg): void {
    const now = Date.now();
    let counts = this.delivery.get(frame.deviceId);
    if (!counts) {
      counts = { sent: 0, dropped: 0 };
      this.delivery.set(frame.deviceId, counts);
    }
    const video = this.videos.get(frame.deviceId);
    const onVideo = video !== undefined && (now - video.lastAt.control < VIDEO_STALE_MS || now - video.lastAt.watch < VIDEO_STALE_MS);
    for (const watch of this.watchers.get(frame.deviceId) ?? []) {
      if (watch.h264 && onVideo) continue;
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

  private videoOf(deviceId: string): DeviceVideo {
    let video = this.videos.get(deviceId);
    if (!video) {
      video = {
        caches: { control: new KeyFrameCache<BusVideo>(), watch: new KeyFrameCache<BusVideo>() },
        lastAt: { control: 0, watch: 0 },
        lastSeq: { control: 0, watch: 0 },
      };
      this.videos.set(deviceId, video);
    }
    return video;
  }

  /**
   * The stream a watcher is shown: `control` for whoever controls the phone, `watch` for the others, or whichever of
   * the two runs when the phone serves only one (its encoder refused a second session); null while neither runs.
   */
  private streamFor(watch: Watch, video: DeviceVideo, now: number): LiveVideoStream | null {
    const preferred: LiveVideoStream = this.controls.get(watch.deviceId)?.socket === watch.socket ? 'control' : 'watch';
    const other: LiveVideoStream = preferred === 'control' ? 'watch' : 'control';
    if (now - video.lastAt[preferred] < VIDEO_STALE_MS) return preferred;
    if (now - video.lastAt[other] < VIDEO_STALE_MS) return other;
    return null;
  }

  /** An H.264 watcher joined (or control moved to or from it): its stream's configuration and pictures so far. */
  private startVideo(watch: Watch): void {
    const video = this.videoOf(watch.deviceId);
    const stream = this.streamFor(watch, video, Date.now());
    if (stream) this.follow(watch, stream, video);
    else
      this.bus.signal({
        t: 'keyframe',
        from: this.me,
        deviceId: watch.deviceId,
        stream: this.controls.get(watch.deviceId)?.socket === watch.socket ? 'control' : 'watch',
      });
  }

  /** Moves a watcher onto a stream: it starts at that stream's last key frame (sent now) or waits for the next. */
  private follow(watch: Watch, stream: LiveVideoStream, video: DeviceVideo): void {
    watch.video.follow = stream;
    watch.video.waitingKey = true;
    for (const packet of video.caches[stream].snapshot()) this.sendVideo(watch, packet);
    this.bus.signal({ t: 'keyframe', from: this.me, deviceId: watch.deviceId, stream });
  }

  /** A packet for this instance's H.264 watchers, in order; a gap in its stream sends them to the next key frame. */
  private deliverVideo(packet: BusVideo): void {
    const now = Date.now();
    const video = this.videoOf(packet.deviceId);
    const gap = video.lastSeq[packet.stream] > 0 && packet.seq !== video.lastSeq[packet.stream] + 1;
    video.lastSeq[packet.stream] = packet.seq;
    video.lastAt[packet.stream] = now;
    video.caches[packet.stream].add(packet);
    for (const watch of this.watchers.get(packet.deviceId) ?? []) {
      if (!watch.h264) continue;
      const stream = this.streamFor(watch, video, now);
      if (!stream) continue;
      // Switched streams: the snapshot holds this packet already when it belongs to the group of pictures.
      if (watch.video.follow !== stream) {
        this.follow(watch, stream, video);
        continue;
      }
      if (packet.stream !== stream) continue;
      if (gap) watch.video.waitingKey = true;
      this.sendVideo(watch, packet);
    }
  }

  /** Sends a packet unless the watcher is behind: then it skips pictures until the next key frame, never queueing them. */
  private sendVideo(watch: Watch, packet: BusVideo): void {
    const state = watch.video;
    const now = Date.now();
    const oldest = state.sentAt[0];
    if (oldest !== undefined && now - oldest > VIDEO_ACK_LOST_MS) {
      state.generation += 1;
      state.unacked = 0;
      state.sentAt = [];
      state.waitingKey = true;
    } else if (oldest !== undefined && (state.unacked > VIDEO_BACKLOG_BYTES || now - oldest > VIDEO_ACK_WAIT_MS)) {
      state.waitingKey = true;
      this.countDelivery(watch.deviceId, false);
      return;
    }
    if (state.waitingKey && !packet.config) {
      if (!packet.keyFrame) {
        this.countDelivery(watch.deviceId, false);
        return;
      }
      state.waitingKey = false;
    }
    this.countDelivery(watch.deviceId, true);
    const bytes = packet.data.byteLength;
    const generation = state.generation;
    state.unacked += bytes;
    state.sentAt.push(now);
    watch.socket.emit('live.video', packet, () => {
      if (state.generation !== generation) return;
      state.unacked = Math.max(0, state.unacked - bytes);
      state.sentAt.shift();
    });
  }

  private countDelivery(deviceId: string, sent: boolean): void {
    let counts = this.delivery.get(deviceId);
    if (!counts) {
      counts = { sent: 0, dropped: 0 };
      this.delivery.set(deviceId, counts);
    }
    if (sent) counts.sent += 1;
    else counts.dropped += 1;
  }

  /** Control moved to or from someone watching here: the streams wanted change, and their watchers follow. */
  private controlMoved(deviceId: string): void {
    this.announce(deviceId);
    for (const watch of this.watchers.get(deviceId) ?? []) if (watch.h264) this.startVideo(watch);
  }

  private async take(socket: LiveSocket, deviceId: string, how: { takeOver: boolean; handedBy?: string }): Promise<LiveAnswer> {
    const result = await takeControl(this.db, socket.data, deviceId, how);
    if (!result.ok) return result;
    const previous = this.controls.get(deviceId);
    if (previous && previous.usageId !== result.usageId && previous.socket !== socket)
      previous.socket.emit('live.released', { deviceId, reason: `${socket.data.name} took over ${result.device.name}` });
    this.controls.set(deviceId, { usageId: result.usageId, deviceId, deviceName: result.device.name, socket, lastUsedAt: Date.now(), prompted: false });
    this.controlMoved(deviceId);
    this.bus.signal({ t: 'control', from: this.me, deviceId, usageId: result.usageId, reason: `${socket.data.name} took over ${result.device.name}` });
    const outbox = new Outbox(socket.data.workspaceId);
    outbox.add('device.updated', serialize(result.device));
    const verb = how.handedBy
      ? `was handed ${result.device.name}`
      : result.replaced && result.replaced.userId !== socket.data.userId
        ? `took over ${result.device.name}`
        : `took control of ${result.device.name}`;
    await recordActivity(
      this.db,
      { workspaceId: socket.data.workspaceId, userId: socket.data.userId, action: `${socket.data.name} ${verb}`, deviceId, type: 'info' },
      { action: 'device.controlled', entityType: 'device', entityId: deviceId, data: { usageId: result.usageId } },
      outbox,
    );
    outbox.flush(this.changes);
    return { ok: true };
  }

  /** Ends a control session held here and frees the phone (its tasks go on); `offerTo` is who it is handed to. */
  private async release(control: Control, reason: string, offerTo?: string): Promise<void> {
    if (this.controls.get(control.deviceId) === control) {
      this.controls.delete(control.deviceId);
      this.controlMoved(control.deviceId);
    }
    const freed = await releaseControl(this.db, control.usageId, reason);
    if (!freed) return;
    this.announceFreed(
      freed.device,
      `${freed.userName} ${reason === 'idle' ? `was away: ${freed.device.name} was released` : `stopped controlling ${freed.device.name} (${reason})`}`,
      freed.userId,
    );
    this.bus.signal({ t: 'control', from: this.me, deviceId: control.deviceId, usageId: null, reason, ...(offerTo ? { offerTo } : {}) });
  }

  private announceFreed(device: DeviceRow, action: string, userId: string | null): void {
    const outbox = new Outbox(device.workspaceId);
    outbox.add('device.updated', serialize(device));
    // Its waiting work may go now (a wake: the dispatch triggers are named in agents/dispatcher.ts).
    outbox.internal('device.wake', { deviceId: device.id });
    void recordActivity(this.db, { workspaceId: device.workspaceId, userId, action, deviceId: device.id, type: 'info' }, undefined, outbox)
      .catch(this.warn)
      .finally(() => outbox.flush(this.changes));
  }

  // ── the phones connected here ────────────────────────────────────────────────────────────────────────────

  private watcherCount(deviceId: string): { count: number; slow: boolean; h264: number; controlling: boolean } {
    const now = Date.now();
    let count = 0;
    let slow = false;
    let h264 = 0;
    let controlling = false;
    for (const entry of this.remoteWatchers.get(deviceId)?.values() ?? []) {
      if (now - entry.at > WATCHERS_EXPIRE_MS) continue;
      count += entry.count;
      slow ||= entry.slow && entry.count > 0;
      h264 += entry.h264;
      controlling ||= entry.controlling;
    }
    return { count, slow, h264, controlling };
  }

  /** Starts or stops the phone's stream to match whether anyone watches it. */
  private reconcile(deviceId: string, tell = false): void {
    const phone = this.held.get(deviceId);
    if (!phone) return;
    const { count, h264, controlling } = this.watcherCount(deviceId);
    if (count > 0 && !phone.phone.features.has('live') && !phone.phone.features.has('h264')) {
      if (tell) this.bus.signal({ t: 'status', from: this.me, deviceId, streaming: false, reason: NOT_STREAMING.unable });
      return;
    }
    if (phone.phone.features.has('h264')) {
      this.reconcileStreams(phone, { count, h264, controlling }, tell);
      return;
    }
    if (count > 0 && !phone.streaming) {
      phone.streaming = true;
      phone.phone.start({ ...LIVE_DEFAULTS });
      this.bus.signal({ t: 'status', from: this.me, deviceId, streaming: true });
    } else if (count === 0 && phone.streaming) {
      phone.streaming = false;
      phone.phone.stop();
    } else if (tell && count > 0) {
      this.bus.signal({ t: 'status', from: this.me, deviceId, streaming: true });
    }
  }

  /**
   * An H.264 agent's streams: `control` while someone who decodes H.264 controls it, `watch` for the other H.264
   * watchers, JPEG frames for watchers whose browser cannot decode it. The agent serves JPEG by itself when it cannot
   * start H.264 at all.
   */
  private reconcileStreams(phone: HeldPhone, watching: { count: number; h264: number; controlling: boolean }, tell: boolean): void {
    const want = new Set<LiveStreamName>();
    if (watching.count > 0) {
      if (watching.controlling) want.add('control');
      if (watching.h264 - (watching.controlling ? 1 : 0) > 0) want.add('watch');
      if (watching.count > watching.h264) want.add('jpeg');
    }
    if (want.size === 0) {
      if (phone.streaming) {
        phone.streaming = false;
        phone.streams.clear();
        phone.phone.stop();
      }
      return;
    }
    const started = !phone.streaming;
    for (const stream of phone.streams) {
      if (want.has(stream)) continue;
      phone.streams.delete(stream);
      phone.phone.stop(stream);
    }
    for (const stream of want) {
      if (phone.streams.has(stream)) continue;
      phone.streams.add(stream);
      phone.phone.start(stream === 'jpeg' ? { ...LIVE_DEFAULTS } : { ...LIVE_DEFAULTS, codec: 'h264', stream });
    }
    phone.streaming = true;
    if (started || tell) this.bus.signal({ t: 'status', from: this.me, deviceId: phone.phone.deviceId, streaming: true });
  }

  // ── what the other instances say on the live bus ─────────────────────────────────────────────────────────

  private heard(message: LiveSignal): void {
    switch (message.t) {
      case 'watchers':
        this.heardWatchers(message);
        return;
      case 'status':
        this.heardStatus(message);
        return;
      case 'input':
        this.heardInput(message);
        return;
      case 'input.ack':
        this.heardInputAck(message);
        return;
      case 'control':
        this.heardControl(message);
        return;
      case 'ask':
        this.heardAsk(message);
        return;
      case 'keyframe':
        this.heardKeyFrame(message);
        return;
      case 'inspect':
        this.heardInspect(message);
        return;
      case 'inspect.result':
        this.heardInspectResult(message);
        return;
      case 'rules':
        // Heard by live.rules.ts, which ends what no longer passes the rules.
        return;
    }
  }

  /** How many watch a phone on another instance (or this one): a phone held here starts or stops streaming. */
  private heardWatchers(message: Signal<'watchers'>): void {
    let byInstance = this.remoteWatchers.get(message.deviceId);
    if (!byInstance) {
      byInstance = new Map();
      this.remoteWatchers.set(message.deviceId, byInstance);
    }
    const before = byInstance.get(message.from)?.count ?? 0;
    if (message.count === 0) byInstance.delete(message.from);
    else
      byInstance.set(message.from, {
        count: message.count,
        slow: message.slow,
        h264: message.h264 ?? 0,
        controlling: message.controlling ?? false,
        at: Date.now(),
      });
    if (byInstance.size === 0) this.remoteWatchers.delete(message.deviceId);
    this.reconcile(message.deviceId, message.count > before);
  }

  /** A capture asked of a phone held here: read through its agent, checked, and answered to the asking instance. */
  private heardInspect(message: Signal<'inspect'>): void {
    const phone = this.held.get(message.deviceId);
    if (!phone) return;
    const answer = (result: { ok: true; capture: unknown } | { ok: false; error: string }) =>
      this.bus.signal({ t: 'inspect.result', from: this.me, to: message.from, reqId: message.reqId, ...result });
    if (!phone.phone.features.has('inspect')) {
      answer({ ok: false, error: "This phone's agent cannot be inspected. Update farm-agent on it to use Inspect." });
      return;
    }
    phone.phone.capture(CAPTURE_TIMEOUT_MS).then(
      (ack) => {
        if (!ack.ok) return answer({ ok: false, error: ack.error });
        const parsed = uiCaptureSchema.safeParse((ack as { capture?: unknown }).capture);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          return answer({
            ok: false,
            error: `The phone sent a screen that cannot be read: ${issue?.path.join('.') || 'capture'}: ${issue?.message ?? 'not valid'}`,
          });
        }
        const { frame, ...rest } = parsed.data;
        answer({ ok: true, capture: { ...rest, frame: { ...frame, data: Buffer.from(frame.data).toString('base64') } } });
      },
      () => answer({ ok: false, error: 'The phone did not send its screen in time. Is it still connected?' }),
    );
  }

  private heardInspectResult(message: Signal<'inspect.result'>): void {
    if (message.to !== this.me) return;
    const pending = this.pendingCaptures.get(message.reqId);
    if (!pending) return;
    this.pendingCaptures.delete(message.reqId);
    clearTimeout(pending.timer);
    if (!message.ok) {
      pending.answer(refuse(message.error ?? 'The phone could not read its screen'));
      return;
    }
    const capture = message.capture as Omit<UiCapture, 'frame'> & { frame: Omit<UiCapture['frame'], 'data'> & { data: string } };
    pending.answer({ ok: true, capture: { ...capture, frame: { ...capture.frame, data: Buffer.from(capture.frame.data, 'base64') } } });
  }

  /** A watcher joined an H.264 stream of a phone held here: a key frame now (at most one per stream each moment). */
  private heardKeyFrame(message: Signal<'keyframe'>): void {
    const phone = this.held.get(message.deviceId);
    if (!phone?.phone.features.has('h264') || !phone.streams.has(message.stream)) return;
    const now = Date.now();
    if (now - phone.keyFrameAskedAt[message.stream] < KEY_FRAME_EVERY_MS) return;
    phone.keyFrameAskedAt[message.stream] = now;
    phone.phone.keyFrame(message.stream);
  }

  private heardStatus(message: Signal<'status'>): void {
    for (const watch of this.watchers.get(message.deviceId) ?? [])
      watch.socket.emit('live.status', { deviceId: message.deviceId, streaming: message.streaming, ...(message.reason ? { reason: message.reason } : {}) });
  }

  /** A controller's input for a phone held here: passed to it in order, and answered to the controller's instance. */
  private heardInput(message: Signal<'input'>): void {
    const phone = this.held.get(message.deviceId);
    if (!phone) return;
    const answer = (ok: boolean, error?: string, recorded?: RecordedTarget) =>
      this.bus.signal({
        t: 'input.ack',
        from: this.me,
        to: message.from,
        reqId: message.reqId,
        ok,
        ...(error ? { error } : {}),
        ...(recorded ? { recorded } : {}),
      });
    if (!phone.phone.features.has('control')) {
      answer(false, "This phone's agent cannot take input. Update farm-agent on it to control it from here.");
      return;
    }
    // One after another, in the order they came.
    phone.inputs = phone.inputs
      .then(() => phone.phone.input({ seq: message.seq, input: message.input, ...(message.record ? { record: true } : {}) }, INPUT_TIMEOUT_MS))
      .then(
        // A recorded element the phone sent is passed on only when it reads as one; otherwise the tap stands alone.
        (ack) => answer(ack.ok, ack.ok ? undefined : ack.error, ack.ok ? recordedTarget.safeParse(ack.recorded).data : undefined),
        () => answer(false, 'The phone did not answer in time. Is it still connected?'),
      );
  }

  private heardInputAck(message: Signal<'input.ack'>): void {
    if (message.to !== this.me) return;
    const pending = this.pendingInputs.get(message.reqId);
    if (!pending) return;
    this.pendingInputs.delete(message.reqId);
    clearTimeout(pending.timer);
    pending.answer(
      message.ok
        ? { ok: true, latencyMs: Date.now() - pending.sentAt, ...(message.recorded ? { recorded: message.recorded as RecordedTarget } : {}) }
        : refuse(message.error ?? 'The phone could not do that'),
    );
  }

  /** Control changed hands somewhere: a controller here who lost it is told; one it was handed to here takes it. */
  private heardControl(message: Signal<'control'>): void {
    const control = this.controls.get(message.deviceId);
    if (control && control.usageId !== message.usageId && message.from !== this.me) {
      this.controls.delete(message.deviceId);
      control.socket.emit('live.released', { deviceId: message.deviceId, reason: message.reason });
    }
    const offerTo = message.offerTo;
    if (message.usageId === null && offerTo) {
      // Handed to someone watching here: they have it now.
      const watch = [...(this.watchers.get(message.deviceId) ?? [])].find((candidate) => candidate.socket.data.userId === offerTo);
      if (watch) {
        void this.take(watch.socket, message.deviceId, { takeOver: false, handedBy: offerTo }).then((answer) => {
          if (!answer.ok) watch.socket.emit('live.released', { deviceId: message.deviceId, reason: answer.error });
        }, this.warn);
      }
    }
  }

  private heardAsk(message: Signal<'ask'>): void {
    for (const control of this.controls.values()) {
      if (control.usageId === message.usageId) control.socket.emit('live.asked', { deviceId: message.deviceId, userId: message.userId, name: message.name });
    }
  }

  // ── timers: announcements, idle control, usage kept alive, sessions of dead instances closed ──────────────

  private announceAll(): void {
    for (const deviceId of this.watchers.keys()) this.announce(deviceId);
    for (const deviceId of this.held.keys()) this.reconcile(deviceId);
  }

  private checkIdle(): void {
    const now = Date.now();
    for (const control of [...this.controls.values()]) {
      const idle = now - control.lastUsedAt;
      if (idle >= this.idleMs) {
        control.socket.emit('live.released', {
          deviceId: control.deviceId,
          reason: `${control.deviceName} was released after ${spell(this.idleMs)} without use`,
        });
        void this.release(control, 'idle').catch(this.warn);
      } else if (idle >= this.idleMs - this.promptBeforeMs && !control.prompted) {
        control.prompted = true;
        control.socket.emit('live.idle', { deviceId: control.deviceId, deviceName: control.deviceName, releaseInMs: this.idleMs - idle });
      }
    }
  }

  /** The usage sessions of this instance's watches (a watch whose row could not be written has none). */
  private async watchUsageIds(): Promise<string[]> {
    const ids = await Promise.all([...this.watchers.values()].flatMap((set) => [...set].map((watch) => watch.usageId)));
    return ids.filter((id): id is string => id !== null);
  }

  private async keepUsage(): Promise<void> {
    await this.rules.check();
    const open = await touchUsage(this.db, [...(await this.watchUsageIds()), ...[...this.controls.values()].map((control) => control.usageId)]);
    for (const control of [...this.controls.values()]) {
      if (open.has(control.usageId)) continue;
      this.controls.delete(control.deviceId);
      control.socket.emit('live.released', { deviceId: control.deviceId, reason: `Your control of ${control.deviceName} ended` });
    }
  }

  private async closeStale(): Promise<void> {
    for (const device of await closeStaleUsage(this.db, USAGE_STALE_MS)) {
      this.announceFreed(device, `${device.name} was released: its controller's connection was lost`, null);
      this.bus.signal({ t: 'control', from: this.me, deviceId: device.id, usageId: null, reason: 'connection lost' });
    }
  }

  /** This instance's live screens as the rules see and end them (live.rules.ts). */
  private holdings(nsp: LiveNamespace): LiveHoldings<LiveSocket> {
    return {
      sockets: () => nsp.sockets.values(),
      watches: () => [...this.watchers.values()].flatMap((set) => [...set]),
      controls: () => this.controls.values(),
      endControl: async (deviceId, reason) => {
        const control = this.controls.get(deviceId);
        if (!control) return;
        await this.release(control, 'access changed');
        control.socket.emit('live.released', { deviceId, reason });
      },
      endWatch: async (socket, deviceId, reason) => {
        socket.emit('live.status', { deviceId, streaming: false, reason });
        await this.unwatch(socket, deviceId, 'access changed');
      },
    };
  }

  // ── LiveHub: what the agents' namespace tells of the phones connected here ───────────────────────────────

  phoneReady(phone: LivePhone): void {
    this.held.set(phone.deviceId, {
      phone,
      streaming: false,
      streams: new Set(),
      window: { start: 0, frames: 0, bytes: 0 },
      videoWindow: { control: { start: 0, bytes: 0 }, watch: { start: 0, bytes: 0 } },
      keyFrameAskedAt: { control: 0, watch: 0 },
      inputs: Promise.resolve(),
    });
    this.reconcile(phone.deviceId, true);
  }

  phoneGone(deviceId: string, socketId: string): void {
    const phone = this.held.get(deviceId);
    if (!phone || phone.phone.socketId !== socketId) return;
    this.held.delete(deviceId);
    if (this.watcherCount(deviceId).count > 0) this.bus.signal({ t: 'status', from: this.me, deviceId, streaming: false, reason: NOT_STREAMING.gone });
  }

  frame(deviceId: string, frame: LiveFrame): Ack {
    const phone = this.held.get(deviceId);
    if (!phone?.streaming) {
      phone?.phone.stop();
      return { ok: false, error: 'Nobody watches this phone now: stop streaming' };
    }
    const now = Date.now();
    if (now - phone.window.start >= 1000) phone.window = { start: now, frames: 0, bytes: 0 };
    const { slow } = this.watcherCount(deviceId);
    // The stream's own budget: what is over it is dropped here, and the phone is told to ease off.
    if (phone.window.frames >= MAX_LIVE_FPS || phone.window.bytes + frame.data.byteLength > MAX_LIVE_BYTES_PER_SECOND)
      return { ok: true, dropped: true, slow: true };
    phone.window.frames += 1;
    phone.window.bytes += frame.data.byteLength;
    const data = Buffer.isBuffer(frame.data) ? frame.data : Buffer.from(frame.data.buffer, frame.data.byteOffset, frame.data.byteLength);
    const { mime: _mime, data: _bytes, ...facts } = frame;
    this.bus.publishFrame({ ...facts, deviceId, data });
    return { ok: true, slow };
  }

  video(deviceId: string, packet: LiveVideo): Ack {
    const phone = this.held.get(deviceId);
    if (!phone?.streams.has(packet.stream)) {
      phone?.phone.stop(packet.stream);
      return { ok: false, error: 'Nobody watches this stream now: stop it' };
    }
    const now = Date.now();
    const window = phone.videoWindow[packet.stream];
    if (now - window.start >= 1000) {
      window.start = now;
      window.bytes = 0;
    }
    // The stream's own budget: a packet over it is dropped here (its watchers skip to the next key frame).
    if (window.bytes + packet.data.byteLength > MAX_VIDEO_BYTES_PER_SECOND) return { ok: true, dropped: true };
    window.bytes += packet.data.byteLength;
    const data = Buffer.isBuffer(packet.data) ? packet.data : Buffer.from(packet.data.buffer, packet.data.byteOffset, packet.data.byteLength);
    this.bus.publishFrame({ ...packet, codec: 'h264', deviceId, data });
    return { ok: true };
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.rules.close();
    for (const control of [...this.controls.values()]) await this.release(control, 'server stopped').catch(this.warn);
    await endWatches(this.db, await this.watchUsageIds(), 'server stopped').catch(this.warn);
    for (const deviceId of this.watchers.keys()) this.bus.signal({ t: 'watchers', from: this.me, deviceId, count: 0, slow: false });
    this.watchers.clear();
    for (const pending of this.pendingInputs.values()) clearTimeout(pending.timer);
    for (const pending of this.pendingCaptures.values()) clearTimeout(pending.timer);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await this.bus.close();
  }
}

/** 15 minutes, 1 minute, 30 seconds. */
function spell(ms: number): string {
  const unit = ms >= 60_000 ? { size: 60_000, name: 'minute' } : { size: 1000, name: 'second' };
  const count = Math.round(ms / unit.size);
  return `${count} ${unit.name}${count === 1 ? '' : 's'}`;
}
