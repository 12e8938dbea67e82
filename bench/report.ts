/**
 * One run of the production figures: bench:api (read cache on and off), bench:realtime and bench:scheduler's
 * scale-out rounds, one after another on this machine, then a summary where each figure stands as a ratio to the
 * baseline its own bench measured in the same run (a bare route, a bare Socket.IO relay, one API and one worker).
 * Each bench prints its full table as it goes.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';

const out = mkdtempSync(join(tmpdir(), 'farm-bench-'));
const here = new URL('.', import.meta.url).pathname;

function run<T>(name: string, script: string, env: Record<string, string> = {}): T {
  const json = join(out, `${name}.json`);
  console.log(`\n== ${name}`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: here, stdio: 'inherit', env: { ...process.env, ...env, BENCH_JSON: json } });
  if (result.status !== 0) throw new Error(`${name} exited with ${result.status}`);
  return JSON.parse(readFileSync(json, 'utf8')) as T;
}

interface ApiRow {
  name: string;
  p99: number;
  rps: number;
  api: number;
  pg: number;
}
interface Delivery {
  p50: number;
  p99: number;
}
interface Round {
  apis: number;
  workers: number;
  dispatchedP99: number;
  publishedP99: number;
  lost: number;
  doubled: number;
}

const api = run<{ cached: ApiRow[]; uncached: ApiRow[] }>('api', 'api/run.ts');
const realtime = run<{ phones: number; browsers: number; baseline: Delivery; product: Delivery }>('realtime', 'realtime/run.ts');
const scheduler = run<{ posts: number; phones: number; results: Round[] }>('scheduler', 'scheduler/run.ts');

const x = (value: number, base: number) => `${(value / Math.max(base, 1e-9)).toFixed(1)}×`;
console.log(`\n# Production figures, one run (${cpus().length} cores; load, servers, PostgreSQL and Redis share them)\n`);
console.log('## API reads at the large farm (64 connections)\n');
console.log('| endpoint | cache on p99 ms (÷ bare) | cache off p99 ms (÷ bare) | cache off req/s (÷ signed-in) | cache off CPU ms/req, API + PostgreSQL |');
console.log('|---|---|---|---|---|');
const [bareOn, , bytesOn] = api.cached;
const [bareOff, signedIn] = api.uncached;
for (const [i, off] of api.uncached.entries()) {
  const on = api.cached[i]!;
  console.log(
    `| ${off.name} | ${on.p99} (${x(on.p99, bareOn!.p99)}) | ${off.p99} (${x(off.p99, bareOff!.p99)}) | ${off.rps.toFixed(0)} (${(off.rps / signedIn!.rps).toFixed(2)}) | ${off.api.toFixed(2)} + ${off.pg.toFixed(2)} |`,
  );
}
const devicesOn = api.cached.find((row) => row.name === 'GET /api/devices');
if (devicesOn && bytesOn) {
  console.log(`\nGET /api/devices, cache on, p99 ÷ a bare route answering as many bytes: ${x(devicesOn.p99, bytesOn.p99)}`);
}

console.log(`\n## Realtime: ${realtime.phones} phones heartbeating, ${realtime.browsers} browsers\n`);
console.log('| path | p50 ms | p99 ms | p99 ÷ bare |');
console.log('|---|---|---|---|');
console.log(`| bare Socket.IO relay (baseline) | ${realtime.baseline.p50.toFixed(1)} | ${realtime.baseline.p99.toFixed(1)} | 1.0× |`);
console.log(
  `| heartbeat → database → browser | ${realtime.product.p50.toFixed(1)} | ${realtime.product.p99.toFixed(1)} | ${x(realtime.product.p99, realtime.baseline.p99)} |`,
);

console.log(`\n## Scale-out: ${scheduler.posts} posts due at once over ${scheduler.phones} phones\n`);
console.log('| APIs + workers | due → dispatched p99 ms | due → published p99 ms | published p99 ÷ 1 + 1 | lost | doubled |');
console.log('|---|---|---|---|---|---|');
const single = scheduler.results[0]!;
for (const r of scheduler.results) {
  console.log(`| ${r.apis} + ${r.workers} | ${r.dispatchedP99} | ${r.publishedP99} | ${x(r.publishedP99, single.publishedP99)} | ${r.lost} | ${r.doubled} |`);
}
