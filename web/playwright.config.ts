/**
 * Browser tests: Debian's Chromium against the real API (embedded PGlite, fresh data dir per run) serving the
 * built console on one port. e2e/global-setup.ts builds the web, starts the API and stops it afterwards.
 */
import { execFileSync } from 'node:child_process';
import { defineConfig, devices } from '@playwright/test';

/**
 * The API's port, chosen once in the runner process: 3411 when free, otherwise any free port. Kept in the
 * environment so the worker processes, which load this file again, agree on it.
 */
function apiPort(): number {
  const chosen = process.env.E2E_PORT;
  if (chosen) return Number(chosen);
  const probe = `
    const net = require('node:net');
    const attempt = (port) => {
      const server = net.createServer();
      server.once('error', () => (port === 0 ? process.exit(1) : attempt(0)));
      server.listen(port, '127.0.0.1', () => {
        process.stdout.write(String(server.address().port));
        server.close();
      });
    };
    attempt(Number(process.argv[1]));`;
  const port = Number(execFileSync(process.execPath, ['-e', probe, '3411'], { encoding: 'utf8' }).trim());
  process.env.E2E_PORT = String(port);
  return port;
}

const port = apiPort();
process.env.E2E_BASE_URL = `http://127.0.0.1:${port}`;
const ci = Boolean(process.env.CI);

export default defineConfig({
  testDir: './e2e',
  testMatch: '**/*.spec.ts',
  outputDir: 'test-results/artifacts',
  globalSetup: './e2e/global-setup.ts',
  fullyParallel: false,
  // Two files at a time (each worker seeds its own farm): the browser and the API take turns on a 2-core machine,
  // and the run takes 10 minutes instead of 25. E2E_WORKERS=1 runs one at a time.
  workers: Number(process.env.E2E_WORKERS ?? 2),
  retries: ci ? 1 : 0,
  forbidOnly: ci,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list'], ['json', { outputFile: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ?? 'test-results/e2e.json' }]],
  use: {
    ...devices['Desktop Chrome'],
    baseURL: process.env.E2E_BASE_URL,
    viewport: { width: 1280, height: 800 },
    headless: true,
    locale: 'en-US',
    timezoneId: 'UTC',
    actionTimeout: 10_000,
    navigationTimeout: 20_000,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    },
  },
});
