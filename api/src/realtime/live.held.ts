/**
 * The phones whose agents are connected to this instance, as live screens see them. Whoever watches them may be on
 * any instance, so this room counts the watchers every instance announces and starts or stops each phone's streams to
 * match, keeps each stream within its budget before it reaches the bus, and is the one place that talks to the phone:
 * inputs in order, key frames at a measured pace.
 */
import {
  type Ack,
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
} from '@farm/agent-protocol';
import type { LivePhone } from '../shared/sockets.types.ts';
import type { LiveBus } from './live.bus.ts';
import { INPUT_TIMEOUT_MS, NOT_STREAMING, type Signal } from './live.shared.ts';

/** How long the phone's instance believes an instance's count of watchers without news. */
const WATCHERS_EXPIRE_MS = 3500;
/** A phone is asked for a key frame at most this often per stream. */
const KEY_FRAME_EVERY_MS = 500;

/** A phone held here: what it streams, and its inputs in order. */
export interface HeldPhone {
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

/** Who watches a phone, all instances together. */
interface Watching {
  count: number;
  slow: boolean;
  h264: number;
  controlling: boolean;
}

/** The phones held here, and what every instance says of who watches them. */
export class LiveHeld {
  private readonly held = new Map<string, HeldPhone>();
  private readonly remoteWatchers = new Map<string, Map<string, Watching & { at: number }>>();
  private readonly me: string;

  constructor(private readonly bus: LiveBus) {
    this.me = bus.instanceId;
  }

  /** The phone, if its agent is connected here. */
  phoneOf(deviceId: string): HeldPhone | undefined {
    return this.held.get(deviceId);
  }

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

  private watcherCount(deviceId: string): Watching {
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

  /** Each phone held here checked again (a count not heard of for a while has expired). */
  reconcileAll(): void {
    for (const deviceId of this.held.keys()) this.reconcile(deviceId);
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
  private reconcileStreams(phone: HeldPhone, watching: Omit<Watching, 'slow'>, tell: boolean): void {
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

  /** How many watch a phone on another instance (or this one): a phone held here starts or stops streaming. */
  heardWatchers(message: Signal<'watchers'>): void {
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

  /** A watcher joined an H.264 stream of a phone held here: a key frame now (at most one per stream each moment). */
  heardKeyFrame(message: Signal<'keyframe'>): void {
    const phone = this.held.get(message.deviceId);
    if (!phone?.phone.features.has('h264') || !phone.streams.has(message.stream)) return;
    const now = Date.now();
    if (now - phone.keyFrameAskedAt[message.stream] < KEY_FRAME_EVERY_MS) return;
    phone.keyFrameAskedAt[message.stream] = now;
    phone.phone.keyFrame(message.stream);
  }

  /** A controller's input for a phone held here: passed to it in order, and answered to the controller's instance. */
  heardInput(message: Signal<'input'>): void {
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
}
