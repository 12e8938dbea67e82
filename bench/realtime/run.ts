/**
 * Realtime fan-out: N simulated phones heartbeat over /agent every PERIOD ms while M browser sockets listen;
 * measures heartbeat → browser latency (p50/p99) and events/s, beside a bare Socket.IO relay of the same
 * traffic in the same run. Defaults: 2,000 phones every 2 s, 200 browsers (the budget: p99 ≤ 150 ms).
 * By default every heartbeat changes the phone's battery, so every one is shown (the worst case). BENCH_CHANGE_EVERY=N
 * changes it every Nth heartbeat only, as a farm's phones do (a point of battery every few minutes): the product
 * announces only the heartbeats that change what a screen shows, and latency is measured on those; the bare relay
 * still relays every heartbeat.
 */
import { fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { randomBytes, createHash } from 'node:crypto';
import { cpus } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { io, type Socket } from 'socket.io-client';
import { beating } from '@farm/agent-protocol/agent';
import { eachServerEvent } from '@farm/contracts';
import { benchDatabase, percentile, productNodeFlags } from '../lib.ts';

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
const warmupMs = Number(process.env.BENCH_WARMUP_MS ?? (changeEvery > 1 ? 5 * periodMs : 0));
const port = Number(process.env.BENCH_PORT ?? 3970);
const barePort = port + 1;
const base = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = 'farm_bench_realtime';

const { database, url, drop } = await benchDatabase(base, dbName, 10);

const child = fork(fileURLToPath(new URL('./server.ts', import.meta.url)), {
  execArgv: [...productNodeFlags, '--import', 'tsx'],
  env: { ...process.env, DATABASE_URL: url, PORT: String(port), BARE_PORT: String(barePort), REDIS_URL: '', LOG_LEVEL: 'silent', DEMO: '0' },
  stdio: 'inherit',
});
await new Promise<void>((resolve, reject) => {
  child.once('message', () => resolve());
  child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
});

const origin = `http://127.0.0.1:${port}`;
const sockets: Socket[] = [];

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

/** Runs one traffic pattern: phones send, browsers receive; answers latency figures. */
async function drive(
  label: string,
  makePhone: (i: number) => Socket,
  makeBrowser: () => Socket,
  /** Sends one heartbeat; answers whether a browser should see it. */
  beat: (phone: Socket, i: number, n: number) => boolean,
  event: string,
  idsOf: (payload: unknown) => string[],
) {
  const sent = new Map<string, number>();
  const latencies: number[] = [];
  let received = 0;
  const browserSockets = Array.from({ length: browsers }, makeBrowser);
  sockets.push(...browserSockets);
  await waitConnected(browserSockets);
  let measureFrom = Number.POSITIVE_INFINITY;
  for (const socket of browserSockets) {
    // Events the server sends together arrive as one batch.
    socket.onAny((name: string, message: unknown) =>
      eachServerEvent(name, message, (each, payload) => {
        if (each !== event) return;
        const now = performance.now();
        if (now < measureFrom) return;
        for (const id of idsOf(payload)) {
          received += 1;
          const at = sent.get(id);
          if (at !== undefined) latencies.push(now - at);
        }
      }),
    );
  }
  const phoneSockets: Socket[] = [];
  for (let i = 0; i < phones; i += 100) {
    const batch = Array.from({ length: Math.min(100, phones - i) }, (_, k) => makePhone(i + k));
    phoneSockets.push(...batch);
    await waitConnected(batch);
  }
  sockets.push(...phoneSockets);
  const ids = phoneSockets.map((_, i) => i);
  // Spread the phones evenly over the period, as real heartbeats are.
  const started = performance.now();
  measureFrom = started + warmupMs;
  const ownLoop = monitorEventLoopDelay({ resolution: 10 });
  setTimeout(() => {
    ownLoop.enable();
    child.send('loop.reset');
  }, warmupMs);
  // Each phone keeps its own clock, as the phone agent does (its n-th heartbeat due at its offset + n periods): a
  // setInterval per phone re-arms from when its list was run, so every stall of this process would gather the phones
  // it delayed into one burst for good (after a minute, half of 10,000 phones beat in the same second).
  const beats = ids.map((i) => {
    let n = 0;
    return beating(
      () => {
        const at = performance.now();
        if (beat(phoneSockets[i]!, i, n++)) sent.set(String(i), at);
      },
      periodMs,
      { now: () => performance.now(), random: () => i / phones },
    );
  });
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000 + warmupMs));
  for (const each of beats) each.stop();
  const elapsed = (performance.now() - measureFrom) / 1000;
  ownLoop.disable();
  const serverLoopP99 = await new Promise<number | null>((resolve) => {
    child.once('message', (message) => resolve((message as { loopP99: number | null }).loopP99));
    child.send('loop.read');
  });
  await new Promise((resolve) => setTimeout(resolve, 1000));
  for (const socket of [...phoneSockets, ...browserSockets]) socket.disconnect();
  return {
    label,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    eventsPerSecond: received / elapsed,
    samples: latencies.length,
    loadLoopP99: ownLoop.percentile(99) / 1e6,
    serverLoopP99,
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
  const deviceIndex = new Map(devices.map((d, i) => [d.id, String(i)]));

  const baseline = await drive(
    'bare Socket.IO relay (baseline)',
    () => io(`http://127.0.0.1:${barePort}/phones`, { forceNew: true, transports: ['websocket'] }),
    () => io(`http://127.0.0.1:${barePort}`, { forceNew: true, transports: ['websocket'] }),
    (phone, i) => {
      phone.emit('beat', { id: String(i), battery: 50 });
      return true;
    },
    'device.updated',
    (payload) => [(payload as { id: string }).id],
  );
  const product = await drive(
    'product: /agent heartbeat → DB → devices.pulse',
    (i) => io(`${origin}/agent`, { forceNew: true, transports: ['websocket'], auth: { token: tokens[i] } }),
    () => io(origin, { forceNew: true, transports: ['websocket'], extraHeaders: { cookie } }),
    (phone, i, n) => {
      // A point less every heartbeat by default (each one shown); with BENCH_CHANGE_EVERY, every Nth heartbeat, the
      // phones' changes spread over the N heartbeats.
      const step = n + (i % changeEvery);
      phone.emit('agent.heartbeat', { battery: 99 - (Math.floor(step / changeEvery) % 50), status: 'online' });
      return step % changeEvery === 0;
    },
    'devices.pulse',
    (payload) => (payload as { devices: { id: string }[] }).devices.map((d) => deviceIndex.get(d.id) ?? ''),
  );

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
  );
  for (const row of [baseline, product]) {
    console.log(
      row.label.padEnd(50),
      row.p50.toFixed(1).padStart(8),
      row.p99.toFixed(1).padStart(8),
      row.eventsPerSecond.toFixed(0).padStart(10),
      `${(row.p99 / baseline.p99).toFixed(1)}x`.padStart(11),
      (row.serverLoopP99 === null ? '-' : row.serverLoopP99.toFixed(0)).padStart(20),
      row.loadLoopP99.toFixed(0).padStart(6),
    );
  }
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify({ phones, browsers, periodMs, changeEvery, baseline, product }));
} finally {
  for (const socket of sockets) socket.disconnect();
  child.kill('SIGTERM');
  await drop();
}
