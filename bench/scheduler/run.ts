/**
 * The scheduler under load: 10,000 posts due in the same minute over 500 simulated phones (the reference agent,
 * protocol 2), on 1 API and 1 worker process, then 1 API and 2 workers, then 2 APIs and 2 workers (the phones split
 * between the APIs, as behind a load balancer; BENCH_ROUNDS, e.g. "1+1,2+2"), on PostgreSQL and a Redis of the
 * bench's own.
 * Prints due → dispatched p50/p99, due → published p99, when the last post was dispatched, and lost and doubled
 * counts (from the database and from the phones' journals), as ratios to a bare BullMQ enqueue → process round
 * trip measured against the same Redis in the same run. The budget: every post dispatched within 10 s of its time.
 * Beside them, the CPU each post cost the API processes, PostgreSQL and the simulated phones (this process) while
 * the posts went out; the workers' is left out, since their start, compiling the code, falls in the same span.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { Journal, SimulatedPhone } from '@farm/agent-protocol';
import { benchDatabase, freePort, pause, percentile, postgresCpu, postgresCpuSince, processUsage, productNodeFlags, startApi } from '../lib.ts';

const POSTS = Number(process.env.BENCH_POSTS ?? 10_000);
const PHONES = Number(process.env.BENCH_PHONES ?? 500);
const WORK_MS = Number(process.env.BENCH_WORK_MS ?? 20);
const LEAD_MS = Number(process.env.BENCH_LEAD_MS ?? 15_000);
const base = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const root = fileURLToPath(new URL('../../', import.meta.url));

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await pause(250);
  }
  return false;
}

// A Redis of the bench's own: nothing else's queues, nothing of ours left behind.
const redisPort = await freePort();
const redisUrl = `redis://127.0.0.1:${redisPort}`;
const redis = spawn(
  'redis-server',
  ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction'],
  { stdio: 'ignore' },
);
await pause(300);

/** The bare round trip: a job added to a queue and taken by a worker, on the same Redis. */
async function bareRoundTrip(jobs = 2000): Promise<{ p50: number; p99: number }> {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const name = `bare-${randomBytes(3).toString('hex')}`;
  const queue = new Queue(name, { connection });
  const latencies: number[] = [];
  const worker = new Worker(name, async (job) => void latencies.push(Date.now() - (job.data as { at: number }).at), { connection, concurrency: 2 });
  for (let i = 0; i < jobs; i += 1) await queue.add('ping', { at: Date.now() }, { removeOnComplete: true });
  await until(async () => latencies.length >= jobs, 60_000);
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  connection.disconnect();
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/** A workers process on the bench's database and Redis (BENCH_PROFILE=DIR: its CPU profile too, when it stops). */
function startWorkers(env: Record<string, string>): ChildProcess {
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  return spawn(process.execPath, [...productNodeFlags, '--import', 'tsx', ...profile, 'src/main.ts'], {
    cwd: `${root}workers/`,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function round(apis: number, workers: number) {
  const { url: databaseUrl, database, drop } = await benchDatabase(base, `farm_bench_scheduler_${apis}_${workers}`, 5);
  const db = database.db;
  const flush = new Redis(redisUrl);
  await flush.flushall();
  flush.disconnect();
  const env = { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, RUN_WORKERS: '0', READ_CACHE_MS: '0' };
  const started = [];
  for (let i = 0; i < apis; i += 1) started.push(await startApi(env));
  const origins = started.map(({ origin }) => origin);

  // The farm, written straight into the database: one workspace, 500 phones with credentials, an account on each.
  const ws = await db.insertInto('workspaces').values({ name: 'Bench farm' }).returning('id').executeTakeFirstOrThrow();
  const tokens = Array.from({ length: PHONES }, () => `dev_${randomBytes(18).toString('base64url')}`);
  const devices = await db
    .insertInto('devices')
    .values(tokens.map((_, i) => ({ workspaceId: ws.id, name: `Pixel ${i + 1}` })))
    .returning('id')
    .execute();
  await db
    .insertInto('deviceCredentials')
    .values(devices.map((device, i) => ({ deviceId: device.id, workspaceId: ws.id, tokenHash: createHash('sha256').update(tokens[i]!).digest('hex') })))
    .execute();
  const accounts = await db
    .insertInto('accounts')
    .values(
      devices.map((device, i) => ({
        workspaceId: ws.id,
        deviceId: device.id,
        username: `bench_${i + 1}`,
        platform: 'instagram' as const,
        status: 'active' as const,
      })),
    )
    .returning('id')
    .execute();
  const phones = tokens.map((token, i) => {
    const journal = new Journal();
    return { journal, phone: new SimulatedPhone({ url: origins[i % apis]!, token, journal, workMs: WORK_MS, reconnectionDelayMs: 500 }) };
  });
  await until(async () => phones.every(({ phone }) => phone.connected), 120_000);

  const dueAt = new Date(Date.now() + LEAD_MS);
  for (let i = 0; i < POSTS; i += 1000) {
    await db
      .insertInto('posts')
      .values(
        Array.from({ length: Math.min(1000, POSTS - i) }, (_, j) => ({
          workspaceId: ws.id,
          accountId: accounts[(i + j) % accounts.length]!.id,
          caption: `Bench post ${i + j}`,
          status: 'scheduled' as const,
          scheduledAt: dueAt,
        })),
      )
      .execute();
  }
  // CPU from here to the last post published: the API processes, PostgreSQL, and this process (the phones).
  const cpuBefore = { apis: started.map(({ api }) => processUsage(api.pid!).cpu), pg: postgresCpu(), phones: process.cpuUsage() };
  // Each workers process on one machine takes a health port of its own.
  const children = Array.from({ length: workers }, () => startWorkers({ ...env, HEALTH_PORT: '0' }));
  await until(async () => {
    const left = await db
      .selectFrom('posts')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('status', '=', 'scheduled')
      .executeTakeFirstOrThrow();
    return Number(left.n) === 0;
  }, LEAD_MS + 180_000);

  const perPost = (seconds: number) => Math.round((seconds * 1000 * 100) / POSTS) / 100;
  const phonesCpu = process.cpuUsage(cpuBefore.phones);
  const cpu = {
    api: perPost(started.reduce((sum, { api }, i) => sum + processUsage(api.pid!).cpu - cpuBefore.apis[i]!, 0)),
    postgres: perPost(postgresCpuSince(cpuBefore.pg)),
    phones: perPost((phonesCpu.user + phonesCpu.system) / 1e6),
  };
  const rows = await db
    .selectFrom('posts as p')
    .leftJoin('tasks as t', 't.postId', 'p.id')
    .leftJoin('taskAttempts as a', (join) => join.onRef('a.taskId', '=', 't.id').on('a.attempt', '=', 1))
    .select(['p.id', 'p.status', 'p.scheduledAt', 'p.publishedAt', 't.id as taskId', 't.createdAt as madeAt', 'a.dispatchedAt'])
    .execute();
  const made = rows.filter((row) => row.madeAt).map((row) => row.madeAt!.getTime() - row.scheduledAt!.getTime());
  const dispatched = rows.filter((row) => row.dispatchedAt).map((row) => row.dispatchedAt!.getTime() - row.scheduledAt!.getTime());
  const published = rows.filter((row) => row.publishedAt).map((row) => row.publishedAt!.getTime() - row.scheduledAt!.getTime());
  const tasksPerPost = new Map<string, number>();
  for (const row of rows) if (row.taskId) tasksPerPost.set(row.id, (tasksPerPost.get(row.id) ?? 0) + 1);
  const runs = new Map<string, number>();
  for (const { journal } of phones) for (const [taskId, n] of journal.completedRuns()) runs.set(taskId, (runs.get(taskId) ?? 0) + n);

  for (const { phone } of phones) phone.close();
  for (const child of [...children, ...started.map(({ api }) => api)]) child.kill('SIGTERM');
  await pause(1000);
  await drop();
  return {
    apis,
    workers,
    lastMade: Math.max(...made),
    dispatchedP50: percentile(dispatched, 50),
    dispatchedP99: percentile(dispatched, 99),
    lastDispatched: Math.max(...dispatched),
    publishedP99: percentile(published, 99),
    cpuMsPerPost: cpu,
    lost: rows.filter((row) => row.status !== 'published').length,
    doubled: [...tasksPerPost.values()].filter((n) => n > 1).length + [...runs.values()].filter((n) => n > 1).length,
  };
}

try {
  const bare = await bareRoundTrip();
  console.log(`bare BullMQ enqueue → process: p50 ${bare.p50} ms, p99 ${bare.p99} ms`);
  const results = [];
  const rounds = (process.env.BENCH_ROUNDS ?? '1+1,1+2,2+2').split(',').map((pair) => pair.split('+').map(Number) as [number, number]);
  for (const [apis, workers] of rounds) {
    const result = await round(apis, workers);
    results.push(result);
    console.log(JSON.stringify(result));
  }
  const single = results[0]!;
  console.log(`\n${POSTS} posts due at once over ${PHONES} phones (${WORK_MS} ms of work each); ratios to the bare BullMQ round trip p99 (${bare.p99} ms)`);
  console.log(
    '| APIs + workers | due → dispatched p50 | p99 | last dispatched | due → published p99 | published p99 ÷ first row | lost | doubled | CPU ms per post: APIs, PostgreSQL, phones |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const ratio = (ms: number) => `${ms} ms (${(ms / Math.max(1, bare.p99)).toFixed(0)}×)`;
    console.log(
      `| ${r.apis} + ${r.workers} | ${ratio(r.dispatchedP50)} | ${ratio(r.dispatchedP99)} | ${ratio(r.lastDispatched)} | ${ratio(r.publishedP99)} | ${(r.publishedP99 / Math.max(1, single.publishedP99)).toFixed(2)} | ${r.lost} | ${r.doubled} | ${r.cpuMsPerPost.api}, ${r.cpuMsPerPost.postgres}, ${r.cpuMsPerPost.phones} |`,
    );
  }
  const fastest = Math.min(...results.map((r) => r.lastDispatched));
  console.log(`\nbudget: all dispatched within 10 s → ${fastest <= 10_000 ? 'met' : 'missed'} (${fastest} ms)`);
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify({ posts: POSTS, phones: PHONES, bare, results }));
} finally {
  redis.kill('SIGKILL');
}
process.exit(0);
