/**
 * Realtime fan-out: N simulated phones heartbeat over /agent every PERIOD ms while M browser sockets listen;
 * measures heartbeat → browser latency (p50/p99) and events/s, beside a bare Socket.IO relay of the same
 * traffic in the same run. Defaults: 2,000 phones every 2 s, 200 browsers (the budget: p99 ≤ 150 ms).
 * By default every heartbeat changes the phone's battery, so every one is shown (the worst case). BENCH_CHANGE_EVERY=N
 * changes it every Nth heartbeat only, as a farm's phones do (a point of battery every few minutes): the product
 * announces only the heartbeats that change what a screen shows, and latency is measured on those; the bare relay
 * hears every heartbeat too and relays those that change, one message each.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { randomBytes, createHash } from 'node:crypto';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { benchDatabase, percentile, productNodeFlags } from '../lib.ts';
import type { LoadPhase, LoadResult } from './load.ts';

const phones = Number(process.env.BENCH_PHONES ?? 2000);
const browsers = Number(process.env.BENCH_BROWSERS ?? 200);
const periodMs = Number(process.env.BENCH_PERIOD_MS ?? 2000);
const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const changeEvery = Math.max(1, Number(process.env.BENCH_CHANGE_EVERY ?? 1));
/**
 * Figures from this many ms after the first heartbeat: a phone's first heartbeat always changes what is shown (it is
 * online, at its battery), so with BENCH_CHANGE_EVERY the first period is a burst of every phone at once, not the
 * steady state the budget is about. By default, 0 (every heartbeat is a change anyway).
 */
/** BENCH_BARE=0 measures the product alone, without the bare relay's phase before it. */
const withBare = process.env.BENCH_BARE !== '0';
const warmupMs = Number(process.env.BENCH_WARMUP_MS ?? (changeEvery > 1 ? 5 * periodMs : 0));
const port = Number(process.env.BENCH_PORT ?? 3970);
const barePort = port + 1;
const base = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = 'farm_bench_realtime';

const { database, url, drop } = await benchDatabase(base, dbName, 10);

/** The product's server, or the bare relay's (server.ts), answered once it listens. */
async function startServer(serve: 'product' | 'bare'): Promise<ChildProcess> {
  const server = fork(fileURLToPath(new URL('./server.ts', import.meta.url)), {
    execArgv: [...productNodeFlags, '--import', 'tsx'],
    env: { ...process.env, SERVE: serve, DATABASE_URL: url, PORT: String(serve === 'bare' ? barePort : port), REDIS_URL: '', LOG_LEVEL: 'silent', DEMO: '0' },
    stdio: 'inherit',
  });
  await new Promise<void>((resolve, reject) => {
    server.once('message', () => resolve());
    server.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  return server;
}
const child = await startServer('product');

const origin = `http://127.0.0.1:${port}`;

/**
 * The simulated phones and browsers run in BENCH_LOAD_PROCESSES processes of their own (default 2, load.ts), not in
 * this one: 10,000 phone sockets and 500 browser sockets in one process kept its event loop over a second late (its
 * "load" column), so the run measured itself rather than the server.
 */
const shares = Math.max(1, Number(process.env.BENCH_LOAD_PROCESSES ?? 2));
type Reply = { type: 'ready' | 'connected' | 'closed' } | { type: 'failed'; error: string } | { type: 'stopped'; result: LoadResult };
const loaders = await Promise.all(
  Array.from({ length: shares }, async () => {
    const loader = fork(fileURLToPath(new URL('./load.ts', import.meta.url)), { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
    await answer(loader, 'ready');
    return loader;
  }),
);

/** The next reply of the given type from a share (a failure is thrown). */
function answer<T extends Reply['type']>(loader: ChildProcess, type: T): Promise<Extract<Reply, { type: T }>> {
  return new Promise((resolve, reject) => {
    const listen = (message: Reply) => {
      if (message.type === 'failed') {
        loader.off('message', listen);
        reject(new Error(message.error));
      } else if (message.type === type) {
        loader.off('message', listen);
        resolve(message as Extract<Reply, { type: T }>);
      }
    };
    loader.on('message', listen);
  });
}

/** Runs one traffic pattern over the load processes: phones send, browsers receive; answers latency figures. */
async function drive(label: string, server: ChildProcess, phase: Omit<LoadPhase, 'share' | 'shares' | 'phones' | 'browsers' | 'periodMs' | 'changeEvery'>) {
  await Promise.all(
    loaders.map((loader, share) => {
      const connected = answer(loader, 'connected');
      loader.send({ type: 'connect', phase: { ...phase, share, shares, phones, browsers, periodMs, changeEvery } satisfies LoadPhase });
      return connected;
    }),
  );
  // Spread the phones evenly over the period, as real heartbeats are, from the same instant in every process.
  const startAt = performance.timeOrigin + performance.now() + 200;
  for (const loader of loaders) loader.send({ type: 'start', startAt, warmupMs });
  setTimeout(() => server.send('loop.reset'), 200 + warmupMs);
  await new Promise((resolve) => setTimeout(resolve, 200 + seconds * 1000 + warmupMs));
  const results = await Promise.all(
    loaders.map((loader) => {
      const stopped = answer(loader, 'stopped');
      loader.send({ type: 'stop' });
      return stopped;
    }),
  );
  const read = await new Promise<{ loopP99: number | null; cpuMs: number }>((resolve) => {
    server.once('message', (message) => resolve(message as { loopP99: number | null; cpuMs: number }));
    server.send('loop.read');
  });
  await Promise.all(
    loaders.map((loader) => {
      const closed = answer(loader, 'closed');
      loader.send({ type: 'close' });
      return closed;
    }),
  );
  const latencies = results.flatMap((r) => r.result.latencies);
  const received = results.reduce((sum, r) => sum + r.result.received, 0);
  const beats = results.reduce((sum, r) => sum + r.result.beats, 0);
  return {
    label,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    eventsPerSecond: received / seconds,
    samples: latencies.length,
    loadLoopP99: Math.max(...results.map((r) => r.result.loopP99)),
    serverLoopP99: read.loopP99,
    /** The server process's CPU per heartbeat sent, in microseconds. */
    cpuPerBeatUs: beats > 0 ? (read.cpuMs * 1000) / beats : Number.NaN,
  };
}

try {
  // The product: a workspace with N phones, each with its credential, and an operator whose browsers listen.
  const signup = await fetch(`${origin}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'rt@bench.farm', password: 'bench-password', name: 'Bench Operator', role: 'operator' }),
  });
  const cookie = (signup.headers.get('set-cookie') ?? '').split(';')[0]!;
  const { user } = (await signup.json()) as { user: { workspaceId: string } };
  const tokens = Array.from({ length: phones }, () => `dev_${randomBytes(18).toString('base64url')}`);
  const devices = await database.db
    .insertInto('devices')
    .values(tokens.map((_, i) => ({ workspaceId: user.workspaceId, name: `Phone ${i + 1}` })))
    .returning('id')
    .execute();
  await database.db
    .insertInto('deviceCredentials')
    .values(devices.map((d, i) => ({ deviceId: d.id, workspaceId: user.workspaceId, tokenHash: createHash('sha256').update(tokens[i]!).digest('hex') })))
    .execute();

  // The bare relay first, in a process of its own that stops before the product's phase (server.ts says why).
  const bare = withBare ? await startServer('bare') : undefined;
  const baseline =
    bare &&
    (await drive('bare Socket.IO relay (baseline)', bare, {
      kind: 'bare',
      origin: `http://127.0.0.1:${barePort}`,
      cookie: '',
      tokens: [],
      deviceIds: Array.from({ length: phones }, (_, i) => String(i)),
    }));
  // Its profile (BENCH_CPU_PROF) is written after the phase's figures were read: a moment for that first.
  if (bare && process.env.BENCH_CPU_PROF) await new Promise((resolve) => setTimeout(resolve, 3000));
  if (bare) {
    const bareExited = new Promise((resolve) => bare.once('exit', resolve));
    bare.kill('SIGKILL');
    await bareExited;
  }
  const product = await drive('product: /agent heartbeat → DB → devices.pulse', child, {
    kind: 'product',
    origin,
    cookie,
    tokens,
    deviceIds: devices.map((d) => d.id),
  });

  console.log(
    `\n${phones} phones every ${periodMs} ms, ${browsers} browsers, ${seconds} s, ${cpus().length} cores (phones, browsers, server and PostgreSQL share them)${changeEvery > 1 ? `; battery changes every ${changeEvery} heartbeats` : ''}${warmupMs > 0 ? `; figures after the first ${warmupMs / 1000} s` : ''}`,
  );
  console.log(
    'path'.padEnd(50),
    'p50 ms'.padStart(8),
    'p99 ms'.padStart(8),
    'updates/s'.padStart(10),
    'p99 ÷ bare'.padStart(11),
    'loop p99 ms: server'.padStart(20),
    'load'.padStart(6),
    'server CPU µs/beat'.padStart(19),
  );
  for (const row of baseline ? [baseline, product] : [product]) {
    console.log(
      row.label.padEnd(50),
      row.p50.toFixed(1).padStart(8),
      row.p99.toFixed(1).padStart(8),
      row.eventsPerSecond.toFixed(0).padStart(10),
      (baseline ? `${(row.p99 / baseline.p99).toFixed(1)}x` : '-').padStart(11),
      (row.serverLoopP99 === null ? '-' : row.serverLoopP99.toFixed(0)).padStart(20),
      row.loadLoopP99.toFixed(0).padStart(6),
      row.cpuPerBeatUs.toFixed(0).padStart(19),
    );
  }
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify({ phones, browsers, periodMs, changeEvery, baseline, product }));
} finally {
  for (const loader of loaders) loader.kill('SIGTERM');
  child.kill('SIGTERM');
  await drop();
}
