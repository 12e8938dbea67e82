/**
 * Once per run: build the console (unless E2E_SKIP_BUILD=1), start the API from the repository root on
 * E2E_PORT with a fresh PGlite data dir and no demo data, and return the teardown that stops it and
 * removes the data dir. The API's own output goes to test-results/e2e-api.log.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCREENSHOT_DIR } from './support/screenshots';

const webDir = fileURLToPath(new URL('..', import.meta.url));
const rootDir = join(webDir, '..');
const distDir = join(webDir, 'dist');

function buildWeb(): void {
  if (process.env.E2E_SKIP_BUILD === '1' && existsSync(join(distDir, 'index.html'))) return;
  console.log('e2e: building the web console (vite build)...');
  const result = spawnSync('pnpm', ['exec', 'vite', 'build', '--logLevel', 'warn'], { cwd: webDir, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`vite build failed (exit ${result.status ?? 'signal'})`);
}

async function waitForApi(baseURL: string, exited: () => boolean, logFile: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (exited()) break;
    try {
      const response = await fetch(`${baseURL}/api/config`);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const log = existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-4000) : '(no log)';
  throw new Error(`The API did not start on ${baseURL}. Last output:\n${log}`);
}

/** Says once, at the end, where this run's screenshots are (if it took any). */
function printScreenshotFolder(since: number): void {
  if (!existsSync(SCREENSHOT_DIR)) return;
  const fresh = readdirSync(SCREENSHOT_DIR).filter((file) => file.endsWith('.png') && statSync(join(SCREENSHOT_DIR, file)).mtimeMs >= since);
  if (fresh.length > 0) console.log(`e2e: ${fresh.length} screenshots in ${SCREENSHOT_DIR}`);
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  const port = process.env.E2E_PORT;
  const baseURL = process.env.E2E_BASE_URL;
  if (!port || !baseURL) throw new Error('playwright.config.ts sets E2E_PORT and E2E_BASE_URL');

  buildWeb();

  const dataDir = mkdtempSync(join(tmpdir(), 'farm-e2e-'));
  const resultsDir = join(webDir, 'test-results');
  mkdirSync(resultsDir, { recursive: true });
  const logFile = join(resultsDir, 'e2e-api.log');
  const log = openSync(logFile, 'w');

  // Embedded mode whatever the caller's environment says: no PostgreSQL, no Redis, no public URL.
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'PUBLIC_URL', 'SESSION_SECRET']) delete env[name];
  Object.assign(env, {
    NODE_ENV: 'development',
    PORT: port,
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DEMO: '0',
    LOG_LEVEL: 'warn',
    WEB_DIST: distDir,
    // Every browser of the run comes from one address and signs up many people: the request limits are off here
    // (their own tests are the API's); failed logins are counted as in production.
    RATE_LIMIT_SIGNUP: 'off',
    RATE_LIMIT_LOGIN: 'off',
    RATE_LIMIT_UPLOADS: 'off',
    RATE_LIMIT_WRITES: 'off',
  });

  const server = spawn(process.execPath, ['--import', 'tsx', 'api/src/server.ts'], {
    cwd: rootDir,
    env,
    stdio: ['ignore', log, log],
  });
  let exited = false;
  const stopped = new Promise<void>((resolve) =>
    server.once('exit', () => {
      exited = true;
      resolve();
    }),
  );

  const startedAt = Date.now();
  const teardown = async () => {
    printScreenshotFolder(startedAt);
    if (!exited) {
      server.kill('SIGTERM');
      const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
      await stopped;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    await waitForApi(baseURL, () => exited, logFile);
  } catch (error) {
    await teardown();
    throw error;
  }
  console.log(`e2e: API on ${baseURL} (PGlite in ${dataDir}, log ${logFile})`);
  return teardown;
}
