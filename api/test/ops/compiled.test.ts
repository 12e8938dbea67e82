/**
 * The production start: the compiled build runs without tsx, answers health and readiness, and leaves cleanly on
 * SIGTERM. On PGlite the embedded default (API with its jobs and the demo farm); on PostgreSQL an API without jobs
 * and a separate workers process, with a Redis of the test's own.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '@farm/sql';
import { startRedis, redisPort, type OwnRedis } from '../helpers/redis-server.ts';

const root = new URL('../../../', import.meta.url).pathname;
const postgres = process.env.TEST_DB === 'postgres';

interface Started {
  child: ChildProcess;
  output: () => string;
}

/** Starts a compiled entry point and waits for the log line that says where it listens. */
async function start(entry: string, env: Record<string, string>, ready: RegExp): Promise<Started & { port: number }> {
  const child = spawn(process.execPath, ['--conditions=compiled', entry], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const match = ready.exec(text);
    if (match) return { child, port: Number(match[1]), output: () => text };
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`${entry} did not start:\n${text}`);
}

/** Sends SIGTERM and answers the exit code and how long the process took to leave. */
async function terminate(child: ChildProcess): Promise<{ code: number | null; ms: number }> {
  const began = Date.now();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return { code: await exited, ms: Date.now() - began };
}

beforeAll(() => {
  const build = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, encoding: 'utf8' });
  expect(build.status, build.stderr).toBe(0);
}, 120_000);

describe.skipIf(postgres)('compiled start, embedded default', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'farm-compiled-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('serves the demo console from compiled files and closes on SIGTERM', async () => {
    const api = await start('api/dist/server.js', { PORT: '0', DATA_DIR: dataDir, DEMO_PHONES: '0' }, /Console ready on http:\/\/localhost:(\d+)/);
    try {
      expect(api.output()).toMatch(/Console ready on http:\/\/localhost:\d+ \(embedded database\) — demo operator operator@demo\.farm/);
      // No access lines outside production: the start line is not buried.
      expect(api.output()).not.toContain('request completed');
      const base = `http://127.0.0.1:${api.port}`;
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const ready = await fetch(`${base}/readyz`);
      expect(await ready.json()).toEqual({ ready: true, checks: { database: 'ok', migrations: 'ok' } });
      const login = await fetch(`${base}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'operator@demo.farm', password: 'demo-operator' }),
      });
      expect(login.status).toBe(200);
    } finally {
      const { code, ms } = await terminate(api.child);
      expect(code).toBe(0);
      expect(ms).toBeLessThan(10_000);
    }
  }, 60_000);
});

describe.skipIf(!postgres)('compiled start, API and workers as separate processes', () => {
  let redis: OwnRedis;
  let databaseUrl: string;
  const name = `farm_compiled_${process.pid}`;
  beforeAll(async () => {
    redis = await startRedis(redisPort(3));
    const admin = await openDatabase({ kind: 'postgres', url: process.env.DATABASE_URL!, poolSize: 1 });
    await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.exec(`CREATE DATABASE ${name}`);
    await admin.close();
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
  }, 60_000);
  afterAll(async () => {
    await redis?.stop();
    const admin = await openDatabase({ kind: 'postgres', url: process.env.DATABASE_URL!, poolSize: 1 });
    await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.close();
  });

  it('runs the API (migrating) and the workers, each ready, each leaving on SIGTERM', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'farm-compiled-'));
    const env = { DATABASE_URL: databaseUrl, REDIS_URL: redis.url, SESSION_SECRET: 'x'.repeat(40), NODE_ENV: 'production' };
    const api = await start('api/dist/server.js', { ...env, PORT: '0', DATA_DIR: dataDir, RUN_WORKERS: '0' }, /Console ready on http:\/\/localhost:(\d+)/);
    const workers = await start('workers/dist/main.js', { ...env, HEALTH_PORT: '0' }, /health on port (\d+)/);
    try {
      const apiReady = await fetch(`http://127.0.0.1:${api.port}/readyz`);
      expect(await apiReady.json()).toEqual({ ready: true, checks: { database: 'ok', migrations: 'ok', redis: 'ok' } });
      const workersReady = await fetch(`http://127.0.0.1:${workers.port}/readyz`);
      expect(await workersReady.json()).toEqual({ ready: true, checks: { database: 'ok', migrations: 'ok', redis: 'ok' } });
      const metrics = await (await fetch(`http://127.0.0.1:${workers.port}/metrics`)).text();
      expect(metrics).toContain('farm_job_duration_seconds');
      // In production every request leaves an access line.
      expect(api.output()).toContain('request completed');
    } finally {
      const stoppedWorkers = await terminate(workers.child);
      const stoppedApi = await terminate(api.child);
      await rm(dataDir, { recursive: true, force: true });
      expect(stoppedWorkers.code).toBe(0);
      expect(stoppedApi.code).toBe(0);
      expect(Math.max(stoppedWorkers.ms, stoppedApi.ms)).toBeLessThan(10_000);
    }
  }, 90_000);
});
