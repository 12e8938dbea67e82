/**
 * Who watches which phone from this instance, and what they are sent. Watching is announced on the live bus because
 * the phone's agent may be held by another instance, which starts and stops its stream by these counts; frames come
 * back on the bus and each watcher gets one only once it has acknowledged the previous: a slow viewer gets fewer
 * frames, never late ones, and the phone is told to ease off. Each watch is a usage session of its own.
 */
import type { LiveAnswer, LiveWatchAnswer } from '@farm/contracts';
import { endWatches, findLiveDevice, mayControl, startUsage } from '../modules/usage/usage.queries.ts';
import type { Db } from '../shared/types.ts';
import type { BusFrame, BusJpeg, LiveBus } from './live.bus.ts';
import { LiveVideoRelay } from './live.video.ts';
import { NOT_STREAMING, refuse, type LiveSocket, type Message, type Signal, type Watch } from './live.shared.ts';

/** A frame a watcher has not acknowledged within this long no longer holds back the next. */
const FRAME_ACK_WAIT_MS = 3000;
/** Watchers missing more than this share of frames are slow: the phone lowers its rate and quality. */
const SLOW_SHARE = 0.3;

/** What the watchers need to know of control here: who holds it, and how a watcher who leaves gives it up. */
export interface WatchedControl {
  controllerOf(deviceId: string): LiveSocket | undefined;
  /** The watcher left the phone's screen: their control of it, if any, ends with `reason`. */
  leave(socket: LiveSocket, deviceId: string, reason: string): Promise<void>;
}

/** This instance's watchers, per phone, with their frame subscriptions and delivery counts. */
export class LiveWatchers {
  private readonly watchers = new Map<string, Set<Watch>>();
  private readonly frameSubscriptions = new Map<string, () => void>();
  /** Frames sent and dropped per phone since the last announcement, for "slow". */
  private readonly delivery = new Map<string, { sent: number; dropped: number }>();
  private readonly video: LiveVideoRelay;
  private readonly me: string;

  constructor(
    private readonly bus: LiveBus,
    private readonly db: Db,
    private readonly control: WatchedControl,
    private readonly warn: (error: unknown) => void,
  ) {
    this.me = bus.instanceId;
    this.video = new LiveVideoRelay(
      bus,
      this.me,
      (deviceId) => control.controllerOf(deviceId),
      (deviceId, sent) => this.countDelivery(deviceId, sent),
    );
  }

  async onWatch(socket: LiveSocket, { deviceId, h264 }: Message<'live.watch'>): Promise<LiveAnswer<LiveWatchAnswer>> {
    const device = await findLiveDevice(this.db, socket.data.workspaceId, deviceId);
    if (!device) return refuse('This phone is not in your workspace');
    if (!this.watchOf(socket, deviceId)) this.add(socket, deviceId, h264 === true);
    const offline = device.status === 'offline';
    return { ok: true, streaming: !offline, ...(offline ? { reason: NOT_STREAMING.offline } : {}), canControl: mayControl(socket.data, device) };
  }

  async onUnwatch(socket: LiveSocket, { deviceId }: Message<'live.unwatch'>): Promise<LiveAnswer> {
    await this.unwatch(socket, deviceId, 'stopped watching');
    return { ok: true };
  }

  private add(socket: LiveSocket, deviceId: string, h264: boolean): void {
    const watch: Watch = {
      socket,
      deviceId,
      usageId: startUsage(this.db, socket.data, deviceId, 'watch').catch(() => null),
      inFlight: false,
      sentAt: 0,
      h264,
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
    if (watch.h264) this.video.start(watch);
  }

  watchOf(socket: LiveSocket, deviceId: string): Watch | undefined {
    for (const watch of this.watchers.get(deviceId) ?? []) if (watch.socket === socket) return watch;
    return undefined;
  }

  /** Those watching the phone here. */
  of(deviceId: string): Iterable<Watch> {
    return this.watchers.get(deviceId) ?? [];
  }

  /** Every watch held here. */
  all(): Watch[] {
    return [...this.watchers.values()].flatMap((set) => [...set]);
  }

  /** A browser's socket closed: each of its watches ends. */
  disconnected(socket: LiveSocket): void {
    for (const [deviceId, set] of this.watchers) for (const watch of set) if (watch.socket === socket) void this.unwatch(socket, deviceId, 'disconnected');
  }

  async unwatch(socket: LiveSocket, deviceId: string, reason: string): Promise<void> {
    const watch = this.watchOf(socket, deviceId);
    if (!watch) return;
    const set = this.watchers.get(deviceId)!;
    set.delete(watch);
    if (set.size === 0) {
      this.watchers.delete(deviceId);
      this.video.forget(deviceId);
      this.frameSubscriptions.get(deviceId)?.();
      this.frameSubscriptions.delete(deviceId);
    }
    this.announce(deviceId);
    await this.control.leave(socket, deviceId, reason);
    const usageId = await watch.usageId;
    if (usageId) await endWatches(this.db, [usageId], reason).catch(this.warn);
  }

  /** Tells every instance how many watch this phone here (the phone's instance starts or stops its stream). */
  announce(deviceId: string): void {
    const watches = [...(this.watchers.get(deviceId) ?? [])];
    const counts = this.delivery.get(deviceId);
    const slow = counts ? counts.dropped > SLOW_SHARE * (counts.sent + counts.dropped) : false;
    this.delivery.delete(deviceId);
    const controller = this.control.controllerOf(deviceId);
    this.bus.signal({
      t: 'watchers',
      from: this.me,
      deviceId,
      count: watches.length,
      slow,
      h264: watches.filter((watch) => watch.h264).length,
      controlling: controller !== undefined && watches.some((watch) => watch.h264 && watch.socket === controller),
    });
  }

  /** Repeats every phone's count (the phone's instance forgets a count it has not heard for a while). */
  announceAll(): void {
    for (const deviceId of this.watchers.keys()) this.announce(deviceId);
  }

  private deliver(frame: BusFrame): void {
    if (frame.codec === 'h264') this.video.deliver(frame, this.of(frame.deviceId));
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
    const onVideo = this.video.running(frame.deviceId, now);
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
  controlMoved(deviceId: string): void {
    this.announce(deviceId);
    for (const watch of this.watchers.get(deviceId) ?? []) if (watch.h264) this.video.start(watch);
  }

  /** The phone's instance says whether it streams: its watchers here are told. */
  heardStatus(message: Signal<'status'>): void {
    for (const watch of this.watchers.get(message.deviceId) ?? [])
      watch.socket.emit('live.status', { deviceId: message.deviceId, streaming: message.streaming, ...(message.reason ? { reason: message.reason } : {}) });
  }

  /** The usage sessions of this instance's watches (a watch whose row could not be written has none). */
  async usageIds(): Promise<string[]> {
    const ids = await Promise.all([...this.watchers.values()].flatMap((set) => [...set].map((watch) => watch.usageId)));
    return ids.filter((id): id is string => id !== null);
  }

  /** The server stops: every watch here ends, and the phones' instances hear nobody watches from here. */
  async close(): Promise<void> {
    await endWatches(this.db, await this.usageIds(), 'server stopped').catch(this.warn);
    for (const deviceId of this.watchers.keys()) this.bus.signal({ t: 'watchers', from: this.me, deviceId, count: 0, slow: false });
    this.watchers.clear();
  }
}
