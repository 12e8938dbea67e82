/**
 * The phones and watchers side of bench/live's H.264 part, in a process of its own so the relay's CPU is measured
 * alone: one fake scrcpy-server per phone on a loopback port (the first connection is its video socket, the second its
 * control socket), streaming a 720 px clip made with ffmpeg at 30 FPS; after a touch it switches to a second clip at
 * the next key frame and notes when it sent that key frame. Watchers are loopback sinks that parse what the relay sends
 * them and note when the switched clip's key frame arrived: the relay's share of input → first frame.
 */
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { ScrcpyVideoParser, type ScrcpyPacket } from '../../agent-protocol/src/adb/adb.scrcpy.ts';
import { clipPackets, FakeScrcpyServer, makeClip } from '../../agent-protocol/test/fake-scrcpy.ts';

const PHONES = Number(process.env.BENCH_PHONES ?? 20);
const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 2);
/** Clip B's times are offset by this much, so a sink knows its frames without comparing bytes. */
const CLIP_B_OFFSET_US = 1e12;
const now = () => performance.timeOrigin + performance.now();

const clipA = clipPackets(makeClip('testsrc', { width: 324, height: 720, frames: 120, gop: 60 }));
const clipB = clipPackets(makeClip('testsrc2', { width: 324, height: 720, frames: 120, gop: 60 })).map((packet) => ({
  ...packet,
  ptsUs: packet.ptsUs === null ? null : packet.ptsUs + CLIP_B_OFFSET_US,
}));

const send = (message: unknown) => process.send?.(message);
const sentSwitch: number[] = new Array(PHONES).fill(0);
const frames: number[] = new Array(PHONES * WATCHERS).fill(0);
const relayShare: number[] = [];

async function listen(onSocket: (socket: Socket) => void): Promise<number> {
  const server = createServer(onSocket);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return (server.address() as AddressInfo).port;
}

const phonePorts: number[] = [];
for (let phone = 0; phone < PHONES; phone++) {
  let server: FakeScrcpyServer | null = null;
  phonePorts.push(
    await listen((socket) => {
      socket.setNoDelay(true);
      if (!server?.running) {
        server = new FakeScrcpyServer(phone.toString(16).padStart(8, '0'), { clips: [clipA, clipB], width: 324, height: 720, frameMs: 33 });
        const running = server;
        // Note when the first packet of the other clip leaves: the fake's wait for its key frame is not the relay's.
        const write = socket.write.bind(socket);
        let clip = 0;
        socket.write = ((chunk: Buffer, ...rest: never[]) => {
          if (running.currentClip !== clip) {
            clip = running.currentClip;
            if (clip === 1) sentSwitch[phone] = now();
          }
          return write(chunk, ...rest);
        }) as typeof socket.write;
      }
      server.accept(socket);
    }),
  );
}

const watcherPorts: number[] = [];
for (let index = 0; index < PHONES * WATCHERS; index++) {
  const phone = Math.floor(index / WATCHERS);
  watcherPorts.push(
    await listen((socket) => {
      const parser = new ScrcpyVideoParser({ dummyByte: false });
      let onB = false;
      socket.on('data', (chunk: Buffer) => {
        for (const packet of parser.push(chunk).packets as ScrcpyPacket[]) {
          if (packet.config) continue;
          frames[index] = (frames[index] ?? 0) + 1;
          const isB = (packet.ptsUs ?? 0) >= CLIP_B_OFFSET_US;
          if (isB && !onB && packet.keyFrame && sentSwitch[phone]) relayShare.push(now() - (sentSwitch[phone] as number));
          onB = isB;
        }
      });
      socket.on('error', () => undefined);
    }),
  );
}

process.on('message', (message: { type: string }) => {
  if (message.type === 'reset') {
    frames.fill(0);
    relayShare.length = 0;
  }
  if (message.type === 'report') send({ type: 'report', frames: [...frames], relayShare: [...relayShare] });
  if (message.type === 'exit') process.exit(0);
});
send({ type: 'ready', phonePorts, watcherPorts, encoder: 'fake', clipFrames: clipA.length });
