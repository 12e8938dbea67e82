/**
 * minicap as it runs on a phone, behind the fake adb server. The shell starts it with `-P WxH@VWxVH/R -S -Q q`; it
 * prints its pid, listens on the abstract socket `minicap` once its frames are ready and sends each client the
 * 24-byte banner, then a real JPEG of the virtual size every `frameMs` until it is killed or the client hangs up.
 * Each frame carries its number in a JPEG comment, so a test can tell which one it got and how many were skipped.
 * It can also misbehave as minicap does on phones it does not suit: never listen, listen and say nothing, or crash.
 */
import type { Socket } from 'node:net';
import sharp from 'sharp';

export type FakeMinicapBehaviour = 'streams' | 'never-listens' | 'mute' | 'crashes';

export interface FakeProjection {
  realWidth: number;
  realHeight: number;
  virtualWidth: number;
  virtualHeight: number;
  rotation: 0 | 90 | 180 | 270;
}

/** Reads `-P 1080x2400@324x720/0` as minicap does; null when it would refuse it. */
export function parseProjection(value: string | undefined): FakeProjection | null {
  const match = /^(\d+)x(\d+)@(\d+)x(\d+)\/(0|90|180|270)$/.exec(value ?? '');
  if (!match) return null;
  const [realWidth, realHeight, virtualWidth, virtualHeight, rotation] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    FakeProjection['rotation'],
  ];
  return { realWidth, realHeight, virtualWidth, virtualHeight, rotation };
}

/** The number a fake frame carries in its JPEG comment (`frame 12`), or null. */
export function fakeFrameNumber(jpeg: Buffer): number | null {
  if (jpeg[2] !== 0xff || jpeg[3] !== 0xfe) return null;
  const length = jpeg.readUInt16BE(4);
  const match = /^frame (\d+)$/.exec(jpeg.subarray(6, 4 + length).toString('latin1'));
  return match ? Number(match[1]) : null;
}

/** A JPEG with `comment` in a COM segment right after its start marker. */
function withComment(jpeg: Buffer, comment: string): Buffer {
  const text = Buffer.from(comment, 'latin1');
  const header = Buffer.alloc(4);
  header.writeUInt16BE(0xfffe, 0);
  header.writeUInt16BE(text.length + 2, 2);
  return Buffer.concat([jpeg.subarray(0, 2), header, text, jpeg.subarray(2)]);
}

export class FakeMinicap {
  readonly projection: FakeProjection | null;
  readonly quality: number;
  /** Frames sent so far, over all connections; the next one is numbered `sent + 1`. */
  sent = 0;
  connections = 0;
  running = true;
  listening = false;
  exitCode = 0;
  /** Resolves with what it printed last, when it ends. */
  readonly exited: Promise<Buffer>;
  private finish: (output: Buffer) => void = () => undefined;
  private readonly clients = new Map<Socket, NodeJS.Timeout | null>();
  private picture: Buffer | null = null;

  constructor(
    readonly pid: number,
    readonly args: string[],
    readonly behaviour: FakeMinicapBehaviour,
    private readonly frameMs: number,
    /** Where its start-up lines go (the shell that started it). */
    private readonly print: (text: string) => void,
  ) {
    this.exited = new Promise<Buffer>((resolve) => (this.finish = resolve));
    this.projection = parseProjection(args[args.indexOf('-P') + 1]);
    this.quality = Number(args.includes('-Q') ? args[args.indexOf('-Q') + 1] : 80);
    this.print(`PID: ${pid}\n`);
    if (!this.projection) {
      this.end(1, 'ERROR: Please specify a projection with -P\n');
      return;
    }
    const p = this.projection;
    this.print(`INFO: Using projection ${p.realWidth}x${p.realHeight}@${p.virtualWidth}x${p.virtualHeight}/${p.rotation}\n`);
    if (behaviour === 'crashes') {
      setTimeout(() => this.end(1, 'ERROR: Unable to create virtual display\n'), 20);
      return;
    }
    if (behaviour === 'never-listens') return;
    void this.prepare();
  }

  /** The frame picture at the virtual size, turned with the display, then the socket opens. */
  private async prepare(): Promise<void> {
    const p = this.projection as FakeProjection;
    const turned = p.rotation === 90 || p.rotation === 270;
    const [width, height] = turned ? [p.virtualHeight, p.virtualWidth] : [p.virtualWidth, p.virtualHeight];
    this.picture = await sharp({ create: { width, height, channels: 3, background: '#d9825b' } })
      .jpeg({ quality: this.quality })
      .toBuffer();
    if (this.running) this.listening = true;
  }

  /** A client connected to `localabstract:minicap` (adb said OKAY to it). */
  accept(socket: Socket): void {
    this.connections += 1;
    socket.on('close', () => this.drop(socket));
    if (this.behaviour === 'mute') {
      this.clients.set(socket, null);
      return;
    }
    const p = this.projection as FakeProjection;
    const banner = Buffer.alloc(24);
    banner.writeUInt8(1, 0);
    banner.writeUInt8(24, 1);
    banner.writeUInt32LE(this.pid, 2);
    banner.writeUInt32LE(p.realWidth, 6);
    banner.writeUInt32LE(p.realHeight, 10);
    banner.writeUInt32LE(p.virtualWidth, 14);
    banner.writeUInt32LE(p.virtualHeight, 18);
    banner.writeUInt8(p.rotation / 90, 22);
    banner.writeUInt8(0, 23);
    socket.write(banner);
    this.clients.set(
      socket,
      setInterval(() => this.sendFrame(socket), this.frameMs),
    );
  }

  private sendFrame(socket: Socket): void {
    if (socket.destroyed || !this.picture) return;
    this.sent += 1;
    const jpeg = withComment(this.picture, `frame ${this.sent}`);
    const length = Buffer.alloc(4);
    length.writeUInt32LE(jpeg.length, 0);
    // Two writes that cut the frame mid-way, as a real socket's reads often do.
    socket.write(Buffer.concat([length, jpeg.subarray(0, 7)]));
    socket.write(jpeg.subarray(7));
  }

  private drop(socket: Socket): void {
    const timer = this.clients.get(socket);
    if (timer) clearInterval(timer);
    this.clients.delete(socket);
  }

  /** `kill <pid>`: the process ends, its clients are hung up on, its shell closes. */
  kill(): void {
    this.end(143, '');
  }

  private end(code: number, last: string): void {
    if (!this.running) return;
    this.running = false;
    this.listening = false;
    this.exitCode = code;
    for (const [socket, timer] of this.clients) {
      if (timer) clearInterval(timer);
      socket.end();
    }
    this.clients.clear();
    this.finish(Buffer.from(last));
  }
}
