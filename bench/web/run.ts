/**
 * The landing page's weight and speed. Builds the console with a manifest, then:
 *
 * - sizes, gzip -9, of the JavaScript a browser loads, from the manifest: for the landing (the entry, its static
 *   imports, which the page preloads, and the landing page's own chunk and its imports if the build gives it one), for
 *   the signed-in console's providers with the shell and the dashboard, and all chunks together;
 * - the landing as a visitor gets it: the built console served by a small static server in this process (any path
 *   not a file answers index.html, as the API does; the API's routes answer as for a signed-out visitor, 401), opened
 *   cold in headless Chromium (a fresh context each time) until the "Get Started" call to action is on screen. It
 *   records the time from navigation start to that moment and every script fetched before it (their gzip size is
 *   `landingFetchedKb`, so a chunk the landing waits for is counted whether or not the manifest says so);
 * - the baseline, in the same run with the same server and browser: a bare HTML page holding one "Get Started"
 *   button, timed the same way.
 *
 * Budgets: landing ≤ 150 KB (both counts), the call to action on screen within 1 s; shell + dashboard ≤ 350 KB.
 *
 * With BENCH_JSON set, writes there:
 *   { landingKb, landingFetchedKb, dashboardKb, allKb,   // KB, gzip -9
 *     ctaMs, bareMs, ctaRatio,                           // medians of the cold loads; ctaRatio = ctaMs / bareMs
 *     fetched: string[], api: string[] }                 // scripts fetched before the call to action; API calls made
 * BENCH_LOADS (default 5) sets how many cold loads of each page; BENCH_NO_BUILD=1 measures the current web/dist.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Browser } from '../../web/node_modules/playwright-core/index.js';

interface Chunk {
  file: string;
  imports?: string[];
  isEntry?: boolean;
  css?: string[];
}

const web = fileURLToPath(new URL('../../web/', import.meta.url));
const outDir = join(web, 'dist');
const loads = Number(process.env.BENCH_LOADS ?? 5);
if (process.env.BENCH_NO_BUILD !== '1') execFileSync('pnpm', ['exec', 'vite', 'build', '--manifest'], { cwd: web, stdio: 'inherit' });
const manifest = JSON.parse(readFileSync(join(outDir, '.vite', 'manifest.json'), 'utf8')) as Record<string, Chunk>;

// ---- Sizes from the manifest -------------------------------------------------------------------------------------

function closure(keys: string[]): Set<string> {
  const files = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (!chunk || files.has(chunk.file)) return;
    files.add(chunk.file);
    for (const next of chunk.imports ?? []) visit(next);
  };
  keys.forEach(visit);
  return files;
}

const gzipped = (files: Iterable<string>) =>
  [...files].filter((f) => f.endsWith('.js')).reduce((sum, f) => sum + gzipSync(readFileSync(join(outDir, f)), { level: 9 }).length, 0);
const find = (fragment: string) => {
  const key = Object.keys(manifest).find((k) => k.includes(fragment));
  if (!key) throw new Error(`no chunk for ${fragment} in the manifest`);
  return key;
};
/** The chunks whose source path contains one of the fragments, when the build has them. */
const present = (...fragments: string[]) => fragments.flatMap((fragment) => Object.keys(manifest).filter((k) => k.includes(fragment)));

const entry = Object.keys(manifest).find((k) => manifest[k]?.isEntry)!;
// The landing page's chunk, when it is not part of the entry.
const landing = gzipped(closure([entry, ...present('features/landing/LandingPage')]));
// The signed-in console's providers and routes, wherever the build puts them, then the shell and the dashboard.
const dashboard = gzipped(closure([entry, ...present('app/console/'), find('app/shell/ShellLayout'), find('features/dashboard/DashboardPage')]));
const all = gzipped(new Set(Object.values(manifest).map((c) => c.file)));

// ---- The landing in a browser ------------------------------------------------------------------------------------

const BARE = '/__bench/bare.html';
const barePage = `<!doctype html>
<html lang="en"><head><meta charset="UTF-8" /><meta name="viewport" content="width=device-width, initial-scale=1.0" /><title>Bare</title></head>
<body><button type="button">Get Started</button></body></html>`;

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.webmanifest': 'application/manifest+json',
};

/** API calls and Socket.IO handshakes the landing made; a signed-out visitor's answers. */
const apiCalls: string[] = [];
const server = createServer((request, response) => {
  const path = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
  if (path === BARE) {
    response.writeHead(200, { 'content-type': types['.html']! }).end(barePage);
    return;
  }
  if (path.startsWith('/api/') || path.startsWith('/socket.io')) {
    apiCalls.push(`${request.method} ${path}`);
    response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Not signed in' }));
    return;
  }
  const file = join(outDir, normalize(path).replace(/^(\.\.[/\\])+/, ''));
  const isFile = file.startsWith(outDir) && existsSync(file) && statSync(file).isFile();
  const served = isFile ? file : join(outDir, 'index.html');
  response.writeHead(200, { 'content-type': types[extname(served)] ?? 'application/octet-stream', 'cache-control': 'no-cache' });
  response.end(readFileSync(served));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/**
 * Runs in the page from its first moment: on every frame, looks for a "Get Started" link or button laid out inside
 * the viewport and visible; the first frame it is there, keeps the time since navigation start.
 */
const watchForCta = `(() => {
  const visible = (el) => {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0 || box.bottom <= 0 || box.top >= innerHeight) return false;
    const style = getComputedStyle(el);
    return style.visibility !== 'hidden' && Number(style.opacity) > 0;
  };
  const look = () => {
    for (const el of document.querySelectorAll('a, button')) {
      if (el.textContent.trim() === 'Get Started' && visible(el)) {
        window.__ctaAt = performance.now();
        return;
      }
    }
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})()`;

/** The scripts the page started fetching before the call to action was on screen, by path. */
const scriptsBeforeCta = `performance.getEntriesByType('resource')
  .filter((e) => e.startTime <= window.__ctaAt && new URL(e.name).pathname.endsWith('.js'))
  .map((e) => new URL(e.name).pathname)`;

async function load(browser: Browser, path: string): Promise<{ ms: number; scripts: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    await page.addInitScript(watchForCta);
    await page.goto(origin + path, { waitUntil: 'commit' });
    await page.waitForFunction('window.__ctaAt !== undefined', undefined, { timeout: 30_000, polling: 50 });
    // Scripts requested just before the call to action may still be arriving; their entries appear when they end.
    await page.waitForLoadState('load');
    const ms = (await page.evaluate('window.__ctaAt')) as number;
    const scripts = (await page.evaluate(scriptsBeforeCta)) as string[];
    return { ms, scripts };
  } finally {
    await context.close();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

const requireFromWeb = createRequire(join(web, 'package.json'));
const { chromium } = requireFromWeb('playwright-core') as typeof import('../../web/node_modules/playwright-core/index.js');
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
const appMs: number[] = [];
const bareMs: number[] = [];
const fetched = new Set<string>();
try {
  // One unmeasured load of each warms the server and the browser process, not the pages: every context is fresh.
  await load(browser, BARE);
  await load(browser, '/');
  apiCalls.length = 0;
  for (let i = 0; i < loads; i++) {
    bareMs.push((await load(browser, BARE)).ms);
    const run = await load(browser, '/');
    appMs.push(run.ms);
    for (const script of run.scripts) fetched.add(script.replace(/^\//, ''));
  }
} finally {
  await browser.close();
  server.close();
}

const landingFetched = gzipped(fetched);
const ctaMs = median(appMs);
const bare = median(bareMs);
const kb = (bytes: number) => bytes / 1024;
const api = [...new Set(apiCalls)];

const row = (label: string, value: string, budget = '', share = '') => console.log(`${label.padEnd(34)}${value.padStart(10)}   ${budget.padEnd(16)}${share}`);
console.log('\nweb landing (gzip -9 of the JavaScript a browser loads; times are medians of cold loads)');
row('landing JS, entry + landing chunks', `${kb(landing).toFixed(1)} KB`, 'budget 150 KB', `${(kb(landing) / 150).toFixed(2)} of budget`);
row('landing JS fetched before the CTA', `${kb(landingFetched).toFixed(1)} KB`, 'budget 150 KB', `${(kb(landingFetched) / 150).toFixed(2)} of budget`);
row('shell + dashboard JS', `${kb(dashboard).toFixed(1)} KB`, 'budget 350 KB', `${(kb(dashboard) / 350).toFixed(2)} of budget`);
row('every chunk together', `${kb(all).toFixed(1)} KB`);
row(`"Get Started" on screen (${loads} loads)`, `${ctaMs.toFixed(0)} ms`, 'budget 1000 ms', `${(ctaMs / bare).toFixed(1)}× the bare page`);
row('bare page, one button (baseline)', `${bare.toFixed(0)} ms`);
console.log(`  each load, landing: ${appMs.map((ms) => ms.toFixed(0)).join(' ')} ms; bare: ${bareMs.map((ms) => ms.toFixed(0)).join(' ')} ms`);
console.log(`  scripts before the CTA (${fetched.size}): ${[...fetched].map((f) => f.replace(/^assets\//, '')).join(', ')}`);
console.log(`  API calls from the landing: ${api.length ? api.join(', ') : 'none'}`);

if (process.env.BENCH_JSON) {
  const result = {
    landingKb: Number(kb(landing).toFixed(1)),
    landingFetchedKb: Number(kb(landingFetched).toFixed(1)),
    dashboardKb: Number(kb(dashboard).toFixed(1)),
    allKb: Number(kb(all).toFixed(1)),
    ctaMs: Math.round(ctaMs),
    bareMs: Math.round(bare),
    ctaRatio: Number((ctaMs / bare).toFixed(2)),
    fetched: [...fetched],
    api,
  };
  writeFileSync(process.env.BENCH_JSON, JSON.stringify(result));
}
