/**
 * Once per run: build the console (unless E2E_SKIP_BUILD=1), start the API from the repository root on
 * E2E_PORT with a fresh PGlite data dir and no demo data, and return the teardown that stops it and
 * removes the data dir. The API's own output goes to test-results/e2e-api.log.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCREENSHOT_DIR } from './support/screenshots';
import { startApi, WEB_DIST } from './support/server';

const webDir = fileURLToPath(new URL('..', import.meta.url));
const distDir = WEB_DIST;

function buildWeb(): void {
  if (process.env.E2E_SKIP_BUILD === '1' && existsSync(join(distDir, 'index.html'))) return;
  console.log('e2e: building the web console (vite build)...');
  const result = spawnSync('pnpm', ['exec', 'vite', 'build', '--logLevel', 'warn'], { cwd: webDir, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`vite build failed (exit ${result.status ?? 'signal'})`);
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

  const resultsDir = join(webDir, 'test-results');
  mkdirSync(resultsDir, { recursive: true });
  const logFile = join(resultsDir, 'e2e-api.log');
  const api = await startApi({ port: Number(port), logFile });
  const startedAt = Date.now();
  console.log(`e2e: API on ${baseURL} (PGlite in ${api.dataDir}, log ${logFile})`);
  return async () => {
    printScreenshotFolder(startedAt);
    await api.stop();
  };
}
