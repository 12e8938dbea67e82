/**
 * The page bench/group/decode.ts opens in headless Chromium: group control's own pictures (web's GroupPicture, each
 * with the live screens' H.264 player on WebCodecs) fed by the real GroupSession through a stand-in socket, which
 * plays ffmpeg clips at real time as `live.video` packets (each phone's key frames at its own moment). The bench only
 * counts around the product's code: each decoder's requests, queue and outputs (a VideoDecoder subclass), each
 * canvas's drawings (drawImage), and the page's long tasks. Built by Vite from web's sources (decode.ts does it).
 *
 * ?followers=30&leader=1: how many follower tiles (480 px, 15 FPS `watch` streams) and whether the leader's
 * picture (720 px, 30 FPS `control` stream) is on the page.
 */
import type { LiveVideoOut } from '@farm/contracts';
import { useEffect, useMemo } from 'react';
import { createRoot } from 'react-dom/client';
import { drawingLoad, GroupPicture } from '../../../web/src/features/devices/group/GroupPicture';
import { GroupSession, type GroupSocket } from '../../../web/src/features/devices/group/group.session';

interface ClipPacket {
  config: boolean;
  keyFrame: boolean;
  ptsUs: number | null;
  data: string;
}
interface Clip {
  width: number;
  height: number;
  fps: number;
  stream: 'watch' | 'control';
  packets: ClipPacket[];
}

/** What the bench counts of one stream. */
interface StreamCounts {
  /** Pictures the socket delivered, pictures handed to the decoder, pictures out of it, pictures drawn. */
  fed: number;
  sent: number;
  decoded: number;
  drawn: number;
  /** The most `decodeQueueSize` was right after a request, and the most pictures in the decoder (sent, not out). */
  queueMax: number;
  inDecoderMax: number;
  errors: number;
}

const params = new URLSearchParams(location.search);
const followers = Number(params.get('followers') ?? 30);
const withLeader = params.get('leader') === '1';
const followerIds = Array.from({ length: followers }, (_, i) => `phone-${String(i + 1).padStart(2, '0')}`);
const ids = [...(withLeader ? ['leader'] : []), ...followerIds];
const counts = new Map<string, StreamCounts>(ids.map((id) => [id, { fed: 0, sent: 0, decoded: 0, drawn: 0, queueMax: 0, inDecoderMax: 0, errors: 0 }]));

/** The stream whose packet the session is handing over now: the player makes its decoder within that call. */
let feeding: string | null = null;
const Decoder = window.VideoDecoder;
class CountedDecoder extends Decoder {
  private readonly counted: StreamCounts | undefined;
  constructor(init: VideoDecoderInit) {
    const counted = feeding ? counts.get(feeding) : undefined;
    super({
      output: (frame) => {
        if (counted) counted.decoded += 1;
        init.output(frame);
      },
      error: (error) => {
        if (counted) counted.errors += 1;
        init.error(error);
      },
    });
    this.counted = counted;
  }
  override decode(chunk: EncodedVideoChunk): void {
    super.decode(chunk);
    const counted = this.counted;
    if (!counted) return;
    counted.sent += 1;
    counted.queueMax = Math.max(counted.queueMax, this.decodeQueueSize);
    counted.inDecoderMax = Math.max(counted.inDecoderMax, counted.sent - counted.decoded);
  }
}
window.VideoDecoder = CountedDecoder;

const streamOfCanvas = new WeakMap<HTMLCanvasElement, StreamCounts | null>();
const drawImage = CanvasRenderingContext2D.prototype.drawImage;
CanvasRenderingContext2D.prototype.drawImage = function (this: CanvasRenderingContext2D, ...args: unknown[]) {
  let counted = streamOfCanvas.get(this.canvas);
  if (counted === undefined) {
    const id = this.canvas.closest<HTMLElement>('[data-stream]')?.dataset.stream;
    counted = (id && counts.get(id)) || null;
    streamOfCanvas.set(this.canvas, counted);
  }
  if (counted) counted.drawn += 1;
  return (drawImage as (...a: unknown[]) => void).apply(this, args);
} as typeof drawImage;

let longTasks = 0;
let longTaskMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    longTasks += 1;
    longTaskMs += entry.duration;
  }
}).observe({ type: 'longtask', buffered: true });
let animationFrames = 0;
const countFrame = () => {
  animationFrames += 1;
  requestAnimationFrame(countFrame);
};
requestAnimationFrame(countFrame);

/** A socket that never connects: the session only listens to it, and the bench plays its `live.video` events. */
const listeners = new Map<string, (...args: unknown[]) => void>();
const socket = {
  connected: false,
  emit: () => undefined,
  on: (event: string, listener: (...args: unknown[]) => void) => listeners.set(event, listener),
  off: (event: string) => listeners.delete(event),
} as unknown as GroupSocket;
const session = new GroupSession(socket, {
  deviceIds: ids,
  leaderId: withLeader ? 'leader' : (ids[0] ?? ''),
  h264: true,
  changed: () => undefined,
  refused: () => undefined,
});

const bytes = (base64: string) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));

/** Plays a clip as one phone's stream, at real time from `startAt`, looped (its configuration only once, as scrcpy). */
function play(id: string, clip: Clip, startAt: number): void {
  const packets = clip.packets.map((packet) => ({ ...packet, bytes: bytes(packet.data) }));
  const period = 1000 / clip.fps;
  const counted = counts.get(id)!;
  let seq = 0;
  let index = 0;
  let pictures = 0;
  const send = (packet: (typeof packets)[number]) => {
    const message: LiveVideoOut = {
      deviceId: id,
      codec: 'h264',
      stream: clip.stream,
      seq: ++seq,
      config: packet.config,
      keyFrame: packet.keyFrame,
      ptsUs: packet.ptsUs,
      width: clip.width,
      height: clip.height,
      // Each message its own buffer, as the socket gives.
      data: packet.bytes.slice().buffer,
    };
    feeding = id;
    try {
      listeners.get('live.video')?.(message, () => undefined);
    } finally {
      feeding = null;
    }
  };
  const tick = () => {
    // A late timer (a busy page) sends every picture due, one message each, as a socket's backlog arrives.
    while (startAt + pictures * period <= performance.now()) {
      let packet = packets[index % packets.length]!;
      if (packet.config) {
        if (index < packets.length) send(packet);
        index += 1;
        packet = packets[index % packets.length]!;
      }
      send(packet);
      counted.fed += 1;
      index += 1;
      pictures += 1;
    }
    setTimeout(tick, Math.max(0, startAt + pictures * period - performance.now()));
  };
  setTimeout(tick, Math.max(0, startAt - performance.now()));
}

function Tile({ id, width, height }: { id: string; width: number; height: number }) {
  return (
    <div data-stream={id} style={{ position: 'relative', width, height, background: '#222' }}>
      <GroupPicture session={session} deviceId={id} h264 />
    </div>
  );
}

function Page({ clips }: { clips: { follower: Clip; leader: Clip } }) {
  const columns = Math.min(10, Math.max(1, followers));
  const ready = useMemo(() => ({ done: false }), []);
  useEffect(() => {
    if (ready.done) return;
    ready.done = true;
    // Each phone's key frames at its own moment: the streams start spread over one key-frame interval.
    const start = performance.now() + 300;
    for (const [i, id] of ids.entries()) play(id, id === 'leader' ? clips.leader : clips.follower, start + (i * 2000) / ids.length);
    Object.assign(window, { __benchStarted: true });
  }, [clips, ready]);
  return (
    <div style={{ display: 'flex', gap: 8 }}>
      {withLeader ? <Tile id="leader" width={450} height={1000} /> : null}
      <div style={{ display: 'grid', gridTemplateColumns: `repeat(${columns}, 110px)`, gridAutoRows: 245, gap: 2 }}>
        {followerIds.map((id) => (
          <Tile key={id} id={id} width={110} height={245} />
        ))}
      </div>
    </div>
  );
}

/** What the bench reads at the start and the end of its window (at the start, the maxima start again). */
function snapshot(restart = false) {
  const taken = {
    at: performance.now(),
    streams: Object.fromEntries([...counts].map(([id, counted]) => [id, { ...counted }])),
    longTasks,
    longTaskMs,
    animationFrames,
    drawingLoad: drawingLoad(),
    onScreen: document.querySelectorAll('[data-on-screen="yes"]').length,
  };
  if (restart) {
    for (const counted of counts.values()) {
      counted.queueMax = 0;
      counted.inDecoderMax = 0;
    }
  }
  return taken;
}
Object.assign(window, { __benchSnapshot: snapshot });

const clips = (await (await fetch('/clips.json')).json()) as { follower: Clip; leader: Clip };
createRoot(document.getElementById('root')!).render(<Page clips={clips} />);
