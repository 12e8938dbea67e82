/**
 * The live screen's H.264 player: packets relayed from the phone's encoder, decoded by the browser's own decoder
 * (WebCodecs) and drawn on a canvas. It starts at a key frame (with the stream's configuration before it), and after
 * anything it cannot follow (a gap in the packets, another stream, a decoder that fails or is more than a second
 * behind) it waits for the next key frame instead of drawing a broken picture; a decoder a little behind is let catch
 * up (`VIDEO_PACE`). Each picture drawn says which input it is the first to show.
 */
import { avcCodecString, configFacts, NAL, nalType, nalUnits } from '@farm/agent-protocol/h264';
import type { LiveVideoOut } from '@farm/contracts';

/** Whether this browser can decode the stream: WebCodecs, which browsers give only to secure pages (https, localhost). */
export function canDecodeH264(): boolean {
  return typeof window !== 'undefined' && window.isSecureContext && typeof window.VideoDecoder === 'function';
}

/**
 * How the player keeps pace when the decoder falls behind (a loaded CPU). WebCodecs' `decodeQueueSize` counts the
 * decode requests not yet handed to the codec: it grows whenever the page's thread or the codec is held up for a
 * moment (a busy tab, a garbage collection, another process), and shrinks as fast again once they run, so a queue of
 * a few pictures is a hiccup, not a decoder that cannot follow. Dropping to the next key frame on such a hiccup froze
 * the picture until it came (up to the stream's 2 s key-frame interval) and threw the group away. Instead, every
 * reference picture is decoded, and while the player is behind:
 * - a picture no other refers to (`nal_ref_idc` 0) is not decoded at all;
 * - decoded pictures are drawn at most every `renderEveryMs` (25 a second), the newest one, so the page's thread
 *   spends its time decoding rather than drawing pictures already late;
 * and only a decoder more than `MAX_LAG_MS` behind (one that cannot follow the stream at all) is flushed to the next
 * key frame. The lag is the age of the oldest picture sent to the decoder and not out yet: what the person sees late.
 */
export const VIDEO_PACE = {
  /** Pictures in the decoder (queued, or being decoded) from which the player counts itself behind. */
  behindPictures: 3,
  /** While behind, a picture is drawn only this long after the last one (25 a second: above the 20 a controller needs). */
  renderEveryMs: 40,
  /** Behind by more than this, the decoder is flushed and the player waits for the next key frame. */
  maxLagMs: 1000,
} as const;

/** Whether every slice of an Annex B picture is one no other picture refers to (H.264 §7.4.1: nal_ref_idc 0). */
export function isDisposable(data: Uint8Array): boolean {
  let slices = 0;
  for (const unit of nalUnits(data)) {
    const type = nalType(unit);
    if (type !== NAL.slice && type !== NAL.idr) continue;
    slices += 1;
    if (((unit[0] ?? 0) >> 5) & 3) return false;
  }
  return slices > 0;
}

export interface DrawnPicture {
  width: number;
  height: number;
  /** The last input the phone had applied when the host had this picture. */
  inputSeq: number | undefined;
}

export interface H264PlayerOptions {
  /** The canvas to draw on (it may appear after the first packets). */
  canvas: () => HTMLCanvasElement | null;
  drawn: (picture: DrawnPicture) => void;
  /** The browser cannot decode this stream at all (no such codec here): the viewer asks for JPEG instead. */
  unsupported: (reason: string) => void;
  /** The clock (ms) the lag and the drawing pace are read on. */
  now?: () => number;
}

const toBytes = (data: ArrayBuffer | Uint8Array) => (data instanceof Uint8Array ? data : new Uint8Array(data));

function joined(first: Uint8Array, second: Uint8Array): Uint8Array {
  const out = new Uint8Array(first.byteLength + second.byteLength);
  out.set(first, 0);
  out.set(second, first.byteLength);
  return out;
}

export class H264Player {
  private decoder: VideoDecoder | null = null;
  private codec: string | null = null;
  private config: Uint8Array | null = null;
  /** Each stream's last configuration: a switch back to a stream seen before needs only its next key frame. */
  private readonly configs = new Map<string, Uint8Array>();
  private stream: string | null = null;
  private lastSeq: number | null = null;
  private waitingKey = true;
  private timestamp = 0;
  private readonly inputs = new Map<number, number | undefined>();
  /** When each picture in the decoder was handed to it, by timestamp (oldest first): the lag. */
  private readonly sentAt = new Map<number, number>();
  private lastDrawAt = Number.NEGATIVE_INFINITY;
  private closed = false;
  private readonly now: () => number;
  /** Pictures decoded and drawn; packets skipped while waiting for a key frame; pictures left out to keep pace. */
  drawnCount = 0;
  skipped = 0;
  /** Disposable pictures not decoded, and decoded pictures not drawn, while behind. */
  notDecoded = 0;
  notDrawn = 0;
  /** Times the decoder was flushed to the next key frame (it could not follow at all). */
  flushed = 0;

  constructor(private readonly options: H264PlayerOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  /** How far behind the picture is: the age of the oldest picture handed to the decoder and not out yet. */
  get lagMs(): number {
    const oldest = this.sentAt.values().next();
    return oldest.done ? 0 : this.now() - oldest.value;
  }

  push(packet: LiveVideoOut): void {
    if (this.closed) return;
    const data = toBytes(packet.data);
    if (packet.stream !== this.stream) {
      // Another stream (control taken or handed back): its own configuration and key frame come first.
      this.stream = packet.stream;
      this.config = null;
      this.waitingKey = true;
      const known = this.configs.get(packet.stream);
      if (known && !packet.config) this.configure(known);
    } else if (this.lastSeq !== null && packet.seq !== this.lastSeq + 1) {
      this.waitingKey = true;
    }
    this.lastSeq = packet.seq;
    if (packet.config) {
      this.configs.set(packet.stream, data);
      this.configure(data);
      return;
    }
    const decoder = this.decoder;
    if (!decoder || !this.config || decoder.state !== 'configured') {
      this.skipped += 1;
      return;
    }
    if (!this.waitingKey && this.lagMs > VIDEO_PACE.maxLagMs) this.flush(decoder);
    if (this.waitingKey && !packet.keyFrame) {
      this.skipped += 1;
      return;
    }
    if (!packet.keyFrame && this.behind(decoder) && isDisposable(data)) {
      this.notDecoded += 1;
      return;
    }
    this.waitingKey = false;
    const timestamp = this.timestamp++;
    this.inputs.set(timestamp, packet.inputSeq);
    if (this.inputs.size > 240) this.inputs.delete(this.inputs.keys().next().value as number);
    this.sentAt.set(timestamp, this.now());
    try {
      // The parameter sets travel in their own packet: a key frame is given them again, so it decodes on its own.
      decoder.decode(new EncodedVideoChunk({ type: packet.keyFrame ? 'key' : 'delta', timestamp, data: packet.keyFrame ? joined(this.config, data) : data }));
    } catch {
      this.sentAt.delete(timestamp);
      this.waitingKey = true;
    }
  }

  /** Behind: a few pictures wait in the decoder (queued or being decoded). */
  private behind(decoder: VideoDecoder): boolean {
    return Math.max(decoder.decodeQueueSize, this.sentAt.size) >= VIDEO_PACE.behindPictures;
  }

  /** The decoder cannot follow: what it holds is dropped and the player waits for the next key frame. */
  private flush(decoder: VideoDecoder): void {
    this.flushed += 1;
    this.waitingKey = true;
    this.sentAt.clear();
    decoder.reset();
    if (this.config && this.codec) decoder.configure({ codec: this.codec, optimizeForLatency: true });
  }

  private configure(config: Uint8Array): void {
    const facts = configFacts(config);
    if (!facts) return;
    const codec = avcCodecString(facts);
    this.config = config;
    this.waitingKey = true;
    if (this.decoder && this.decoder.state === 'configured' && this.codec === codec) return;
    this.codec = codec;
    if (this.decoder && this.decoder.state !== 'closed') this.decoder.close();
    this.sentAt.clear();
    const init: VideoDecoderInit = {
      output: (frame) => this.output(decoder, frame),
      error: (error) => {
        if (this.decoder !== decoder) return;
        this.decoder = null;
        this.codec = null;
        this.waitingKey = true;
        this.sentAt.clear();
        if (error.name === 'NotSupportedError') this.options.unsupported(error.message);
      },
    };
    const decoder = new VideoDecoder(init);
    this.decoder = decoder;
    try {
      // No description: the stream is Annex B, with the parameter sets in band.
      decoder.configure({ codec, optimizeForLatency: true });
    } catch (error) {
      this.decoder = null;
      this.options.unsupported(error instanceof Error ? error.message : String(error));
    }
  }

  /** A decoded picture: drawn, unless newer ones follow right behind it and one was drawn a moment ago. */
  private output(decoder: VideoDecoder, frame: VideoFrame): void {
    this.sentAt.delete(frame.timestamp);
    const inputSeq = this.inputs.get(frame.timestamp);
    this.inputs.delete(frame.timestamp);
    const now = this.now();
    // Newer pictures right behind this one (a decoder catching up, not its usual one-picture pipeline).
    const newerWaiting = this.decoder === decoder && Math.max(decoder.decodeQueueSize, this.sentAt.size) >= VIDEO_PACE.behindPictures - 1;
    if (this.closed || (newerWaiting && now - this.lastDrawAt < VIDEO_PACE.renderEveryMs)) {
      frame.close();
      if (!this.closed) this.notDrawn += 1;
      return;
    }
    this.lastDrawAt = now;
    const canvas = this.options.canvas();
    const width = frame.displayWidth;
    const height = frame.displayHeight;
    if (canvas) {
      if (canvas.width !== width) canvas.width = width;
      if (canvas.height !== height) canvas.height = height;
      canvas.getContext('2d')?.drawImage(frame, 0, 0, width, height);
    }
    frame.close();
    this.drawnCount += 1;
    this.options.drawn({ width, height, inputSeq });
  }

  close(): void {
    this.closed = true;
    if (this.decoder && this.decoder.state !== 'closed') this.decoder.close();
    this.decoder = null;
  }
}
