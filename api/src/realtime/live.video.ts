/**
 * The H.264 relay to this instance's watchers. Packets are passed on, never decoded, so each watcher's place in its
 * stream is kept here: a late or lagging watcher starts again at a key frame instead of being sent pictures it cannot
 * show, and a watcher moves between the controller's and the others' stream as control changes hands.
 *
 * Configuration packets (SPS/PPS) always reach a watcher, however far behind: a phone sends them only when a stream
 * starts or resets, and a player without them can show nothing. A watcher that fell behind resumes, once it caught
 * up, at the cached key frame with its parameter sets rather than waiting for the encoder's next one (up to 2 s).
 * The phone is asked for a key frame only when that cache cannot serve: asking restarts the encoder for everyone.
 */
import { KeyFrameCache, type LiveVideoStream } from '@farm/agent-protocol';
import type { BusVideo, LiveBus } from './live.bus.ts';
import type { LiveSocket, Watch } from './live.shared.ts';

/** An H.264 stream with no packet for this long is not running (a watcher follows the other one, or JPEG). */
const VIDEO_STALE_MS = 2500;
/** A watcher with this many bytes unacknowledged, or its oldest packet unacknowledged this long, is behind. */
const VIDEO_BACKLOG_BYTES = 1024 * 1024;
const VIDEO_ACK_WAIT_MS = 1500;
/** Unacknowledged this long, a packet's ack is taken as lost (the watcher starts again at a key frame). */
const VIDEO_ACK_LOST_MS = 10_000;
/** A caught-up watcher is sent the cached group of pictures only when it is at most this large (else the next key frame). */
const VIDEO_RESUME_BYTES = VIDEO_BACKLOG_BYTES / 2;

/** A phone's H.264 streams as this instance's watchers receive them: each one's last group of pictures and pace. */
interface DeviceVideo {
  caches: Record<LiveVideoStream, KeyFrameCache<BusVideo>>;
  lastAt: Record<LiveVideoStream, number>;
  lastSeq: Record<LiveVideoStream, number>;
}

/** This instance's H.264 watchers' streams, per phone watched here. */
export class LiveVideoRelay {
  private readonly videos = new Map<string, DeviceVideo>();

  constructor(
    private readonly bus: LiveBus,
    private readonly me: string,
    /** Who controls the phone from here: they are shown the `control` stream. */
    private readonly controllerOf: (deviceId: string) => LiveSocket | undefined,
    /** Counts a packet sent or skipped, for "slow". */
    private readonly count: (deviceId: string, sent: boolean) => void,
  ) {}

  /** Whether an H.264 stream of the phone runs now: its H.264 watchers are then sent no JPEG. */
  running(deviceId: string, now: number): boolean {
    const video = this.videos.get(deviceId);
    return video !== undefined && (now - video.lastAt.control < VIDEO_STALE_MS || now - video.lastAt.watch < VIDEO_STALE_MS);
  }

  /** Nobody watches the phone here any more. */
  forget(deviceId: string): void {
    this.videos.delete(deviceId);
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
    const preferred: LiveVideoStream = this.controllerOf(watch.deviceId) === watch.socket ? 'control' : 'watch';
    const other: LiveVideoStream = preferred === 'control' ? 'watch' : 'control';
    if (now - video.lastAt[preferred] < VIDEO_STALE_MS) return preferred;
    if (now - video.lastAt[other] < VIDEO_STALE_MS) return other;
    return null;
  }

  /** An H.264 watcher joined (or control moved to or from it): its stream's configuration and pictures so far. */
  start(watch: Watch): void {
    const video = this.videoOf(watch.deviceId);
    const stream = this.streamFor(watch, video, Date.now());
    if (stream) this.follow(watch, stream, video);
    else
      this.bus.signal({
        t: 'keyframe',
        from: this.me,
        deviceId: watch.deviceId,
        stream: this.controllerOf(watch.deviceId) === watch.socket ? 'control' : 'watch',
      });
  }

  /** Moves a watcher onto a stream: it starts at that stream's last key frame (sent now) or waits for the next. */
  private follow(watch: Watch, stream: LiveVideoStream, video: DeviceVideo): void {
    watch.video.follow = stream;
    watch.video.waitingKey = true;
    const cache = video.caches[stream];
    for (const packet of cache.snapshot()) this.send(watch, packet);
    if (!cache.covers()) this.bus.signal({ t: 'keyframe', from: this.me, deviceId: watch.deviceId, stream });
  }

  /** A packet for this instance's H.264 watchers, in order; a gap in its stream sends them to the next key frame. */
  deliver(packet: BusVideo, watches: Iterable<Watch>): void {
    const now = Date.now();
    const video = this.videoOf(packet.deviceId);
    const gap = video.lastSeq[packet.stream] > 0 && packet.seq !== video.lastSeq[packet.stream] + 1;
    video.lastSeq[packet.stream] = packet.seq;
    video.lastAt[packet.stream] = now;
    const cache = video.caches[packet.stream];
    // A lost packet breaks the cached group too: a watcher joining now waits for the next key frame.
    if (gap) cache.dropGroup();
    cache.add(packet);
    for (const watch of watches) {
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
      if (watch.video.waitingKey && !packet.keyFrame && !packet.config && this.canResume(watch, cache.snapshot(), now)) {
        // Caught up again: from the cached key frame (this packet is the snapshot's last) rather than the next one.
        for (const cached of cache.snapshot()) this.send(watch, cached);
        continue;
      }
      this.send(watch, packet);
    }
  }

  /** Whether a watcher waiting for a key frame can be sent the cached group now: it keeps pace again, and the group is small. */
  private canResume(watch: Watch, snapshot: BusVideo[], now: number): boolean {
    if (this.behind(watch.video, now)) return false;
    if (!snapshot.some((packet) => packet.keyFrame)) return false;
    return snapshot.reduce((total, packet) => total + packet.data.byteLength, 0) <= VIDEO_RESUME_BYTES;
  }

  /** Whether the watcher is behind (too much unacknowledged, or for too long); acks taken as lost are forgotten here. */
  private behind(state: Watch['video'], now: number): boolean {
    const oldest = state.sentAt[0];
    if (oldest === undefined) return false;
    if (now - oldest > VIDEO_ACK_LOST_MS) {
      state.generation += 1;
      state.unacked = 0;
      state.sentAt = [];
      state.waitingKey = true;
      return false;
    }
    return state.unacked > VIDEO_BACKLOG_BYTES || now - oldest > VIDEO_ACK_WAIT_MS;
  }

  /**
   * Sends a packet unless the watcher is behind: then it skips pictures until it resumes at a key frame, never queueing
   * them. A configuration is always sent (a few dozen bytes, and nothing decodes without it).
   */
  private send(watch: Watch, packet: BusVideo): void {
    const state = watch.video;
    const now = Date.now();
    if (!packet.config) {
      if (this.behind(state, now)) {
        state.waitingKey = true;
        this.count(watch.deviceId, false);
        return;
      }
      if (state.waitingKey) {
        if (!packet.keyFrame) {
          this.count(watch.deviceId, false);
          return;
        }
        state.waitingKey = false;
      }
    }
    this.count(watch.deviceId, true);
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
}
