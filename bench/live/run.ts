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
import { mkdtempSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { io, type Socket } from 'socket.io-client';
import { benchDatabase, freePort, pause, percentile, processUsage, startApi } from '../lib.ts';

const PHONES = Number(process.env.BENCH_PHONES ?? 20);
const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 2);
const WINDOW_S = Number(process.env.BENCH_WINDOW_S ?? 20);
const TAP_MS = 500;
const FRAME_BYTES = 50 * 1024;
const base = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = 'farm_bench_live';
/** Frames as big as a phone's 720 px JPEGs; the server passes them on without decoding. */
const frames = Array.from({ length: 8 }, () => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(FRAME_BYTES - 4)]));

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
}

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
    await this.socket.emitWithAck('live.watch', { deviceId: this.deviceId });
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
  const measures: Measures = { frames: [], inputAck: [], inputToFrame: [] };
  const phones = phoneAuth.map((auth) => new BenchPhone(url, auth));
  await pause(1500);
  const watchers = deviceIds.flatMap((deviceId) => Array.from({ length: WATCHERS }, (_, i) => new BenchWatcher(url, cookie, deviceId, measures, i === 0)));
  await Promise.all(watchers.map((watcher) => watcher.start()));
  await pause(4000);
  for (const watcher of watchers) watcher.frames = 0;
  measures.inputAck.length = 0;
  measures.inputToFrame.length = 0;
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
  const signup = await fetch(`${origin}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `bench-${Date.now()}@example.com`, password: 'bench-password-123', name: 'Bench Operator', role: 'operator' }),
  });
  const cookie = (signup.headers.get('set-cookie') ?? '').split(';')[0]!;
  if (!signup.ok || !cookie) throw new Error(`signup: ${signup.status} ${await signup.text()}`);
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
  console.log(
    `\n${PHONES} phones streaming ${FRAME_BYTES / 1024} KB frames to ${WATCHERS} watchers each, one tap every ${TAP_MS} ms per phone; ${WINDOW_S} s window; ${cpus().length} cores shared by everything`,
  );
  console.log('| server | FPS per watcher mean / min | input → answer p50 / p99 ms | input → frame p50 / p99 ms | CPU (% of a core) | CPU per stream |');
  console.log('|---|---|---|---|---|---|');
  for (const [label, r] of [
    ['bare Socket.IO relay (baseline)', baseline],
    ['product API', product],
  ] as const) {
    console.log(
      `| ${label} | ${fmt(r.fpsMean)} / ${fmt(r.fpsMin)} | ${fmt(r.inputAckP50)} / ${fmt(r.inputAckP99)} | ${fmt(r.inputToFrameP50)} / ${fmt(r.inputToFrameP99)} | ${fmt(r.cpuPercent, 0)} | ${fmt(r.cpuPercent / PHONES, 2)} |`,
    );
  }
  console.log(
    `\nproduct ÷ bare: FPS ${ratio(product.fpsMean, baseline.fpsMean)}, input → answer p99 ${ratio(product.inputAckP99, baseline.inputAckP99)}, input → frame p99 ${ratio(product.inputToFrameP99, baseline.inputToFrameP99)}, CPU ${ratio(product.cpuPercent, baseline.cpuPercent)}`,
  );
} finally {
  api?.kill('SIGTERM');
  await pause(1000);
  await drop();
}
