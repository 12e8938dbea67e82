/**
 * The agent's side of the live screen: while the server asks, frames are taken from the phone and sent one at a
 * time (the next only once the server has answered the last), at the rate asked for or slower; when the server says
 * its watchers are slow, the rate and quality come down, and go back up once they keep pace. Frames are never queued.
 */
import { LIVE_DEFAULTS, type LiveStart } from '../live.ts';
import type { LiveFrameSource, LiveScreenFrame } from '../phone/phone.device.ts';

export interface LiveFrameSender {
  /** Sends a frame; answers whether the server's watchers are slow, or undefined when it did not answer. */
  send(frame: LiveScreenFrame & { seq: number; inputSeq?: number }): Promise<{ ok: boolean; slow?: boolean } | undefined>;
}

export interface LiveStreamOptions {
  open(settings: { maxSide: number; quality: number }): Promise<LiveFrameSource>;
  sender: LiveFrameSender;
  /** The last input applied at or before a moment, for the frame captured then. */
  inputSeqAt(capturedAt: number): number | undefined;
  log?: (line: string) => void;
}

const MIN_FPS = 2;
const MIN_QUALITY = 30;

export class LiveStream {
  private settings: LiveStart = { ...LIVE_DEFAULTS };
  private running: AbortController | undefined;
  private loop: Promise<void> | undefined;
  private seq = 0;
  /** What the stream runs at now, after easing off for slow watchers. */
  fps: number = LIVE_DEFAULTS.fps;
  quality: number = LIVE_DEFAULTS.quality;
  /** Frames sent since the stream started. */
  sent = 0;

  constructor(private readonly options: LiveStreamOptions) {}

  get active(): boolean {
    return this.running !== undefined;
  }

  /** Starts streaming, or changes the settings of the stream running. */
  start(settings: LiveStart): void {
    const reopen = this.running && (settings.maxSide !== this.settings.maxSide || settings.quality !== this.settings.quality);
    this.settings = settings;
    this.fps = settings.fps;
    this.quality = settings.quality;
    if (this.running && !reopen) return;
    this.running?.abort();
    const abort = new AbortController();
    this.running = abort;
    const previous = this.loop ?? Promise.resolve();
    this.loop = previous.then(() => this.keepRunning(abort.signal));
  }

  /** A capture that fails (the phone was busy, minicap died) is tried again a moment later while someone watches. */
  private async keepRunning(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.run(signal);
      } catch (error) {
        if (signal.aborted) return;
        this.options.log?.(`live screen: ${error instanceof Error ? error.message : String(error)}; trying again`);
        await pause(1000, signal);
      }
    }
  }

  private async run(signal: AbortSignal): Promise<void> {
    let openedAt = this.quality;
    let source = await this.options.open({ maxSide: this.settings.maxSide, quality: this.quality });
    let keptPace = 0;
    try {
      while (!signal.aborted) {
        const began = Date.now();
        const frame = await source.next(signal);
        if (signal.aborted) break;
        const inputSeq = this.options.inputSeqAt(Date.parse(frame.capturedAt));
        const answer = await this.options.sender.send({ ...frame, seq: ++this.seq, ...(inputSeq !== undefined ? { inputSeq } : {}) });
        this.sent += 1;
        // The server has nobody to show it to: it says stop, and stops the stream itself.
        if (answer?.ok === false) {
          if (this.running?.signal === signal) {
            this.running.abort();
            this.running = undefined;
          }
          return;
        }
        if (!answer || answer.slow) {
          keptPace = 0;
          this.fps = Math.max(MIN_FPS, Math.floor(this.fps * 0.7));
          this.quality = Math.max(MIN_QUALITY, this.quality - 10);
        } else if (++keptPace >= this.fps && (this.fps < this.settings.fps || this.quality < this.settings.quality)) {
          // A second at pace: a step back up.
          keptPace = 0;
          this.fps = Math.min(this.settings.fps, this.fps + 2);
          this.quality = Math.min(this.settings.quality, this.quality + 10);
        }
        // A source that encodes at a fixed quality is reopened when the quality moved far from it.
        if (Math.abs(this.quality - openedAt) >= 20) {
          await source.close();
          openedAt = this.quality;
          source = await this.options.open({ maxSide: this.settings.maxSide, quality: this.quality });
        }
        const wait = 1000 / this.fps - (Date.now() - began);
        if (wait > 0) await pause(wait, signal);
      }
    } finally {
      await source.close().catch(() => undefined);
    }
  }

  async stop(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    running?.abort();
    await this.loop;
    this.loop = undefined;
  }
}

/** A phone without a faster way: one screenshot after another, as fast as it takes them. */
export function screenshotSource(
  capture: (settings: { maxSide: number; quality: number }) => Promise<LiveScreenFrame>,
  settings: { maxSide: number; quality: number },
): LiveFrameSource {
  let closed = false;
  return {
    async next(signal) {
      if (closed || signal?.aborted) throw new Error('The live screen was closed');
      return capture(settings);
    },
    async close() {
      closed = true;
    },
  };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
