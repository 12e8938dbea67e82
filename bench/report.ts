/**
 * Every production figure in one run: bench:api (reads, cache on and off), bench:scheduler (10,000 posts due at
 * once, 1 API + 1 worker and 2 + 2), bench:realtime (10,000 phones and 500 browsers on one API), bench:web (the
 * landing's JavaScript and its call to action), bench:host (one farm host with 28 phones), bench:live (live
 * screens), bench:group (a leader's tap on 30 phones) and bench:group-decode (group control's 31 pictures decoded in
 * Chromium), one after another on this machine. Each bench prints its own table as it goes; the report ends with one
 * summary where each figure stands beside the baseline its bench measured in the same run, as a ratio, with its
 * target and whether it was met.
 *
 * BENCH_ONLY=api,web runs some of them. The benches' own knobs (BENCH_PHONES, ...) are set here to the targets'
 * scale; the environment cannot change them for one bench without changing them for all, so run a bench alone to
 * try another scale.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';

const out = mkdtempSync(join(tmpdir(), 'farm-bench-'));
const here = new URL('.', import.meta.url).pathname;
const only = new Set((process.env.BENCH_ONLY ?? 'api,scheduler,realtime,web,host,live,group,group-decode').split(',').map((name) => name.trim()));

/** Runs one bench in a process of its own with `env`; answers what it wrote to BENCH_JSON, or undefined when it failed. */
function run<T>(name: string, script: string, env: Record<string, string> = {}): T | undefined {
  if (!only.has(name)) return undefined;
  const json = join(out, `${name}.json`);
  console.log(`\n== ${name}`);
  const started = Date.now();
  const result = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: here, stdio: 'inherit', env: { ...process.env, ...env, BENCH_JSON: json } });
  console.log(`== ${name}: ${Math.round((Date.now() - started) / 1000)} s, exit ${result.status}`);
  if (result.status !== 0 || !existsSync(json)) {
    failed.push(name);
    return undefined;
  }
  return JSON.parse(readFileSync(json, 'utf8')) as T;
}
const failed: string[] = [];

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
  lastDispatched: number;
  publishedP99: number;
  lost: number;
  doubled: number;
}
interface WebFigures {
  landingKb: number;
  landingFetchedKb: number;
  dashboardKb: number;
  ctaMs: number;
  bareMs: number;
}
interface HostPhase {
  cpuPctPerPhone: number;
}
interface HostFigures {
  phones: number;
  idle: { host: HostPhase; bare: HostPhase };
  working: { host: HostPhase; bare: HostPhase };
  memory: { host: { baseMb: number; perPhoneIdleMb: number; perPhoneWorkingMb: number }; bare: { baseMb: number; perPhoneMb: number } };
}
interface LiveResult {
  fpsMean: number;
  inputAckP99: number;
  inputToFrameP99: number;
  cpuPercent: number;
}

const api = run<{ cached: ApiRow[]; uncached: ApiRow[] }>('api', 'api/run.ts');
const scheduler = run<{ posts: number; phones: number; bare: Delivery; results: Round[] }>('scheduler', 'scheduler/run.ts', { BENCH_ROUNDS: '1+1,2+2' });
// A point of battery a minute per phone (every 30th heartbeat), more often than a farm's phones change it: only what
// changes a screen is pushed (ARCHITECTURE.md), and a change at every heartbeat would be 2.5 million messages a second.
const realtime = run<{ phones: number; browsers: number; changeEvery: number; baseline: Delivery; product: Delivery }>('realtime', 'realtime/run.ts', {
  BENCH_PHONES: '10000',
  BENCH_BROWSERS: '500',
  BENCH_CHANGE_EVERY: '30',
});
const web = run<WebFigures>('web', 'web/run.ts');
const host = run<HostFigures>('host', 'host/run.ts');
const live = run<{ phones: number; watchers: number; baseline: LiveResult; product: LiveResult }>('live', 'live/run.ts');
interface GroupDecodePage {
  followerFpsMin: number | null;
  followerWorstSecond: number | null;
  leaderFps: number | null;
  leaderWorstSecond: number | null;
  chromiumCpuPct: number;
}
const groupTap = run<{
  followers: number;
  aimMs: number;
  kinds: { kind: string; lastP50: number; lastP99: number; singleP50: number; complete: number; actions: number }[];
}>('group', 'group/run.ts');
const groupDecode = run<{ followers: number; one: GroupDecodePage; leaderAlone: GroupDecodePage; group: GroupDecodePage }>('group-decode', 'group/decode.ts');

/** One line of the summary: what, the figure, the baseline, the ratio, the target, met or not. */
const rows: string[][] = [];
const ratio = (value: number, base: number) => (Number.isFinite(value) && base > 0 ? `${(value / base).toFixed(1)}×` : '—');
function row(what: string, value: string, baseline: string, times: string, target: string, met: boolean | undefined): void {
  rows.push([what, value, baseline, times, target, met === undefined ? '—' : met ? 'met' : 'missed']);
}

if (api) {
  const [bareOff, signedIn] = api.uncached;
  // What no read goes below on this machine: the session lookup alone, and one trivial statement with no session.
  for (const floor of api.uncached.filter((r, i) => i === 1 || r.name.includes('one statement'))) {
    row(`floor, cache off: ${floor.name}`, `p99 ${floor.p99} ms`, `bare route p99 ${bareOff!.p99} ms`, ratio(floor.p99, bareOff!.p99), '—', undefined);
  }
  // The first two rows are the bare route and a trivial signed-in one; other bare rows are baselines too.
  for (const off of api.uncached.filter((r, i) => i > 1 && !r.name.startsWith('bare'))) {
    const multiple = off.p99 / Math.max(bareOff!.p99, 1e-9);
    row(
      `read, cache off: ${off.name}`,
      `p99 ${off.p99} ms`,
      `bare route p99 ${bareOff!.p99} ms (signed-in ${signedIn!.p99} ms: ${ratio(off.p99, signedIn!.p99)} it)`,
      ratio(off.p99, bareOff!.p99),
      '≤ 3× bare',
      multiple <= 3,
    );
  }
}
if (scheduler) {
  for (const r of scheduler.results) {
    row(
      `${scheduler.posts} posts due at once, ${r.apis} API + ${r.workers} workers`,
      `last dispatched ${(r.lastDispatched / 1000).toFixed(1)} s; lost ${r.lost}, doubled ${r.doubled}`,
      `bare BullMQ round trip p99 ${scheduler.bare.p99} ms`,
      ratio(r.lastDispatched, scheduler.bare.p99),
      '≤ 10 s, 0 lost, 0 doubled',
      r.lastDispatched <= 10_000 && r.lost === 0 && r.doubled === 0,
    );
  }
}
if (realtime) {
  row(
    `realtime, ${realtime.phones} phones and ${realtime.browsers} browsers (a change every ${realtime.changeEvery} heartbeats): heartbeat → screen`,
    `p99 ${realtime.product.p99.toFixed(0)} ms`,
    `bare Socket.IO relay p99 ${realtime.baseline.p99.toFixed(0)} ms`,
    ratio(realtime.product.p99, realtime.baseline.p99),
    '≤ 250 ms',
    realtime.product.p99 <= 250,
  );
}
if (web) {
  const landing = Math.max(web.landingKb, web.landingFetchedKb);
  row('landing JavaScript (gzip), fetched before the call to action', `${landing.toFixed(1)} KB`, '—', '—', '≤ 150 KB', landing <= 150);
  row(
    'landing: navigation → "Get Started" on screen',
    `${web.ctaMs.toFixed(0)} ms`,
    `bare page ${web.bareMs.toFixed(0)} ms`,
    ratio(web.ctaMs, web.bareMs),
    '≤ 1 s',
    web.ctaMs <= 1000,
  );
  row('shell + dashboard JavaScript (gzip)', `${web.dashboardKb.toFixed(1)} KB`, '—', '—', '≤ 350 KB', web.dashboardKb <= 350);
}
if (host) {
  const { idle, working, memory } = host;
  row(
    `farm host, ${host.phones} phones idle: CPU per phone`,
    `${idle.host.cpuPctPerPhone.toFixed(2)} % of a core`,
    `bare adb loop ${idle.bare.cpuPctPerPhone.toFixed(2)} %`,
    ratio(idle.host.cpuPctPerPhone, idle.bare.cpuPctPerPhone),
    '< 0.5 %',
    idle.host.cpuPctPerPhone < 0.5,
  );
  row(
    `farm host, ${host.phones} phones working: CPU per phone`,
    `${working.host.cpuPctPerPhone.toFixed(2)} % of a core`,
    `bare adb loop ${working.bare.cpuPctPerPhone.toFixed(2)} %`,
    ratio(working.host.cpuPctPerPhone, working.bare.cpuPctPerPhone),
    '< 3 %',
    working.host.cpuPctPerPhone < 3,
  );
  row(
    'farm host: memory per phone (idle / working)',
    `${memory.host.perPhoneIdleMb.toFixed(1)} / ${memory.host.perPhoneWorkingMb.toFixed(1)} MB`,
    // The bare loop's own growth per phone is within the heap's noise (it can read below zero).
    memory.bare.perPhoneMb < 0.1 ? 'bare adb loop under 0.1 MB' : `bare adb loop ${memory.bare.perPhoneMb.toFixed(1)} MB`,
    memory.bare.perPhoneMb < 0.1 ? '—' : ratio(memory.host.perPhoneWorkingMb, memory.bare.perPhoneMb),
    '—',
    undefined,
  );
}
if (live) {
  const { product, baseline } = live;
  row(
    `live screens, ${live.phones} phones × ${live.watchers} watchers: input → answer`,
    `p99 ${product.inputAckP99.toFixed(0)} ms, ${product.fpsMean.toFixed(1)} FPS a watcher`,
    `bare relay p99 ${baseline.inputAckP99.toFixed(0)} ms, ${baseline.fpsMean.toFixed(1)} FPS`,
    ratio(product.inputAckP99, baseline.inputAckP99),
    '—',
    undefined,
  );
}
if (groupTap) {
  for (const kind of groupTap.kinds) {
    row(
      `group control, ${groupTap.followers} followers (${kind.kind === 'adb' ? 'fake adb phones' : 'simulated phones'}): finger → every follower's result`,
      `p50 ${kind.lastP50.toFixed(0)} ms, p99 ${kind.lastP99.toFixed(0)} ms (${kind.complete} of ${kind.actions} actions complete)`,
      `one phone's tap p50 ${kind.singleP50.toFixed(1)} ms`,
      `+${Math.round(kind.lastP50 - kind.singleP50)} ms`,
      `≤ +${groupTap.aimMs} ms at p50`,
      kind.lastP50 - kind.singleP50 <= groupTap.aimMs,
    );
  }
}
if (groupDecode) {
  const { group, one, leaderAlone } = groupDecode;
  const fps = (value: number | null) => (value ?? Number.NaN).toFixed(1);
  row(
    `group control, ${groupDecode.followers} followers + leader in Chromium: each follower's pictures drawn`,
    `min ${fps(group.followerFpsMin)} FPS (worst second ${fps(group.followerWorstSecond)}), Chromium ${group.chromiumCpuPct.toFixed(0)} % of a core`,
    `1 follower alone ${fps(one.followerFpsMin)} FPS`,
    ratio(group.followerFpsMin ?? Number.NaN, one.followerFpsMin ?? 0),
    '≥ 12 of 15 FPS',
    (group.followerFpsMin ?? 0) >= 12,
  );
  row(
    `group control, ${groupDecode.followers} followers + leader in Chromium: the leader's pictures drawn`,
    `${fps(group.leaderFps)} FPS (worst second ${fps(group.leaderWorstSecond)})`,
    `leader alone ${fps(leaderAlone.leaderFps)} FPS`,
    ratio(group.leaderFps ?? Number.NaN, leaderAlone.leaderFps ?? 0),
    '≥ 25 of 30 FPS',
    (group.leaderFps ?? 0) >= 25,
  );
}

console.log(`\n# Production figures, one run (${cpus().length} cores; load, servers, PostgreSQL and Redis share them)\n`);
console.log('| figure | measured | baseline (same run) | ÷ baseline | target | |');
console.log('|---|---|---|---|---|---|');
for (const cells of rows) console.log(`| ${cells.join(' | ')} |`);
if (failed.length > 0) console.log(`\nfailed to run: ${failed.join(', ')}`);
process.exit(failed.length > 0 ? 1 : 0);
