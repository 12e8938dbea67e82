/**
 * Live screens: PHONES phones (default 20) stream to WATCHERS watchers each (default 2) through one API process on
 * PostgreSQL. Each phone sends a 50 KB JPEG-sized frame as soon as the last was answered, at the rate the server
 * asks (the product's default 8 FPS); each watcher acknowledges frames as they come; one watcher per phone controls it
 * and taps every 500 ms. Over a measuring window: frames per second each watcher got, input → answer and
 * input → first frame showing it (p50/p99), and the API process's CPU per stream. The same phones and watchers against
 * a bare Socket.IO relay (bare.ts) are the baseline, in the same run.
 *
 * BENCH_PHONES (20), BENCH_WATCHERS (2), BENCH_WINDOW_S (20). Phones, watchers, server and PostgreSQL share the cores.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { io, type Socket } from 'socket.io-client';
import { clipPackets, makeClip } from '../../agent-protocol/test/fake-scrcpy.ts';
import { benchDatabase, freePort, pause, percentile, processUsage, signUp, startApi } from '../lib.ts';

/** `jpeg` (the default): 50 KB frames as minicap sends them; `h264`: a 324 × 720 H.264 clip at 30 FPS as scrcpy sends it. */
const CODEC = process.env.BENCH_LIVE_CODEC === 'h264' ? 'h264' : 'jpeg';
const PHONES = Number(process.env.BENCH_PHONES ?? 20);
const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 2);
const WINDOW_S = Number(process.env.BENCH_WINDOW_S ?? 20);
const TAP_MS = 500;
const FRAME_BYTES = 50 * 1024;
const base = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = 'farm_bench_live';
/** Frames as big as a phone's 720 px JPEGs; the server passes them on without decoding. */
const frames = Array.from({ length: 8 }, () => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(FRAME_BYTES - 4)]));

/**
 * Two 324 × 720 clips at 30 FPS, a key frame each second (libx264): the phone plays one and, after an input, the
 * other from its next key frame, as the fake scrcpy-server does.
 */
const clips = CODEC === 'h264' ? ['testsrc', 'testsrc2'].map((source) => clipPackets(makeClip(source, { width: 324, height: 720, frames: 90, gop: 30 }))) : [];

/**
 * A phone that streams H.264 while asked (each stream asked for, at 30 FPS, never waiting on the server), and answers
 * an input by switching clip at the next key frame. It notes when each input arrived and when the first packet of its
 * answer left, so the relay's share of input → picture can be told from the wait for the key frame.
 */
class BenchVideoPhone {
  readonly socket: Socket;
  private readonly streams = new Map<string, { timer: NodeJS.Timeout; pending: number | null }>();
  readonly inputAt = new Map<number, number>();
  /** When the first packet answering each input left, per stream (`control:12`). */
  readonly answerAt = new Map<string, number>();

  constructor(url: string, auth: Record<string, string>) {
    this.socket = io(`${url}/agent`, { forceNew: true, transports: ['websocket'], auth });
    this.socket.on('connect', () =>
      this.socket.emit('agent.hello', { protocol: 2, agentVersion: 'bench/1', battery: 90, features: ['live', 'control', 'h264'] }, () => undefined),
    );
    this.socket.on('live.start', (settings: { stream?: 'control' | 'watch' }) => this.start(settings.stream ?? 'watch'));
    this.socket.on('live.stop', (message: { stream?: string }) => {
      for (const [stream, running] of this.streams) {
        if (message.stream && message.stream !== stream) continue;
        clearInterval(running.timer);
        this.streams.delete(stream);
      }
    });
    this.socket.on('live.input', (message: { seq: number }, ack: (answer: unknown) => void) => {
      this.inputAt.set(message.seq, performance.now());
      for (const running of this.streams.values()) running.pending = message.seq;
      ack({ ok: true });
    });
  }

  private start(stream: 'control' | 'watch'): void {
    if (this.streams.has(stream)) return;
    let frame = 0;
    let seq = 0;
    let clip = 0;
    let answered = 0;
    const running = {
      pending: null as number | null,
      timer: setInterval(() => {
        // Several packets may be due at once (the configuration, then a picture).
        for (;;) {
          let packets = clips[clip]!;
          if (frame >= packets.length) frame = 0;
          let packet = packets[frame]!;
          if (running.pending !== null && (packet.config || packet.keyFrame)) {
            clip = (clip + 1) % clips.length;
            frame = 0;
            packets = clips[clip]!;
            packet = packets[0]!;
            answered = running.pending;
            this.answerAt.set(`${stream}:${answered}`, performance.now());
            running.pending = null;
          }
          frame += 1;
          this.socket.emit(
            'live.video',
            {
              stream,
              seq: ++seq,
              config: packet.config,
              keyFrame: packet.keyFrame,
              ptsUs: packet.ptsUs,
              data: packet.data,
              width: 324,
              height: 720,
              inputSeq: answered,
            },
            () => undefined,
          );
          if (!packet.config) return;
        }
      }, 1000 / 30),
    };
    this.streams.set(stream, running);
  }

  close(): void {
    for (const running of this.streams.values()) clearInterval(running.timer);
    this.socket.disconnect();
  }
}

/** A phone that streams while asked: the next frame once the last was answered, at the rate asked for. */
class BenchPhone {
  readonly socket: Socket;
  private streaming = false;
  private fps = 8;
  private lastInput = 0;
  private seq = 0;

  constructor(url: string, auth: Record<string, string>) {
    this.socket = io(`${url}/agent`, { forceNew: true, transports: ['websocket'], auth });
    this.socket.on('connect', () =>
      this.socket.emit('agent.hello', { protocol: 2, agentVersion: 'bench/1', battery: 90, features: ['live', 'control'] }, () => undefined),
    );
    this.socket.on('live.start', (settings: { fps: number }) => {
      this.fps = settings.fps;
      if (!this.streaming) void this.stream();
    });
    this.socket.on('live.stop', () => (this.streaming = false));
    this.socket.on('live.input', (message: { seq: number }, ack: (answer: unknown) => void) => {
      this.lastInput = message.seq;
      ack({ ok: true });
    });
  }

  private async stream(): Promise<void> {
    this.streaming = true;
    while (this.streaming && this.socket.connected) {
      const began = performance.now();
      const data = frames[this.seq % frames.length]!;
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, 3000);
        this.socket.emit(
          'live.frame',
          { seq: ++this.seq, mime: 'image/jpeg', data, width: 324, height: 720, source: 'sim', capturedAt: new Date().toISOString(), inputSeq: this.lastInput },
          (answer: unknown) => {
            clearTimeout(timer);
            resolve(answer);
          },
        );
      });
      const wait = 1000 / this.fps - (performance.now() - began);
      if (wait > 0) await pause(wait);
    }
  }

  close(): void {
    this.streaming = false;
    this.socket.disconnect();
  }
}

interface Measures {
  frames: number[];
  inputAck: number[];
  inputToFrame: number[];
  /** H.264: input → the phone, plus the answer's first packet → the watcher (the phone's wait for a key frame left out). */
  relayShare: number[];
}

/** The phones of this run, by device id, for the relay's share (H.264). */
const videoPhones = new Map<string, BenchVideoPhone>();

/** A person watching one phone; the controlling one taps now and then and times it. */
class BenchWatcher {
  readonly socket: Socket;
  frames = 0;
  private sentAt = new Map<number, number>();
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    url: string,
    cookie: string | undefined,
    readonly deviceId: string,
    private readonly measures: Measures,
    private readonly controls: boolean,
  ) {
    this.socket = io(`${url}/live`, { forceNew: true, transports: ['websocket'], ...(cookie ? { extraHeaders: { cookie } } : {}) });
    this.socket.on('live.video', (packet: { inputSeq?: number; config: boolean; stream: string }, ack: () => void) => {
      ack();
      if (packet.config) return;
      this.frames += 1;
      if (!packet.inputSeq) return;
      const arrived = performance.now();
      for (const [seq, at] of this.sentAt) {
        if (seq > packet.inputSeq) continue;
        this.measures.inputToFrame.push(arrived - at);
        const phone = videoPhones.get(this.deviceId);
        const inputAt = phone?.inputAt.get(seq);
        const answerAt = phone?.answerAt.get(`${packet.stream}:${packet.inputSeq}`);
        if (inputAt !== undefined && answerAt !== undefined) this.measures.relayShare.push(inputAt - at + (arrived - answerAt));
        this.sentAt.delete(seq);
      }
    });
    this.socket.on('live.frame', (frame: { inputSeq?: number }, ack: () => void) => {
      this.frames += 1;
      if (frame.inputSeq) {
        for (const [seq, at] of this.sentAt) {
          if (seq > frame.inputSeq) continue;
          this.measures.inputToFrame.push(performance.now() - at);
          this.sentAt.delete(seq);
        }
      }
      ack();
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => (this.socket.connected ? resolve() : this.socket.once('connect', () => resolve())));
    await this.socket.emitWithAck('live.watch', { deviceId: this.deviceId, ...(CODEC === 'h264' ? { h264: true } : {}) });
    if (!this.controls) return;
    await this.socket.emitWithAck('live.control', { deviceId: this.deviceId });
    this.timer = setInterval(() => {
      const seq = ++this.seq;
      const at = performance.now();
      this.sentAt.set(seq, at);
      this.socket.emit('live.input', { deviceId: this.deviceId, seq, input: { kind: 'tap', x: 0.5, y: 0.5 } }, (answer: { ok: boolean }) => {
        if (answer.ok) this.measures.inputAck.push(performance.now() - at);
      });
    }, TAP_MS);
  }

  close(): void {
    clearInterval(this.timer);
    this.socket.disconnect();
  }
}

interface Result {
  fpsMean: number;
  fpsMin: number;
  inputAckP50: number;
  inputAckP99: number;
  inputToFrameP50: number;
  inputToFrameP99: number;
  relayShareP50: number;
  relayShareP99: number;
  cpuPercent: number;
}

async function drive(
  label: string,
  url: string,
  pid: number,
  phoneAuth: Record<string, string>[],
  deviceIds: string[],
  cookie: string | undefined,
): Promise<Result> {
  const measures: Measures = { frames: [], inputAck: [], inputToFrame: [], relayShare: [] };
  const phones = phoneAuth.map((auth, i) => {
    if (CODEC === 'jpeg') return new BenchPhone(url, auth);
    const phone = new BenchVideoPhone(url, auth);
    videoPhones.set(deviceIds[i]!, phone);
    return phone;
  });
  await pause(1500);
  const watchers = deviceIds.flatMap((deviceId) => Array.from({ length: WATCHERS }, (_, i) => new BenchWatcher(url, cookie, deviceId, measures, i === 0)));
  await Promise.all(watchers.map((watcher) => watcher.start()));
  await pause(4000);
  for (const watcher of watchers) watcher.frames = 0;
  measures.inputAck.length = 0;
  measures.inputToFrame.length = 0;
  measures.relayShare.length = 0;
  const before = processUsage(pid).cpu;
  const startedAt = performance.now();
  await pause(WINDOW_S * 1000);
  const seconds = (performance.now() - startedAt) / 1000;
  const cpuPercent = ((processUsage(pid).cpu - before) / seconds) * 100;
  const fps = watchers.map((watcher) => watcher.frames / seconds);
  for (const watcher of watchers) watcher.close();
  for (const phone of phones) phone.close();
  await pause(1000);
  const result: Result = {
    fpsMean: fps.reduce((sum, value) => sum + value, 0) / fps.length,
    fpsMin: Math.min(...fps),
    inputAckP50: percentile(measures.inputAck, 50),
    inputAckP99: percentile(measures.inputAck, 99),
    inputToFrameP50: percentile(measures.inputToFrame, 50),
    inputToFrameP99: percentile(measures.inputToFrame, 99),
    relayShareP50: percentile(measures.relayShare, 50),
    relayShareP99: percentile(measures.relayShare, 99),
    cpuPercent,
  };
  console.log(`${label}: ${JSON.stringify(result)}`);
  return result;
}

// ── the baseline ──────────────────────────────────────────────────────────────────────────────────────────
const bareIds = Array.from({ length: PHONES }, (_, i) => `phone-${i}`);
const barePort = await freePort();
const bare = fork(fileURLToPath(new URL('./bare.ts', import.meta.url)), { execArgv: ['--import', 'tsx'], env: { ...process.env, PORT: String(barePort) } });
await new Promise((resolve) => bare.once('message', resolve));
const baseline = await drive(
  'bare',
  `http://127.0.0.1:${barePort}`,
  bare.pid!,
  bareIds.map((deviceId) => ({ deviceId })),
  bareIds,
  undefined,
);
bare.kill('SIGTERM');

// ── the product ───────────────────────────────────────────────────────────────────────────────────────────
const { database, url: databaseUrl, drop } = await benchDatabase(base, dbName);
let api: ChildProcess | undefined;
try {
  const started = await startApi({ DATABASE_URL: databaseUrl, DATA_DIR: mkdtempSync(join(tmpdir(), 'farm-bench-live-')) });
  api = started.api;
  const { api: server, origin } = started;
  const cookie = await signUp(origin);
  const db = database.db;
  const workspace = await db.selectFrom('workspaces').select('id').executeTakeFirstOrThrow();
  const tokens = Array.from({ length: PHONES }, () => `dev_${randomBytes(18).toString('base64url')}`);
  const devices = await db
    .insertInto('devices')
    .values(tokens.map((_, i) => ({ workspaceId: workspace.id, name: `Pixel live ${i + 1}` })))
    .returning('id')
    .execute();
  await db
    .insertInto('deviceCredentials')
    .values(devices.map((device, i) => ({ deviceId: device.id, workspaceId: workspace.id, tokenHash: createHash('sha256').update(tokens[i]!).digest('hex') })))
    .execute();
  const product = await drive(
    'product',
    origin,
    server.pid!,
    tokens.map((token) => ({ token })),
    devices.map((device) => device.id),
    cookie,
  );

  const fmt = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
  const ratio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(1)}×` : '—');
  const what = CODEC === 'h264' ? 'a 324 × 720 H.264 clip at 30 FPS' : `${FRAME_BYTES / 1024} KB frames`;
  console.log(
    `\n${PHONES} phones streaming ${what} to ${WATCHERS} watchers each, one tap every ${TAP_MS} ms per phone; ${WINDOW_S} s window; ${cpus().length} cores shared by everything`,
  );
  console.log(
    '| server | FPS per watcher mean / min | input → answer p50 / p99 ms | input → frame p50 / p99 ms | relay share p50 / p99 ms | CPU (% of a core) | CPU per stream |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const [label, r] of [
    ['bare Socket.IO relay (baseline)', baseline],
    ['product API', product],
  ] as const) {
    console.log(
      `| ${label} | ${fmt(r.fpsMean)} / ${fmt(r.fpsMin)} | ${fmt(r.inputAckP50)} / ${fmt(r.inputAckP99)} | ${fmt(r.inputToFrameP50)} / ${fmt(r.inputToFrameP99)} | ${fmt(r.relayShareP50)} / ${fmt(r.relayShareP99)} | ${fmt(r.cpuPercent, 0)} | ${fmt(r.cpuPercent / PHONES, 2)} |`,
    );
  }
  console.log(
    `\nproduct ÷ bare: FPS ${ratio(product.fpsMean, baseline.fpsMean)}, input → answer p99 ${ratio(product.inputAckP99, baseline.inputAckP99)}, input → frame p99 ${ratio(product.inputToFrameP99, baseline.inputToFrameP99)}, CPU ${ratio(product.cpuPercent, baseline.cpuPercent)}`,
  );
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify({ codec: CODEC, phones: PHONES, watchers: WATCHERS, baseline, product }));
} finally {
  api?.kill('SIGTERM');
  await pause(1000);
  await drop();
}
