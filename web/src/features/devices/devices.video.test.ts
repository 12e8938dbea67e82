/**
 * The H.264 player's policy on a stand-in decoder (jsdom has no WebCodecs) and a moved clock: a stream switch with its
 * parameter sets gives a picture, a decoder a few pictures behind is let catch up (every reference picture decoded,
 * the newest drawn) instead of dropping to the next key frame, and only one more than a second behind is flushed.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LiveVideoOut } from '@farm/contracts';
import { H264Player, isDisposable, VIDEO_PACE } from './devices.video.ts';

const hex = (text: string) => Uint8Array.from(text.match(/../g) ?? [], (byte) => Number.parseInt(byte, 16));
/** SPS and PPS of a 160 × 320 baseline stream (libx264, Debian's ffmpeg). */
const CONFIG = hex('000000016742c00cda0a0a6c0440000003004000000f03c50aa800000000168ce0fc8');
/** Slice NAL headers: IDR (nal_ref_idc 3), a reference P picture (2), a picture nothing refers to (0). */
const IDR = hex('0000000165888400');
const P = hex('00000001419a2000');
const DISPOSABLE = hex('00000001019a2000');

/** A decoder that decodes only when told to: its queue is what the player sees as `decodeQueueSize`. */
class StandInDecoder {
  state: CodecState = 'unconfigured';
  queue: { timestamp: number; type: string }[] = [];
  decoded: { timestamp: number; type: string }[] = [];
  resets = 0;
  constructor(private readonly init: VideoDecoderInit) {}
  get decodeQueueSize(): number {
    return this.queue.length;
  }
  configure(): void {
    this.state = 'configured';
  }
  decode(chunk: { timestamp: number; type: string }): void {
    this.queue.push(chunk);
    this.decoded.push(chunk);
  }
  reset(): void {
    this.resets += 1;
    this.queue = [];
    this.state = 'unconfigured';
  }
  close(): void {
    this.state = 'closed';
  }
  /** Decodes `count` waiting pictures, each given to the player's output. */
  run(count = this.queue.length): void {
    for (const chunk of this.queue.splice(0, count))
      this.init.output({ timestamp: chunk.timestamp, displayWidth: 160, displayHeight: 320, close: () => undefined } as unknown as VideoFrame);
  }
}

describe('the H.264 player', () => {
  let now: number;
  let decoders: StandInDecoder[];
  let drawn: number;
  let player: H264Player;
  let seq: number;
  const push = (stream: 'control' | 'watch', kind: 'config' | 'key' | 'delta', data?: Uint8Array) => {
    const packet: LiveVideoOut = {
      deviceId: 'phone-1',
      codec: 'h264',
      stream,
      seq: ++seq,
      config: kind === 'config',
      keyFrame: kind === 'key',
      ptsUs: kind === 'config' ? null : seq * 33_333,
      width: 160,
      height: 320,
      data: data ?? (kind === 'config' ? CONFIG : kind === 'key' ? IDR : P),
    };
    player.push(packet);
  };
  const decoder = () => decoders.at(-1) as StandInDecoder;

  beforeEach(() => {
    vi.stubGlobal(
      'EncodedVideoChunk',
      class {
        constructor(init: { timestamp: number; type: string }) {
          Object.assign(this, init);
        }
      },
    );
    now = 0;
    seq = 0;
    drawn = 0;
    decoders = [];
    vi.stubGlobal(
      'VideoDecoder',
      class extends StandInDecoder {
        constructor(init: VideoDecoderInit) {
          super(init);
          decoders.push(this);
        }
      },
    );
    player = new H264Player({ canvas: () => null, drawn: () => (drawn += 1), unsupported: () => undefined, now: () => now });
  });
  afterEach(() => vi.unstubAllGlobals());

  it('tells pictures nothing refers to from reference ones by nal_ref_idc', () => {
    expect(isDisposable(DISPOSABLE)).toBe(true);
    expect(isDisposable(P)).toBe(false);
    expect(isDisposable(IDR)).toBe(false);
    expect(isDisposable(CONFIG)).toBe(false);
  });

  it('shows a stream it switched to from its parameter sets and key frame, and one it saw before from a key frame', () => {
    push('watch', 'config');
    push('watch', 'key');
    decoder().run();
    expect(drawn).toBe(1);
    // Control taken: the control stream's configuration and key frame (the relay always sends the configuration).
    push('control', 'config');
    push('control', 'key');
    push('control', 'delta');
    decoder().run();
    expect(drawn).toBe(3);
    // Handed back: the watch stream's next key frame decodes with the parameter sets seen before.
    push('watch', 'key');
    decoder().run();
    expect(drawn).toBe(4);
    expect(player.skipped).toBe(0);
  });

  it('lets a decoder a few pictures behind catch up: every reference picture decoded, the newest drawn', () => {
    push('control', 'config');
    push('control', 'key');
    decoder().run();
    // The page is held up for 300 ms: nine pictures wait (the old player dropped to the next key frame past six).
    for (let i = 0; i < 9; i++) {
      now += 33;
      push('control', 'delta');
    }
    // A picture nothing refers to, while behind, is left out.
    now += 33;
    push('control', 'delta', DISPOSABLE);
    expect(decoder().decodeQueueSize).toBe(9);
    expect(player.notDecoded).toBe(1);
    expect(player.skipped).toBe(0);
    // It runs again and decodes them all at once: the first (300 ms after the last drawn) and the newest are drawn,
    // the ones between are not.
    now += 10;
    decoder().run();
    expect(decoder().decoded).toHaveLength(10);
    expect(player.notDrawn).toBeGreaterThanOrEqual(6);
    expect(drawn).toBe(1 + 9 - player.notDrawn);
    // And the next pictures are drawn as they come.
    const before = drawn;
    now += 33;
    push('control', 'delta');
    decoder().run();
    expect(drawn).toBe(before + 1);
    expect(player.flushed).toBe(0);
  });

  it('flushes a decoder more than a second behind and waits for the next key frame', () => {
    push('control', 'config');
    push('control', 'key');
    decoder().run();
    for (let i = 0; i < 40; i++) {
      now += 33;
      push('control', 'delta');
    }
    expect(now).toBeGreaterThan(VIDEO_PACE.maxLagMs);
    expect(decoder().resets).toBe(1);
    expect(player.flushed).toBe(1);
    const before = decoder().decoded.length;
    push('control', 'delta');
    expect(decoder().decoded).toHaveLength(before);
    push('control', 'key');
    decoder().run();
    expect(decoder().decoded).toHaveLength(before + 1);
    expect(drawn).toBe(2);
  });
});
