/**
 * bench/live, H.264 part: the farm host's relay of scrcpy streams, measured beside a bare relay in the same run.
 * PHONES fake scrcpy-servers (scrcpy-phones.ts, another process) stream a 324x720 H.264 clip at 30 FPS; this process
 * is the farm host: per phone a ScrcpySession parses the stream, keeps the key-frame cache and writes every packet to
 * WATCHERS loopback watchers, and a tap every 500 ms goes through the control socket. The bare relay pipes each
 * phone's video socket to its watchers without parsing. Printed: frames per second each watcher got, the host's CPU
 * per stream (percent of one core), and the relay's share of input → first frame showing it (p50/p99: from the fake
 * sending the first frame of the answer to the watcher having it; the fake's wait for its next key frame not counted).
 *
 * BENCH_PHONES (20), BENCH_WATCHERS (2), BENCH_WINDOW_S (10).
 */
import { fork } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { touchMessage, type ScrcpyPacket, type ScrcpyVideoHeader } from '../../agent-protocol/src/adb/adb.scrcpy.ts';
import { ScrcpySession } from '../../agent-protocol/src/adb/adb.scrcpy.session.ts';
import { videoPreamble } from '../../agent-protocol/test/fake-scrcpy.ts';
import { pause, percentile } from '../lib.ts';

const PHONES = Number(process.env.BENCH_PHONES ?? 20);
const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 2);
const WINDOW_S = Number(process.env.BENCH_WINDOW_S ?? 10);
const TAP_MS = 500;
const point = { x: 100, y: 300, width: 324, height: 720 };

const child = fork(fileURLToPath(new URL('./scrcpy-phones.ts', import.meta.url)), [], {
  execArgv: ['--import', 'tsx'],
  env: { ...process.env, BENCH_PHONES: String(PHONES), BENCH_WATCHERS: String(WATCHERS) },
});
type Ready = { type: 'ready'; phonePorts: number[]; watcherPorts: number[] };
type Report = { type: 'report'; frames: number[]; relayShare: number[] };
const ask = <T>(type: string, answer: string) =>
  new Promise<T>((resolve) => {
    const on = (message: { type: string }) => {
      if (message.type !== answer) return;
      child.off('message', on);
      resolve(message as T);
    };
    child.on('message', on);
    if (type) child.send({ type });
  });
const ready = await ask<Ready>('', 'ready');

const open = (port: number) =>
  new Promise<Socket>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.setNoDelay(true);
    socket.once('error', reject);
  });

function packetBytes(packet: ScrcpyPacket): Buffer {
  const head = Buffer.alloc(12);
  head.writeBigUInt64BE(packet.config ? 1n << 63n : BigInt(packet.ptsUs ?? 0) | (packet.keyFrame ? 1n << 62n : 0n), 0);
  head.writeUInt32BE(packet.data.length, 8);
  return Buffer.concat([head, packet.data]);
}

async function measure(name: string, run: () => Promise<{ tap: (phone: number) => void; close: () => void }>) {
  const relay = await run();
  await pause(1500);
  child.send({ type: 'reset' });
  const cpuBefore = process.cpuUsage();
  const began = performance.now();
  let tapIndex = 0;
  const tapper = setInterval(() => relay.tap(tapIndex++ % PHONES), TAP_MS / PHONES);
  await pause(WINDOW_S * 1000);
  clearInterval(tapper);
  const cpu = process.cpuUsage(cpuBefore);
  const seconds = (performance.now() - began) / 1000;
  const report = await ask<Report>('report', 'report');
  relay.close();
  await pause(500);
  const fps = report.frames.map((count) => count / seconds);
  return {
    name,
    fpsMin: Math.min(...fps),
    fpsMedian: percentile(fps, 50),
    cpuPerStreamPct: (((cpu.user + cpu.system) / 1e6 / seconds) * 100) / PHONES,
    relayP50: percentile(report.relayShare, 50),
    relayP99: percentile(report.relayShare, 99),
    samples: report.relayShare.length,
  };
}

/** The bare relay: bytes from the phone's video socket copied to its watchers; taps written as they are. */
async function bare() {
  const sockets: Socket[] = [];
  const controls: Socket[] = [];
  for (let phone = 0; phone < PHONES; phone++) {
    // Watchers first: the phone streams once its control socket is connected.
    const watchers: Socket[] = [];
    for (let w = 0; w < WATCHERS; w++) watchers.push(await open(ready.watcherPorts[phone * WATCHERS + w] as number));
    sockets.push(...watchers);
    const video = await open(ready.phonePorts[phone] as number);
    let first = true;
    video.on('data', (chunk: Buffer) => {
      // The dummy byte is the phone's to the host, not the watchers'.
      const out = first ? chunk.subarray(1) : chunk;
      first = false;
      for (const watcher of watchers) watcher.write(out);
    });
    const control = await open(ready.phonePorts[phone] as number);
    sockets.push(video, control);
    controls.push(control);
    control.on('data', () => undefined);
  }
  return {
    tap: (phone: number) => {
      controls[phone]?.write(touchMessage('down', point));
      controls[phone]?.write(touchMessage('up', point));
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** The product's relay: a ScrcpySession per phone, its watchers fed from it. */
async function sessions() {
  const all: ScrcpySession[] = [];
  const sockets: Socket[] = [];
  for (let phone = 0; phone < PHONES; phone++) {
    const port = ready.phonePorts[phone] as number;
    const session = new ScrcpySession(
      {
        push: async () => undefined,
        // The fake servers run already (the other process): the server's shell is a stream that stays open.
        shell: async () => new PassThrough(),
        openLocal: async () => open(port),
      },
      { kind: 'control', serverFile: 'bench' },
    );
    await session.start();
    all.push(session);
    for (let w = 0; w < WATCHERS; w++) {
      const watcher = await open(ready.watcherPorts[phone * WATCHERS + w] as number);
      sockets.push(watcher);
      let started = false;
      session.watch({
        send: (packet: ScrcpyPacket, header: ScrcpyVideoHeader) => {
          if (!started) {
            started = true;
            watcher.write(videoPreamble(header.deviceName, header.width, header.height).subarray(1));
          }
          watcher.write(packetBytes(packet));
          return watcher.writableLength;
        },
      });
    }
  }
  return {
    tap: (phone: number) => all[phone]?.tap(point),
    close: () => {
      for (const session of all) session.end();
      for (const socket of sockets) socket.destroy();
    },
  };
}

const results = [await measure('bare relay', bare), await measure('ScrcpySession relay', sessions)];
const [base, product] = results as [NonNullable<(typeof results)[0]>, NonNullable<(typeof results)[0]>];
const fmt = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
console.log(`bench/live H.264: ${PHONES} phones × ${WATCHERS} watchers, 324x720 H.264 at 30 FPS, ${WINDOW_S} s window`);
for (const result of results)
  console.log(
    `  ${result.name.padEnd(20)} fps/watcher min ${fmt(result.fpsMin)} median ${fmt(result.fpsMedian)} | host CPU/stream ${fmt(result.cpuPerStreamPct, 2)}% of a core | relay share p50 ${fmt(result.relayP50)} ms p99 ${fmt(result.relayP99)} ms (${result.samples} taps)`,
  );
console.log(
  `  ratio to bare: fps ${fmt(product.fpsMedian / base.fpsMedian, 2)}×, CPU ${fmt(product.cpuPerStreamPct / base.cpuPerStreamPct, 2)}×, relay p50 ${fmt(product.relayP50 - base.relayP50)} ms more`,
);
child.send({ type: 'exit' });
