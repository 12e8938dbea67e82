/**
 * The agent's side of the H.264 live screen: one scrcpy session per stream the server asks for (`control`, `watch`),
 * each packet sent as `live.video` the moment it comes, never decoded. What the server has not acknowledged yet is the
 * stream's backlog: past its limit, the session skips pictures to the next key frame instead of queueing them.
 *
 * A stream that cannot start (no scrcpy-server on the host, an encoder that refuses a second session) or dies and
 * cannot start again is given up with the reason: the agent then serves JPEG frames as before, unless another H.264
 * stream runs (the server shows that one to everyone).
 */
import { MAX_VIDEO_PACKET_BYTES, type LiveVideo as LiveVideoMessage, type LiveVideoStream } from '../live.ts';
import type { LiveVideoPacket, LiveVideoSession } from '../phone/phone.device.ts';

export interface LiveVideoOptions {
  open(kind: LiveVideoStream): Promise<LiveVideoSession>;
  /** Sends a packet; `done` is called once the server answered it (or it was lost with the connection). */
  emit(packet: LiveVideoMessage, done: () => void): void;
  /** The last input applied now, carried by the next packet. */
  inputSeq(): number | undefined;
  /** A stream the server asked for cannot run; `running` says whether another H.264 stream still does. */
  unavailable(kind: LiveVideoStream, reason: string, running: boolean): void;
  log?: (line: string) => void;
  /** Bytes not yet acknowledged past which a stream skips to the next key frame. */
  backlogBytes?: number;
  /** Pause before a stream that died is started again (once). */
  restartAfterMs?: number;
}

interface Stream {
  kind: LiveVideoStream;
  session: LiveVideoSession | null;
  opening: Promise<void> | null;
  stop: () => void;
  seq: number;
  unacked: number;
  restarted: boolean;
  /** When the running session started: one that ran this long counts as healthy again. */
  openedAt: number;
  wanted: boolean;
}

/** A session that ran this long before it ended is started again, however often it was before. */
const HEALTHY_AFTER_MS = 30_000;

export class LiveVideo {
  private readonly streams = new Map<LiveVideoStream, Stream>();
  /** Packets sent since the agent started, per stream. */
  readonly sent: Record<LiveVideoStream, number> = { control: 0, watch: 0 };

  constructor(private readonly options: LiveVideoOptions) {}

  /** The streams running now. */
  get running(): LiveVideoStream[] {
    return [...this.streams.values()].filter((stream) => stream.session !== null).map((stream) => stream.kind);
  }

  /** The session input goes through: the control stream's, else the watch stream's. */
  session(): LiveVideoSession | undefined {
    return this.streams.get('control')?.session ?? this.streams.get('watch')?.session ?? undefined;
  }

  /** Starts a stream unless it runs or is starting. */
  start(kind: LiveVideoStream): Promise<void> {
    const existing = this.streams.get(kind);
    if (existing) {
      existing.wanted = true;
      return existing.opening ?? Promise.resolve();
    }
    const stream: Stream = { kind, session: null, opening: null, stop: () => undefined, seq: 0, unacked: 0, restarted: false, openedAt: 0, wanted: true };
    this.streams.set(kind, stream);
    return this.open(stream);
  }

  private open(stream: Stream): Promise<void> {
    stream.opening = this.options.open(stream.kind).then(
      (session) => {
        stream.opening = null;
        if (!stream.wanted || this.streams.get(stream.kind) !== stream) {
          session.end('Nobody watches this stream any more.');
          return;
        }
        stream.session = session;
        stream.openedAt = Date.now();
        const unwatch = session.watch((packet) => this.send(stream, packet));
        const unended = session.onEnded((reason) => this.ended(stream, session, reason));
        stream.stop = () => {
          unwatch();
          unended();
          session.end('Nobody watches this stream any more.');
        };
      },
      (error: unknown) => {
        stream.opening = null;
        if (this.streams.get(stream.kind) === stream) this.streams.delete(stream.kind);
        if (stream.wanted) this.giveUp(stream.kind, error instanceof Error ? error.message : String(error));
      },
    );
    return stream.opening;
  }

  private send(stream: Stream, packet: LiveVideoPacket): number {
    const bytes = packet.data.byteLength;
    // Too large to relay: dropped here, and the session skips to the next key frame (its backlog says "full").
    if (bytes > MAX_VIDEO_PACKET_BYTES) return Number.MAX_SAFE_INTEGER;
    stream.unacked += bytes;
    this.sent[stream.kind] += 1;
    const inputSeq = this.options.inputSeq();
    this.options.emit(
      {
        stream: stream.kind,
        seq: ++stream.seq,
        config: packet.config,
        keyFrame: packet.keyFrame,
        ptsUs: packet.ptsUs,
        data: packet.data,
        width: packet.width,
        height: packet.height,
        ...(inputSeq !== undefined ? { inputSeq } : {}),
      },
      () => {
        stream.unacked = Math.max(0, stream.unacked - bytes);
      },
    );
    return stream.unacked;
  }

  /**
   * The session ended by itself (the server died, the phone left, the host restarted the screen source): started
   * again, and given up when it ends again within 30 s of that.
   */
  private ended(stream: Stream, session: LiveVideoSession, reason: string): void {
    if (stream.session !== session) return;
    stream.session = null;
    stream.stop = () => undefined;
    if (!stream.wanted || this.streams.get(stream.kind) !== stream) return;
    this.options.log?.(`live ${stream.kind} stream ended: ${reason}`);
    if (stream.restarted && Date.now() - stream.openedAt < HEALTHY_AFTER_MS) {
      this.streams.delete(stream.kind);
      this.giveUp(stream.kind, reason);
      return;
    }
    stream.restarted = true;
    stream.unacked = 0;
    setTimeout(() => {
      if (stream.wanted && this.streams.get(stream.kind) === stream) void this.open(stream);
    }, this.options.restartAfterMs ?? 1000).unref?.();
  }

  private giveUp(kind: LiveVideoStream, reason: string): void {
    this.options.log?.(`live ${kind} stream unavailable: ${reason}`);
    this.options.unavailable(kind, reason, this.running.length > 0);
  }

  /** A watcher joined: a key frame now. */
  keyFrame(kind: LiveVideoStream): void {
    try {
      this.streams.get(kind)?.session?.keyFrame();
    } catch {
      // The session is ending; its end says why.
    }
  }

  /** Stops one stream, or all of them. */
  stop(kind?: LiveVideoStream): void {
    for (const stream of [...this.streams.values()]) {
      if (kind && stream.kind !== kind) continue;
      stream.wanted = false;
      this.streams.delete(stream.kind);
      stream.stop();
      stream.session = null;
    }
  }
}
