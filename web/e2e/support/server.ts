/**
 * Starts the API from the repository root on the embedded database (a fresh PGlite data dir), whatever the
 * caller's environment says: no PostgreSQL, no Redis, no public URL. The run's own server (global-setup.ts) and
 * the specs that need a server of their own (the demo farm) both start it here.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const rootDir = fileURLToPath(new URL('../../../', import.meta.url));
export const WEB_DIST = join(rootDir, 'web', 'dist');

export interface RunningApi {
  baseURL: string;
  dataDir: string;
  stop(): Promise<void>;
}

/** A port nobody listens on now. */
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

async function waitForApi(baseURL: string, exited: () => boolean, logFile: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline && !exited()) {
    try {
      if ((await fetch(`${baseURL}/api/config`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const log = existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-4000) : '(no log)';
  throw new Error(`The API did not start on ${baseURL}. Last output:\n${log}`);
}

/** Starts the API on `port`, its output into `logFile`; `env` adds to (or overrides) the test defaults. */
export async function startApi(options: { port: number; logFile: string; env?: Record<string, string> }): Promise<RunningApi> {
  const baseURL = `http://127.0.0.1:${options.port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'farm-e2e-'));
  const log = openSync(options.logFile, 'w');
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'PUBLIC_URL', 'SESSION_SECRET']) delete env[name];
  Object.assign(env, {
    NODE_ENV: 'development',
    PORT: String(options.port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DEMO: '0',
    LOG_LEVEL: 'warn',
    WEB_DIST,
    // Every browser of the run comes from one address and signs up many people: the request limits are off here
    // (their own tests are the API's); failed logins are counted as in production.
    RATE_LIMIT_SIGNUP: 'off',
    RATE_LIMIT_LOGIN: 'off',
    RATE_LIMIT_UPLOADS: 'off',
    RATE_LIMIT_WRITES: 'off',
    ...options.env,
  });

  const server = spawn(process.execPath, ['--import', 'tsx', 'api/src/server.ts'], { cwd: rootDir, env, stdio: ['ignore', log, log] });
  let exited = false;
  const stopped = new Promise<void>((resolve) =>
    server.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const stop = async () => {
    if (!exited) {
      server.kill('SIGTERM');
      const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
      await stopped;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitForApi(baseURL, () => exited, options.logFile);
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseURL, dataDir, stop };
}
