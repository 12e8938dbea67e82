/**
 * The live screen's own path between API instances: frames and the signals around them (who watches, inputs and
 * their answers, who controls) on plain Redis pub/sub — at most once, never stored, so a burst of frames can never
 * fill Redis or sit in the persisted stream the console's events travel on. In one process, the same calls stay in
 * memory.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { LiveInput } from '@farm/agent-protocol/live';
import type { GroupActMessage } from '@farm/agent-protocol/group';
import type { LiveFrameOut, LiveVideoOut } from '@farm/contracts';
import { logDroppedFailures } from '../shared/redis.ts';

/** A JPEG frame on its way from the instance holding the phone to the instances holding its watchers: as browsers get it. */
export type BusJpeg = Omit<LiveFrameOut, 'data'> & { data: Buffer; codec?: undefined };
/** An H.264 packet on the same way (in order: one publisher per phone). */
export type BusVideo = Omit<LiveVideoOut, 'data'> & { data: Buffer };
export type BusFrame = BusJpeg | BusVideo;

/** What instances tell each other about live screens. `from` is the sending instance. */
export type LiveSignal =
  /** An instance's watchers of a phone (sent on every change and each second while any): 0 means none left. */
  | {
      t: 'watchers';
      from: string;
      deviceId: string;
      count: number;
      slow: boolean;
      /** Of them, watchers that decode H.264, and whether the phone's controller is one of them (servers before H.264 send neither). */
      h264?: number | undefined;
      controlling?: boolean | undefined;
    }
  /** Someone inspects a phone: its instance asks the agent for the UI tree and frame. */
  | { t: 'inspect'; from: string; reqId: string; deviceId: string }
  /** The capture (its frame base64), or why not, for the instance that asked. */
  | { t: 'inspect.result'; from: string; to: string; reqId: string; ok: boolean; capture?: unknown; error?: string | undefined }
  /** A watcher joined an H.264 stream: the phone is asked for a key frame. */
  | { t: 'keyframe'; from: string; deviceId: string; stream: 'control' | 'watch' }
  /** A controller's input, for the instance holding the phone. */
  | { t: 'input'; from: string; reqId: string; deviceId: string; seq: number; input: LiveInput; record?: boolean | undefined }
  /** The phone's answer to an input, for the instance that sent it. */
  | { t: 'input.ack'; from: string; to: string; reqId: string; ok: boolean; error?: string | undefined; recorded?: unknown }
  /** Whether the phone streams (it connected with watchers waiting, left, or cannot stream). */
  | { t: 'status'; from: string; deviceId: string; streaming: boolean; reason?: string | undefined }
  /** The phone's controller changed: every other control session of it is over (`offerTo`: handed to this person). */
  | { t: 'control'; from: string; deviceId: string; usageId: string | null; reason: string; offerTo?: string | undefined }
  /** A watcher asks the controller (the session `usageId`) to hand the phone over. */
  | { t: 'ask'; from: string; deviceId: string; usageId: string; userId: string; name: string }
  /** A group control action for the instance holding the phone (group.act, answered with the phone's result). */
  | { t: 'group'; from: string; reqId: string; deviceId: string; message: GroupActMessage }
  /** The phone's result (a frame's bytes base64), or why it has none, for the instance that asked. */
  | { t: 'group.result'; from: string; to: string; reqId: string; ok: boolean; result?: unknown; error?: string | undefined }
  /** Someone's rights in the workspace may have shrunk (`sessionIds`: sessions ended): every instance checks its live screens (live.rules.ts). */
  | { t: 'rules'; from: string; workspaceId: string; sessionIds: string[] };

export interface LiveBus {
  readonly instanceId: string;
  publishFrame(frame: BusFrame): void;
  /** Frames of one phone; answers the unsubscribe. */
  subscribeFrames(deviceId: string, onFrame: (frame: BusFrame) => void): () => void;
  signal(message: LiveSignal): void;
  onSignal(handler: (message: LiveSignal) => void): void;
  close(): Promise<void>;
}

type Distribute = (message: LiveSignal) => void;

/** Frame subscriptions per phone, shared by both buses. */
class FrameListeners {
  private readonly byDevice = new Map<string, Set<(frame: BusFrame) => void>>();

  add(deviceId: string, listener: (frame: BusFrame) => void, first: () => void, last: () => void): () => void {
    let set = this.byDevice.get(deviceId);
    if (!set) {
      set = new Set();
      this.byDevice.set(deviceId, set);
      first();
    }
    set.add(listener);
    return () => {
      const current = this.byDevice.get(deviceId);
      if (!current?.delete(listener) || current.size > 0) return;
      this.byDevice.delete(deviceId);
      last();
    };
  }

  deliver(frame: BusFrame): void {
    for (const listener of this.byDevice.get(frame.deviceId) ?? []) listener(frame);
  }
}

/** One process: frames and signals go straight to this process's listeners. */
export class LocalLiveBus implements LiveBus {
  readonly instanceId = randomUUID();
  private readonly frames = new FrameListeners();
  private readonly signals = new EventEmitter();

  publishFrame(frame: BusFrame): void {
    this.frames.deliver(frame);
  }

  subscribeFrames(deviceId: string, onFrame: (frame: BusFrame) => void): () => void {
    return this.frames.add(
      deviceId,
      onFrame,
      () => undefined,
      () => undefined,
    );
  }

  signal(message: LiveSignal): void {
    // Asynchronous, as over Redis: a signal never runs its handlers inside the code that sent it.
    setImmediate(() => this.signals.emit('signal', message));
  }

  onSignal(handler: Distribute): void {
    this.signals.on('signal', handler);
  }

  async close(): Promise<void> {
    this.signals.removeAllListeners();
  }
}

const SIGNALS = 'farm:live';
const frameChannel = (deviceId: string) => `farm:live:frame:${deviceId}`;

interface RedisLike {
  readonly status: string;
  publish(channel: string, message: string | Buffer): Promise<unknown>;
  subscribe(...channels: string[]): Promise<unknown>;
  unsubscribe(...channels: string[]): Promise<unknown>;
  on(event: string, listener: (...args: never[]) => void): unknown;
  quit(): Promise<unknown>;
}

/**
 * Several instances: one Redis connection publishes, one subscribes (to the signals, and to a phone's frames only
 * while this instance has watchers of it). A frame is a length-prefixed JSON header followed by the JPEG or H.264 bytes.
 */
export class RedisLiveBus implements LiveBus {
  readonly instanceId = randomUUID();
  private readonly frames = new FrameListeners();
  private readonly handlers: Distribute[] = [];

  private constructor(
    private readonly pub: RedisLike,
    private readonly sub: RedisLike,
    private readonly warn: (error: unknown) => void,
  ) {
    sub.on('messageBuffer', ((channel: Buffer, message: Buffer) => {
      const name = channel.toString();
      if (name === SIGNALS) {
        let parsed: LiveSignal;
        try {
          parsed = JSON.parse(message.toString()) as LiveSignal;
        } catch {
          return;
        }
        for (const handler of this.handlers) handler(parsed);
        return;
      }
      const frame = decodeFrame(message);
      if (frame) this.frames.deliver(frame);
    }) as never);
  }

  static async connect(redisUrl: string, warn: (error: unknown) => void): Promise<RedisLiveBus> {
    const { Redis } = await import('ioredis');
    const options = { maxRetriesPerRequest: null, lazyConnect: true, enableOfflineQueue: true };
    const pub = new Redis(redisUrl, options);
    const sub = new Redis(redisUrl, options);
    for (const client of [pub, sub]) client.on('error', warn);
    // ioredis subscribes the channels again after a reconnect, without waiting for the answer.
    logDroppedFailures(sub, ['subscribe'], warn);
    await Promise.all([pub.connect(), sub.connect()]);
    await sub.subscribe(SIGNALS);
    return new RedisLiveBus(pub as unknown as RedisLike, sub as unknown as RedisLike, warn);
  }

  publishFrame(frame: BusFrame): void {
    // While Redis is away a frame is dropped, never queued for later: the next one is newer anyway.
    if (this.pub.status !== 'ready') return;
    this.pub.publish(frameChannel(frame.deviceId), encodeFrame(frame)).catch(() => undefined);
  }

  subscribeFrames(deviceId: string, onFrame: (frame: BusFrame) => void): () => void {
    return this.frames.add(
      deviceId,
      onFrame,
      () => void this.sub.subscribe(frameChannel(deviceId)).catch(this.warn),
      () => void this.sub.unsubscribe(frameChannel(deviceId)).catch(this.warn),
    );
  }

  signal(message: LiveSignal): void {
    this.pub.publish(SIGNALS, JSON.stringify(message)).catch(this.warn);
  }

  onSignal(handler: Distribute): void {
    this.handlers.push(handler);
  }

  async close(): Promise<void> {
    this.handlers.length = 0;
    await Promise.all([this.pub.quit().catch(() => undefined), this.sub.quit().catch(() => undefined)]);
  }
}

export function encodeFrame(frame: BusFrame): Buffer {
  const { data, ...header } = frame;
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(json.length);
  return Buffer.concat([length, json, data]);
}

export function decodeFrame(message: Buffer): BusFrame | undefined {
  if (message.length < 4) return undefined;
  const length = message.readUInt32BE(0);
  if (message.length < 4 + length) return undefined;
  try {
    const header = JSON.parse(message.subarray(4, 4 + length).toString()) as Omit<BusJpeg, 'data'> | Omit<BusVideo, 'data'>;
    return { ...header, data: message.subarray(4 + length) } as BusFrame;
  } catch {
    return undefined;
  }
}
