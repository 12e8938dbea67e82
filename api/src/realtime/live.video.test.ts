/**
 * The H.264 relay's drop policy, on a moved clock: a watcher behind when a stream starts still gets the stream's
 * parameter sets and resumes at the cached key frame once it keeps pace (before, every packet was dropped and the
 * player, which has no configuration after a switch, stayed blank); a watcher joining asks the phone for a key frame
 * only when the cache cannot serve it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BusVideo, LiveBus, LiveSignal } from './live.bus.ts';
import type { LiveSocket, Watch } from './live.shared.ts';
import { LiveVideoRelay } from './live.video.ts';

const DEVICE = 'phone-1';

/** A browser's socket: what it was sent, and the acks it has not given yet. */
class Browser {
  received: BusVideo[] = [];
  private readonly acks: (() => void)[] = [];
  readonly socket = {
    emit: (_event: 'live.video', packet: BusVideo, ack: () => void) => {
      this.received.push(packet);
      this.acks.push(ack);
    },
  } as unknown as LiveSocket;

  ackAll(): void {
    for (const ack of this.acks.splice(0)) ack();
  }
}

function watchOf(browser: Browser): Watch {
  return {
    socket: browser.socket,
    deviceId: DEVICE,
    usageId: Promise.resolve(null),
    inFlight: false,
    sentAt: 0,
    h264: true,
    video: { follow: null, waitingKey: true, unacked: 0, sentAt: [], generation: 0 },
  };
}

/** A phone's stream: a configuration, then a key frame every `gop` pictures, 30 a second. */
class Stream {
  private seq = 0;
  private picture = 0;
  constructor(
    readonly stream: 'control' | 'watch',
    private readonly gop = 60,
    private readonly bytes = 20_000,
  ) {}
  private packet(config: boolean, keyFrame: boolean): BusVideo {
    return {
      deviceId: DEVICE,
      codec: 'h264',
      stream: this.stream,
      seq: ++this.seq,
      config,
      keyFrame,
      ptsUs: config ? null : this.picture * 33_333,
      width: 160,
      height: 320,
      data: Buffer.alloc(config ? 30 : keyFrame ? this.bytes * 4 : this.bytes, this.seq % 256),
    };
  }
  config(): BusVideo {
    return this.packet(true, false);
  }
  next(): BusVideo {
    const keyFrame = this.picture % this.gop === 0;
    this.picture += 1;
    return this.packet(false, keyFrame);
  }
}

describe('the H.264 relay', () => {
  let signals: LiveSignal[];
  let controller: LiveSocket | undefined;
  let relay: LiveVideoRelay;
  const bus = { instanceId: 'me', signal: (message: LiveSignal) => signals.push(message) } as unknown as LiveBus;

  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
    signals = [];
    controller = undefined;
    relay = new LiveVideoRelay(
      bus,
      'me',
      () => controller,
      () => undefined,
    );
  });
  afterEach(() => vi.useRealTimers());

  /** Delivers `count` pictures 33 ms apart. */
  const play = (stream: Stream, count: number, watches: Watch[]) => {
    for (let i = 0; i < count; i++) {
      vi.advanceTimersByTime(33);
      relay.deliver(stream.next(), watches);
    }
  };

  it('sends a watcher behind when a stream starts its parameter sets, then the cached key frame once it keeps pace', () => {
    const browser = new Browser();
    const watch = watchOf(browser);
    const watchStream = new Stream('watch');
    const controlStream = new Stream('control');
    relay.deliver(watchStream.config(), [watch]);
    play(watchStream, 10, [watch]);
    // The browser stops acknowledging (a busy tab): 2 s later it is behind.
    play(watchStream, 60, [watch]);
    // It takes control: the control stream starts (configuration, key frame) while it is still behind.
    controller = browser.socket;
    browser.received = [];
    relay.deliver(controlStream.config(), [watch]);
    play(controlStream, 5, [watch]);
    const control = browser.received.filter((packet) => packet.stream === 'control');
    expect(control.map((packet) => (packet.config ? 'config' : packet.keyFrame ? 'key' : 'delta'))).toEqual(['config']);
    // It catches up: the next packet brings the cached key frame and what followed, not a wait for the next key frame.
    browser.ackAll();
    browser.received = [];
    play(controlStream, 1, [watch]);
    const kinds = browser.received.map((packet) => (packet.config ? 'config' : packet.keyFrame ? 'key' : 'delta'));
    expect(kinds.slice(0, 2)).toEqual(['config', 'key']);
    expect(kinds).toHaveLength(2 + 5);
    expect(browser.received.every((packet) => packet.stream === 'control')).toBe(true);
    // From then on, every picture.
    browser.ackAll();
    browser.received = [];
    play(controlStream, 3, [watch]);
    expect(browser.received.map((packet) => packet.keyFrame || packet.config)).toEqual([false, false, false]);
  });

  it('asks the phone for a key frame only when the cache cannot serve a joiner', () => {
    const stream = new Stream('watch', 300);
    const first = watchOf(new Browser());
    relay.deliver(stream.config(), [first]);
    play(stream, 30, [first]);
    // A key frame a second old: the joiner starts from it, the encoder is left alone.
    const joiner = new Browser();
    relay.start(watchOf(joiner));
    expect(signals.filter((signal) => signal.t === 'keyframe')).toEqual([]);
    expect(joiner.received.map((packet) => packet.config || packet.keyFrame).slice(0, 2)).toEqual([true, true]);
    // Four seconds into a group (an encoder that stopped keeping its 2 s pace): a fresh key frame is asked for.
    play(stream, 90, [first]);
    relay.start(watchOf(new Browser()));
    expect(signals.filter((signal) => signal.t === 'keyframe')).toEqual([{ t: 'keyframe', from: 'me', deviceId: DEVICE, stream: 'watch' }]);
  });

  it('after a lost packet, waits for the next key frame and asks for one for a joiner', () => {
    const stream = new Stream('watch', 300);
    const browser = new Browser();
    const watch = watchOf(browser);
    relay.deliver(stream.config(), [watch]);
    play(stream, 5, [watch]);
    stream.next(); // lost on the way
    browser.received = [];
    play(stream, 3, [watch]);
    expect(browser.received).toEqual([]);
    relay.start(watchOf(new Browser()));
    expect(signals.filter((signal) => signal.t === 'keyframe')).toHaveLength(1);
  });
});
