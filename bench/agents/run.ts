/**
 * How many phones one API process holds. Simulated phones (protocol 2, websocket) connect in steps; each says hello,
 * heartbeats every 2 s and sends a 60 KB screenshot every 10 s, and acks the work it is dispatched at once (its
 * result 200 ms later). At every step, over a measuring window: the API process's CPU (of one core) and memory, and
 * per 1,000 phones; heartbeat and screenshot ack round trips; dispatch → ack p50/p99 (from the attempts the server
 * recorded) for posts falling due on a sample of the phones. The same phones and traffic against a bare Socket.IO
 * server that only acks (bare.ts) are the baseline, in the same run. A step is held when every phone is connected
 * and the heartbeat ack p99 stays under a second.
 *
 * BENCH_STEPS (default 1000,2000,3000,4000), BENCH_WINDOW_S (20), BENCH_SAMPLE (100 dispatches per step).
 * The phones, the server and PostgreSQL share this machine's cores: the figures are what the API gets of them.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { io, type Socket } from 'socket.io-client';
import { beating, type Beating } from '@farm/agent-protocol/agent';
import { benchDatabase, freePort, pause, percentile, processUsage, startApi } from '../lib.ts';

const STEPS = (process.env.BENCH_STEPS ?? '1000,2000,3000,4000').split(',').map(Number);
const WINDOW_S = Number(process.env.BENCH_WINDOW_S ?? 20);
const SAMPLE = Number(process.env.BENCH_SAMPLE ?? 100);
const HEARTBEAT_MS = 2000;
const SCREENSHOT_MS = 10_000;
const MAX = Math.max(...STEPS);
const base = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = 'farm_bench_agents';
// One 60 KB screenshot for every phone (the server stores what it is sent; it does not decode it).
const screenshot = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(60 * 1024 - 4)]).toString('base64');

interface Latencies {
  heartbeat: number[];
  screenshot: number[];
}

/** A phone as light as it can be: hello, heartbeats, screenshots, and an ack for every dispatch. */
class BenchPhone {
  readonly socket: Socket;
  ready: Promise<void>;
  private beats: Beating[] = [];

  constructor(url: string, token: string, latencies: Latencies) {
    this.socket = io(`${url}/agent`, { forceNew: true, transports: ['websocket'], auth: { token }, reconnectionDelay: 1000 });
    this.ready = new Promise((resolve, reject) => {
      this.socket.once('connect_error', reject);
      this.socket.on('connect', () => {
        this.socket.emit('agent.hello', { protocol: 2, agentVersion: 'bench/1', model: 'Bench phone', androidVersion: '14', battery: 80 }, () => resolve());
      });
    });
    this.socket.on('task.dispatch', (dispatch: { taskId: string; attempt: number }) => {
      this.socket.emit('task.ack', { taskId: dispatch.taskId, attempt: dispatch.attempt });
      setTimeout(
        () =>
          this.socket.emit('task.result', { taskId: dispatch.taskId, attempt: dispatch.attempt, status: 'completed', finishedAt: new Date().toISOString() }),
        200,
      );
    });
    const timed = (event: string, message: unknown, into: () => number[]) => {
      const at = performance.now();
      this.socket.emit(event, message, () => into().push(performance.now() - at));
    };
    // Spread over the period and kept so, as the phone agent does.
    this.beats.push(
      beating(() => timed('agent.heartbeat', { battery: 80, status: 'online', screenOn: true }, () => latencies.heartbeat), HEARTBEAT_MS),
      beating(() => timed('agent.screenshot', { mime: 'image/jpeg', data: screenshot }, () => latencies.screenshot), SCREENSHOT_MS),
    );
  }

  close(): void {
    for (const beats of this.beats) beats.stop();
    this.socket.disconnect();
  }
}

interface StepResult {
  phones: number;
  connected: number;
  cpuPercent: number;
  rssMb: number;
  heartbeatP50: number;
  heartbeatP99: number;
  screenshotP99: number;
  dispatchP50: number;
  dispatchP99: number;
  held: boolean;
}

/** Runs the steps against one server; `dispatchSample` measures dispatch → ack for `SAMPLE` phones. */
async function drive(
  label: string,
  url: string,
  pid: number,
  tokens: string[],
  dispatchSample: () => Promise<number[]>,
): Promise<{ idleRssMb: number; steps: StepResult[] }> {
  const latencies: Latencies = { heartbeat: [], screenshot: [] };
  const phones: BenchPhone[] = [];
  const idleRssMb = processUsage(pid).rssMb;
  const steps: StepResult[] = [];
  try {
    for (const step of STEPS) {
      while (phones.length < step) {
        const batch = tokens.slice(phones.length, Math.min(step, phones.length + 100)).map((token) => new BenchPhone(url, token, latencies));
        phones.push(...batch);
        await Promise.race([Promise.allSettled(batch.map((phone) => phone.ready)), pause(30_000)]);
      }
      await pause(5000);
      latencies.heartbeat.length = 0;
      latencies.screenshot.length = 0;
      const before = processUsage(pid);
      const startedAt = performance.now();
      const dispatched = dispatchSample();
      await pause(WINDOW_S * 1000);
      const after = processUsage(pid);
      const seconds = (performance.now() - startedAt) / 1000;
      const dispatch = await dispatched;
      const connected = phones.filter((phone) => phone.socket.connected).length;
      const result: StepResult = {
        phones: step,
        connected,
        cpuPercent: ((after.cpu - before.cpu) / seconds) * 100,
        rssMb: after.rssMb,
        heartbeatP50: percentile(latencies.heartbeat, 50),
        heartbeatP99: percentile(latencies.heartbeat, 99),
        screenshotP99: percentile(latencies.screenshot, 99),
        dispatchP50: percentile(dispatch, 50),
        dispatchP99: percentile(dispatch, 99),
        held: connected === step && percentile(latencies.heartbeat, 99) < 1000,
      };
      steps.push(result);
      console.log(`${label}: ${JSON.stringify(result)}`);
      if (!result.held) break;
    }
  } finally {
    for (const phone of phones) phone.close();
    await pause(1000);
  }
  return { idleRssMb, steps };
}

// ── the baseline: a bare Socket.IO server that acks ─────────────────────────────────────────────────────
const tokens = Array.from({ length: MAX }, () => `dev_${randomBytes(18).toString('base64url')}`);
const barePort = await freePort();
const bare = fork(fileURLToPath(new URL('./bare.ts', import.meta.url)), { execArgv: ['--import', 'tsx'], env: { ...process.env, PORT: String(barePort) } });
await new Promise((resolve) => bare.once('message', resolve));
const bareSample = () =>
  new Promise<number[]>((resolve) => {
    bare.once('message', (answer: { latencies: number[] }) => resolve(answer.latencies));
    bare.send({ sample: SAMPLE });
  });
const baseline = await drive('bare', `http://127.0.0.1:${barePort}`, bare.pid!, tokens, bareSample);
bare.kill('SIGTERM');

// ── the product: the API on PostgreSQL, its jobs in process ─────────────────────────────────────────────
const { database, url: databaseUrl, drop } = await benchDatabase(base, dbName);
const db = database.db;
const dataDir = mkdtempSync(join(tmpdir(), 'farm-bench-agents-'));
let api: ChildProcess | undefined;
try {
  const ws = await db.insertInto('workspaces').values({ name: 'Bench farm' }).returning('id').executeTakeFirstOrThrow();
  const devices: { id: string }[] = [];
  for (let i = 0; i < MAX; i += 1000) {
    const slice = tokens.slice(i, i + 1000);
    const rows = await db
      .insertInto('devices')
      .values(slice.map((_, k) => ({ workspaceId: ws.id, name: `Pixel ${i + k + 1}` })))
      .returning('id')
      .execute();
    await db
      .insertInto('deviceCredentials')
      .values(rows.map((device, k) => ({ deviceId: device.id, workspaceId: ws.id, tokenHash: createHash('sha256').update(slice[k]!).digest('hex') })))
      .execute();
    devices.push(...rows);
  }
  const accounts: { id: string }[] = [];
  for (let i = 0; i < MAX; i += 1000) {
    accounts.push(
      ...(await db
        .insertInto('accounts')
        .values(
          devices.slice(i, i + 1000).map((device, k) => ({
            workspaceId: ws.id,
            deviceId: device.id,
            username: `bench_${i + k + 1}`,
            platform: 'instagram' as const,
            status: 'active' as const,
          })),
        )
        .returning('id')
        .execute()),
    );
  }
  const started = await startApi({ DATABASE_URL: databaseUrl, DATA_DIR: dataDir });
  api = started.api;
  const { api: server, origin } = started;
  let round = 0;
  /** Posts due now on SAMPLE connected phones; answers dispatch → ack of their first attempts as the server stamped them. */
  const productSample = async (connected: number) => {
    round += 1;
    const picked = Array.from({ length: SAMPLE }, (_, i) => accounts[Math.floor((i / SAMPLE) * connected)]!);
    const posts = await db
      .insertInto('posts')
      .values(
        picked.map((account, i) => ({
          workspaceId: ws.id,
          accountId: account.id,
          caption: `Bench ${round}.${i}`,
          status: 'scheduled' as const,
          scheduledAt: new Date(),
        })),
      )
      .returning('id')
      .execute();
    await pause(WINDOW_S * 1000 - 1000);
    const rows = await db
      .selectFrom('tasks as t')
      .innerJoin('taskAttempts as a', (join) => join.onRef('a.taskId', '=', 't.id').on('a.attempt', '=', 1))
      .select(['a.dispatchedAt', 'a.ackedAt'])
      .where(
        't.postId',
        'in',
        posts.map((post) => post.id),
      )
      .execute();
    const acked = rows.filter((row) => row.ackedAt).map((row) => row.ackedAt!.getTime() - row.dispatchedAt.getTime());
    return [...acked, ...Array.from({ length: SAMPLE - acked.length }, () => Number.POSITIVE_INFINITY)];
  };
  let stepIndex = 0;
  const product = await drive('product', origin, server.pid!, tokens, () => productSample(STEPS[stepIndex++]!));

  // ── the report ─────────────────────────────────────────────────────────────────────────────────────────
  const fmt = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
  console.log(
    `\nPhones heartbeating every ${HEARTBEAT_MS / 1000} s with a 60 KB screenshot every ${SCREENSHOT_MS / 1000} s; ${WINDOW_S} s windows; ${cpus().length} cores shared by the phones, the server and PostgreSQL`,
  );
  console.log(
    '| server | phones | held | CPU (% of a core) | CPU per 1,000 | RSS MB | RSS per 1,000 above idle | heartbeat ack p50 / p99 ms | screenshot ack p99 ms | dispatch → ack p50 / p99 ms |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const [label, run] of [
    ['bare Socket.IO (baseline)', baseline],
    ['product API', product],
  ] as const) {
    for (const s of run.steps) {
      console.log(
        `| ${label} | ${s.phones} | ${s.held ? 'yes' : `no (${s.connected} connected)`} | ${fmt(s.cpuPercent)} | ${fmt((s.cpuPercent / s.phones) * 1000, 1)} | ${fmt(s.rssMb)} | ${fmt(((s.rssMb - run.idleRssMb) / s.phones) * 1000, 1)} | ${fmt(s.heartbeatP50, 1)} / ${fmt(s.heartbeatP99, 1)} | ${fmt(s.screenshotP99, 1)} | ${fmt(s.dispatchP50, 1)} / ${fmt(s.dispatchP99, 1)} |`,
      );
    }
  }
  console.log('\nRatios, product ÷ bare at the same step:');
  for (const s of product.steps) {
    const b = baseline.steps.find((row) => row.phones === s.phones);
    if (!b) continue;
    console.log(
      `  ${s.phones} phones: CPU ${fmt(s.cpuPercent / b.cpuPercent, 1)}×, heartbeat ack p99 ${fmt(s.heartbeatP99 / b.heartbeatP99, 1)}×, dispatch → ack p99 ${fmt(s.dispatchP99 / b.dispatchP99, 1)}×`,
    );
  }
  const held = product.steps.filter((s) => s.held).at(-1);
  console.log(`\none API process held ${held ? held.phones : 0} phones (the largest step tried: ${MAX})`);
} finally {
  if (api && api.exitCode === null) {
    // An overloaded API may take its whole shutdown time; it lets go of the database before the database goes.
    const exited = new Promise((resolve) => api!.once('exit', resolve));
    api.kill('SIGTERM');
    await Promise.race([exited, pause(15_000)]);
    api.kill('SIGKILL');
  }
  await drop();
  rmSync(dataDir, { recursive: true, force: true, maxRetries: 3 });
}
process.exit(0);
