/**
 * Real processes for fault tests: a Redis server of the test's own (so it can be stopped, restarted and flushed
 * without touching anyone else's), worker processes that can be killed, an API instance on PostgreSQL, and simulated
 * phones whose journals tell how many times each post was really published.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Journal, SimulatedPhone } from '@farm/agent-protocol';
import { migrate, openDatabase, type Database } from '@farm/sql';
import { buildApp } from '../../src/app.ts';
import { testConfig } from '../helpers/config.ts';
import { type Client, signUp } from '../helpers/app.ts';
import { listen } from '../realtime/sockets.ts';

const workersDir = fileURLToPath(new URL('../../../workers/', import.meta.url));

/** Timings short enough for a test, the same in the API and the workers. */
export const quick = { HEARTBEAT_MS: '1000', TASK_ACK_TIMEOUT_MS: '1500', TASK_PROGRESS_WINDOW_MS: '3000', TASK_BACKOFF_MS: '200', TASK_MAX_ATTEMPTS: '5' };
const quickSettings = { heartbeatMs: 1000, ackTimeoutMs: 1500, progressWindowMs: 3000, backoffBaseMs: 200, maxAttempts: 5 };

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitFor<T>(check: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(200);
  }
}

/** A redis-server of the test's own, on a free port. */
export class OwnRedis {
  private process: ChildProcess | undefined;
  readonly url: string;

  private constructor(readonly port: number) {
    this.url = `redis://127.0.0.1:${port}`;
  }

  static async start(): Promise<OwnRedis> {
    const redis = new OwnRedis(await freePort());
    await redis.up();
    return redis;
  }

  async up(): Promise<void> {
    this.process = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction'],
      { stdio: 'ignore' },
    );
    await waitFor(async () => (await this.cli('ping').catch(() => '')).trim() === 'PONG', 'redis to start', 10_000);
  }

  async down(): Promise<void> {
    const process = this.process;
    this.process = undefined;
    if (!process || process.exitCode !== null) return;
    const exited = new Promise((resolve) => process.once('exit', resolve));
    process.kill('SIGKILL');
    await exited;
  }

  cli(...args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      const child = spawn('redis-cli', ['-p', String(this.port), ...args]);
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.once('error', reject);
      child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`redis-cli ${args.join(' ')} exited ${code}`))));
    });
  }
}

/** A fresh PostgreSQL database, migrated. */
export async function ownDatabase(): Promise<{ url: string; database: Database; drop(): Promise<void> }> {
  const base = process.env.DATABASE_URL!;
  const name = `farm_fault_${randomBytes(5).toString('hex')}`;
  const admin = await openDatabase({ kind: 'postgres', url: base, poolSize: 1 });
  await admin.exec(`CREATE DATABASE ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  const database = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 10 });
  await migrate(database);
  return {
    url: url.toString(),
    database,
    async drop() {
      await database.close();
      await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
    },
  };
}

/** A workers process (the distributed mode's), which the test may kill. */
export function startWorker(databaseUrl: string, redisUrl: string): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: workersDir,
    // Several workers processes run at once on this machine: each takes a free health port.
    env: { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, HEALTH_PORT: '0', ...quick },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.resume();
  child.stderr?.resume();
  return child;
}

export async function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

/** An API instance on the given database and Redis, serving HTTP and sockets on a free port (no workers inside it). */
export async function startApi(database: Database, databaseUrl: string, redisUrl: string) {
  const dataDir = await mkdtemp(join(tmpdir(), 'farm-fault-'));
  const config = testConfig(dataDir, { databaseUrl, redisUrl, readCacheMs: 0, runWorkers: false, automation: quickSettings });
  const app = await buildApp({ config, database });
  const url = await listen(app);
  return {
    app,
    url,
    async close() {
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Farm {
  operator: Client;
  phones: { deviceId: string; accountId: string; phone: SimulatedPhone; journal: Journal }[];
}

/** An operator, `count` phones each holding one account and running the reference agent (protocol 2). */
export async function farm(app: Awaited<ReturnType<typeof startApi>>, count: number, options: { workMs?: number } = {}): Promise<Farm> {
  const operator = await signUp(app.app, { role: 'operator', name: 'Olga Operator' });
  const phones: Farm['phones'] = [];
  for (let i = 0; i < count; i += 1) {
    const device = await operator.post('/api/devices', { name: `Pixel ${i + 1}` });
    const account = await operator.post('/api/accounts', { username: `acct_${i + 1}`, platform: 'instagram', deviceId: device.body.id, status: 'active' });
    const credential = await operator.post(`/api/devices/${device.body.id}/credentials`);
    const journal = new Journal();
    const phone = new SimulatedPhone({ url: app.url, token: credential.body.token, journal, workMs: options.workMs ?? 60, reconnectionDelayMs: 200 });
    phones.push({ deviceId: device.body.id, accountId: account.body.id, phone, journal });
  }
  await waitFor(async () => phones.every((p) => p.phone.connected), 'every phone to connect', 20_000);
  return { operator, phones };
}

/** How many times each task was really carried out on a phone (a completed run in a journal), across the farm. */
export function publishes(f: Farm): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { journal } of f.phones) {
    for (const [taskId, runs] of journal.completedRuns()) counts.set(taskId, (counts.get(taskId) ?? 0) + runs);
  }
  return counts;
}

/** Posts scheduled straight into the database (faster than the API for hundreds), due at `at`. */
export async function schedule(database: Database, workspaceId: string, accountIds: string[], count: number, at: Date) {
  const rows = Array.from({ length: count }, (_, i) => ({
    workspaceId,
    accountId: accountIds[i % accountIds.length]!,
    caption: `Post ${i}`,
    status: 'scheduled' as const,
    scheduledAt: at,
  }));
  const ids: string[] = [];
  for (let i = 0; i < rows.length; i += 500)
    ids.push(
      ...(
        await database.db
          .insertInto('posts')
          .values(rows.slice(i, i + 500))
          .returning('id')
          .execute()
      ).map((row) => row.id),
    );
  return ids;
}

/**
 * The end state every fault test asserts: each post is published once (one completed task, one publish on a phone)
 * or failed with a reason; none is stuck; no task was carried out twice.
 */
export async function verdict(database: Database, f: Farm, postIds: string[]) {
  const posts = await database.db.selectFrom('posts').select(['id', 'status', 'failureCode']).where('id', 'in', postIds).execute();
  const tasks = await database.db.selectFrom('tasks').select(['id', 'postId', 'status']).where('postId', 'in', postIds).execute();
  const done = publishes(f);
  const publishedOnPhones = new Map<string, number>();
  for (const task of tasks) publishedOnPhones.set(task.postId!, (publishedOnPhones.get(task.postId!) ?? 0) + (done.get(task.id) ?? 0));
  return {
    published: posts.filter((post) => post.status === 'published').length,
    failedWithReason: posts.filter((post) => post.status === 'failed' && post.failureCode !== null).length,
    failedWithoutReason: posts.filter((post) => post.status === 'failed' && post.failureCode === null).length,
    stuck: posts.filter((post) => post.status === 'scheduled').length,
    publishedTwice: [...publishedOnPhones.values()].filter((count) => count > 1).length,
    tasksRunTwice: [...done.values()].filter((count) => count > 1).length,
    publishedWithoutRun: posts.filter((post) => post.status === 'published' && (publishedOnPhones.get(post.id) ?? 0) !== 1).length,
  };
}
