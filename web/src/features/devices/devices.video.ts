/**
 * The live screen's H.264 player: packets relayed from the phone's encoder, decoded by the browser's own decoder
 * (WebCodecs) and drawn on a canvas. It starts at a key frame (with the stream's configuration before it), and after
 * anything it cannot follow (a gap in the packets, another stream, a decoder that falls behind or fails) it waits for
 * the next key frame instead of drawing a broken picture. Each picture drawn says which input it is the first to show.
 */
import { avcCodecString, configFacts } from '@farm/agent-protocol/h264';
import type { LiveVideoOut } from '@farm/contracts';

/** Whether this browser can decode the stream: WebCodecs, which browsers give only to secure pages (https, localhost). */
export function canDecodeH264(): boolean {
  return typeof window !== 'undefined' && window.isSecureContext && typeof window.VideoDecoder === 'function';
}

/** Pictures waiting in the decoder past which the player drops to the next key frame rather than fall further behind. */
export const MAX_DECODE_QUEUE = 6;

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
  private stream: string | null = null;
  private lastSeq: number | null = null;
  private waitingKey = true;
  private timestamp = 0;
  private readonly inputs = new Map<number, number | undefined>();
  private closed = false;
  /** Pictures decoded and drawn, and packets skipped while waiting for a key frame. */
  drawnCount = 0;
  skipped = 0;

  constructor(private readonly options: H264PlayerOptions) {}

  push(packet: LiveVideoOut): void {
    if (this.closed) return;
    const data = toBytes(packet.data);
    if (packet.stream !== this.stream) {
      // Another stream (control taken or handed back): its own configuration and key frame come first.
      this.stream = packet.stream;
      this.config = null;
      this.waitingKey = true;
    } else if (this.lastSeq !== null && packet.seq !== this.lastSeq + 1) {
      this.waitingKey = true;
    }
    this.lastSeq = packet.seq;
    if (packet.config) {
      this.configure(data);
      return;
    }
    const decoder = this.decoder;
    if (!decoder || !this.config || decoder.state !== 'configured') {
      this.skipped += 1;
      return;
    }
    if (decoder.decodeQueueSize > MAX_DECODE_QUEUE) this.waitingKey = true;
    if (this.waitingKey && !packet.keyFrame) {
      this.skipped += 1;
      return;
    }
    this.waitingKey = false;
    const timestamp = this.timestamp++;
    this.inputs.set(timestamp, packet.inputSeq);
    if (this.inputs.size > 240) this.inputs.delete(this.inputs.keys().next().value as number);
    try {
      // The parameter sets travel in their own packet: a key frame is given them again, so it decodes on its own.
      decoder.decode(new EncodedVideoChunk({ type: packet.keyFrame ? 'key' : 'delta', timestamp, data: packet.keyFrame ? joined(this.config, data) : data }));
    } catch {
      this.waitingKey = true;
    }
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
    const decoder = new VideoDecoder({
      output: (frame) => this.draw(frame),
      error: (error) => {
        if (this.decoder !== decoder) return;
        this.decoder = null;
        this.codec = null;
        this.waitingKey = true;
        if (error.name === 'NotSupportedError') this.options.unsupported(error.message);
      },
    });
    this.decoder = decoder;
    try {
      // No description: the stream is Annex B, with the parameter sets in band.
      decoder.configure({ codec, optimizeForLatency: true });
    } catch (error) {
      this.decoder = null;
      this.options.unsupported(error instanceof Error ? error.message : String(error));
    }
  }

  private draw(frame: VideoFrame): void {
    const inputSeq = this.inputs.get(frame.timestamp);
    this.inputs.delete(frame.timestamp);
    const canvas = this.options.canvas();
    const width = frame.displayWidth;
    const height = frame.displayHeight;
    if (canvas && !this.closed) {
      if (canvas.width !== width) canvas.width = width;
      if (canvas.height !== height) canvas.height = height;
      canvas.getContext('2d')?.drawImage(frame, 0, 0, width, height);
    }
    frame.close();
    if (this.closed) return;
    this.drawnCount += 1;
    this.options.drawn({ width, height, inputSeq });
  }

  close(): void {
    this.closed = true;
    if (this.decoder && this.decoder.state !== 'closed') this.decoder.close();
    this.decoder = null;
  }
}
