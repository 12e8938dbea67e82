/**
 * The phone agent's live screen: JPEG frames (`live-stream.ts`) and H.264 streams (`live-video.ts`) started and
 * stopped as the server asks, a key frame when a watcher joins, JPEG again when no H.264 stream can run, every stream
 * started again as asked when the phone came back on a new connection, and every stream stopped when the connection
 * drops. Frames and packets carry the last input they show (`phone-agent.control.ts`).
 */
import { LIVE_DEFAULTS, liveStart, liveStop, type LiveStreamName } from '../live.ts';
import { serverMessages } from '../messages.ts';
import { LiveStream, type LiveFrameSender } from './live-stream.ts';
import { LiveVideo } from './live-video.ts';
import type { Control } from './phone-agent.control.ts';
import type { PhoneAgentState } from './phone-agent.state.ts';

export class LiveScreen {
  /** The live screen, streaming while the server asks. */
  readonly stream: LiveStream;
  /** The live screen as H.264, where the phone can (`h264`). */
  readonly video: LiveVideo;
  /** What the server asked for and has not stopped, by stream: started again as asked when the phone comes back. */
  private readonly asked = new Map<LiveStreamName, unknown>();

  constructor(
    private readonly state: PhoneAgentState,
    control: Control,
  ) {
    const log = (line: string) => state.log(line);
    this.stream = new LiveStream({
      open: (settings) => (state.backend.openLive ? state.backend.openLive(settings) : Promise.reject(new Error('This phone cannot stream its screen'))),
      sender: { send: (frame) => this.sendFrame(frame) },
      inputSeqAt: (capturedAt) => control.inputSeqAt(capturedAt),
      log,
    });
    this.video = new LiveVideo({
      open: (kind) => (state.backend.openVideo ? state.backend.openVideo(kind) : Promise.reject(new Error('This phone cannot stream H.264'))),
      emit: (packet, done) => {
        // Never queued for a later connection: a packet that cannot leave now is dropped.
        if (!state.socket.connected) return done();
        (state.socket.emit as (event: string, message: unknown, ack: () => void) => void)('live.video', packet, done);
      },
      inputSeq: () => control.lastInputSeq(),
      // No H.264 stream can run: JPEG frames instead, as before (the Live tab says which path it is on).
      unavailable: (_kind, _reason, running) => {
        if (!running && state.backend.openLive && !this.stream.active) this.stream.start({ ...LIVE_DEFAULTS });
      },
      log,
    });
  }

  /** One frame, answered with whether the watchers are slow (undefined: no answer in time). */
  private async sendFrame(frame: Parameters<LiveFrameSender['send']>[0]): Promise<{ ok: boolean; slow: boolean } | undefined> {
    const answer = await this.state.request(
      'live.frame',
      {
        seq: frame.seq,
        mime: 'image/jpeg',
        data: frame.data,
        width: frame.width,
        height: frame.height,
        source: frame.source,
        capturedAt: frame.capturedAt,
        ...(frame.inputSeq !== undefined ? { inputSeq: frame.inputSeq } : {}),
      },
      3000,
    );
    return answer ? { ok: answer.ok, slow: answer.ok && answer.slow === true } : undefined;
  }

  /** `live.start`: someone watches; H.264 where asked and the phone can, else JPEG frames. */
  readonly start = (raw: unknown): void => {
    const parsed = liveStart.safeParse(raw);
    if (!parsed.success) return;
    const { codec, stream, ...settings } = parsed.data;
    this.asked.set(codec === 'h264' && stream ? stream : 'jpeg', raw);
    if (codec === 'h264' && stream && this.state.backend.openVideo) void this.video.start(stream);
    else if (this.state.backend.openLive) this.stream.start(settings);
  };

  /** `live.stop`: nobody watches that stream (or any, when none is named). */
  readonly stop = (raw: unknown): void => {
    const stream = liveStop.safeParse(raw ?? {}).data?.stream;
    if (stream === undefined) this.asked.clear();
    else this.asked.delete(stream);
    if (stream === undefined || stream === 'jpeg') void this.stream.stop();
    if (stream !== 'jpeg') this.video.stop(stream);
  };

  /**
   * The phone came back on a new connection: the streams of the old one (or the JPEG frames that stood in for an
   * H.264 stream that could not start while it was away) stop, and what the server asked for starts again on the new.
   */
  async restart(): Promise<void> {
    const asked = [...this.asked.values()];
    this.video.stop();
    await this.stream.stop();
    for (const raw of asked) this.start(raw);
  }

  /** `live.keyframe`: a watcher joined an H.264 stream. */
  readonly keyFrame = (raw: unknown): void => {
    const parsed = serverMessages['live.keyframe'].safeParse(raw);
    if (parsed.success) this.video.keyFrame(parsed.data.stream);
  };

  /** Every stream stops (the connection dropped, or the agent closes). */
  close(): void {
    this.asked.clear();
    void this.stream.stop();
    this.video.stop();
  }
}
