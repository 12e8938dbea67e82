/**
 * One share of the realtime bench's load, in a process of its own: some of the simulated phones (those whose index
 * modulo the number of shares is this share's) and some of the browsers. Ten thousand phone sockets and five hundred
 * browser sockets in the run's own process kept its event loop a second or more late, so the figures measured the
 * load generator rather than the server; split over processes, each share's loop keeps up.
 *
 * Every browser hears every phone, but a share knows when only its own phones sent: it measures the latency of
 * those (an even sample, phones being dealt by index) and counts every update its browsers receive. Times are the
 * machine's clock (`performance.timeOrigin` + `performance.now()`), shared by the processes, so the phones of all
 * shares start their periods from the same instant, as in one process.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { io, type Socket } from 'socket.io-client';
import { beating } from '@farm/agent-protocol/agent';
import { eachServerEvent } from '@farm/contracts';

/** What the run asks of a share for one traffic pattern. */
export interface LoadPhase {
  kind: 'bare' | 'product';
  share: number;
  shares: number;
  phones: number;
  browsers: number;
  periodMs: number;
  changeEvery: number;
  /** The product's origin, or the bare relay's. */
  origin: string;
  cookie: string;
  /** Every phone's credential (the product), by index. */
  tokens: string[];
  /** Every phone's device id (the product), by index. */
  deviceIds: string[];
}

/** What a share measured. */
export interface LoadResult {
  latencies: number[];
  received: number;
  /** Heartbeats its phones sent in the measured time. */
  beats: number;
  loopP99: number;
}

const now = () => performance.timeOrigin + performance.now();

async function waitConnected(list: Socket[]) {
  await Promise.all(
    list.map(
      (s) =>
        new Promise<void>((resolve, reject) => {
          if (s.connected) return resolve();
          s.once('connect', () => resolve());
          s.once('connect_error', reject);
        }),
    ),
  );
}

let phase: LoadPhase | undefined;
let phoneSockets: Socket[] = [];
let browserSockets: Socket[] = [];
let beats: { stop(): void }[] = [];
const sent = new Map<string, number>();
const latencies: number[] = [];
let received = 0;
let sentBeats = 0;
let measureFrom = Number.POSITIVE_INFINITY;
const ownLoop = monitorEventLoopDelay({ resolution: 10 });

async function connect(p: LoadPhase): Promise<void> {
  phase = p;
  sent.clear();
  latencies.length = 0;
  received = 0;
  sentBeats = 0;
  measureFrom = Number.POSITIVE_INFINITY;
  const mine = Array.from({ length: p.phones }, (_, i) => i).filter((i) => i % p.shares === p.share);
  const browserCount = Math.floor(p.browsers / p.shares) + (p.share < p.browsers % p.shares ? 1 : 0);
  const indexOf = new Map(p.deviceIds.map((id, i) => [id, String(i)]));
  const event = p.kind === 'bare' ? 'device.updated' : 'devices.pulse';
  const idsOf =
    p.kind === 'bare'
      ? (payload: unknown) => [(payload as { id: string }).id]
      : (payload: unknown) => (payload as { devices: { id: string }[] }).devices.map((d) => indexOf.get(d.id) ?? '');
  browserSockets = Array.from({ length: browserCount }, () =>
    p.kind === 'bare'
      ? io(p.origin, { forceNew: true, timeout: 120_000, transports: ['websocket'] })
      : io(p.origin, { forceNew: true, timeout: 120_000, transports: ['websocket'], extraHeaders: { cookie: p.cookie } }),
  );
  await waitConnected(browserSockets);
  for (const socket of browserSockets) {
    // Events the server sends together arrive as one batch.
    socket.onAny((name: string, message: unknown) =>
      eachServerEvent(name, message, (each, payload) => {
        if (each !== event) return;
        const at = now();
        if (at < measureFrom) return;
        for (const id of idsOf(payload)) {
          received += 1;
          const from = sent.get(id);
          if (from !== undefined) latencies.push(at - from);
        }
      }),
    );
  }
  phoneSockets = [];
  for (let k = 0; k < mine.length; k += 100) {
    const batch = mine
      .slice(k, k + 100)
      .map((i) =>
        p.kind === 'bare'
          ? io(`${p.origin}/phones`, { forceNew: true, timeout: 120_000, transports: ['websocket'] })
          : io(`${p.origin}/agent`, { forceNew: true, timeout: 120_000, transports: ['websocket'], auth: { token: p.tokens[i] } }),
      );
    phoneSockets.push(...batch);
    await waitConnected(batch);
  }
}

/** Starts every phone of the share's clock at `startAt` (the same instant in every share). */
function start(startAt: number, warmupMs: number): void {
  const p = phase!;
  const mine = Array.from({ length: p.phones }, (_, i) => i).filter((i) => i % p.shares === p.share);
  measureFrom = startAt + warmupMs;
  setTimeout(() => ownLoop.enable(), Math.max(0, measureFrom - now()));
  setTimeout(
    () => {
      // Each phone keeps its own clock, as the phone agent does (see run.ts).
      beats = mine.map((i, k) => {
        let n = 0;
        const socket = phoneSockets[k]!;
        return beating(
          () => {
            const at = now();
            if (at >= measureFrom) sentBeats += 1;
            // A point less every heartbeat by default (each one shown); with BENCH_CHANGE_EVERY, every Nth heartbeat,
            // the phones' changes spread over the N heartbeats. The bare relay hears every heartbeat too and passes on
            // those that change, as the product does.
            const step = n + (i % p.changeEvery);
            n += 1;
            const battery = 99 - (Math.floor(step / p.changeEvery) % 50);
            const changed = step % p.changeEvery === 0;
            if (p.kind === 'bare') socket.emit('beat', { id: String(i), battery, changed });
            else socket.emit('agent.heartbeat', { battery, status: 'online' });
            if (changed) sent.set(String(i), at);
          },
          p.periodMs,
          { now, random: () => i / p.phones },
        );
      });
    },
    Math.max(0, startAt - now()),
  );
}

/** Stops the phones, then waits a second for what is still on its way before answering. */
async function stop(): Promise<LoadResult> {
  for (const each of beats) each.stop();
  beats = [];
  ownLoop.disable();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const result = { latencies: [...latencies], received, beats: sentBeats, loopP99: ownLoop.percentile(99) / 1e6 };
  ownLoop.reset();
  return result;
}

process.on(
  'message',
  (message: { type: 'connect'; phase: LoadPhase } | { type: 'start'; startAt: number; warmupMs: number } | { type: 'stop' } | { type: 'close' }) => {
    if (message.type === 'connect') {
      connect(message.phase).then(
        () => process.send?.({ type: 'connected' }),
        (error: unknown) => process.send?.({ type: 'failed', error: String(error) }),
      );
    } else if (message.type === 'start') {
      start(message.startAt, message.warmupMs);
    } else if (message.type === 'stop') {
      void stop().then((result) => process.send?.({ type: 'stopped', result }));
    } else {
      for (const socket of [...phoneSockets, ...browserSockets]) socket.disconnect();
      phoneSockets = [];
      browserSockets = [];
      process.send?.({ type: 'closed' });
    }
  },
);
process.send?.({ type: 'ready' });
